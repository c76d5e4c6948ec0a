"""``twentynine score``: the score sheet of a table that plays with real cards.

One line per deal (``ns 18 took 20``, ``ew 22 failed by 2 pair ns double``,
``single ew made``, ``cancelled``...), answered with the target, the result,
the game points and the running match score with the pips of the sixes.
``edit N ...`` corrects a past deal and scores everything after it again.
Interactive at a terminal; over a pipe or with ``--entry`` it is a script
that stops at the first impossible entry with one line and status 1.
The arithmetic is ``twentynine.game.scoring``'s.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TextIO

from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text

from ..game.rules import PROFILES, Rules, RulesError, format_value, parse_assignments, resolve
from ..game.scoring import (
    ENTRY_SYNTAX,
    SINGLE,
    TEAM_NAMES,
    VOID,
    Line,
    ScoreError,
    Sheet,
    parse_entry,
)

TEAM_SHORT = ("N-S", "E-W")
SCORING_OPTIONS = (
    "min_bid",
    "max_bid",
    "pair",
    "last_trick_point",
    "unrevealed",
    "all_pass",
    "doubling",
    "allow_set",
    "single_hand",
    "under_half",
    "auto_double_from",
    "match_target",
)

EXAMPLES = (
    """examples:
  twentynine score                                  a sheet for the pagat rules, line by line
  twentynine score --profile modern --sheet club.json   kept in a file (and resumed from it)
  twentynine score --entry "ns 18 took 20" --entry "ew 22 failed by 2 pair ns"
  printf 'ns 17 took 19\\new 22 took 20\\n' | twentynine score --json

"""
    + ENTRY_SYNTAX.replace("An entry is one line, e.g.", "entries (one per deal):")
    + """
commands: edit N <entry> (correct deal N), delete N, undo, sheet, rules, help, quit"""
)

HELP = (
    ENTRY_SYNTAX
    + """
Commands:
  edit N <entry>   correct deal N; every later deal is scored again
  delete N, undo   remove deal N, or the last deal
  sheet            the whole sheet        rules   the scoring rules in force
  help, ?          this help              quit    leave (the end of input too)"""
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--profile", help=f"rules: {', '.join(PROFILES)} (default pagat)")
    p.add_argument(
        "--set",
        dest="options",
        action="append",
        default=[],
        metavar="K=V",
        help="override an option, e.g. --set under_half=yes (repeatable)",
    )
    p.add_argument(
        "--sheet",
        metavar="FILE",
        help="keep the sheet in FILE (JSON): read it if it exists, save it after each change",
    )
    p.add_argument(
        "--entry",
        dest="entries",
        action="append",
        default=[],
        metavar="TEXT",
        help="score this deal and finish (repeatable; no questions asked)",
    )
    p.add_argument("--json", action="store_true", help="print the scored sheet as JSON at the end")
    p.add_argument("--ascii", action="store_true", help="letters instead of pips")


class ScoreKeeper:
    """The command loop around a ``Sheet``."""

    def __init__(
        self,
        sheet: Sheet,
        out: Console,
        path: Path | None = None,
        unicode: bool = True,
    ) -> None:
        self.sheet = sheet
        self.out = out
        self.path = path
        self.unicode = unicode

    # ------------------------------------------------------------------ words
    def pips(self, score: int, target: int) -> Text:
        full, empty = ("●", "○") if self.unicode else ("*", ".")
        n = min(abs(score), target)
        style = "bold red" if score > 0 else "bold"
        return Text(full * n, style) + Text(empty * (target - n), "dim")

    def score_text(self) -> Text:
        score = self.sheet.score
        target = self.sheet.rules.match_target
        text = Text("  Score: ")
        for team in (0, 1):
            text.append(f"{TEAM_SHORT[team]} {_signed(score[team])}", "bold")
            if target:
                text.append(" ")
                text.append_text(self.pips(score[team], target))
            text.append("   ")
        winner = self.sheet.winner
        if winner is not None:
            text.append(f"{TEAM_NAMES[winner]} win the match!", "bold green")
        elif target is None:
            text.append("(single deals)", "dim")
        text.rstrip()
        return text

    def line_text(self, number: int, line: Line) -> Text:
        e = line.entry
        text = Text(f"Deal {number}: ")
        if e.kind == VOID:
            text.append("cancelled, nobody scores.")
            return text
        assert e.team is not None
        team = TEAM_SHORT[e.team]
        if e.kind == SINGLE:
            verb = "made" if line.result == "single-made" else "lost"
            text.append(f"{team} single hand {verb}: ")
        else:
            text.append(f"{team} bid {e.bid}")
            if e.doubling > 1:
                text.append(f" x{e.doubling}")
            text.append(f", target {line.target}")
            if e.pair is not None:
                text.append(f" (pair {TEAM_SHORT[e.pair]})")
            if line.capped:
                text.append(f" capped at the maximum {self.sheet.rules.max_bid}", "yellow")
            if line.floored:
                text.append(f" floored at the minimum {self.sheet.rules.min_bid}", "yellow")
            if line.points is not None:
                text.append(f", took {line.points}")
            text.append(": ")
            text.append(line.result, "bold green" if line.result == "made" else "bold red")
            if line.under_half:
                text.append(" under half (double loss)", "red")
            text.append(", ")
        delta = line.delta[e.team]
        text.append(f"{team} {delta:+d}", "bold")
        text.append(f" (stake {line.stake}).", "dim")
        return text

    def show_sheet(self) -> None:
        rules = self.sheet.rules
        t = RichTable(title=f"Score sheet: {rules.profile}", title_justify="left")
        for col in ("#", "bid", "pair", "x", "took", "target", "result", "±", "N-S", "E-W"):
            t.add_column(col, justify="right" if col not in ("result", "bid") else "left")
        for i, line in enumerate(self.sheet.lines, start=1):
            e = line.entry
            if e.kind == VOID:
                t.add_row(str(i), "—", "", "", "", "", "cancelled", "0", *map(_signed, line.score))
                continue
            assert e.team is not None
            team = TEAM_SHORT[e.team]
            bid = f"{team} single" if e.kind == SINGLE else f"{team} {e.bid}"
            pair = TEAM_SHORT[e.pair] if e.pair is not None else ""
            took = "" if line.points is None else str(line.points)
            target = "" if line.target is None else str(line.target)
            result = line.result + (" ½" if line.under_half else "")
            t.add_row(
                str(i),
                bid,
                pair,
                "" if e.doubling == 1 else f"x{e.doubling}",
                took,
                target,
                result,
                _signed(line.delta[e.team]),
                *map(_signed, line.score),
            )
        self.out.print(t)
        self.out.print(self.score_text())

    def show_rules(self) -> None:
        r = self.sheet.rules
        opts = ", ".join(f"{k}={format_value(getattr(r, k))}" for k in SCORING_OPTIONS)
        self.out.print(f"Rules: {r.profile} ({opts})", highlight=False)

    # ------------------------------------------------------------------ commands
    def save(self) -> None:
        if self.path is None:
            return
        try:
            self.path.write_text(json.dumps(self.sheet.to_json(), indent=1) + "\n")
        except OSError as e:
            raise ScoreError("save", f"cannot write {self.path}: {e.strerror or e}") from None

    def command(self, text: str) -> bool:
        """Carry out one command line; False to stop. Raises ``ScoreError``."""
        words = text.strip().split()
        if not words or words[0].startswith("#"):
            return True
        head = words[0].lower()
        if head in ("q", "quit", "exit"):
            return False
        if head in ("?", "help", "h"):
            self.out.print(HELP, highlight=False, markup=False)
            return True
        if head in ("sheet", "show", "list", "ls"):
            self.show_sheet()
            return True
        if head == "rules":
            self.show_rules()
            return True
        if head in ("edit", "fix"):
            if len(words) < 3:
                raise ScoreError("syntax_edit", "write: edit N <entry>, e.g. edit 2 ns 18 took 20")
            n = _deal_number(words[1])
            self.sheet.replace(n - 1, parse_entry(" ".join(words[2:])))
            self.save()
            self.out.print(f"Deal {n} corrected; the sheet is scored again:")
            self.show_sheet()
            return True
        if head in ("delete", "del", "remove", "rm"):
            if len(words) != 2:
                raise ScoreError("syntax_delete", "write: delete N")
            n = _deal_number(words[1])
            self.sheet.delete(n - 1)
            self.save()
            self.out.print(f"Deal {n} deleted.")
            self.out.print(self.score_text())
            return True
        if head == "undo":
            if not self.sheet.entries:
                raise ScoreError("empty", "the sheet is empty")
            self.sheet.delete(len(self.sheet.entries) - 1)
            self.save()
            self.out.print("The last deal is gone.")
            self.out.print(self.score_text())
            return True
        line = self.sheet.add(parse_entry(text))
        self.save()
        self.out.print(self.line_text(len(self.sheet.lines), line))
        self.out.print(self.score_text())
        return True


def _deal_number(word: str) -> int:
    if not word.isdigit() or int(word) < 1:
        raise ScoreError("syntax_number", f"a deal number is 1 or more, not {word!r}")
    return int(word)


def _signed(n: int) -> str:
    return f"{n:+d}" if n else "0"


def _rules(args: argparse.Namespace) -> Rules:
    return resolve(args.profile or "pagat", parse_assignments(args.options))


def load_sheet(args: argparse.Namespace) -> tuple[Sheet, Path | None]:
    if not args.sheet:
        return Sheet(_rules(args)), None
    path = Path(args.sheet)
    if not path.exists():
        return Sheet(_rules(args)), path
    try:
        data = json.loads(path.read_text())
    except OSError as e:
        raise ScoreError("read", f"cannot read {path}: {e.strerror or e}") from None
    except (ValueError, UnicodeDecodeError) as e:
        raise ScoreError("read", f"{path} is not JSON: {e}") from None
    sheet = Sheet.from_json(data)
    if args.profile is not None or args.options:
        wanted = _rules(args)
        if wanted != sheet.rules:
            raise RulesError(
                f"{path} keeps its own rules ({sheet.rules.profile}); "
                "leave out --profile and --set, or start a new file"
            )
    return sheet, path


def run(args: argparse.Namespace, stdin: TextIO | None = None) -> int:
    stdin = stdin or sys.stdin
    try:
        sheet, path = load_sheet(args)
    except ScoreError as e:
        print(f"twentynine score: {e}", file=sys.stderr)
        return 2
    encoding = getattr(sys.stdout, "encoding", None) or "ascii"
    unicode = not args.ascii and _encodes(encoding, "●○")
    console = Console(highlight=False, stderr=False, file=sys.stderr if args.json else sys.stdout)
    keeper = ScoreKeeper(sheet, console, path, unicode)
    interactive = not args.entries and _isatty(stdin)
    status = 0
    if args.entries:
        lines: list[str] = list(args.entries)
        status = _script(keeper, lines)
    elif interactive:
        _interactive(keeper, stdin)
    else:
        status = _script(keeper, (line.rstrip("\n") for line in stdin))
    if args.json:
        print(json.dumps(keeper.sheet.report()))
    return status


def _script(keeper: ScoreKeeper, lines: Iterable[str]) -> int:
    for number, text in enumerate(lines, start=1):
        try:
            if not keeper.command(text):
                break
        except ScoreError as e:
            print(f"twentynine score: line {number}: {e}", file=sys.stderr)
            return 1
    return 0


def _interactive(keeper: ScoreKeeper, stdin: TextIO) -> None:
    r = keeper.sheet.rules
    length = f"match to ±{r.match_target}" if r.match_target else "single deals"
    keeper.out.print(
        f"Score sheet · {r.profile} rules · {length}. One deal per line, e.g. "
        "'ns 18 took 20'; ? for help, q to quit."
    )
    if keeper.sheet.entries:
        keeper.show_sheet()
    while True:
        number = len(keeper.sheet.entries) + 1
        prompt = "match over; edit, sheet or q > " if keeper.sheet.over else f"deal {number} > "
        try:
            text = input(prompt) if stdin is sys.stdin else _readline(stdin, prompt)
        except EOFError:
            print()
            return
        try:
            if not keeper.command(text):
                return
        except ScoreError as e:
            keeper.out.print(Text(f"  ! {e}", "bold red"))


def _readline(stream: TextIO, prompt: str) -> str:
    sys.stdout.write(prompt)
    sys.stdout.flush()
    line = stream.readline()
    if line == "":
        raise EOFError
    return line.rstrip("\n")


def _encodes(encoding: str, text: str) -> bool:
    try:
        text.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
