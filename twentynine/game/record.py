"""Game records (``29-record/1``) and the replay verdict.

A record holds the rules, and for each deal the dealer, the eight cards of
each seat and every action in order. ``replay`` checks a record against its
rules and returns the verdict object of the rules document (section 7)
together with the exit status the command line should use.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .actions import Action, ActionError
from .cards import CardError, parse_card
from .engine import OVER, Deal, IllegalAction
from .match import RECORD_FORMAT, Match
from .rules import Rules, RulesError, from_json

EXIT_OK = 0
EXIT_ILLEGAL = 1
EXIT_MALFORMED = 2


class RecordError(ValueError):
    """A record that cannot be read. ``deal`` and ``action`` locate the fault."""

    def __init__(self, message: str, deal: int | None = None, action: int | None = None) -> None:
        super().__init__(message)
        self.deal = deal
        self.action = action


@dataclass
class Verdict:
    """The verdict object and the exit status that goes with it."""

    data: dict[str, Any]
    exit_status: int

    @property
    def ok(self) -> bool:
        return bool(self.data["ok"])


def parse_hands(obj: Any, deal_index: int) -> list[list[int]]:
    """Read ``hands``: four lists of eight distinct cards."""
    if not isinstance(obj, list) or len(obj) != 4:
        raise RecordError(f"deal {deal_index}: 'hands' must be a list of 4 hands", deal_index)
    hands: list[list[int]] = []
    seen: dict[int, int] = {}
    for s, h in enumerate(obj):
        if not isinstance(h, list) or len(h) != 8:
            raise RecordError(
                f"deal {deal_index}: 'hands[{s}]' must be a list of 8 cards", deal_index
            )
        cards = []
        for i, text in enumerate(h):
            try:
                c = parse_card(text)
            except CardError as e:
                raise RecordError(
                    f"deal {deal_index}: 'hands[{s}][{i}]': {e}", deal_index
                ) from None
            if c in seen:
                raise RecordError(
                    f"deal {deal_index}: 'hands[{s}][{i}]' {text} is also in hands[{seen[c]}]",
                    deal_index,
                )
            seen[c] = s
            cards.append(c)
        hands.append(cards)
    return hands


def load(text: str | bytes) -> dict[str, Any]:
    """Parse record text into a dict, checking only the record-level shape."""
    try:
        obj = json.loads(text)
    except (ValueError, UnicodeDecodeError) as e:
        raise RecordError(f"not valid JSON: {e}") from None
    except RecursionError:
        raise RecordError("not valid JSON: nested too deeply") from None
    if not isinstance(obj, dict):
        raise RecordError(f"a record must be a JSON object, not {type(obj).__name__}")
    fmt = obj.get("format")
    if fmt != RECORD_FORMAT:
        raise RecordError(f"'format' must be {RECORD_FORMAT!r}, not {fmt!r}")
    if "deals" not in obj or not isinstance(obj["deals"], list):
        raise RecordError("'deals' must be a list")
    unknown = set(obj) - {"format", "rules", "deals", "meta"}
    if unknown:
        raise RecordError(f"unknown key {sorted(unknown)[0]!r} in record")
    return obj


def record_rules(obj: dict[str, Any]) -> Rules:
    try:
        return from_json(obj.get("rules"))
    except RulesError as e:
        raise RecordError(f"'rules': {e}") from None


def replay_record(obj: dict[str, Any]) -> tuple[Match, RecordError | None]:
    """Replay a loaded record. Returns the match as far as it went and the first fault."""
    rules = record_rules(obj)
    deals = obj["deals"]
    match = Match(rules)
    for i, d in enumerate(deals):
        if not isinstance(d, dict):
            return match, RecordError(f"deal {i} must be an object", i)
        unknown = set(d) - {"dealer", "hands", "actions"}
        if unknown:
            return match, RecordError(f"deal {i}: unknown key {sorted(unknown)[0]!r}", i)
        if match.winner is not None:
            return match, RecordError(f"deal {i} comes after the match was decided", i)
        if match.deals and match.deal.phase != OVER:
            return match, RecordError(f"deal {i} comes after deal {i - 1}, which is unfinished", i)
        dealer = d.get("dealer")
        if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer <= 3:
            return match, RecordError(f"deal {i}: 'dealer' must be a seat 0..3, not {dealer!r}", i)
        if i == 0:
            match.first_dealer = dealer
        elif dealer != match.next_dealer:
            return match, RecordError(
                f"deal {i}: 'dealer' must be seat {match.next_dealer} (next after seat "
                f"{match.deal.dealer}), not {dealer}",
                i,
            )
        try:
            hands = parse_hands(d.get("hands"), i)
        except RecordError as e:
            return match, e
        actions = d.get("actions", [])
        if not isinstance(actions, list):
            return match, RecordError(f"deal {i}: 'actions' must be a list", i)
        match.start_deal(hands)
        for j, a in enumerate(actions):
            try:
                action = Action.from_json(a)
                if match.deal.phase == OVER:
                    raise IllegalAction("the deal is already over")
                match.apply(action)
            except (ActionError, IllegalAction) as e:
                return match, RecordError(str(e), i, j)
    return match, None


def played_contract(obj: dict[str, Any]) -> Deal | None:
    """The first deal of a loaded record if a contract was played to its end there:
    None for a faulty, forfeited or unfinished game, a redeal and a single hand.
    A record that cannot be read raises as ``replay_record`` does."""
    match, fault = replay_record(obj)
    deal = match.deals[0] if match.deals else None
    if fault is not None or deal is None or deal.phase != OVER:
        return None  # forfeited or unfinished
    if deal.bidder < 0 or deal.trump is None or deal.trump < 0 or deal.single >= 0:
        return None  # redealt, or a single hand: no contract
    return deal


def verdict_of(match: Match, upto: int | None = None) -> dict[str, Any]:
    deals = match.deals if upto is None else match.deals[:upto]
    score = [0, 0]
    for d in deals:
        score[0] += d.delta[0]
        score[1] += d.delta[1]
    return {
        "ok": True,
        "deals": [d.verdict() for d in deals],
        "score": score,
        "winner": match.winner if upto is None else None,
        "complete": all(d.phase == OVER for d in deals),
    }


def replay_text(text: str | bytes) -> Verdict:
    """The whole ``twentynine replay --json`` behaviour, minus the printing."""
    try:
        obj = load(text)
        match, fault = replay_record(obj)
    except RecordError as e:
        return Verdict(
            {
                "ok": False,
                "deals": [],
                "score": [0, 0],
                "winner": None,
                "complete": False,
                "error": {"deal": None, "action": None, "message": str(e)},
            },
            EXIT_MALFORMED,
        )
    if fault is None:
        return Verdict(verdict_of(match), EXIT_OK)
    assert fault.deal is not None
    upto = min(fault.deal, len(match.deals))
    data = verdict_of(match, upto)
    data["ok"] = False
    data["complete"] = False
    data["winner"] = _winner(match, upto)
    data["error"] = {"deal": fault.deal, "action": fault.action, "message": str(fault)}
    return Verdict(data, EXIT_ILLEGAL)


def _winner(match: Match, upto: int) -> int | None:
    target = match.rules.match_target
    if target is None:
        return None
    score = [0, 0]
    for d in match.deals[:upto]:
        score[0] += d.delta[0]
        score[1] += d.delta[1]
        for team in (0, 1):
            if score[team] >= target:
                return team
            if score[team] <= -target:
                return 1 - team
    return None


def dumps(match: Match, indent: int | None = None) -> str:
    return json.dumps(match.to_record(), indent=indent, ensure_ascii=False)


def loads(text: str | bytes) -> Match:
    """Rebuild a match (possibly in progress) from record text; faults raise RecordError."""
    match, fault = replay_record(load(text))
    if fault is not None:
        raise fault
    return match
