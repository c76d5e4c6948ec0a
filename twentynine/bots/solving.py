"""The solver as the bots use it: one per process, and the position and goal of a sampled deal.

Search (``search``) and the bidding's doubling decision (``bidding``) both
solve sampled deals; they share this module instead of reaching into each other.
"""

from __future__ import annotations

import threading

from ..game.contract import lowered_target, raised_target
from ..game.observation import Observation
from ..solver import Goal, Position, Solver
from .sampling import World

_chosen: Solver | None = None  # one solver for every thread, chosen by ``use_solver``
_mine = threading.local()  # else each thread's own


def use_solver(chosen: Solver | None) -> Solver | None:
    """Make ``chosen`` the bots' solver in every thread (None: each thread's own again);
    returns the one chosen before.

    For checks that need the same decisions on every machine (the pure kernel).
    """
    global _chosen
    old, _chosen = _chosen, chosen
    return old


def solver() -> Solver:
    """The calling thread's solver, made on its first use there.

    A solver's transposition table and stack are its own: two threads
    searching with one solver at once (a bot's turn beside a hint, or two
    analyses) would tear them, and the compiled search, which runs without
    the GIL and checks no bounds, would then write past them. So each thread
    has one, and the bots of a thread take turns with it.
    """
    if _chosen is not None:
        return _chosen
    found: Solver | None = getattr(_mine, "solver", None)
    if found is None:
        found = _mine.solver = Solver()
    return found


def goal_of(obs: Observation) -> Goal:
    """What the bidding team plays for in this observation."""
    assert obs.bidder is not None and obs.bid is not None and obs.target is not None
    rules = obs.rules
    team = obs.bidder & 1
    if obs.pair is not None:
        return Goal(team, obs.target, obs.target, obs.target)
    return Goal(
        team,
        obs.target,
        lowered_target(rules, obs.bid),
        raised_target(rules, obs.bid),
    )


def position_of(obs: Observation, world: World, leader: int | None = None) -> Position:
    """The solver's position for a world; ``leader`` for a position before play starts."""
    rules = obs.rules
    assert obs.seat is not None
    if leader is None:
        leader = obs.trick_leader if obs.trick_leader is not None else obs.seat
    return Position(
        hands=world.hands,
        leader=leader,
        trick=tuple(c for _, c in obs.trick),
        points=obs.points,
        tricks_played=len(obs.tricks),
        trump=world.trump,
        revealed=obs.trump_revealed,
        reveal=rules.reveal,  # type: ignore[arg-type]
        asked=obs.asked == obs.seat,
        unrevealed=rules.unrevealed,  # type: ignore[arg-type]
        last_trick_point=rules.last_trick_point,
        pair_pending=rules.pair != "off" and obs.pair is None,
        pair_team=obs.pair[1] if obs.pair is not None else None,
        clockwise=rules.clockwise,
    )
