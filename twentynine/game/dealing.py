"""Seeded shuffling and dealing.

The generator is SplitMix64, written out here rather than taken from
``random`` so that a seed names the same deal on every Python (CPython,
Pyodide) and every version, forever: records and tests may rely on it.
"""

from __future__ import annotations

from .cards import NUM_CARDS

_MASK64 = (1 << 64) - 1
FIRST_BATCH = 4
HAND_SIZE = 8


class SplitMix64:
    """A tiny, well-mixed 64-bit generator; good enough for shuffling cards."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & _MASK64

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """Uniform integer in [0, n) without modulo bias."""
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self.next()
            if x < limit:
                return x % n


def derive_seed(seed: int, *parts: int) -> int:
    """A sub-seed for deal number ``parts`` of a seeded match."""
    rng = SplitMix64(seed)
    x = rng.next()
    for p in parts:
        rng = SplitMix64(x ^ (p * 0xD1B54A32D192ED03 & _MASK64))
        x = rng.next()
    return x


def shuffled_deck(seed: int) -> list[int]:
    deck = list(range(NUM_CARDS))
    rng = SplitMix64(seed)
    for i in range(NUM_CARDS - 1, 0, -1):
        j = rng.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def deal_hands(seed: int, dealer: int, clockwise: bool = True) -> list[list[int]]:
    """Deal a shuffled deck one card at a time from the dealer's next seat.

    Four rounds make the first batch, four more the second; ``hands[s]``
    lists the first batch first, as the game record wants.
    """
    deck = shuffled_deck(seed)
    step = 1 if clockwise else 3
    hands: list[list[int]] = [[], [], [], []]
    pos = 0
    for _ in range(HAND_SIZE):
        seat = dealer
        for _ in range(4):
            seat = (seat + step) % 4
            hands[seat].append(deck[pos])
            pos += 1
    return hands


def first_dealer(seed: int) -> int:
    return derive_seed(seed, 0xDEA1) % 4
