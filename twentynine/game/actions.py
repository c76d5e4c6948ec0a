"""Actions: every decision of a deal, with one canonical JSON form.

The JSON form is the one of the game record (``{"seat": 0, "bid": 16}``), so
the same object serves the engine, logs, the wire and replays. Actions are
immutable and the common ones are interned: ``Action.play(2, card)`` returns
the same object every time, which keeps the engine's hot path cheap.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .cards import NUM_CARDS, SUITS, CardError, card_text, parse_card, parse_suit

# Action kinds. Flags carry no value; bid, trump and play do.
BID = "bid"
PASS = "pass"
TRUMP = "trump"
SEVENTH = "seventh"
SINGLE = "single"
DOUBLE = "double"
REDOUBLE = "redouble"
SET = "set"
PLAY = "play"
PAIR = "pair"
REVEAL = "reveal"

KINDS = (BID, PASS, TRUMP, SEVENTH, SINGLE, DOUBLE, REDOUBLE, SET, PLAY, PAIR, REVEAL)
FLAG_KINDS = frozenset((PASS, SEVENTH, SINGLE, DOUBLE, REDOUBLE, SET, PAIR, REVEAL))
MAX_BID_VALUE = 29


class ActionError(ValueError):
    """An action object that cannot be read (not an illegal move: a malformed one)."""


@dataclass(frozen=True, slots=True)
class Action:
    seat: int
    kind: str
    value: int | None = None

    # -- interned constructors ------------------------------------------------
    @staticmethod
    def play(seat: int, card: int) -> Action:
        return _PLAY[seat][card]

    @staticmethod
    def bid(seat: int, amount: int) -> Action:
        if 0 <= amount <= MAX_BID_VALUE:
            return _BID[seat][amount]
        return Action(seat, BID, amount)

    @staticmethod
    def trump(seat: int, suit: int) -> Action:
        return _TRUMP[seat][suit]

    @staticmethod
    def flag(seat: int, kind: str) -> Action:
        return _FLAG[seat][kind]

    @staticmethod
    def pass_(seat: int) -> Action:
        return _FLAG[seat][PASS]

    # -- JSON -------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        if self.kind == PLAY:
            assert self.value is not None
            return {"seat": self.seat, PLAY: card_text(self.value)}
        if self.kind == TRUMP:
            assert self.value is not None
            return {"seat": self.seat, TRUMP: SUITS[self.value]}
        if self.kind == BID:
            return {"seat": self.seat, BID: self.value}
        return {"seat": self.seat, self.kind: True}

    @staticmethod
    def from_json(obj: Any) -> Action:
        """Read an action object strictly: ``seat`` and exactly one action key."""
        if not isinstance(obj, dict):
            raise ActionError(f"an action must be an object, not {type(obj).__name__}")
        if "seat" not in obj:
            raise ActionError("action has no 'seat'")
        seat = obj["seat"]
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat <= 3:
            raise ActionError(f"action 'seat' must be 0, 1, 2 or 3, not {seat!r}")
        keys = [k for k in obj if k != "seat"]
        unknown = [k for k in keys if k not in KINDS]
        if unknown:
            raise ActionError(
                f"unknown key {unknown[0]!r} in action (keys: seat, {', '.join(KINDS)})"
            )
        if len(keys) != 1:
            what = "no action key" if not keys else f"several action keys ({', '.join(keys)})"
            raise ActionError(
                f"action must hold exactly one action key besides 'seat', found {what}"
            )
        kind = keys[0]
        value = obj[kind]
        if kind in FLAG_KINDS:
            if value is not True:
                raise ActionError(f"action '{kind}' must be true, not {value!r}")
            return _FLAG[seat][kind]
        if kind == BID:
            if isinstance(value, bool) or not isinstance(value, int):
                raise ActionError(f"action 'bid' must be a whole number, not {value!r}")
            return Action.bid(seat, value)
        if kind == TRUMP:
            try:
                return _TRUMP[seat][parse_suit(value)]
            except CardError as e:
                raise ActionError(f"action 'trump': {e}") from None
        try:
            return _PLAY[seat][parse_card(value)]
        except CardError as e:
            raise ActionError(f"action 'play': {e}") from None

    def __str__(self) -> str:
        if self.kind == PLAY:
            assert self.value is not None
            return f"seat {self.seat} plays {card_text(self.value)}"
        if self.kind == BID:
            return f"seat {self.seat} bids {self.value}"
        if self.kind == TRUMP:
            assert self.value is not None
            return f"seat {self.seat} chooses trump {SUITS[self.value]}"
        return f"seat {self.seat}: {self.kind}"


_PLAY = tuple(tuple(Action(s, PLAY, c) for c in range(NUM_CARDS)) for s in range(4))
_BID = tuple(tuple(Action(s, BID, b) for b in range(MAX_BID_VALUE + 1)) for s in range(4))
_TRUMP = tuple(tuple(Action(s, TRUMP, t) for t in range(4)) for s in range(4))
_FLAG = tuple({k: Action(s, k) for k in FLAG_KINDS} for s in range(4))
