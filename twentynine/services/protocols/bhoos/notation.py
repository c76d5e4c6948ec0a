"""The protocol's notation: cards, suits, player ids, and which rules it can express.

Cards are rank then suit like ours, except that the ace is ``1`` (our ``A``);
the ten is ``T`` in both. Reading is strict: a card in our notation (``AS``)
or in lower case is a protocol error, because a bot that writes it would be
misunderstood by the contest's engine too.
"""

from __future__ import annotations

import math
from typing import Any, TypeGuard

from ....game.cards import RANKS, SUITS
from ....game.rules import PROFILES, Rules, RulesError

PROTOCOL_RANKS = "J91TKQ87"  # high to low, as BHOOS.md lists them
# Our rank letter for each protocol rank letter, and back.
_TO_OURS = {r: ("A" if r == "1" else r) for r in PROTOCOL_RANKS}
_FROM_OURS = {ours: theirs for theirs, ours in _TO_OURS.items()}

# The ids our adapter gives the four players, in playing order from the first
# player of the deal (the sample ids of the starter code): partners two apart.
PLAYER_IDS = ("A1", "B1", "A2", "B2")

PASS_BID = 0
ENDPOINTS = ("bid", "chooseTrump", "play")


class ProtocolError(ValueError):
    """A request or an answer that breaks the protocol (shape, notation or rules)."""


def card_out(card: int) -> str:
    """Our card number as protocol text: ``1S`` for the ace of spades."""
    return _FROM_OURS[RANKS[card & 7]] + SUITS[card >> 3]


def card_in(text: Any, where: str = "card") -> int:
    """Protocol text to our card number; anything else is a ``ProtocolError``."""
    if not isinstance(text, str):
        raise ProtocolError(f"{where}: a card must be a string like '1S', not {_show(text)}")
    if len(text) != 2 or text[0] not in _TO_OURS or text[1] not in SUITS:
        hint = " (the ace is written 1, the ten T)" if text[:1] in ("A", "a", "1") else ""
        raise ProtocolError(
            f"{where}: {_show(text)} is not a card; write rank then suit, ranks "
            f"{' '.join(PROTOCOL_RANKS)}, suits {' '.join(SUITS)}{hint}"
        )
    return SUITS.index(text[1]) * 8 + RANKS.index(_TO_OURS[text[0]])


def suit_out(suit: int) -> str:
    return SUITS[suit]


def suit_in(text: Any, where: str = "suit") -> int:
    if not isinstance(text, str) or len(text) != 1 or text not in SUITS:
        raise ProtocolError(f"{where}: {_show(text)} is not a suit (S, H, D or C)")
    return SUITS.index(text)


def is_number(value: Any) -> TypeGuard[int | float]:
    """A JSON number (not a boolean, not NaN or infinite)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _show(value: Any) -> str:
    """A value of a message or answer as an error may name it: a short string (letters,
    digits and ``_-``, up to 4) as itself, anything else by its JSON type only, so that
    an error never carries what a bot (or anything behind its address) answered."""
    if isinstance(value, str):
        if len(value) <= 4 and all(c.isascii() and (c.isalnum() or c in "_-") for c in value):
            return repr(value)
        return f"a string of {len(value)} characters"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


# The options the protocol has no phase or field for: an external bot can only
# be seated, and our bots can only be served, under rules equal to these.
PROTOCOL_OPTIONS = (
    "min_bid",
    "max_bid",
    "auction",
    "all_pass",
    "reveal",
    "seventh_card",
    "single_hand",
    "doubling",
    "pair",
    "last_trick_point",
)


def protocol_rules() -> Rules:
    """The rules a protocol bot plays: the ``bhoos`` profile."""
    return PROFILES["bhoos"]


def check_rules(rules: Rules) -> None:
    """Refuse rules the protocol cannot express, saying which options differ.

    The protocol has no phase for the pair, doubling, the seventh card or a
    single hand, only the duel auction, the reveal on request and bids 16..28
    with the last player forced when nobody bids.
    """
    base = protocol_rules()
    wrong = [
        f"{name}={_word(getattr(rules, name))} (the protocol needs {_word(getattr(base, name))})"
        for name in PROTOCOL_OPTIONS
        if getattr(rules, name) != getattr(base, name)
    ]
    if wrong:
        raise RulesError(
            "a contest protocol bot can only play rules the protocol can express "
            "(use --profile bhoos): " + "; ".join(wrong)
        )


def _word(value: Any) -> str:
    if value is True:
        return "yes"
    if value is False:
        return "no"
    return str(value)
