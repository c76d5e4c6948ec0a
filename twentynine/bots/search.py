"""The strong players: sample the deals a seat cannot rule out, solve each one
exactly, and play what works in most of them.

``strong`` samples uniformly among deals consistent with what the seat has
seen (cards played, suits shown out, hand sizes) and guesses a hidden trump
from the bidder's likely holding. ``expert`` also weighs each sampled deal
by how well it explains the auction and the discards, samples the hidden
trump from that same reasoning, adapts the number of samples to its time
and stops early once one move is clearly best.

The solver values a move by the contract's outcome (made, cancelled,
failed), which is what scores game points. When several moves are equal
on that count the casual player's judgement picks among them, so the bot
still plays sensible cards once the contract is decided.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable

from ..game.actions import PLAY, REVEAL, Action
from ..game.cards import POINTS, SUIT_MASK
from ..game.observation import Observation
from ..solver import Move, Outcome
from .base import Bot, Style
from .bidding import BiddingModel, default_model
from .heuristic import CasualBot, kinds
from .knowledge import Knowledge, analyse
from .sampling import Impossible, World, deal_world
from .signals import consistent_drops, drops
from .solving import goal_of, position_of, solver

# Solver speed used to turn a time budget into a node budget (measured on a
# 2-core machine: about 14 M nodes/s compiled, 0.1-0.2 M in plain Python).
NODES_PER_SECOND = 10_000_000
PURE_NODES_PER_SECOND = 100_000
WALL_GUARD = 4.0


def trump_scores(hand: int) -> list[float]:
    """How attractive each suit is as trumps for a holding (more cards, top cards)."""
    out = []
    for suit in range(4):
        cards = hand & SUIT_MASK[suit]
        pts = sum(POINTS[c] for c in range(suit * 8, suit * 8 + 8) if cards >> c & 1)
        out.append(cards.bit_count() + 0.4 * pts)
    return out


class StrongBot(Bot):
    """Perfect-information Monte Carlo: uniform worlds, exact solves."""

    level = "strong"
    default_budget = 0.18
    min_worlds = 6
    max_worlds = 40
    weighted = False
    wall_guard: float | None = WALL_GUARD  # None: strictly deterministic (tests)

    def __init__(self, seed: int = 0, budget: float | None = None, style: Style | None = None):
        super().__init__(seed, budget if budget is not None else self.default_budget, style)
        self.casual = CasualBot(seed, style=style)
        self.model: BiddingModel = default_model()

    # -- dispatch ------------------------------------------------------------------
    def decide(self, obs: Observation, rng: random.Random, budget: float | None) -> Action:
        k = kinds(obs)
        if obs.phase == "play" and (PLAY in k) and obs.single is None and obs.bidder is not None:
            return self.play(obs, rng, budget)
        return self.model.decide(obs, self, rng)

    # -- worlds ----------------------------------------------------------------------
    def guess_trump(
        self, obs: Observation, know: Knowledge, hands: tuple[int, ...], rng: random.Random
    ) -> int:
        """A hidden trump for a world: the bidder's most attractive suit in it."""
        assert obs.bidder is not None
        scores = trump_scores(hands[obs.bidder] | know.played_by[obs.bidder])
        best = max(scores)
        options = [s for s in range(4) if scores[s] == best]
        return options[rng.randrange(len(options))]

    def sample(self, obs: Observation, know: Knowledge, rng: random.Random) -> World:
        if know.trump is not None:
            hands = deal_world(know, rng, know.trump)
            return World(hands, know.trump)
        hands = deal_world(know, rng, None)
        return World(hands, self.guess_trump(obs, know, hands, rng))

    def weight(self, obs: Observation, know: Knowledge, world: World) -> float:
        return 1.0

    def knowledge(self, obs: Observation, rng: random.Random) -> Knowledge:
        return analyse(obs)

    # -- play ------------------------------------------------------------------------------
    def play(self, obs: Observation, rng: random.Random, budget: float | None) -> Action:
        assert obs.seat is not None and obs.bidder is not None
        know = self.knowledge(obs, rng)
        goal = goal_of(obs)
        sign = 1 if obs.seat & 1 == goal.team else -1
        legal = list(obs.legal)
        totals: dict[Action, float] = {a: 0.0 for a in legal}
        weight_sum = 0.0
        worlds = 0
        reveal = next((a for a in legal if a.kind == REVEAL), None)
        plays = {a.value: a for a in legal if a.kind == PLAY}
        s = solver()
        seconds = budget if budget is not None else self.default_budget
        node_budget = seconds * (NODES_PER_SECOND if s.compiled else PURE_NODES_PER_SECOND)
        start_nodes = s.nodes
        guard = time.perf_counter() + self.wall_guard * seconds if self.wall_guard else math.inf
        while worlds < self.max_worlds:
            if worlds >= self.min_worlds and (
                s.nodes - start_nodes > node_budget or time.perf_counter() > guard
            ):
                break
            try:
                world = self.sample(obs, know, rng)
            except Impossible:
                break
            worlds += 1
            w = self.weight(obs, know, world)
            if w <= 0:
                continue
            try:
                values = s.moves_outcome(position_of(obs, world), goal)
            except ValueError:  # a world the solver finds inconsistent: skip it
                continue
            per_action = self._per_action(values, plays, reveal, sign)
            for a, v in per_action.items():
                totals[a] += w * v
            weight_sum += w
            if self.clearly_decided(totals, weight_sum, worlds):
                break
        return self.choose(obs, totals, rng)

    @staticmethod
    def _per_action(
        values: dict[Move, Outcome],
        plays: dict[int | None, Action],
        reveal: Action | None,
        sign: int,
    ) -> dict[Action, float]:
        out: dict[Action, float] = {}
        for move, outcome in values.items():
            v = sign * int(outcome)
            if move.reveal:
                if reveal is not None:
                    out[reveal] = max(out.get(reveal, -2.0), v)
                continue
            a = plays.get(move.card)
            if a is not None:
                out[a] = v
        return out

    def clearly_decided(self, totals: dict[Action, float], weight_sum: float, worlds: int) -> bool:
        return False

    def choose(self, obs: Observation, totals: dict[Action, float], rng: random.Random) -> Action:
        """The best total; among equals, the casual player's card, else the cheapest."""
        best = max(totals.values())
        top = [a for a, v in totals.items() if v >= best - 1e-9]
        if len(top) == 1:
            return top[0]
        preferred = self.casual.decide(obs, rng, None)
        if preferred in top:
            return preferred
        return sorted(top, key=lambda a: (a.kind != PLAY, POINTS[a.value or 0], a.value or 0))[0]


class ExpertBot(StrongBot):
    """Strong play plus inference from the auction and discards, and adaptive sampling."""

    level = "expert"
    default_budget = 0.45
    min_worlds = 6
    max_worlds = 160
    weighted = True

    temperature = 1.5  # how firmly a bidder is assumed to pick its best suit

    def knowledge(self, obs: Observation, rng: random.Random) -> Knowledge:
        """What the cards say, plus the others' drop signals where the cards agree."""
        know = analyse(obs)
        found = drops(obs)
        if found:
            plain = know.voids
            know.voids = consistent_drops(know, found)
            if know.voids != plain:
                try:
                    deal_world(know, random.Random(rng.random()), know.trump)
                except Impossible:
                    know.voids = plain
        return know

    def sample(self, obs: Observation, know: Knowledge, rng: random.Random) -> World:
        """A world with guessed first batches, so the auction can be weighed."""
        assert obs.seat is not None and obs.bidder is not None
        hands = deal_world(know, rng, know.trump)
        first = [0, 0, 0, 0]
        for seat in range(4):
            if seat == obs.seat:
                continue
            cards = [c for c in range(32) if (hands[seat] | know.played_by[seat]) >> c & 1]
            first[seat] = sum(1 << c for c in rng.sample(cards, min(4, len(cards))))
        trump = know.trump
        if trump is None:
            bidder = obs.bidder
            if obs.seventh:
                whole = hands[bidder] | know.played_by[bidder]
                second = [c for c in range(32) if (whole & ~first[bidder]) >> c & 1]
                trump = rng.choice(second) >> 3
            else:
                trump = rng.choices(range(4), self.trump_odds(obs, first[bidder]))[0]
        return World(hands, trump, (first[0], first[1], first[2], first[3]))

    def trump_odds(self, obs: Observation, first_batch: int) -> list[float]:
        assert obs.bidder is not None
        values = self.model.suit_values(first_batch, _position(obs, obs.bidder))
        top = max(values)
        return [math.exp((v - top) / self.temperature) for v in values]

    def weight(self, obs: Observation, know: Knowledge, world: World) -> float:
        """How well this world explains the auction, the trump choice and the discards."""
        assert obs.seat is not None and obs.bidder is not None
        if world.first is None:
            return 1.0
        w = 1.0
        for seat, call in _auction_by_seat(obs).items():
            if seat != obs.seat:
                pos = _position(obs, seat)
                w *= self.model.auction_likelihood(world.first[seat], call, obs.rules, pos)
        if know.trump is not None and obs.bidder != obs.seat and not obs.seventh:
            assert world.trump is not None
            odds = self.trump_odds(obs, world.first[obs.bidder])
            w *= odds[world.trump] / sum(odds)
        if world.trump is not None:
            w *= _discard_likelihood(obs, know, world)
        return w

    def clearly_decided(self, totals: dict[Action, float], weight_sum: float, worlds: int) -> bool:
        """Stop once the leader cannot be caught by the worlds still to come."""
        if worlds < self.min_worlds or len(totals) < 2 or weight_sum <= 0:
            return False
        ranked = sorted(totals.values(), reverse=True)
        mean_w = weight_sum / worlds
        remaining = (self.max_worlds - worlds) * mean_w
        if ranked[0] - ranked[1] > 2 * remaining:
            return True
        # A lead of more than three standard errors after a fair number of worlds.
        gap = (ranked[0] - ranked[1]) / weight_sum
        return worlds >= 24 and gap > 3.0 / math.sqrt(worlds)


def _auction_by_seat(obs: Observation) -> dict[int, tuple[int, int]]:
    """Per seat: (highest bid it made or 0, the standing bid when it last passed)."""
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


def _position(obs: Observation, seat: int) -> int:
    """Steps from the first leader of the deal to ``seat`` in the order of play."""
    s, steps = obs.rules.next_seat(obs.dealer), 0
    while s != seat:
        s = obs.rules.next_seat(s)
        steps += 1
    return steps


def _discard_likelihood(obs: Observation, know: Knowledge, world: World) -> float:
    """A player who threw points to the opponents while trumps were live, instead of
    trumping, probably had no trump then."""
    assert world.trump is not None
    w = 1.0
    if obs.revealed_in_trick is None:
        return w
    trumps = SUIT_MASK[world.trump]
    for n, (_leader, cards, seats, winner, _pts) in enumerate(obs.tricks, start=1):
        if n < obs.revealed_in_trick:
            continue
        led = cards[0] >> 3
        for seat, card in zip(seats, cards, strict=True):
            if seat == obs.seat or card >> 3 == led or card >> 3 == world.trump:
                continue
            if POINTS[card] >= 2 and (winner & 1) != (seat & 1):
                # Trumps it held then: those it still holds or played in a later trick.
                later = 0
                for _l, cs, ss, _w, _p in obs.tricks[n:]:
                    later |= sum(1 << c for s, c in zip(ss, cs, strict=True) if s == seat)
                later |= sum(1 << c for s, c in obs.trick if s == seat)
                if (world.hands[seat] | later) & trumps:
                    w *= 0.3
    return w


LevelFactory = Callable[..., Bot]
