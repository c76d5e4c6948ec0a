"""What can be deduced from an observation: the cards still out, who is void
where, who holds how many cards. Only public facts and the seat's own hand
go in; everything here is something a careful player at the table knows.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..game.cards import FULL_DECK, POINTS, SUIT_MASK, mask_of
from ..game.engine import partner_of
from ..game.observation import Observation


@dataclass
class Knowledge:
    seat: int
    hand: int  # my cards
    played: int  # every card played so far (tricks and the trick on the table)
    out: int  # cards held by the others (unseen by me)
    voids: list[int]  # per seat: bit s set when the seat is known to have no suit s
    counts: list[int]  # cards each seat still holds
    played_by: list[int]  # per seat: mask of the cards it played
    trump: int | None  # the trump suit if this seat knows it
    trumps_active: bool  # trumps have been revealed
    led: int | None  # suit led in the trick on the table
    winner: int | None  # seat currently winning the trick on the table
    winning_card: int | None

    def is_void(self, seat: int, suit: int) -> bool:
        return bool(self.voids[seat] >> suit & 1)

    def master(self, card: int) -> bool:
        """No card of its suit still out beats it (my own cards do not count)."""
        return (self.out & SUIT_MASK[card >> 3]) >> (card + 1) == 0

    def out_points(self) -> int:
        m, total = self.out, 0
        while m:
            low = m & -m
            total += POINTS[low.bit_length() - 1]
            m ^= low
        return total


def trick_winner(cards: list[int] | tuple[int, ...], trump: int | None, trumps_active: bool) -> int:
    """Index of the winning card of a (possibly partial) trick."""
    mask = mask_of(cards)
    trumps = mask & SUIT_MASK[trump] if trumps_active and trump is not None else 0
    best = (trumps or mask & SUIT_MASK[cards[0] >> 3]).bit_length() - 1
    return list(cards).index(best)


def analyse(obs: Observation) -> Knowledge:
    assert obs.seat is not None
    seat = obs.seat
    hand = mask_of(obs.hand)
    played_by = [0, 0, 0, 0]
    voids = [0, 0, 0, 0]
    for _leader, cards, seats, _winner, _pts in obs.tricks:
        led = cards[0] >> 3
        for s, c in zip(seats, cards, strict=True):
            played_by[s] |= 1 << c
            if c >> 3 != led:
                voids[s] |= 1 << led
    led_now = obs.trick[0][1] >> 3 if obs.trick else None
    for s, c in obs.trick:
        played_by[s] |= 1 << c
        if led_now is not None and c >> 3 != led_now:
            voids[s] |= 1 << led_now
    played = played_by[0] | played_by[1] | played_by[2] | played_by[3]
    out = FULL_DECK & ~played & ~hand
    size = 8 if obs.second_batch else 4
    counts = [size - played_by[s].bit_count() for s in range(4)]
    if obs.single is not None:
        counts[partner_of(obs.single)] = 8
    # A seat that asked for the reveal and still played no trump has none.
    if obs.trump is not None and obs.revealer is not None and obs.rules.reveal == "ask":
        voids_from_ask(obs, voids)
    winner = winning_card = None
    if obs.trick:
        now = [c for _, c in obs.trick]
        i = trick_winner(now, obs.trump, obs.trump_revealed)
        winner, winning_card = obs.trick[i][0], now[i]
    return Knowledge(
        seat=seat,
        hand=hand,
        played=played,
        out=out,
        voids=voids,
        counts=counts,
        played_by=played_by,
        trump=obs.trump,
        trumps_active=obs.trump_revealed,
        led=led_now,
        winner=winner,
        winning_card=winning_card,
    )


def voids_from_ask(obs: Observation, voids: list[int]) -> None:
    assert obs.trump is not None and obs.revealed_in_trick is not None
    n = obs.revealed_in_trick
    if n <= len(obs.tricks):
        _leader, cards, seats, _w, _p = obs.tricks[n - 1]
        pairs = list(zip(seats, cards, strict=True))
    else:
        pairs = list(obs.trick)
    for s, c in pairs:
        if s == obs.revealer and c >> 3 != obs.trump:
            voids[s] |= 1 << obs.trump
