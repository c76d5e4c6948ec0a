"""A score sheet being kept: its deals, rules and team names, the undo history,
and the forms it travels in (a JSON file, CSV, a link).

The arithmetic is ``scoring``'s; this module keeps a sheet consistent while
people change it. Every change is an *edit* (a deal added, corrected or
deleted, the sheet cleared, the rules or the team names changed) and each
edit remembers what it replaced, so ``undo`` takes back exactly the last one,
whatever its kind. The history travels in the sheet's file, so a sheet
reopened tomorrow can still be undone.

A change the rules make impossible raises ``ScoreError`` and leaves the sheet
as it was; so does a malformed file or link. The browser keeps the same sheet
in the same JSON form (``web/static/js/scorebook.js``), so a file exported on
a phone opens in ``twentynine score --sheet`` and the other way round.

The module is pure: the command line adds the clock and the files.
"""

from __future__ import annotations

import base64
import binascii
import csv
import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .rules import Rules, RulesError, from_json
from .scoring import (
    SINGLE,
    TEAM_NAMES,
    VOID,
    Entry,
    Line,
    ScoreError,
    score_sheet,
)

SHEET_FORMAT = "29-scoresheet/1"
# Keys of a sheet file; a ``--json`` report's scored keys are read and ignored.
SHEET_KEYS = ("format", "rules", "names", "entries", "history", "created", "updated")
REPORT_KEYS = ("lines", "score", "winner")
NAME_LIMIT = 40
STAMP_LIMIT = 40
# The oldest edits are forgotten beyond this many (a match is a few dozen deals).
HISTORY_LIMIT = 200

ADD, CORRECT, DELETE, CLEAR, RULES, NAMES = "add", "correct", "delete", "clear", "rules", "names"
EDITS = (ADD, CORRECT, DELETE, CLEAR, RULES, NAMES)

# The address part that opens a shared sheet in the web app.
LINK_FRAGMENT = "#score/sheet/"
LINK_LIMIT = 200_000


@dataclass(frozen=True, slots=True)
class Edit:
    """One change of a sheet and what it replaced (``was``), enough to take it back.

    ``deal`` is the index (from 0) of the deal corrected or deleted. ``was`` is
    the entry before a correction or a deletion, the deals before a clear,
    the rules or the names before they changed, and nothing for an added deal.
    """

    kind: str
    deal: int | None = None
    was: Any = None

    def describe(self) -> str:
        if self.kind == ADD:
            return "a deal added"
        if self.kind in (CORRECT, DELETE):
            verb = "corrected" if self.kind == CORRECT else "deleted"
            return f"deal {(self.deal or 0) + 1} {verb}"
        if self.kind == CLEAR:
            return f"the sheet cleared ({len(self.was)} deals)"
        return "the rules changed" if self.kind == RULES else "the team names changed"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"edit": self.kind}
        if self.deal is not None:
            out["deal"] = self.deal + 1
        if self.kind in (CORRECT, DELETE):
            out["was"] = self.was.to_json()
        elif self.kind == CLEAR:
            out["was"] = [e.to_json() for e in self.was]
        elif self.kind == RULES:
            out["was"] = self.was.to_json()
        elif self.kind == NAMES:
            out["was"] = list(self.was)
        return out

    @staticmethod
    def from_json(obj: Any) -> Edit:
        if not isinstance(obj, Mapping) or obj.get("edit") not in EDITS:
            raise _bad("an edit of the history names its kind: " + ", ".join(EDITS))
        kind = obj["edit"]
        unknown = [k for k in obj if k not in ("edit", "deal", "was")]
        if unknown:
            raise _bad(f"unknown key {unknown[0]!r} in an edit of the history")
        deal = obj.get("deal")
        if kind in (CORRECT, DELETE):
            if isinstance(deal, bool) or not isinstance(deal, int) or deal < 1:
                raise _bad(f"a {kind} edit names its deal, 1 or more")
            return Edit(kind, deal - 1, Entry.from_json(obj.get("was")))
        if deal is not None:
            raise _bad(f"a {kind} edit has no deal")
        was = obj.get("was")
        if kind == ADD:
            if was is not None:
                raise _bad("an added deal replaced nothing")
            return Edit(ADD)
        if kind == CLEAR:
            if not isinstance(was, list):
                raise _bad("a clear edit keeps the list of deals it removed")
            return Edit(CLEAR, None, tuple(Entry.from_json(e) for e in was))
        if kind == RULES:
            return Edit(RULES, None, _read_rules(was))
        return Edit(NAMES, None, read_names(was))


def _bad(message: str) -> ScoreError:
    return ScoreError("sheet_history", f"the sheet's history cannot be read: {message}")


def _read_rules(obj: Any) -> Rules:
    try:
        return from_json(obj)
    except RulesError as e:
        raise ScoreError("sheet_rules", f"the sheet's rules cannot be read: {e}") from None


def read_names(obj: Any) -> tuple[str, str]:
    """Two team names, each trimmed; an empty one is the seat pair's own name."""
    if not isinstance(obj, Sequence) or isinstance(obj, str) or len(obj) != 2:
        raise ScoreError("names_type", "the team names are two texts, North-South's first")
    names: list[str] = []
    for team, raw in enumerate(obj):
        if not isinstance(raw, str):
            raise ScoreError("names_type", "a team name is a text")
        name = " ".join(raw.split())
        if len(name) > NAME_LIMIT:
            raise ScoreError(
                "name_long",
                f"a team name has at most {NAME_LIMIT} characters, not {len(name)}",
                {"limit": NAME_LIMIT},
            )
        if any(not ch.isprintable() for ch in name):
            raise ScoreError("name_control", "a team name cannot hold control characters")
        names.append(name or TEAM_NAMES[team])
    if names[0].casefold() == names[1].casefold():
        raise ScoreError("names_same", f"both teams cannot be called {names[0]!r}")
    return names[0], names[1]


def _read_stamp(obj: Mapping[str, Any], key: str) -> str | None:
    v = obj.get(key)
    if v is None:
        return None
    if not isinstance(v, str) or len(v) > STAMP_LIMIT:
        raise ScoreError("sheet_stamp", f"'{key}' is a date and time in ISO form")
    return v


@dataclass
class Sheet:
    """A score sheet being kept: rules, team names, deals, their scored lines, the edits."""

    rules: Rules
    entries: list[Entry] = field(default_factory=list)
    names: tuple[str, str] = TEAM_NAMES
    history: list[Edit] = field(default_factory=list)
    created: str | None = None
    updated: str | None = None
    lines: list[Line] = field(default_factory=list, init=False)

    def __post_init__(self) -> None:
        self.lines = score_sheet(self.rules, self.entries)

    @property
    def score(self) -> tuple[int, int]:
        return self.lines[-1].score if self.lines else (0, 0)

    @property
    def winner(self) -> int | None:
        return self.lines[-1].winner if self.lines else None

    @property
    def over(self) -> bool:
        return self.winner is not None

    def name(self, team: int) -> str:
        return self.names[team]

    # ------------------------------------------------------------------ edits
    def add(self, entry: Entry) -> Line:
        """Score the next deal; refused once the match is over."""
        self.lines = score_sheet(self.rules, [*self.entries, entry])
        self.entries.append(entry)
        self._record(Edit(ADD))
        return self.lines[-1]

    def replace(self, index: int, entry: Entry) -> None:
        """Correct deal ``index`` (from 0); everything after it is scored again."""
        self._index(index)
        entries = [*self.entries]
        was, entries[index] = entries[index], entry
        try:
            self.lines = score_sheet(self.rules, entries)
        except ScoreError as err:
            if err.code == "after_end":
                raise ScoreError(
                    "edit_ends_match",
                    f"with this change the match ends at deal {err.params['deal']}, "
                    "but later deals follow: delete them first",
                    {"deal": err.params["deal"]},
                    index,
                ) from None
            raise
        self.entries = entries
        self._record(Edit(CORRECT, index, was))

    def delete(self, index: int) -> Entry:
        """Remove deal ``index`` (from 0); the later deals move up and are scored again."""
        self._index(index)
        entries = [*self.entries[:index], *self.entries[index + 1 :]]
        self.lines = score_sheet(self.rules, entries)
        was = self.entries[index]
        self.entries = entries
        self._record(Edit(DELETE, index, was))
        return was

    def clear(self) -> None:
        if not self.entries:
            raise ScoreError("empty", "the sheet has no deal to clear")
        was = tuple(self.entries)
        self.entries = []
        self.lines = []
        self._record(Edit(CLEAR, None, was))

    def set_rules(self, rules: Rules) -> bool:
        """Score the sheet under other rules; refused (saying which deal, why) if one cannot be.

        False when the rules are the same (nothing to record)."""
        if rules == self.rules:
            return False
        try:
            lines = score_sheet(rules, self.entries)
        except ScoreError as err:
            reason = err.bare
            if err.code == "after_end":
                reason = (
                    f"under them the match ends at deal {err.params['deal']} "
                    f"but the sheet has {len(self.entries)}"
                )
            deal = (err.deal or 0) + 1
            raise ScoreError(
                "rules_refused",
                f"the sheet's deals do not fit these rules: deal {deal}: {reason}",
                {"code": err.code, "reason": reason, "deal": deal},
            ) from None
        was, self.rules, self.lines = self.rules, rules, lines
        self._record(Edit(RULES, None, was))
        return True

    def set_names(self, names: Sequence[str]) -> bool:
        """New team names (empty for the seat pair's own); False when nothing changes."""
        clean = read_names(names)
        if clean == self.names:
            return False
        was, self.names = self.names, clean
        self._record(Edit(NAMES, None, was))
        return True

    def undo(self) -> Edit:
        """Take back the last edit, whatever it was; returns it."""
        if not self.history:
            raise ScoreError("nothing_to_undo", "there is nothing to undo")
        edit = self.history[-1]
        rules, names, entries = _before(edit, self.rules, self.names, self.entries)
        self.lines = score_sheet(rules, entries)
        self.rules, self.names, self.entries = rules, names, entries
        self.history.pop()
        return edit

    def _record(self, edit: Edit) -> None:
        self.history.append(edit)
        del self.history[:-HISTORY_LIMIT]

    def _index(self, index: int) -> None:
        if not 0 <= index < len(self.entries):
            raise ScoreError(
                "no_such_deal",
                f"there is no deal {index + 1} (the sheet has {len(self.entries)})",
                {"deal": index + 1, "count": len(self.entries)},
            )

    # ------------------------------------------------------------------ forms
    def to_json(self, history: bool = True) -> dict[str, Any]:
        """The file form: the names when they are not the seat pairs', the history if asked."""
        out: dict[str, Any] = {"format": SHEET_FORMAT, "rules": self.rules.to_json()}
        if self.names != TEAM_NAMES:
            out["names"] = list(self.names)
        out["entries"] = [e.to_json() for e in self.entries]
        if history and self.history:
            out["history"] = [e.to_json() for e in self.history]
        for key in ("created", "updated"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out

    def report(self) -> dict[str, Any]:
        """The sheet with every scored line (what ``twentynine score --json`` prints)."""
        return {
            **self.to_json(history=False),
            "names": list(self.names),
            "lines": [line.to_json() for line in self.lines],
            "score": list(self.score),
            "winner": self.winner,
        }

    @staticmethod
    def from_json(obj: Any) -> Sheet:
        """A sheet file (or a ``--json`` report) read strictly: any fault raises, saying what."""
        if not isinstance(obj, Mapping) or obj.get("format") != SHEET_FORMAT:
            raise ScoreError("sheet_format", f"not a score sheet (format {SHEET_FORMAT})")
        unknown = [k for k in obj if k not in SHEET_KEYS + REPORT_KEYS]
        if unknown:
            raise ScoreError(
                "sheet_key",
                f"unknown key {unknown[0]!r} in a score sheet (keys: {', '.join(SHEET_KEYS)})",
                {"key": unknown[0]},
            )
        rules = _read_rules(obj.get("rules"))
        names = read_names(obj["names"]) if obj.get("names") is not None else TEAM_NAMES
        entries = obj.get("entries", [])
        if not isinstance(entries, list):
            raise ScoreError("sheet_entries", "'entries' must be a list")
        parsed = []
        for i, raw in enumerate(entries):
            try:
                parsed.append(Entry.from_json(raw))
            except ScoreError as err:
                raise err.at(i) from None
        raw_history = obj.get("history", [])
        if not isinstance(raw_history, list):
            raise _bad("'history' must be a list")
        history = [Edit.from_json(e) for e in raw_history][-HISTORY_LIMIT:]
        sheet = Sheet(rules, parsed, names, history, _read_stamp(obj, "created"))
        sheet.updated = _read_stamp(obj, "updated")
        _check_history(sheet)
        return sheet


def _before(
    edit: Edit, rules: Rules, names: tuple[str, str], entries: list[Entry]
) -> tuple[Rules, tuple[str, str], list[Entry]]:
    """The rules, names and deals as they were before ``edit``."""
    entries = list(entries)
    if edit.kind == ADD:
        if not entries:
            raise _bad("an added deal to take back, but the sheet is empty")
        entries.pop()
    elif edit.kind == CORRECT:
        if edit.deal is None or not 0 <= edit.deal < len(entries):
            raise _bad(f"deal {(edit.deal or 0) + 1} was corrected, but the sheet has no such deal")
        entries[edit.deal] = edit.was
    elif edit.kind == DELETE:
        if edit.deal is None or not 0 <= edit.deal <= len(entries):
            raise _bad(f"deal {(edit.deal or 0) + 1} was deleted, but cannot be put back there")
        entries.insert(edit.deal, edit.was)
    elif edit.kind == CLEAR:
        if entries:
            raise _bad("the sheet was cleared, but it has deals")
        entries = list(edit.was)
    elif edit.kind == RULES:
        rules = edit.was
    else:
        names = edit.was
    return rules, names, entries


def _check_history(sheet: Sheet) -> None:
    """Refuse a history that could not be undone step by step back to its start."""
    rules, names, entries = sheet.rules, sheet.names, list(sheet.entries)
    for edit in reversed(sheet.history):
        rules, names, entries = _before(edit, rules, names, entries)
        try:
            score_sheet(rules, entries)
        except ScoreError as err:
            raise _bad(
                f"undoing '{edit.describe()}' leaves a sheet that cannot be scored: {err}"
            ) from None


# ---------------------------------------------------------------------------- CSV

RESULT_WORDS = {
    "made": "made",
    "failed": "failed",
    "cancelled": "cancelled",
    "single-made": "single made",
    "single-failed": "single lost",
}
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _cell_text(text: str) -> str:
    """A name as a spreadsheet shows it, never read as a formula."""
    return "'" + text if text.startswith(_FORMULA_START) else text


def _signed(n: int) -> str:
    return f"{n:+d}" if n else "0"


def csv_rows(sheet: Sheet) -> list[list[str]]:
    """The sheet as rows of a spreadsheet: a header, then one row a deal.

    The browser's export writes the same rows (a browser test compares)."""
    a, b = (_cell_text(n) for n in sheet.names)
    rows = [
        [
            "Deal",
            "Bidding team",
            "Bid",
            "Pair shown by",
            "Doubling",
            "Points taken",
            "Target",
            "Result",
            "Notes",
            f"{a} ±",
            f"{b} ±",
            f"{a} total",
            f"{b} total",
        ]
    ]
    for i, line in enumerate(sheet.lines, start=1):
        e = line.entry
        notes = []
        if line.under_half:
            notes.append("under half")
        if line.capped:
            notes.append(f"capped at {sheet.rules.max_bid}")
        if line.floored:
            notes.append(f"floored at {sheet.rules.min_bid}")
        team = "" if e.team is None or e.kind == VOID else _cell_text(sheet.names[e.team])
        rows.append(
            [
                str(i),
                team,
                "" if e.bid is None or e.kind == SINGLE else str(e.bid),
                "" if e.pair is None else _cell_text(sheet.names[e.pair]),
                "" if e.doubling == 1 else f"x{e.doubling}",
                "" if line.points is None else str(line.points),
                "" if line.target is None else str(line.target),
                RESULT_WORDS[line.result],
                "; ".join(notes),
                _signed(line.delta[0]),
                _signed(line.delta[1]),
                _signed(line.score[0]),
                _signed(line.score[1]),
            ]
        )
    return rows


def sheet_csv(sheet: Sheet) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerows(csv_rows(sheet))
    return out.getvalue()


# ---------------------------------------------------------------------------- links


def link_payload(sheet: Sheet) -> str:
    """The sheet (rules, names, deals; not its history) in the part of an address after
    ``#score/sheet/``: base64url of its compact JSON, without padding."""
    data = sheet.to_json(history=False)
    data.pop("updated", None)
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return base64.urlsafe_b64encode(text.encode("utf-8")).decode("ascii").rstrip("=")


def sheet_link(sheet: Sheet, base: str) -> str:
    """An address that opens the same sheet in the web app at ``base``."""
    return base.rstrip("/") + "/" + LINK_FRAGMENT + link_payload(sheet)


def sheet_from_link(text: str) -> Sheet:
    """The sheet of a link (a whole address, its ``#score/sheet/...`` part, or the payload)."""
    text = text.strip()
    if LINK_FRAGMENT in text:
        text = text.split(LINK_FRAGMENT, 1)[1]
    if not text:
        raise ScoreError("link_empty", "the link holds no sheet")
    if len(text) > LINK_LIMIT:
        raise ScoreError("link_long", f"the link is longer than {LINK_LIMIT} characters")
    if any(ch not in _B64URL for ch in text):
        raise ScoreError("link_bad", "the link is damaged: it has characters no sheet link has")
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        obj = json.loads(raw.decode("utf-8"))
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise ScoreError("link_bad", "the link is damaged: its sheet cannot be read") from None
    return Sheet.from_json(obj)


_B64URL = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
