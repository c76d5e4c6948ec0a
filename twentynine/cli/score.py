"""``twentynine score``: the score sheet of a table that plays with real cards.

One line per deal (``ns 18 took 20``, ``ew 22 failed by 2 pair ns double``,
``single ew made``, ``cancelled``...), answered with the target, the result,
the game points and the running match score with the pips of the sixes.
``edit N ...`` corrects a past deal and scores everything after it again;
``undo`` takes back the last change of any kind. A sheet kept in a file
(``--sheet``) holds its team names, rules and history, so it can be resumed,
listed (``--list``), exported (CSV, JSON) or opened on a phone (``link``).

Input at a terminal and input from a pipe or ``--entry`` follow one rule: a
line that cannot be carried out is reported with its number, changes
nothing, and the next line is read. A script's status is 1 when a line was
refused. The arithmetic is ``twentynine.game.scoring``'s, the sheet
``twentynine.game.scoresheet``'s; the files are ``scorer_files``'.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TextIO, TypeVar

from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text

from ..game.rules import PROFILES, Rules, RulesError, format_value, parse_assignments, resolve
from ..game.scoresheet import Edit, Sheet, read_names, sheet_csv, sheet_link
from ..game.scoring import ENTRY_SYNTAX, SINGLE, TEAM_NAMES, VOID, Line, ScoreError, parse_entry
from .sheets import (
    DEFAULT_BASE,
    FileError,
    list_sheets,
    load_sheet,
    read_file,
    save_sheet,
    sheet_path,
    sheets_dir,
    write_export,
)

T = TypeVar("T")
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

COMMANDS = f"""\
  edit N <entry>      correct deal N; every later deal is scored again
  delete N            remove deal N (undo puts it back)
  undo                take back the last change: a deal, a correction, a deletion,
                      the rules or the names
  history             the changes that undo can take back, the last first
  names A / B         call North-South A and East-West B (names alone shows them)
  rules               the rules in force; rules set K=V ... changes options,
                      rules profile NAME [K=V ...] another profile (refused if a
                      deal of the sheet would not score under them)
  export FILE         write the sheet to FILE.csv or FILE.json
  link [ADDRESS]      a link that opens the sheet in the web app (default {DEFAULT_BASE})
  sheet               the whole sheet        help, ?   this help
  quit                leave (the end of input too)"""

EXAMPLES = (
    """examples:
  twentynine score                                  a sheet for the pagat rules, line by line
  twentynine score --sheet friday --names "Asha & Ravi" "Mina & Jo"   kept in the sheets folder
  twentynine score --list                           the sheets kept: in play, then finished matches
  twentynine score --sheet friday-2 --like friday   the next match: same teams, same rules
  twentynine score --sheet friday --set under_half=yes   change a kept sheet's rules
  twentynine score --profile modern --sheet club.json    kept in a file of your own
  twentynine score --entry "ns 18 took 20" --entry "ew 22 failed by 2 pair ns"
  printf 'ns 17 took 19\\new 22 took 20\\n' | twentynine score --json
  twentynine score --sheet phone --from 'http://host:8029/#score/sheet/eyJ...'   open a shared sheet

"""
    + ENTRY_SYNTAX.replace("An entry is one line, e.g.", "entries (one per deal):")
    + "\ncommands:\n"
    + COMMANDS
    + """

A line that cannot be carried out is reported with its number and changes
nothing; the next line is read. From a pipe or --entry the status is 1 if any
line was refused, 2 if the sheet file or the options cannot be used."""
)

HELP = ENTRY_SYNTAX + "\nCommands:\n" + COMMANDS


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--profile", help=f"rules: {', '.join(PROFILES)} (default pagat)")
    p.add_argument(
        "--set",
        dest="options",
        action="append",
        default=[],
        metavar="K=V",
        help="override an option, e.g. --set under_half=yes (repeatable); over a kept "
        "sheet it changes that sheet's rules",
    )
    p.add_argument(
        "--sheet",
        metavar="NAME|FILE",
        help="keep the sheet: a NAME in the sheets folder, or a FILE (a path, or a name "
        "ending in .json); read if it exists, saved after each change",
    )
    p.add_argument(
        "--dir",
        metavar="DIR",
        help="the sheets folder (default $TWENTYNINE_SHEETS, else "
        "~/.local/share/twentynine/sheets)",
    )
    p.add_argument(
        "--list", action="store_true", help="list the kept sheets and the finished matches"
    )
    p.add_argument(
        "--names", nargs=2, metavar=("NS", "EW"), help="the team names (North-South first)"
    )
    p.add_argument(
        "--from",
        dest="source",
        metavar="LINK|FILE",
        help="start from a shared link or an exported JSON file (with --sheet: kept there)",
    )
    p.add_argument(
        "--like",
        metavar="NAME|FILE",
        help="a new sheet with the team names and rules of this kept one (the next match)",
    )
    p.add_argument(
        "--entry",
        dest="entries",
        action="append",
        default=[],
        metavar="TEXT",
        help="score this deal and finish (repeatable; no questions asked)",
    )
    out = p.add_mutually_exclusive_group()
    out.add_argument(
        "--json", action="store_true", help="print the scored sheet as JSON at the end"
    )
    out.add_argument("--csv", action="store_true", help="print the scored sheet as CSV at the end")
    p.add_argument("--ascii", action="store_true", help="letters instead of pips")


def heading(sheet: Sheet) -> str:
    """The rules of a sheet in one line: the profile, every option changed, the length."""
    r = sheet.rules
    changed = {k: v for k, v in r.overrides().items() if k != "match_target"}
    text = f"{r.profile} rules"
    if changed:
        text += " with " + ", ".join(f"{k}={format_value(v)}" for k, v in changed.items())
    length = f"match to ±{r.match_target}" if r.match_target else "single deals"
    teams = "" if sheet.names == TEAM_NAMES else f"{sheet.names[0]} v {sheet.names[1]} · "
    return f"Score sheet · {teams}{text} · {length}"


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
    def team(self, team: int) -> str:
        """A team as the sheet calls it: its name, or N-S / E-W."""
        names = self.sheet.names
        return TEAM_SHORT[team] if names == TEAM_NAMES else names[team]

    def say(self, text: str | Text, wrap: bool = True) -> None:
        """Print words that may hold team names (never read as markup)."""
        self.out.print(text, markup=False, highlight=False, soft_wrap=not wrap)

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
            text.append(f"{self.team(team)} {_signed(score[team])}", "bold")
            if target:
                text.append(" ")
                text.append_text(self.pips(score[team], target))
            text.append("   ")
        winner = self.sheet.winner
        if winner is not None:
            text.append(f"{self.sheet.names[winner]} win the match!", "bold green")
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
        team = self.team(e.team)
        if e.kind == SINGLE:
            verb = "made" if line.result == "single-made" else "lost"
            text.append(f"{team} single hand {verb}: ")
        else:
            text.append(f"{team} bid {e.bid}")
            if e.doubling > 1:
                text.append(f" x{e.doubling}")
            text.append(f", target {line.target}")
            if e.pair is not None:
                text.append(f" (pair {self.team(e.pair)})")
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
        self.say(heading(self.sheet))
        t = RichTable()
        cols = ("#", "bid", "pair", "x", "took", "target", "result", "±")
        for col in (*cols, self.team(0), self.team(1)):
            t.add_column(Text(col), justify="left" if col in ("result", "bid") else "right")
        for i, line in enumerate(self.sheet.lines, start=1):
            e = line.entry
            if e.kind == VOID:
                t.add_row(str(i), "—", "", "", "", "", "cancelled", "0", *map(_signed, line.score))
                continue
            assert e.team is not None
            team = self.team(e.team)
            bid = f"{team} single" if e.kind == SINGLE else f"{team} {e.bid}"
            t.add_row(
                str(i),
                Text(bid),
                Text(self.team(e.pair)) if e.pair is not None else "",
                "" if e.doubling == 1 else f"x{e.doubling}",
                "" if line.points is None else str(line.points),
                "" if line.target is None else str(line.target),
                line.result + (" ½" if line.under_half else ""),
                _signed(line.delta[e.team]),
                *map(_signed, line.score),
            )
        self.out.print(t)
        self.out.print(self.score_text())

    def show_rules(self) -> None:
        r = self.sheet.rules
        changed = r.overrides()
        opts = ", ".join(
            f"{k}={format_value(getattr(r, k))}{'*' if k in changed else ''}"
            for k in SCORING_OPTIONS
        )
        self.say(f"Rules: {r.profile} ({opts}; * differs from {r.profile})")

    def show_history(self) -> None:
        if not self.sheet.history:
            self.say("No change to undo.")
            return
        self.say("Changes, the last first (undo takes back the first of these):")
        for n, edit in enumerate(reversed(self.sheet.history), start=1):
            self.say(f"  {n}. {edit.describe()}")

    # ------------------------------------------------------------------ commands
    def save(self) -> None:
        if self.path is not None:
            save_sheet(self.sheet, self.path)

    def command(self, text: str) -> bool:
        """Carry out one command line; False to stop. Raises ``ScoreError`` or ``RulesError``
        and then has changed nothing (a sheet that cannot be saved is left as it was)."""
        words = text.strip().split()
        if not words or words[0].startswith("#"):
            return True
        head = words[0].lower()
        if head in ("q", "quit", "exit"):
            return False
        if head in ("?", "help", "h"):
            self.say(HELP)
        elif head in ("sheet", "show", "list", "ls"):
            self.show_sheet()
        elif head == "history":
            self.show_history()
        elif head == "rules":
            self.rules_command(words[1:])
        elif head == "names":
            self.names_command(text.strip()[len(words[0]) :])
        elif head in ("edit", "fix"):
            if len(words) < 3:
                raise ScoreError("syntax_edit", "write: edit N <entry>, e.g. edit 2 ns 18 took 20")
            n = _deal_number(words[1])
            self.change(lambda: self.sheet.replace(n - 1, parse_entry(" ".join(words[2:]))))
            self.say(f"Deal {n} corrected; the sheet is scored again:")
            self.show_sheet()
        elif head in ("delete", "del", "remove", "rm"):
            if len(words) != 2:
                raise ScoreError("syntax_delete", "write: delete N")
            n = _deal_number(words[1])
            self.change(lambda: self.sheet.delete(n - 1))
            self.say(f"Deal {n} deleted (undo puts it back).")
            self.out.print(self.score_text())
        elif head == "undo":
            if len(words) != 1:
                raise ScoreError("syntax_undo", "write: undo (it takes back the last change)")
            edit: Edit = self.change(self.sheet.undo)
            self.say(f"Undone: {edit.describe()}.")
            self.out.print(self.score_text())
        elif head == "export":
            if len(words) != 2:
                raise ScoreError("syntax_export", "write: export FILE.csv or export FILE.json")
            written = write_export(self.sheet, Path(words[1]))
            self.say(f"Written: {written}")
        elif head == "link":
            if len(words) > 2:
                raise ScoreError("syntax_link", "write: link, or link http://host:port")
            base = words[1] if len(words) == 2 else DEFAULT_BASE
            self.say(sheet_link(self.sheet, base), wrap=False)
        else:
            entry = parse_entry(text)
            line = self.change(lambda: self.sheet.add(entry))
            self.out.print(self.line_text(len(self.sheet.lines), line))
            self.out.print(self.score_text())
        return True

    def change(self, edit: Callable[[], T]) -> T:
        """Make one edit and save it; if the file cannot be written the sheet is put back."""
        before = copy.deepcopy(self.sheet)
        result = edit()
        try:
            self.save()
        except FileError:
            self.sheet = before
            raise
        return result

    def rules_command(self, words: list[str]) -> None:
        if not words:
            self.show_rules()
            return
        what = words[0].lower()
        if what == "set" and len(words) > 1:
            rules = self.sheet.rules.with_options(**parse_assignments(words[1:]))
        elif what == "profile" and len(words) > 1:
            rules = resolve(words[1], parse_assignments(words[2:]))
        else:
            raise ScoreError(
                "syntax_rules",
                "write: rules, rules set K=V ..., or rules profile NAME [K=V ...]",
            )
        if not self.change(lambda: self.sheet.set_rules(rules)):
            self.say("The sheet already has these rules.")
            return
        self.say(f"Rules changed; the sheet is scored again. {heading(self.sheet)}")
        self.out.print(self.score_text())

    def names_command(self, rest: str) -> None:
        if not rest.strip():
            self.say(f"North-South: {self.sheet.names[0]}; East-West: {self.sheet.names[1]}")
            return
        if rest.count("/") != 1:
            raise ScoreError("syntax_names", "write: names Asha & Ravi / Mina & Jo")
        names = [part.strip() for part in rest.split("/")]
        if self.change(lambda: self.sheet.set_names(names)):
            self.say(f"North-South are {self.sheet.names[0]}, East-West {self.sheet.names[1]}.")


def _deal_number(word: str) -> int:
    if not word.isdigit() or int(word) < 1:
        raise ScoreError("syntax_number", f"a deal number is 1 or more, not {word!r}")
    return int(word)


def _signed(n: int) -> str:
    return f"{n:+d}" if n else "0"


def _rules(args: argparse.Namespace, base: Rules | None = None) -> Rules:
    """The rules the options ask for: over a kept sheet, --set alone changes its own."""
    sets = parse_assignments(args.options)
    if base is not None and args.profile is None:
        return base.with_options(**sets)
    return resolve(args.profile or "pagat", sets)


def open_sheet(args: argparse.Namespace) -> tuple[Sheet, Path | None, bool]:
    """The sheet to keep, read or new, and whether it is to be saved now.

    Over a sheet read (from its file or ``--from``) the rules and names of the
    options are edits of that sheet, refused as any edit would be."""
    path = sheet_path(args.sheet, args.dir) if args.sheet else None
    sheet = load_sheet(path, args.source)
    if sheet is None:
        if args.like:
            like = read_file(sheet_path(args.like, args.dir))
            rules = _rules(args, like.rules) if args.profile or args.options else like.rules
            sheet = Sheet(rules, names=like.names)
        else:
            sheet = Sheet(_rules(args))
        if args.names:
            sheet.names = read_names(args.names)
        return sheet, path, path is not None and not path.exists()
    if args.like:
        raise FileError(f"{path} exists already: --like starts a new sheet, name another")
    changed = bool(args.source)
    if args.profile is not None or args.options:
        changed = sheet.set_rules(_rules(args, sheet.rules)) or changed
    if args.names:
        changed = sheet.set_names(args.names) or changed
    return sheet, path, changed


def run(args: argparse.Namespace, stdin: TextIO | None = None) -> int:
    stdin = stdin or sys.stdin
    if args.list:
        return _list(args)
    try:
        sheet, path, changed = open_sheet(args)
        if path is not None and changed:
            save_sheet(sheet, path)
    except (ScoreError, RulesError, FileError) as e:
        print(f"twentynine score: {e}", file=sys.stderr)
        return 2
    encoding = getattr(sys.stdout, "encoding", None) or "ascii"
    unicode = not args.ascii and _encodes(encoding, "●○")
    machine = args.json or args.csv
    console = Console(highlight=False, stderr=False, file=sys.stderr if machine else sys.stdout)
    keeper = ScoreKeeper(sheet, console, path, unicode)
    if args.entries:
        status = _script(keeper, list(args.entries))
    elif _isatty(stdin):
        _interactive(keeper, stdin, sys.stderr if machine else sys.stdout)
        status = 0
    else:
        status = _script(keeper, (line.rstrip("\n") for line in stdin))
    if args.json:
        sys.stdout.write(json.dumps(keeper.sheet.report()) + "\n")
    elif args.csv:
        sys.stdout.write(sheet_csv(keeper.sheet))
    return status


def _script(keeper: ScoreKeeper, lines: Iterable[str]) -> int:
    """Every line carried out in turn; a bad one is reported and skipped (status 1)."""
    status = 0
    for number, text in enumerate(lines, start=1):
        try:
            if not keeper.command(text):
                break
        except (ScoreError, RulesError, FileError) as e:
            print(f"twentynine score: line {number}: {e}", file=sys.stderr)
            status = 1
    return status


def _interactive(keeper: ScoreKeeper, stdin: TextIO, prompts: TextIO) -> None:
    keeper.say(f"{heading(keeper.sheet)}. One deal per line, e.g. 'ns 18 took 20'; ? for help.")
    if keeper.sheet.entries:
        keeper.show_sheet()
    while True:
        number = len(keeper.sheet.entries) + 1
        prompt = (
            "match over; edit, undo, sheet or q > " if keeper.sheet.over else f"deal {number} > "
        )
        try:
            if stdin is sys.stdin and prompts is sys.stdout:
                text = input(prompt)
            else:
                text = _readline(stdin, prompt, prompts)
        except EOFError:
            prompts.write("\n")
            return
        try:
            if not keeper.command(text):
                return
        except (ScoreError, RulesError, FileError) as e:
            keeper.out.print(Text(f"  ! {e}", "bold red"))


def _readline(stream: TextIO, prompt: str, prompts: TextIO) -> str:
    prompts.write(prompt)
    prompts.flush()
    line = stream.readline()
    if line == "":
        raise EOFError
    return line.rstrip("\n")


def _list(args: argparse.Namespace) -> int:
    folder = sheets_dir(args.dir)
    console = Console(highlight=False)
    playing, finished, broken = list_sheets(folder)
    if not (playing or finished or broken):
        console.print(f"No sheet kept in {folder} yet (twentynine score --sheet NAME keeps one).")
        return 0
    for title, rows in (("In play", playing), ("Finished matches", finished)):
        if not rows:
            continue
        t = RichTable(title=Text(f"{title} ({folder})"), title_justify="left")
        for col in ("sheet", "teams", "rules", "deals", "score", "result", "last change"):
            t.add_column(col, justify="right" if col in ("deals", "score") else "left")
        for name, sheet, stamp in rows:
            a, b = sheet.names
            score = f"{_signed(sheet.score[0])} : {_signed(sheet.score[1])}"
            won = f"{sheet.names[sheet.winner]} won" if sheet.winner is not None else ""
            rules = heading(sheet).split(" · ")[-2:]
            t.add_row(
                Text(name), Text(f"{a} v {b}"), " · ".join(rules), str(len(sheet.entries)),
                score, Text(won), stamp,
            )  # fmt: skip
        console.print(t)
    for name, reason in broken:
        console.print(Text(f"  {name}: cannot be read ({reason})", "red"))
    return 0


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
