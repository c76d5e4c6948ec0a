"""The strong players: sample the deals a seat cannot rule out, solve each one
exactly, and play what works in most of them.

``strong`` samples uniformly among deals consistent with what the seat has
seen (cards played, suits shown out, hand sizes) and guesses a hidden trump
from the bidder's likely holding. The experts build on it (``expert_v1``,
``expert``).

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
from ..solver import Goal, Move, Outcome, OutOfNodes
from .base import Bot, Style
from .bidding import BiddingModel, default_model
from .heuristic import CasualBot, kinds
from .knowledge import Knowledge, analyse
from .sampling import Impossible, World, deal_world
from .solving import goal_of, position_of, solver

# Solver speed used to turn a time budget into a node budget (measured on a
# 2-core machine: about 14 M nodes/s compiled, 0.1-0.2 M in plain Python).
NODES_PER_SECOND = 10_000_000
PURE_NODES_PER_SECOND = 100_000
WALL_GUARD = 4.0
# With the plain-Python kernel (the browser: Pyodide has no numba) one decision
# searches at most this many nodes whatever its budget, under a second there
# (about 0.1 M nodes/s): the worlds solved by then decide. A count of nodes, not
# the clock, so the decision stays the same for the same seed and observation.
PURE_NODE_LIMIT = 80_000


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
    # The most nodes a decision searches with the plain-Python kernel (None: no
    # limit, as with the compiled kernel: the baseline of the browser's figures).
    pure_node_limit: int | None = PURE_NODE_LIMIT
    play_pool = 1  # worlds sampled for each one solved (``draw``)

    def __init__(self, seed: int = 0, budget: float | None = None, style: Style | None = None):
        super().__init__(seed, budget if budget is not None else self.default_budget, style)
        self.casual = CasualBot(seed, style=style)
        self.model: BiddingModel = default_model()

    # -- dispatch ------------------------------------------------------------------
    def decide(self, obs: Observation, rng: random.Random, budget: float | None) -> Action:
        k = kinds(obs)
        s = solver()
        with s.node_limit(None if s.compiled else self.pure_node_limit):
            if obs.phase == "play" and PLAY in k and obs.single is None and obs.bidder is not None:
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

    def draw(self, obs: Observation, know: Knowledge, rng: random.Random) -> tuple[World, float]:
        """A world to solve and its weight. With a ``play_pool`` of n, n worlds are
        sampled, one is taken in proportion to their weights and carries their mean
        (importance resampling: the solved worlds follow the weights, the mean stays
        unbiased); with 1, the world sampled and its own weight."""
        world = self.sample(obs, know, rng)
        w = self.weight(obs, know, world)
        if self.play_pool <= 1:
            return world, w
        dealt, weights = [world], [w]
        for _ in range(self.play_pool - 1):
            other = self.sample(obs, know, rng)
            dealt.append(other)
            weights.append(self.weight(obs, know, other))
        total = sum(weights)
        if total <= 0:
            return world, 0.0
        return dealt[rng.choices(range(len(dealt)), weights)[0]], total / len(dealt)

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
        points: dict[Action, float] = {}  # the tie-break of ``evaluate``, where it gives one
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
                world, w = self.draw(obs, know, rng)
            except Impossible:
                break
            worlds += 1
            if w <= 0:
                continue
            try:
                per_action, per_points = self.evaluate(obs, world, goal, plays, reveal, sign)
            except ValueError:  # a world the solver finds inconsistent: skip it
                continue
            except OutOfNodes:  # the decision's nodes are spent: the worlds so far decide
                break
            for a, v in per_action.items():
                totals[a] += w * v
            for a, v in per_points.items():
                points[a] = points.get(a, 0.0) + w * v
            weight_sum += w
            if self.clearly_decided(totals, weight_sum, worlds):
                break
        return self.choose(obs, totals, rng, points)

    def evaluate(
        self,
        obs: Observation,
        world: World,
        goal: Goal,
        plays: dict[int | None, Action],
        reveal: Action | None,
        sign: int,
    ) -> tuple[dict[Action, float], dict[Action, float]]:
        """Each action's value in one world: the contract's outcome for the seat's side,
        and a second value that only breaks ties of the first (none here)."""
        values = solver().moves_outcome(position_of(obs, world), goal)
        return self._per_action(values, plays, reveal, sign), {}

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

    def choose(
        self,
        obs: Observation,
        totals: dict[Action, float],
        rng: random.Random,
        points: dict[Action, float] | None = None,
    ) -> Action:
        """The best total; among equals the best tie-break value (``points``), then the
        casual player's card, else the cheapest."""
        best = max(totals.values())
        top = [a for a, v in totals.items() if v >= best - 1e-9]
        if points and len(top) > 1:
            most = max(points.get(a, -math.inf) for a in top)
            top = [a for a in top if points.get(a, -math.inf) >= most - 1e-9]
        if len(top) == 1:
            return top[0]
        preferred = self.casual.decide(obs, rng, None)
        if preferred in top:
            return preferred
        return sorted(top, key=lambda a: (a.kind != PLAY, POINTS[a.value or 0], a.value or 0))[0]


LevelFactory = Callable[..., Bot]
