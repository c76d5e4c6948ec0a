"""How likely a seat was to play the card it played: a fitted model of the play.

The experts weigh each sampled world by how well it explains what the other
seats did (``expert_v1``): their calls, the trump choice, points thrown away.
This model reads the cards they played as well. Given what a seat could see
when it played (the cards already on the table, everything played before,
whether trumps were revealed, the trump if it was the bidder) and the hand
it held then in a world, it gives each card it could legally play a chance:
a conditional logit over a few features of the card (does it take the trick,
does it feed the partner's trick or the opponents', is it the lowest or the
highest of its suit, is it the top card of its suit still out, ...). A world
in which the seats' cards were likely plays weighs more than one in which
they were strange ones: a seat that played low under its partner's winning
card did not hold a lone ace to feed it, a seat that ducked a trick it could
have taken cheaply probably could not.

The coefficients are fitted to the cards bots played in arena games with
every hand known (``play_model_build``, ``data/play.json``). Pure Python:
the likelihood runs in the browser too.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from ..game.cards import FULL_DECK, POINTS, SUIT_MASK, cards_of
from ..game.observation import Observation

FEATURES = (
    "lead_points",
    "lead_master",
    "lead_trump",
    "lead_length",
    "lead_lowest",
    "lead_strength",
    "wins",
    "wins_last",
    "wins_cheapest",
    "feeds_partner",
    "feeds_opponents",
    "wins_points_on_table",
    "discard",
    "ruff",
    "follow_strength",
    "follow_lowest",
    "follow_highest",
    "master",
    "singleton",
)


@dataclass(frozen=True)
class PlayPoint:
    """One card played, and what its player could see when it played it."""

    seat: int
    card: int
    table: tuple[tuple[int, int], ...]  # (seat, card) already in the trick, in order
    played: int  # every card played before this one, this trick's included
    active: bool  # trumps revealed (and so in force) for this card
    bidder: bool  # the player is the bidder (it knows a hidden trump)
    # the player asked for the reveal in this trick and must then trump: not a free choice
    forced: bool


def history(obs: Observation) -> list[PlayPoint]:
    """Every card played in the deal so far, in order, as its player saw the table."""
    out: list[PlayPoint] = []
    played = 0
    asked = obs.rules.reveal == "ask"
    tricks = [list(zip(t[2], t[1], strict=True)) for t in obs.tricks]
    tricks.append(list(obs.trick))
    for n, cards in enumerate(tricks, start=1):
        table: list[tuple[int, int]] = []
        for seat, card in cards:
            reveal_trick = obs.revealed_in_trick == n
            active = obs.revealed_in_trick is not None and (
                n > obs.revealed_in_trick
                or (reveal_trick and _at_or_after(table, seat, obs.revealer))
            )
            out.append(
                PlayPoint(
                    seat,
                    card,
                    tuple(table),
                    played,
                    active,
                    seat == obs.bidder,
                    asked and reveal_trick and seat == obs.revealer,
                )
            )
            table.append((seat, card))
            played |= 1 << card
    return out


def _at_or_after(table: list[tuple[int, int]], seat: int, revealer: int | None) -> bool:
    """Whether the reveal, made by ``revealer`` in this trick, came before ``seat`` played."""
    return revealer is not None and (seat == revealer or any(s == revealer for s, _ in table))


def legal_cards(hand: int, table: tuple[tuple[int, int], ...]) -> int:
    """The cards a hand may play to a trick: the suit led if it holds it, else any."""
    if not table:
        return hand
    follow = hand & SUIT_MASK[table[0][1] >> 3]
    return follow or hand


def features(point: PlayPoint, hand: int, trump: int | None, card: int) -> list[float]:
    """The model's description of playing ``card`` from ``hand`` at ``point``; ``trump``
    is the trump suit as the player knew it (None: it did not)."""
    f = [0.0] * len(FEATURES)
    for i, x in sparse_features(point, hand, trump, card):
        f[i] = x
    return f


def sparse_features(
    point: PlayPoint, hand: int, trump: int | None, card: int
) -> list[tuple[int, float]]:
    """``features`` as (index, value) of those not zero: most are, and the likelihood
    of a world adds up a few hundred of these."""
    f: list[tuple[int, float]] = []
    suit = card >> 3
    strength = card & 7
    in_suit = hand & SUIT_MASK[suit]
    unseen = FULL_DECK & ~point.played & ~hand
    master = (unseen & SUIT_MASK[suit]) >> (card + 1) == 0
    is_trump = trump is not None and suit == trump
    if master:
        f.append((17, 1.0))
    if in_suit & (in_suit - 1) == 0:
        f.append((18, 1.0))
    if not point.table:
        f.append((0, POINTS[card]))
        if master:
            f.append((1, 1.0))
        if is_trump:
            f.append((2, 1.0))
        f.append((3, in_suit.bit_count()))
        if in_suit & ((1 << card) - 1) == 0:
            f.append((4, 1.0))
        f.append((5, strength / 7))
        return f
    led = point.table[0][1] >> 3
    power = trump if point.active else None
    best_seat, best = _winning(point.table, power)
    if _beats(card, best, led, power):
        f.append((6, 1.0))
        if len(point.table) == 3:
            f.append((7, 1.0))
        cheaper = legal_cards(hand, point.table) & ((1 << card) - 1)
        if not any(_beats(c, best, led, power) for c in cards_of(cheaper)):
            f.append((8, 1.0))
        f.append((11, sum(POINTS[c] for _, c in point.table)))
    elif best_seat == (point.seat + 2) % 4:
        f.append((9, POINTS[card]))
    else:
        f.append((10, POINTS[card]))
    if suit != led:
        f.append((13 if is_trump else 12, 1.0))
    else:
        legal = hand & SUIT_MASK[led]
        f.append((14, strength / 7))
        if legal & ((1 << card) - 1) == 0:
            f.append((15, 1.0))
        if legal >> (card + 1) == 0:
            f.append((16, 1.0))
    return f


def _beats(card: int, best: int, led: int, power: int | None) -> bool:
    """Whether ``card`` takes the trick from ``best`` (suit ``led``, trumps ``power``)."""
    suit, other = card >> 3, best >> 3
    if power is not None and suit == power:
        return other != power or card > best
    if power is not None and other == power:
        return False
    return suit == led and card > best


def _winning(table: tuple[tuple[int, int], ...], power: int | None) -> tuple[int, int]:
    led = table[0][1] >> 3
    seat, best = table[0]
    for s, c in table[1:]:
        if _beats(c, best, led, power):
            seat, best = s, c
    return seat, best


@dataclass(frozen=True)
class PlayModel:
    """A conditional logit over the cards a seat could play."""

    coefficients: tuple[float, ...]

    def log_chance(self, point: PlayPoint, hand: int, trump: int | None) -> float:
        """The log of the chance that a seat holding ``hand`` at ``point`` played the card
        it did (0 where it had no choice; a card it could not play: -inf)."""
        legal = legal_cards(hand, point.table)
        if not legal >> point.card & 1:
            return -math.inf
        if legal & (legal - 1) == 0:
            return 0.0
        beta = self.coefficients
        scores = []
        mine = 0.0
        for c in cards_of(legal):
            s = 0.0
            for i, x in sparse_features(point, hand, trump, c):
                s += beta[i] * x
            scores.append(s)
            if c == point.card:
                mine = s
        top = max(scores)
        return mine - top - math.log(sum(math.exp(s - top) for s in scores))


def play_likelihood(
    model: PlayModel,
    points: list[PlayPoint],
    hands: tuple[int, ...],
    trump: int | None,
    seat: int,
    trust: float = 1.0,
) -> float:
    """How well a world explains the cards the other seats played: the product of the
    model's chances of each of their cards (``seat``'s own left out), to the power
    ``trust``. ``hands`` are the cards each seat still holds in the world, ``trump``
    its trump suit."""
    if trust <= 0:
        return 1.0
    later = [0, 0, 0, 0]  # cards each seat played from this point on
    total = 0.0
    for point in reversed(points):
        s = point.seat
        later[s] |= 1 << point.card
        if s == seat or point.forced:
            continue
        held = hands[s] | later[s]
        known = trump if (point.bidder or point.active) else None
        total += model.log_chance(point, held, known)
        if total == -math.inf:
            return 0.0
    return math.exp(trust * total)


@lru_cache(maxsize=1)
def default_play_model() -> PlayModel | None:
    """The fitted model shipped in ``data/play.json`` (None if it is missing or stale)."""
    try:
        text = resources.files("twentynine").joinpath("data/play.json").read_text()
    except (FileNotFoundError, OSError):
        return None
    data = json.loads(text)
    if tuple(data.get("features", ())) != FEATURES:
        return None
    return PlayModel(tuple(float(b) for b in data["coefficients"]))


__all__ = [
    "FEATURES",
    "PlayModel",
    "PlayPoint",
    "default_play_model",
    "features",
    "history",
    "legal_cards",
    "play_likelihood",
]
