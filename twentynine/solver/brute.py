"""Reference minimax for tests: every legal move, no pruning, no table, no shortcuts.

It is deliberately the dumbest correct search, built only on the readable rules of
``position.py``, so that the fast kernel (its own copy of the rules, pruning,
merging, transposition table) has something independent to be checked against.
Exponential: use it on positions with two or three tricks left.
"""

from __future__ import annotations

from twentynine.solver.position import Goal, Move, Outcome, Position, Value, team_of


def brute_value(pos: Position, goal: Goal) -> Value:
    """Exact minimax value of ``pos`` for ``goal.team`` (see ``Value``)."""
    return Value.from_rank(_rank(pos, goal))


def brute_outcome(pos: Position, goal: Goal) -> Outcome:
    return brute_value(pos, goal).outcome


def brute_move_values(pos: Position, goal: Goal) -> dict[Move, Value]:
    """Value of each legal move of the seat to move."""
    return {m: Value.from_rank(_rank(pos.advance(m), goal)) for m in pos.legal_moves()}


def _rank(pos: Position, goal: Goal) -> int:
    # Ranks (``Value.rank``) order every result, cancellation included, as the team
    # prefers them, so a plain max/min over them is the minimax of the deal.
    if pos.is_over:
        return pos.final_value(goal).rank
    children = [_rank(pos.advance(m), goal) for m in pos.legal_moves()]
    return max(children) if team_of(pos.to_move) == goal.team else min(children)
