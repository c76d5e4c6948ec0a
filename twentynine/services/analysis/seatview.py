"""Values from one seat's view: what each legal choice of a decision was worth
given only what that seat could see at the time, as the expert bot sees it.

``value_choices(obs)`` takes nothing but the seat's ``Observation`` (hidden
information never comes in). For the auction and the trump choice it asks the
bidding model the expert bids with (a first batch of four cards, a trump, a
place at the table: expected points and a make probability). For every later
decision it does what the expert does before it plays: sample the deals the
seat cannot rule out (weighed by how well they explain the auction and the
discards), solve each one exactly for every legal choice, and average.

Each choice gets the probability that the contract makes after it, the
bidding team's expected card points, and the expected game points of the
seat's own team (the stake times made minus failed, from that team's side),
which is what makes choices of different kinds comparable: a double changes
the stake, not the make probability; a single hand is another contract.
This is the service a hint asks too. The auction's part is in ``auction``,
the answer's shape in ``choices``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from ...bots.base import fingerprint
from ...bots.expert import ExpertBot
from ...bots.sampling import Impossible, World
from ...bots.search import goal_of, position_of
from ...bots.search import solver as shared_solver
from ...bots.single import single_now, single_start
from ...game.actions import (
    DOUBLE,
    PAIR,
    PLAY,
    REDOUBLE,
    REVEAL,
    SET,
    SINGLE,
    Action,
)
from ...game.engine import MULTIPLIER
from ...game.observation import Observation
from ...solver import Goal, Move, Position, Solver
from ...solver.single import SingleSolver
from .auction import model_values
from .choices import ChoiceValue, SeatView, stake_of

DEFAULT_WORLDS = 16
# Solver nodes one decision may spend on sampled worlds, beyond the least number
# of worlds (a compiled solver does about 12 M nodes a second): the yes-or-no
# outcome of every choice, then the card points (an exact value costs several
# yes-or-no searches, so fewer worlds get one where the early tricks are dear).
MIN_WORLDS = 8
OUTCOME_NODES = 2_000_000
MIN_POINT_WORLDS = 3
POINT_NODES = 1_500_000


# ---------------------------------------------------------------------- the service


def value_choices(
    obs: Observation,
    worlds: int = DEFAULT_WORLDS,
    seed: int = 0,
    solver: Solver | None = None,
    effort: float = 1.0,
) -> SeatView:
    """Every legal choice of the seat's decision, valued from its view alone.

    ``worlds``: sampled deals to solve for a decision after the auction (fewer
    is faster and rougher). ``seed`` with the observation fixes the sample, so
    the same question always gets the same answer. ``effort`` scales the solver
    nodes a decision may spend beyond the least number of worlds (the plain
    Python solver is a hundred times slower than the compiled one).
    """
    if obs.seat is None or not obs.legal:
        raise ValueError("only a seat with a decision to take can be advised")
    if obs.phase in ("auction", "trump"):
        return model_values(obs)
    rng = random.Random(fingerprint(seed, obs))
    return _Sampler(obs, rng, max(1, worlds), solver or shared_solver(), effort).run()


# ---------------------------------------------------------------------- sampled worlds


Judge = Callable[[World], dict[Action, int]]


@dataclass
class _Tally:
    """Weighted sums for one choice over the worlds."""

    made: float = 0.0
    failed: float = 0.0
    points: float = 0.0
    point_weight: float = 0.0


class _Sampler:
    """Sample the worlds of one observation and value its choices in each."""

    def __init__(
        self, obs: Observation, rng: random.Random, worlds: int, solver: Solver, effort: float
    ) -> None:
        assert obs.seat is not None and obs.bidder is not None and obs.bid is not None
        self.obs = obs
        self.rng = rng
        self.worlds = worlds
        self.solver = solver
        self.effort = effort
        self.bot = ExpertBot(seed=0)
        self.declarer = obs.single
        team = (obs.single if obs.single is not None else obs.bidder) & 1
        self.team = team
        self.bidders = obs.seat & 1 == team
        self.tallies: dict[Action, _Tally] = {a: _Tally() for a in obs.legal}
        self.weight = 0.0
        self.used = 0

    def run(self) -> SeatView:
        obs = self.obs
        know = self.bot.knowledge(obs, self.rng)
        samples: list[tuple[World, float]] = []
        for _ in range(self.worlds):
            try:
                world = self.bot.sample(obs, know, self.rng)
            except Impossible:
                break
            samples.append((world, self.bot.weight(obs, know, world)))
        if samples and sum(w for _, w in samples) <= 0:
            samples = [(world, 1.0) for world, _ in samples]  # nothing explains better
        outcomes, points = self._games()
        solver = self.solver
        start = solver.nodes
        for n, (world, w) in enumerate(samples):
            if w <= 0:
                continue
            if n >= MIN_WORLDS and solver.nodes - start > OUTCOME_NODES * self.effort:
                break
            try:
                results = outcomes(world)
            except ValueError:  # a world the solver finds inconsistent: skip it
                continue
            self.used += 1
            self.weight += w
            for action, outcome in results.items():
                t = self.tallies[action]
                if outcome > 0:
                    t.made += w
                elif outcome < 0:
                    t.failed += w
        # Card points cost far more to solve than a yes or no: fewer worlds, where
        # the early tricks are dear.
        start = solver.nodes
        for n, (world, w) in enumerate(samples[: self.used]):
            if w <= 0:
                continue
            if n >= MIN_POINT_WORLDS and solver.nodes - start > POINT_NODES * self.effort:
                break
            try:
                values = points(world)
            except ValueError:
                continue
            for action, value in values.items():
                t = self.tallies[action]
                t.points += w * value
                t.point_weight += w
        return self._view()

    def _view(self) -> SeatView:
        obs = self.obs
        assert obs.seat is not None and obs.bid is not None
        sign = 1 if self.bidders else -1
        choices = []
        for action in obs.legal:
            t = self.tallies[action]
            if self.weight <= 0:
                choices.append(ChoiceValue(action, None, None, 0.0))
                continue
            made, failed = t.made / self.weight, t.failed / self.weight
            points = t.points / t.point_weight if t.point_weight > 0 else None
            if self.declarer is not None or action.kind == SINGLE:
                stake = obs.rules.single_hand_stake
            else:
                stake = stake_of(obs, obs.bid, MULTIPLIER[_doubling_after(obs, action)])
            if action.kind == SINGLE:
                # the declaring seat's team plays the single hand, whoever bid
                score = stake * (made - failed)
                choices.append(ChoiceValue(action, made, None, score))
            else:
                choices.append(ChoiceValue(action, made, points, sign * stake * (made - failed)))
        return SeatView(obs.seat, self.bidders, tuple(choices), "worlds", self.used)

    # Per world: for each legal action, its outcome for the bidding side (1 made,
    # 0 cancelled, -1 failed); and in another pass its card points.
    def _games(self) -> tuple[Judge, Judge]:
        obs = self.obs
        if obs.single is not None:
            return self._single_outcomes, self._single_points
        if obs.phase == "single":
            return self._single_offer, self._start_points
        if obs.phase in ("double", "redouble", "set"):
            return self._start_outcomes, self._start_points
        if obs.phase == "pair":
            return self._pair_outcomes, self._now_points
        return self._play_outcomes, self._play_points

    def _contract(self, world: World, leader: int | None = None) -> Position:
        return position_of(self.obs, world, leader)

    def _for_points(self, world: World, leader: int | None = None) -> Position:
        contract = position_of(self.obs, world, leader)
        return Position(
            **{**contract.__dict__, "unrevealed": "score", "pair_pending": False, "pair_team": None}
        )

    def _per_action(self, values: dict[Move, int]) -> dict[Action, int]:
        """Solver moves to the seat's actions; a reveal request is worth the best card
        the seat could play after asking in that world."""
        plays = {a.value: a for a in self.obs.legal if a.kind == PLAY}
        reveal = next((a for a in self.obs.legal if a.kind == REVEAL), None)
        sign = 1 if self.bidders else -1
        out: dict[Action, int] = {}
        for move, value in values.items():
            if move.reveal:
                if reveal is not None and (reveal not in out or sign * value > sign * out[reveal]):
                    out[reveal] = value
                continue
            action = plays.get(move.card)
            if action is not None:
                out[action] = value
        return out

    def _play_outcomes(self, world: World) -> dict[Action, int]:
        found = self.solver.moves_outcome(self._contract(world), goal_of(self.obs))
        return self._per_action({m: int(o) for m, o in found.items()})

    def _play_points(self, world: World) -> dict[Action, int]:
        found = self.solver.moves_exact(self._for_points(world), Goal(self.team, 0))
        return self._per_action({m: v.margin or 0 for m, v in found.items()})

    def _now_points(self, world: World) -> dict[Action, int]:
        pts = self.solver.exact(self._for_points(world), Goal(self.team, 0)).margin or 0
        return {a: pts for a in self.obs.legal}

    def _pair_outcomes(self, world: World) -> dict[Action, int]:
        obs = self.obs
        assert obs.seat is not None
        contract = self._contract(world)
        declared = Position(
            **{**contract.__dict__, "pair_pending": False, "pair_team": obs.seat & 1}
        )
        goal = goal_of(obs)
        return {
            a: int(self.solver.outcome(declared if a.kind == PAIR else contract, goal))
            for a in obs.legal
        }

    def _first_leader(self) -> int:
        return self.obs.rules.next_seat(self.obs.dealer)

    def _start_outcomes(self, world: World) -> dict[Action, int]:
        outcome = int(
            self.solver.outcome(self._contract(world, self._first_leader()), goal_of(self.obs))
        )
        return {a: outcome for a in self.obs.legal}

    def _start_points(self, world: World) -> dict[Action, int]:
        pos = self._for_points(world, self._first_leader())
        pts = self.solver.exact(pos, Goal(self.team, 0)).margin or 0
        return {a: pts for a in self.obs.legal if a.kind != SINGLE}

    def _single_offer(self, world: World) -> dict[Action, int]:
        obs = self.obs
        assert obs.seat is not None
        out: dict[Action, int] = {}
        for a in obs.legal:
            if a.kind == SINGLE:
                made = SingleSolver().sweeps(single_start(obs.rules, world, obs.seat))
                out[a] = 1 if made else -1
            else:
                out[a] = self._start_outcomes(world)[a]
        return out

    def _single_outcomes(self, world: World) -> dict[Action, int]:
        sweeps = SingleSolver().move_sweeps(single_now(self.obs, world))
        return {a: 1 if sweeps[a.value] else -1 for a in self.obs.legal if a.value is not None}

    def _single_points(self, world: World) -> dict[Action, int]:
        obs = self.obs
        assert obs.single is not None
        points = SingleSolver(obs.rules.last_trick_point).move_points(single_now(obs, world))
        already = obs.points[obs.single & 1]
        return {a: already + points[a.value] for a in obs.legal if a.value is not None}


def _doubling_after(obs: Observation, action: Action) -> str | None:
    """The doubling level in force after ``action`` (``obs.doubling`` is a multiplier)."""
    if action.kind in (DOUBLE, REDOUBLE, SET):
        return action.kind
    return {1: None, 2: DOUBLE, 4: REDOUBLE, 6: SET}[obs.doubling]
