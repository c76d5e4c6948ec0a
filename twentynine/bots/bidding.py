"""Contract decisions of the strong players, by evaluation.

Bidding and the trump choice use a model of what a first batch of four
cards is worth: for a hand, a trump suit and the bidder's place in the
order of play, the expected points of the bidder's team and their spread.
The model is fitted to exact solutions of many random deals (see
``bidding_build.py``, which rebuilds ``data/bidding.json``); make
probabilities come from it as a normal tail. Doubling, redoubling and the
set are decided by simulation at decision time: sample deals consistent
with what the seat knows, solve each, count the contracts made.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Protocol

from ..game.actions import BID, DOUBLE, REDOUBLE, SET, TRUMP, Action
from ..game.cards import ACE, JACK, NINE, SUIT_MASK, TEN, mask_of
from ..game.engine import partner_of
from ..game.observation import Observation
from ..game.rules import Rules
from ..solver import Outcome, OutOfNodes
from .base import Style
from .heuristic import CasualBot, estimate_team_points, find, kinds, pass_action, routine
from .knowledge import Knowledge, analyse
from .sampling import Impossible, World
from .solving import goal_of, position_of, solver


class Simulator(Protocol):
    """What a contract decision needs of the player making it (``search.StrongBot``)."""

    style: Style
    casual: CasualBot

    def sample(self, obs: Observation, know: Knowledge, rng: random.Random) -> World: ...

    def weight(self, obs: Observation, know: Knowledge, world: World) -> float: ...


FEATURES = (
    "bias",
    "trump_jack",
    "trump_nine",
    "trump_ace",
    "trump_ten",
    "trump_count",
    "trump_jack_nine",
    "trump_count_sq",
    "side_jacks",
    "side_nines",
    "side_aces_tens",
    "side_voids",
    "position_1",
    "position_2",
    "position_3",
)
# How much more chance a bid needs over the seat's own partner's contract.
PARTNER_NEED = 0.15
SIMULATED_DEALS = 24  # deals solved for a doubling decision
# Fewer solved before the decision's nodes ran out (the plain-Python kernel of the
# browser, two or three there): too few to go by, so the casual player decides.
MIN_SIMULATED_DEALS = 8


def features(hand: int, trump: int, position: int) -> list[float]:
    """The description of (first batch, trump, place in the order of play) the model uses."""
    base = trump * 8
    t = hand & SUIT_MASK[trump]
    n = t.bit_count()
    side_j = side_9 = side_at = voids = 0
    for suit in range(4):
        if suit == trump:
            continue
        cards = hand & SUIT_MASK[suit]
        b = suit * 8
        side_j += cards >> (b + JACK) & 1
        side_9 += cards >> (b + NINE) & 1
        side_at += (cards >> (b + ACE) & 1) + (cards >> (b + TEN) & 1)
        voids += cards == 0
    tj = t >> (base + JACK) & 1
    t9 = t >> (base + NINE) & 1
    return [
        1.0,
        tj,
        t9,
        t >> (base + ACE) & 1,
        t >> (base + TEN) & 1,
        n,
        tj * t9,
        n * n,
        side_j,
        side_9,
        side_at,
        voids,
        float(position == 1),
        float(position == 2),
        float(position == 3),
    ]


@dataclass(frozen=True)
class BiddingModel:
    """Expected team points = coefficients . features; spread per trump count."""

    coefficients: tuple[float, ...]
    spread: tuple[float, ...]  # standard deviation by number of trumps held (0..4)
    source: str = "heuristic"

    def expected(self, hand: int, trump: int, position: int) -> float:
        f = features(hand, trump, position)
        return sum(c * x for c, x in zip(self.coefficients, f, strict=True))

    def make_probability(
        self, hand: int, trump: int, position: int, target: int, rules: Rules | None = None
    ) -> float:
        mu = self.expected(hand, trump, position)
        if rules is not None and rules.last_trick_point:
            mu += 0.6  # the stronger side usually takes the last trick
        sd = self.spread[min(4, (hand & SUIT_MASK[trump]).bit_count())]
        return 0.5 * math.erfc((target - 0.5 - mu) / (sd * math.sqrt(2)))

    def best_trump(self, hand: int, position: int) -> tuple[int, float]:
        values = [self.expected(hand, s, position) for s in range(4)]
        best = max(range(4), key=lambda s: (values[s], -s))
        return best, values[best]

    def suit_values(self, hand: int, position: int = 0) -> list[float]:
        return [self.expected(hand, s, position) for s in range(4)]

    def strength(self, hand: int, position: int = 0) -> float:
        return self.best_trump(hand, position)[1]

    def auction_likelihood(
        self, first_batch: int, call: tuple[int, int], rules: Rules, position: int = 0
    ) -> float:
        """How likely a seat with this first batch made its calls.

        ``call`` is (the highest bid it made or 0, the standing bid when it last
        passed or -1). A seat bids roughly up to the points it expects.
        """
        highest, passed_at = call
        mu = self.strength(first_batch, position)
        sd = 2.5
        like = 1.0
        if highest:
            like *= 0.5 * math.erfc((highest - 1 - mu) / (sd * math.sqrt(2)))
        if passed_at >= 0:
            nxt = max(passed_at + 1, rules.min_bid)
            like *= 1 - 0.5 * math.erfc((nxt - mu) / (sd * math.sqrt(2)))
        return max(like, 1e-4)

    # -- decisions ---------------------------------------------------------------------
    def decide(self, obs: Observation, bot: Simulator, rng: random.Random) -> Action:
        k = kinds(obs)
        hand = mask_of(obs.hand)
        if BID in k:
            return self.bid(obs, hand, bot)
        if TRUMP in k:
            pos = place_of(obs, obs.seat or 0)
            suit, _ = self.best_trump(hand, pos)
            a = find(obs, TRUMP, suit)
            assert a is not None
            return a
        fixed = routine(obs, k, hand)
        if fixed is not None:
            return fixed
        if k & {DOUBLE, REDOUBLE, SET}:
            return self.double(obs, bot, rng)
        return bot.casual.decide(obs, rng, None)

    def bid(self, obs: Observation, hand: int, bot: Simulator) -> Action:
        seat = obs.seat
        assert seat is not None
        bids = sorted((a for a in obs.legal if a.kind == BID), key=lambda a: a.value or 0)
        if not bids:
            return pass_action(obs)
        pos = place_of(obs, seat)
        suit, _ = self.best_trump(hand, pos)
        holds = partner_holds(obs.auction, seat)
        lowest = bids[0].value or 0
        if self.would_bid(hand, suit, pos, lowest, obs.rules, holds, bot.style.boldness):
            return bids[0]
        return pass_action(obs)

    def would_bid(
        self,
        hand: int,
        suit: int,
        position: int,
        bid: int,
        rules: Rules,
        partner_holds: bool,
        boldness: float = 0.0,
    ) -> bool:
        """The model's rule for a bid: its chance of making ``bid`` with ``suit`` is at
        least one half (plus ``boldness``), more when the partner holds the contract."""
        need = 0.5 + boldness
        if partner_holds:
            need += PARTNER_NEED  # our side already holds the contract
        return self.make_probability(hand, suit, position, bid, rules) >= need

    def double(self, obs: Observation, bot: Simulator, rng: random.Random) -> Action:
        """Double, redouble or set when the simulated deals favour it."""
        assert obs.seat is not None
        know = analyse(obs)
        goal = goal_of(obs)
        made = total = 0.0
        s = solver()
        for solved in range(SIMULATED_DEALS):  # deals solved before this one
            try:
                world = bot.sample(obs, know, rng)
            except Impossible:
                break
            w = bot.weight(obs, know, world)
            pos = position_of(obs, world, leader=first_leader(obs))
            try:
                reached = s.outcome(pos, goal) == Outcome.REACHED
            except OutOfNodes:  # the decision's nodes are spent (the plain-Python kernel)
                if solved < MIN_SIMULATED_DEALS:
                    return bot.casual.decide(obs, rng, None)
                break
            total += w
            if reached:
                made += w
        if total <= 0:
            return pass_action(obs)
        p_make = made / total
        nerve = bot.style.doubling_nerve
        if DOUBLE in kinds(obs) and p_make < 0.35 + nerve:
            return find(obs, DOUBLE) or pass_action(obs)
        if REDOUBLE in kinds(obs) and p_make > 0.7 - nerve:
            return find(obs, REDOUBLE) or pass_action(obs)
        if SET in kinds(obs) and p_make < 0.25 + nerve:
            return find(obs, SET) or pass_action(obs)
        return pass_action(obs)


def first_leader(obs: Observation) -> int:
    """The seat that leads the first trick (the one after the dealer)."""
    return obs.rules.next_seat(obs.dealer)


def place_of(obs: Observation, seat: int) -> int:
    """Steps from the first leader to ``seat`` in the order of play."""
    s, steps = first_leader(obs), 0
    while s != seat:
        s = obs.rules.next_seat(s)
        steps += 1
    return steps


def partner_holds(auction: Sequence[tuple[int, int]], seat: int) -> bool:
    """Whether ``seat``'s partner made the highest bid of ``auction`` (in the duel
    auction, a challenge not yet answered included): the model bidders then ask
    ``PARTNER_NEED`` more of a bid."""
    standing = max((b for _, b in auction), default=0)
    return any(s == partner_of(seat) and b == standing and b for s, b in auction)


def calls_by_seat(obs: Observation) -> dict[int, tuple[int, int]]:
    """Per seat that spoke: (the highest bid it made or 0, the standing bid when it
    last passed or -1), what ``BiddingModel.auction_likelihood`` weighs."""
    highest: dict[int, int] = {}
    passed_at: dict[int, int] = {}
    standing = 0
    for seat, bid in obs.auction:
        if bid:
            highest[seat] = max(highest.get(seat, 0), bid)
            standing = bid
        else:
            passed_at[seat] = standing
            highest.setdefault(seat, 0)
    return {s: (highest[s], passed_at.get(s, -1)) for s in highest}


def heuristic_model() -> BiddingModel:
    """A stand-in shaped like the fitted model, used when no fitted data is shipped."""
    coef = [0.0] * len(FEATURES)
    coef[FEATURES.index("bias")] = 8.0
    coef[FEATURES.index("trump_jack")] = 3.0
    coef[FEATURES.index("trump_nine")] = 2.0
    coef[FEATURES.index("trump_ace")] = 1.0
    coef[FEATURES.index("trump_ten")] = 1.0
    coef[FEATURES.index("trump_count")] = 1.5
    coef[FEATURES.index("side_jacks")] = 2.0
    coef[FEATURES.index("side_nines")] = 1.0
    coef[FEATURES.index("side_aces_tens")] = 0.7
    return BiddingModel(tuple(coef), (4.0, 4.0, 4.0, 3.8, 3.5), "heuristic")


@lru_cache(maxsize=1)
def default_model() -> BiddingModel:
    try:
        text = resources.files("twentynine").joinpath("data/bidding.json").read_text()
    except (FileNotFoundError, OSError):
        return heuristic_model()
    data = json.loads(text)
    if tuple(data["features"]) != FEATURES:
        return heuristic_model()
    return BiddingModel(tuple(data["coefficients"]), tuple(data["spread"]), "fitted")


__all__ = [
    "FEATURES",
    "BiddingModel",
    "calls_by_seat",
    "default_model",
    "estimate_team_points",
    "features",
    "first_leader",
    "partner_holds",
    "place_of",
]
