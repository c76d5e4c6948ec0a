"""The score sheet of a table that plays with real cards.

Nobody at such a table enters tricks: they say who bid what, whether the
pair was shown and by whom, how many points the bidding team took (or by how
much it failed), the doubling, a single hand made or lost. From that and the
rules in force this module works out what the engine would have: the target,
the result, the stake, each team's game points and the running match score,
with the match ending at ±``match_target`` as in ``Match``.

The module is pure (no I/O). The pair's effect on the target is the
engine's own (``contract.lowered_target``, ``raised_target``), and so is the stake
(``contract_stake``); the tests check scorer and engine agree on random
finished games. The browser's scorer page
(``web/static/js/scorer.js``) is a line-by-line port of this module; a
browser test runs one table of cases through both.

A sheet being kept (team names, the undo history, its file, CSV and link
forms) is ``scoresheet.Sheet``, built on this module.

Errors carry a ``code`` (the key the browser translates) and a ``params``
dict besides their English message, so both sides can be compared.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .contract import (
    CANCELLED,
    FAILED,
    MADE,
    MULTIPLIER,
    PAIR_SHIFT,
    SINGLE_FAILED,
    SINGLE_MADE,
    contract_stake,
    lowered_target,
    raised_target,
)
from .rules import Rules

# Kinds of entry.
CONTRACT = "contract"
SINGLE = "single"
VOID = "cancelled"
KINDS = (CONTRACT, SINGLE, VOID)

TEAM_NAMES = ("North-South", "East-West")
TEAM_KEYS = ("ns", "ew")
# The doubling multipliers a sheet may hold, by the engine's own table.
DOUBLINGS = tuple(sorted(set(MULTIPLIER.values())))
SET_MULTIPLIER = MULTIPLIER["set"]

ENTRY_KEYS = (
    "kind",
    "team",
    "bid",
    "pair",
    "points",
    "failed_by",
    "made",
    "under_half",
    "doubling",
)


class ScoreError(ValueError):
    """An entry that cannot be scored under the rules; ``code`` names the problem."""

    def __init__(
        self,
        code: str,
        message: str,
        params: Mapping[str, Any] | None = None,
        deal: int | None = None,
    ) -> None:
        self.code = code
        self.params = dict(params or {})
        self.deal = deal
        self.bare = message
        super().__init__(message if deal is None else f"deal {deal + 1}: {message}")

    def at(self, deal: int) -> ScoreError:
        return ScoreError(self.code, self.bare, self.params, deal)

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "params": self.params, "deal": self.deal, "message": self.bare}


@dataclass(frozen=True, slots=True)
class Entry:
    """One deal as a table reports it.

    ``kind`` is ``contract`` (a bid was played), ``single`` (a single hand:
    ``team`` is the declarer's, ``made`` says whether every trick was won)
    or ``cancelled`` (trumps never shown under ``unrevealed: cancel``, or
    everyone passed under ``all_pass: redeal``).

    A contract gives the bidding ``team`` (0 North-South, 1 East-West), the
    ``bid``, the team that showed the ``pair`` if any, the ``doubling``
    multiplier, and its outcome in one of three ways: the ``points`` the
    bidding team took, ``failed_by`` (how many points it fell short of its
    target), or ``made`` alone (with ``under_half`` when it failed with less
    than half its bid, which only matters with the ``under_half`` rule).
    """

    kind: str = CONTRACT
    team: int | None = None
    bid: int | None = None
    pair: int | None = None
    points: int | None = None
    failed_by: int | None = None
    made: bool | None = None
    under_half: bool = False
    doubling: int = 1

    def to_json(self) -> dict[str, Any]:
        """The entry without its default fields (the form kept in a sheet file)."""
        out: dict[str, Any] = {"kind": self.kind}
        for key in ENTRY_KEYS[1:]:
            value = getattr(self, key)
            default = Entry.__dataclass_fields__[key].default
            if value != default or (key == "made" and value is not None):
                out[key] = value
        return out

    @staticmethod
    def from_json(obj: Any) -> Entry:
        if not isinstance(obj, Mapping):
            raise ScoreError("entry_type", "an entry must be an object")
        unknown = [k for k in obj if k not in ENTRY_KEYS]
        if unknown:
            raise ScoreError(
                "entry_key",
                f"unknown key {unknown[0]!r} in an entry (keys: {', '.join(ENTRY_KEYS)})",
                {"key": unknown[0]},
            )
        kind = obj.get("kind", CONTRACT)
        if kind not in KINDS:
            raise ScoreError(
                "entry_kind",
                f"an entry's kind is one of {', '.join(KINDS)}, not {kind!r}",
                {"kind": str(kind)},
            )
        values: dict[str, Any] = {"kind": kind}
        for key in ("team", "pair"):
            v = obj.get(key)
            if v is not None and (isinstance(v, bool) or v not in (0, 1)):
                raise ScoreError("entry_team", f"'{key}' must be a team, 0 or 1, not {v!r}")
            values[key] = v
        for key in ("bid", "points", "failed_by"):
            v = obj.get(key)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int)):
                raise ScoreError("entry_number", f"'{key}' must be a whole number, not {v!r}")
            values[key] = v
        for key in ("made", "under_half"):
            v = obj.get(key, None if key == "made" else False)
            if v is not None and not isinstance(v, bool):
                raise ScoreError("entry_flag", f"'{key}' must be true or false, not {v!r}")
            values[key] = v
        d = obj.get("doubling", 1)
        if isinstance(d, bool) or d not in DOUBLINGS:
            raise ScoreError(
                "entry_doubling",
                f"'doubling' is one of {', '.join(map(str, DOUBLINGS))}, not {d!r}",
            )
        values["doubling"] = d
        return Entry(**values)


@dataclass(frozen=True, slots=True)
class Line:
    """The scored entry: what the sheet shows on its row."""

    entry: Entry
    target: int | None
    points: int | None  # the bidding team's points, when known
    result: str  # made, failed, cancelled, single-made, single-failed
    stake: int
    delta: tuple[int, int]
    score: tuple[int, int]  # the running score after this deal
    winner: int | None  # the match winner, once this deal decides it
    under_half: bool = False  # the loss was doubled for under half
    capped: bool = False  # the defenders' pair would have raised the target past max_bid
    floored: bool = False  # the bidding team's pair would have lowered it past min_bid

    def to_json(self) -> dict[str, Any]:
        return {
            "entry": self.entry.to_json(),
            "target": self.target,
            "points": self.points,
            "result": self.result,
            "stake": self.stake,
            "delta": list(self.delta),
            "score": list(self.score),
            "winner": self.winner,
            "under_half": self.under_half,
            "capped": self.capped,
            "floored": self.floored,
        }


def team_name(team: int) -> str:
    return TEAM_NAMES[team]


def contract_target(rules: Rules, bid: int, pair: int | None, team: int) -> int:
    """The bidding team's target once the pair (shown by team ``pair``) is counted."""
    if pair is None:
        return bid
    if pair == team:
        return lowered_target(rules, bid)
    return raised_target(rules, bid)


def _fail(code: str, message: str, **params: Any) -> ScoreError:
    return ScoreError(code, message, params)


def check_entry(rules: Rules, e: Entry) -> None:
    """Refuse an entry the rules make impossible, with a message that says why."""
    if e.kind == VOID:
        if rules.unrevealed != "cancel" and rules.all_pass != "redeal":
            raise _fail(
                "void_impossible",
                "no deal is cancelled under these rules "
                "(unrevealed=score and nobody may pass the deal out)",
            )
        for key in ("pair", "points", "failed_by", "made"):
            if getattr(e, key) is not None:
                raise _fail("void_extra", f"a cancelled deal has no {key.replace('_', ' ')}")
        if e.under_half or e.doubling != 1:
            raise _fail("void_extra", "a cancelled deal has no doubling and no under-half loss")
        if e.bid is not None:
            _check_bid(rules, e.bid)
        return
    if e.team not in (0, 1):
        raise _fail("team_missing", "say which team bid (North-South or East-West)")
    if e.kind == SINGLE:
        if not rules.single_hand:
            raise _fail(
                "single_off", "single hands are not played under these rules (single_hand=no)"
            )
        if e.bid is not None or e.pair is not None or e.doubling != 1:
            raise _fail(
                "single_with_bid",
                "a single hand has no bid, no pair and no doubling: the auction is void",
            )
        if e.points is not None or e.failed_by is not None or e.under_half:
            raise _fail(
                "single_with_points", "a single hand is made or lost, not counted in points"
            )
        if e.made is None:
            raise _fail("single_outcome", "say whether the single hand was made or lost")
        return
    # a contract
    if e.bid is None:
        raise _fail("bid_missing", "say what the bid was")
    _check_bid(rules, e.bid)
    if e.pair is not None:
        if rules.pair == "off":
            raise _fail("pair_off", "there is no pair under these rules (pair=off)")
        if e.pair not in (0, 1):
            raise _fail("pair_team", "the pair is shown by a team, 0 or 1")
    if e.doubling != 1:
        if not rules.doubling:
            raise _fail("doubling_off", "doubling is not played under these rules (doubling=no)")
        if e.doubling == SET_MULTIPLIER and not rules.allow_set:
            raise _fail("set_off", "a set is not allowed under these rules (allow_set=no)")
    given = [k for k in ("points", "failed_by", "made") if getattr(e, k) is not None]
    if not given:
        raise _fail("outcome_missing", "give the points taken, 'failed by', or made / failed")
    if len(given) > 1:
        raise _fail(
            "outcome_twice",
            f"give one outcome only, not both {given[0].replace('_', ' ')} "
            f"and {given[1].replace('_', ' ')}",
        )
    total = rules.total_points
    if e.points is not None and not 0 <= e.points <= total:
        if e.points < 0:
            raise _fail("points_negative", "points cannot be negative", points=e.points)
        raise _fail(
            "points_above_total",
            f"{e.points} points is more than the {total} there are",
            points=e.points,
            total=total,
        )
    if e.failed_by is not None:
        target = contract_target(rules, e.bid, e.pair, e.team)
        if e.failed_by < 1:
            raise _fail("failed_by_low", "'failed by' counts the points missing: 1 or more")
        if e.failed_by > target:
            raise _fail(
                "failed_by_high",
                f"failed by {e.failed_by} is more than the target {target}",
                failed_by=e.failed_by,
                target=target,
            )
    if e.under_half:
        if not rules.under_half:
            raise _fail(
                "under_half_off",
                "under-half losses are not counted under these rules (under_half=no)",
            )
        if e.made is not True and e.made is not False:
            raise _fail(
                "under_half_with_points",
                "with the points given the under-half loss is worked out: leave the flag off",
            )
        if e.made:
            raise _fail("under_half_made", "a contract that was made cannot lose under half")


def _check_bid(rules: Rules, bid: int) -> None:
    if bid < rules.min_bid:
        raise _fail(
            "bid_low", f"bid {bid} is below the minimum {rules.min_bid}", bid=bid, min=rules.min_bid
        )
    if bid > rules.max_bid:
        raise _fail(
            "bid_high",
            f"bid {bid} is above the maximum {rules.max_bid}",
            bid=bid,
            max=rules.max_bid,
        )


def score_entry(
    rules: Rules, e: Entry
) -> tuple[int | None, int | None, str, int, tuple[int, int], bool, bool, bool]:
    """Target, points, result, stake, delta and the notes of one checked entry."""
    check_entry(rules, e)
    if e.kind == VOID:
        return None, None, CANCELLED, 0, (0, 0), False, False, False
    assert e.team is not None
    if e.kind == SINGLE:
        stake = rules.single_hand_stake
        sign = 1 if e.made else -1
        delta = (sign * stake, 0) if e.team == 0 else (0, sign * stake)
        return (
            None,
            None,
            SINGLE_MADE if e.made else SINGLE_FAILED,
            stake,
            delta,
            False,
            False,
            False,
        )
    assert e.bid is not None
    target = contract_target(rules, e.bid, e.pair, e.team)
    capped = e.pair is not None and e.pair != e.team and e.bid + PAIR_SHIFT > rules.max_bid
    floored = e.pair == e.team and rules.pair == "standard" and e.bid - PAIR_SHIFT < rules.min_bid
    points = e.points
    if e.failed_by is not None:
        points = target - e.failed_by
    if points is not None:
        made = points >= target
        under = not made and rules.under_half and 2 * points < e.bid
    else:
        made = bool(e.made)
        under = not made and e.under_half
    stake = contract_stake(rules, e.bid, e.doubling, under)
    sign = 1 if made else -1
    delta = (sign * stake, 0) if e.team == 0 else (0, sign * stake)
    return target, points, MADE if made else FAILED, stake, delta, under, capped, floored


def match_winner(rules: Rules, score: Sequence[int]) -> int | None:
    """The team that has won at this score, as ``Match._deal_over`` decides it."""
    target = rules.match_target
    if target is None:
        return None
    winner = None
    for team in (0, 1):
        if score[team] >= target:
            winner = team
        elif score[team] <= -target:
            winner = 1 - team
    return winner


def score_sheet(rules: Rules, entries: Iterable[Entry]) -> list[Line]:
    """Every entry scored in order; an impossible entry or one after the match raises."""
    lines: list[Line] = []
    score = (0, 0)
    winner: int | None = None
    for i, e in enumerate(entries):
        if winner is not None:
            raise ScoreError(
                "after_end",
                f"the match ended at deal {i}: {TEAM_NAMES[winner]} won",
                {"deal": i, "winner": winner},
                i,
            )
        try:
            target, points, result, stake, delta, under, capped, floored = score_entry(rules, e)
        except ScoreError as err:
            raise err.at(i) from None
        score = (score[0] + delta[0], score[1] + delta[1])
        winner = match_winner(rules, score)
        lines.append(
            Line(e, target, points, result, stake, delta, score, winner, under, capped, floored)
        )
    return lines


# ---------------------------------------------------------------------------- the text form

_TEAM_WORDS = {
    "ns": 0,
    "sn": 0,
    "n": 0,
    "s": 0,
    "north": 0,
    "south": 0,
    "north-south": 0,
    "us": 0,
    "ew": 1,
    "we": 1,
    "e": 1,
    "w": 1,
    "east": 1,
    "west": 1,
    "east-west": 1,
    "them": 1,
}
_DOUBLING_WORDS = {
    "double": 2,
    "doubled": 2,
    "x2": 2,
    "redouble": 4,
    "redoubled": 4,
    "x4": 4,
    "set": 6,
    "x6": 6,
}
_VOID_WORDS = ("cancelled", "canceled", "cancel", "void", "redeal", "passed-out")

ENTRY_SYNTAX = """\
An entry is one line, e.g.
  ns 18 took 20            North-South bid 18 and took 20 points
  ew 22 20                 East-West bid 22 and took 20 (the word 'took' is optional)
  ns 20 failed by 3        they fell 3 points short of their target
  ew 19 made  /  ns 17 failed   the outcome alone, without counting points
  ns 18 failed under-half  failed with less than half the bid (under_half rule)
  ns 20 took 17 pair ew    the pair was shown by East-West (target 24)
  ew 19 took 15 double     doubled (also: redouble, set, x2, x4, x6)
  single ns made  /  single ew lost
  cancelled                trumps never shown (unrevealed=cancel), or passed out
Teams: ns (North-South: us, n, s, north, south) and ew (East-West: them, e, w)."""


def _team_word(word: str) -> int:
    w = word.lower()
    if w not in _TEAM_WORDS:
        raise ScoreError("syntax_team", f"{word!r} is not a team (ns or ew)", {"word": word})
    return _TEAM_WORDS[w]


def _number(word: str, what: str) -> int:
    if not word.lstrip("-").isdigit():
        raise ScoreError(
            "syntax_number", f"{what} must be a whole number, not {word!r}", {"word": word}
        )
    return int(word)


def parse_entry(text: str) -> Entry:
    """Read an entry from its one-line text form (``ENTRY_SYNTAX``)."""
    words = text.replace(",", " ").lower().split()
    if not words:
        raise ScoreError("syntax_empty", "an empty entry; try: ns 18 took 20")
    if words[0] in _VOID_WORDS:
        if len(words) > 1:
            raise ScoreError("syntax_extra", f"unexpected {words[1]!r} after {words[0]!r}")
        return Entry(kind=VOID)
    if words[0] == "single":
        if len(words) != 3:
            raise ScoreError("syntax_single", "write a single hand as: single ns made (or lost)")
        team = _team_word(words[1])
        if words[2] in ("made", "won", "win", "makes", "wins"):
            return Entry(kind=SINGLE, team=team, made=True)
        if words[2] in ("lost", "lose", "loses", "failed", "fails"):
            return Entry(kind=SINGLE, team=team, made=False)
        raise ScoreError("syntax_single", "write a single hand as: single ns made (or lost)")
    team = _team_word(words[0])
    if len(words) < 2:
        raise ScoreError("syntax_bid", "the bid is missing: e.g. ns 18 took 20")
    if words[1] == "single":
        raise ScoreError(
            "single_with_bid", "a single hand has no bid: write it as single ns made (or lost)"
        )
    bid = _number(words[1], "the bid")
    values: dict[str, Any] = {"team": team, "bid": bid}
    rest = words[2:]
    i = 0

    def outcome(key: str, value: Any) -> None:
        if any(k in values for k in ("points", "failed_by", "made")):
            raise ScoreError("outcome_twice", "give one outcome only")
        values[key] = value

    while i < len(rest):
        w = rest[i]
        nxt = rest[i + 1] if i + 1 < len(rest) else None
        if w in ("took", "takes", "take", "got", "points") and nxt is not None:
            outcome("points", _number(nxt, "the points"))
            i += 2
        elif w.lstrip("-").isdigit():
            outcome("points", int(w))
            i += 1
        elif w in ("failed", "fails", "down", "short", "lost") and nxt == "by":
            if i + 2 >= len(rest):
                raise ScoreError("syntax_failed_by", "failed by how many? e.g. failed by 3")
            outcome("failed_by", _number(rest[i + 2], "'failed by'"))
            i += 3
        elif w in ("short", "down") and nxt is not None and nxt.isdigit():
            outcome("failed_by", int(nxt))
            i += 2
        elif w in ("made", "makes", "won", "make"):
            outcome("made", True)
            i += 1
        elif w in ("failed", "fails", "lost", "fail"):
            outcome("made", False)
            i += 1
        elif w in ("under-half", "underhalf", "under_half", "half"):
            values["under_half"] = True
            i += 1
        elif w == "under" and nxt == "half":
            values["under_half"] = True
            i += 2
        elif w == "pair":
            if nxt is None:
                raise ScoreError("syntax_pair", "pair shown by which team? e.g. pair ew")
            values["pair"] = _team_word(nxt)
            i += 2
        elif w in _DOUBLING_WORDS:
            values["doubling"] = _DOUBLING_WORDS[w]
            i += 1
        else:
            raise ScoreError("syntax_word", f"{w!r} is not understood here", {"word": w})
    return Entry(kind=CONTRACT, **values)


def entry_text(e: Entry) -> str:
    """The one-line text form of an entry (``parse_entry`` reads it back)."""
    if e.kind == VOID:
        return "cancelled"
    assert e.team is not None
    team = TEAM_KEYS[e.team]
    if e.kind == SINGLE:
        return f"single {team} {'made' if e.made else 'lost'}"
    parts = [team, str(e.bid)]
    if e.points is not None:
        parts += ["took", str(e.points)]
    elif e.failed_by is not None:
        parts += ["failed", "by", str(e.failed_by)]
    elif e.made is not None:
        parts.append("made" if e.made else "failed")
    if e.under_half:
        parts.append("under-half")
    if e.pair is not None:
        parts += ["pair", TEAM_KEYS[e.pair]]
    if e.doubling != 1:
        parts.append({2: "double", 4: "redouble", 6: "set"}[e.doubling])
    return " ".join(parts)
