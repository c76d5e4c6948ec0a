"""Cards of 29: encoding, rank order, points, notation and bitmask helpers.

A card is an integer 0..31: ``suit * 8 + strength``. Suits are numbered
S H D C = 0 1 2 3, and ``strength`` orders the ranks of a suit from the
lowest (7 = 0) to the highest (J = 7), so within one suit the larger number
always wins. A set of cards is a 32-bit mask with bit ``card`` set; the eight
bits of one suit are contiguous, which makes "cards of the suit led" a single
AND and "highest card of a suit" a ``bit_length``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

SUITS = "SHDC"
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")
SUIT_SYMBOLS = "♠♥♦♣"

# Ranks from the lowest to the highest: the index is the card's strength.
RANKS = "78QKTA9J"
RANK_NAMES = ("Seven", "Eight", "Queen", "King", "Ten", "Ace", "Nine", "Jack")
# Card points by strength: 7 8 Q K T A 9 J.
RANK_POINTS = (0, 0, 0, 0, 1, 1, 2, 3)
TOTAL_POINTS = 28

NUM_CARDS = 32
FULL_DECK = (1 << NUM_CARDS) - 1
SUIT_MASK = tuple(0xFF << (8 * s) for s in range(4))

JACK, NINE, ACE, TEN, KING, QUEEN = 7, 6, 5, 4, 3, 2

POINTS = tuple(RANK_POINTS[c & 7] for c in range(NUM_CARDS))

_SUIT_ALIASES = {
    "S": 0,
    "H": 1,
    "D": 2,
    "C": 3,
    "♠": 0,
    "♥": 1,
    "♦": 2,
    "♣": 3,
    "♤": 0,
    "♡": 1,
    "♢": 2,
    "♧": 3,
}
_RANK_ALIASES = {r: i for i, r in enumerate(RANKS)}
_RANK_ALIASES["10"] = RANKS.index("T")


class CardError(ValueError):
    """A card or suit text that cannot be read."""


def card(suit: int, strength: int) -> int:
    return suit * 8 + strength


def suit_of(c: int) -> int:
    return c >> 3


def strength_of(c: int) -> int:
    return c & 7


def points_of(c: int) -> int:
    return POINTS[c]


def parse_suit(text: str) -> int:
    """Read a suit: ``S``, ``h``, ``♦`` ..."""
    if not isinstance(text, str):
        raise CardError(f"a suit must be text, not {type(text).__name__}")
    key = text.strip().upper()
    if key not in _SUIT_ALIASES:
        raise CardError(f"{text!r} is not a suit (use S, H, D, C or ♠ ♥ ♦ ♣)")
    return _SUIT_ALIASES[key]


def parse_card(text: str) -> int:
    """Read a card: rank then suit, e.g. ``JS``, ``10h``, ``J♠``, ``ta``."""
    if not isinstance(text, str):
        raise CardError(f"a card must be text like 'JS', not {type(text).__name__}")
    t = text.strip().upper()
    if len(t) < 2:
        raise CardError(f"{text!r} is not a card (write rank then suit, e.g. JS, 10H, J♠)")
    rank_text, suit_text = t[:-1], t[-1]
    if rank_text not in _RANK_ALIASES:
        raise CardError(
            f"{text!r} is not a card: unknown rank {rank_text!r} (ranks: J 9 A T K Q 8 7)"
        )
    if suit_text not in _SUIT_ALIASES:
        raise CardError(f"{text!r} is not a card: unknown suit {suit_text!r} (suits: S H D C)")
    return card(_SUIT_ALIASES[suit_text], _RANK_ALIASES[rank_text])


def parse_cards(text: str | Iterable[str]) -> list[int]:
    """Read several cards from a list or from text separated by spaces or commas."""
    items = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return [parse_card(x) for x in items]


def card_text(c: int) -> str:
    """Canonical notation: ``JS``, ``TH``, ``7C``."""
    return RANKS[c & 7] + SUITS[c >> 3]


def card_symbol(c: int) -> str:
    """Notation with the suit symbol and ``10`` for the ten: ``J♠``, ``10♥``."""
    r = RANKS[c & 7]
    return ("10" if r == "T" else r) + SUIT_SYMBOLS[c >> 3]


def card_name(c: int) -> str:
    """Spoken name, for screen readers: ``Jack of spades, 3 points``."""
    p = POINTS[c]
    tail = "" if p == 0 else f", {p} point" + ("s" if p > 1 else "")
    return f"{RANK_NAMES[c & 7]} of {SUIT_NAMES[c >> 3]}{tail}"


def mask_of(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(mask: int) -> list[int]:
    """Cards of a mask in ascending order (lowest suit, lowest rank first)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def iter_cards(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def count(mask: int) -> int:
    return mask.bit_count()


def highest(mask: int) -> int:
    """The highest card of a mask (meaningful within one suit); -1 if empty."""
    return mask.bit_length() - 1


def mask_points(mask: int) -> int:
    total = 0
    while mask:
        low = mask & -mask
        total += POINTS[low.bit_length() - 1]
        mask ^= low
    return total


def suits_held(mask: int) -> list[int]:
    return [s for s in range(4) if mask & SUIT_MASK[s]]


def sort_hand(cards: Iterable[int]) -> list[int]:
    """Group by suit (S H D C) and, inside a suit, from the highest to the lowest."""
    return sorted(cards, key=lambda c: (c >> 3, -(c & 7)))


def format_cards(cards: Iterable[int], symbols: bool = False) -> str:
    f = card_symbol if symbols else card_text
    return " ".join(f(c) for c in cards)


def deck() -> list[int]:
    return list(range(NUM_CARDS))
