"""Worlds consistent with an observation: full deals a seat cannot rule out.

A world gives every other seat a hand (the right number of cards, none of a
suit the seat has shown out of) and, when the seat does not know trumps, a
trump suit. The strong bots solve many such worlds exactly and play what
works best across them. Sampling uses only ``Knowledge``, never the engine.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..game.cards import SUIT_MASK
from .knowledge import Knowledge

MAX_TRIES = 200


@dataclass(frozen=True)
class World:
    hands: tuple[int, int, int, int]  # cards still held, as masks
    trump: int | None  # the trump suit of this world (None: no trumps, single hand)
    first: tuple[int, int, int, int] | None = None  # first batches, where a bot guessed them


class Impossible(Exception):
    """No world fits what the seat has seen (should not happen with honest input)."""


def deal_world(
    know: Knowledge,
    rng: random.Random,
    trump: int | None,
    must_hold: dict[int, int] | None = None,
    forbid: dict[int, int] | None = None,
) -> tuple[int, int, int, int]:
    """Hand out the unseen cards to the other seats at random, respecting voids.

    ``must_hold[s]`` is a set of cards one of which seat ``s`` must hold (used
    for the seventh-card rule: the bidder holds a trump); ``forbid[s]`` is a
    mask of cards seat ``s`` cannot hold beyond its voids.
    """
    me = know.seat
    others = [s for s in range(4) if s != me and know.counts[s] > 0]
    cards = [c for c in range(32) if know.out >> c & 1]
    need_total = sum(know.counts[s] for s in others)
    if need_total != len(cards):
        raise Impossible(f"{len(cards)} unseen cards for {need_total} places")
    allowed = {}
    for s in others:
        mask = 0
        for suit in range(4):
            if not know.voids[s] >> suit & 1:
                mask |= SUIT_MASK[suit]
        if forbid and s in forbid:
            mask &= ~forbid[s]
        allowed[s] = mask
    for _ in range(MAX_TRIES):
        hands = [0, 0, 0, 0]
        hands[me] = know.hand
        left = dict((s, know.counts[s]) for s in others)
        order = cards[:]
        rng.shuffle(order)
        # Place the most constrained cards first: those few seats may take.
        order.sort(key=lambda c: sum(1 for s in others if allowed[s] >> c & 1))
        ok = True
        for c in order:
            seats = [s for s in others if left[s] > 0 and allowed[s] >> c & 1]
            if not seats:
                ok = False
                break
            weights = [left[s] for s in seats]
            s = rng.choices(seats, weights)[0]
            hands[s] |= 1 << c
            left[s] -= 1
        if not ok:
            continue
        if must_hold and any(not hands[s] & m for s, m in must_hold.items() if s != me):
            continue
        return (hands[0], hands[1], hands[2], hands[3])
    raise Impossible("no consistent deal found")
