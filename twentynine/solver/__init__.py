"""Exact solver for the play of 29 with every hand known (double dummy).

Bots that sample deals ask it, for one sampled deal at a time, whether a team can
still reach its target, or how well it can do, and what each legal move is worth.

Describe the deal with a ``Position`` and what the team plays for with a ``Goal``,
then ask:

- ``can_reach(pos, goal) -> bool``: with best play by both sides, does ``goal.team``
  end with at least its effective target? A cancelled deal does not count.
- ``outcome(pos, goal) -> Outcome``: ``REACHED``, ``CANCELLED`` or ``MISSED``.
- ``exact(pos, goal) -> Value``: the best final margin over the effective target
  (``Value.margin``; ``None`` if best play ends in a cancellation). With
  ``Goal(team, 0)`` and no pair or cancellation in play it is the team's final points.
- ``moves_can_reach``, ``moves_outcome``, ``moves_exact``: the same answer for every
  legal move of the seat to move, keyed by ``Move``. Values are always those of
  ``goal.team``: a seat of the other team picks the smallest.

``with solver.node_limit(n):`` bounds the work of the queries inside it: one that
would search past ``n`` nodes in all raises ``OutOfNodes`` instead of answering
(for a caller whose time is short, the bots in the browser; a node count, not
the clock, so the same calls stop at the same place on every machine).

The module functions share one ``Solver`` (not thread-safe); make a ``Solver`` per
thread, or to pick the backend: ``numba`` (compiled, if installed) or ``pure``
(the same kernel as plain Python, for places without numba or numpy). The
environment variable ``TWENTYNINE_NO_NUMBA=1`` makes ``auto`` pure.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from twentynine.game.cards import POINTS, SUIT_MASK, suit_of
from twentynine.solver import kernel
from twentynine.solver.position import (
    CARDS_PER_TRICK,
    LAST_TRICK_POINT,
    SEATS,
    Goal,
    Move,
    Outcome,
    Position,
    Value,
    pair_mask,
    team_of,
    winning_index,
)

__all__ = [
    "Backend",
    "Goal",
    "Move",
    "OutOfNodes",
    "Outcome",
    "Position",
    "Solver",
    "Value",
    "can_reach",
    "default_solver",
    "exact",
    "moves_can_reach",
    "moves_exact",
    "moves_outcome",
    "numba_available",
    "outcome",
    "representative",
]

Backend = Literal["auto", "numba", "pure"]
T = TypeVar("T")

# 2**18 slots hold every trick-boundary node of a solve from the first trick
# (measured: a larger table saves nothing, 2**16 costs 6 % more nodes).
DEFAULT_TABLE_BITS = 18
MIN_TABLE_BITS, MAX_TABLE_BITS = 4, 26
# Below a guessed value, how many times the search tries the new upper bound itself
# before it bisects (values cluster just under the best: one card's mistake).
DESCENTS = 2


class OutOfNodes(Exception):
    """A query stopped at the solver's ``node_limit`` before it had an answer."""


def numba_available() -> bool:
    """Whether the compiled kernel can be used (numba importable and not switched off)."""
    return kernel.search_compiled is not None


@dataclass
class _Job:
    """One position and goal turned into kernel parameters."""

    prm: list[int]
    table: list[int]
    hands: list[int]
    need: int  # margin still to gain at the root: effective target - points
    low: int  # least points-to-come the team can end with (a rival pair counts negative)
    high: int  # most it can end with
    cancellable: bool
    pos: Position


class Solver:
    """A solver with its own transposition table and stack; reuse it across calls."""

    def __init__(self, backend: Backend = "auto", table_bits: int = DEFAULT_TABLE_BITS) -> None:
        if backend not in ("auto", "numba", "pure"):
            raise ValueError(f"backend must be 'auto', 'numba' or 'pure', not {backend!r}")
        if not MIN_TABLE_BITS <= table_bits <= MAX_TABLE_BITS:
            raise ValueError(f"table_bits must be {MIN_TABLE_BITS}..{MAX_TABLE_BITS}")
        if backend == "numba" and kernel.search_compiled is None:
            raise ValueError("the numba backend is unavailable (numba missing or switched off)")
        self.compiled = backend != "pure" and kernel.search_compiled is not None
        self._search: Callable[..., int] = (
            kernel.search_compiled if self.compiled else kernel.search
        )
        size = 1 << table_bits
        self._hands = self._array(SEATS, 0)
        self._prm = self._array(kernel.NPARAM, 0)
        self._table = self._array(CARDS_PER_TRICK, -1)
        self._pts = self._array(len(POINTS), 0)
        self._pts[:] = POINTS
        self._suit_pts = self._array(1 << kernel.BITS_PER_SUIT, 0)
        self._suit_pts[:] = kernel.SUIT_PATTERN_POINTS
        self._above = self._array(1 << kernel.BITS_PER_SUIT, 0)
        self._above[:] = kernel.ABOVE_HIGHEST
        self._debruijn = self._array(len(kernel.DEBRUIJN_TABLE), 0)
        self._debruijn[:] = kernel.DEBRUIJN_TABLE
        self._tt = self._array(size << kernel.TT_SHIFT, kernel.EMPTY_KEY)
        self._stack = [self._array(kernel.MAX_PLY, 0) for _ in kernel.STATE_ARRAYS]
        self._moves = self._array(kernel.MAX_PLY * kernel.MAX_MOVES, 0)
        self._scores = self._array(kernel.MAX_PLY * kernel.MAX_MOVES, 0)
        self._stats = self._array(1, 0)
        self._generation = 0
        self._stop_at: int | None = None  # the node count past which searches stop

    def _array(self, length: int, fill: int) -> Any:
        # The compiled kernel wants int64 arrays; plain Python is fastest on lists.
        if self.compiled:
            import numpy as np

            return np.full(length, fill, dtype=np.int64)
        return [fill] * length

    @property
    def nodes(self) -> int:
        """Nodes searched by this solver so far (for measurements)."""
        return int(self._stats[0])

    @contextmanager
    def node_limit(self, nodes: int | None) -> Iterator[None]:
        """Within it, a query that would search more than ``nodes`` nodes in all (from
        the start of the block) raises ``OutOfNodes``; ``None``: no limit. Nested
        limits keep the tighter one. What a stopped search stored in the table stays
        valid: a query after it gives the same answers as without the stop."""
        saved = self._stop_at
        if nodes is not None:
            stop = self.nodes + max(0, nodes)
            self._stop_at = stop if saved is None else min(saved, stop)
        try:
            yield
        finally:
            self._stop_at = saved

    # -- queries ---------------------------------------------------------------------

    def can_reach(self, pos: Position, goal: Goal) -> bool:
        """Whether ``goal.team`` reaches its effective target with best play by both."""
        job = self._prepare(pos, goal)
        return self._reach(job, -1)

    def outcome(self, pos: Position, goal: Goal) -> Outcome:
        """``REACHED``, ``CANCELLED`` or ``MISSED`` with best play, for ``goal.team``."""
        job = self._prepare(pos, goal)
        return self._outcome(job, -1)

    def exact(self, pos: Position, goal: Goal, guess: int | None = None) -> Value:
        """The best result ``goal.team`` can force (see ``Value``).

        ``guess``: a margin the answer is likely to be (say, the value of the position
        a card ago); the search tests it and its successor first, which settles a good
        guess in two null-window tests instead of a whole bisection. Any guess gives
        the same answer.
        """
        job = self._prepare(pos, goal)
        return self._value(job, -1, guess)

    # The per-move answers share one table generation: what one move's search
    # learns about later tricks serves the others.

    def moves_can_reach(self, pos: Position, goal: Goal) -> dict[Move, bool]:
        """``can_reach`` after each legal move of the seat to move."""
        job = self._prepare(pos, goal)
        return self._per_move(job, lambda forced: self._reach(job, forced))

    def moves_outcome(self, pos: Position, goal: Goal) -> dict[Move, Outcome]:
        """``outcome`` after each legal move of the seat to move."""
        job = self._prepare(pos, goal)
        return self._per_move(job, lambda forced: self._outcome(job, forced))

    def moves_exact(self, pos: Position, goal: Goal, guess: int | None = None) -> dict[Move, Value]:
        """``exact`` after each legal move of the seat to move (``guess`` as there)."""
        job = self._prepare(pos, goal)
        return self._per_move(job, lambda forced: self._value(job, forced, guess))

    def kernel_root_moves(self, pos: Position) -> list[Move]:
        """The moves the kernel tries at the root, in its order, one per class of
        equivalent cards: for tests of its move generation and for tuning the order."""
        if pos.is_over:
            return []
        job = self._prepare(pos, Goal(0, 0, 0, 0))
        job.prm[kernel.P_LIST_ONLY] = 1
        count = self._run(job)
        base = len(pos.trick) * kernel.MAX_MOVES
        asks = pos.reveal == "ask"
        out = []
        for i in range(count):
            m = int(self._moves[base + i])
            out.append(Move(m & kernel.CARD_BITS, asks and bool(m & kernel.REVEAL_FLAG)))
        return out

    # -- the answers, from null-window tests -------------------------------------------

    def _reach(self, job: _Job, forced: int) -> bool:
        game = kernel.GAME_CANCEL_FAILS if job.cancellable else kernel.GAME_PLAIN
        return self._test(job, game, job.need, forced)

    def _outcome(self, job: _Job, forced: int) -> Outcome:
        if self._reach(job, forced):
            return Outcome.REACHED
        if job.cancellable and self._test(job, kernel.GAME_CANCEL_SUCCEEDS, job.need, forced):
            return Outcome.CANCELLED
        return Outcome.MISSED

    def _value(self, job: _Job, forced: int, guess: int | None = None) -> Value:
        first = None if guess is None else guess + job.need
        if not job.cancellable:
            best = self._best(job, kernel.GAME_PLAIN, job.low, job.high, forced, first)
            return Value(best - job.need)
        # Above the target a cancellation is as bad as a miss, below it as good as a
        # reach: the two games answer the two halves of the scale.
        found = self._window(job, kernel.GAME_CANCEL_FAILS, job.need - 1, job.need, forced)
        if found >= job.need:
            best = self._best(job, kernel.GAME_CANCEL_FAILS, found, job.high, forced, first)
            return Value(best - job.need)
        found = self._window(job, kernel.GAME_CANCEL_SUCCEEDS, job.need - 1, job.need, forced)
        if found >= job.need:
            return Value(None)
        best = self._best(job, kernel.GAME_CANCEL_SUCCEEDS, job.low, found, forced, first)
        return Value(best - job.need)

    def _best(
        self, job: _Job, game: int, low: int, high: int, forced: int, first: int | None = None
    ) -> int:
        """The points-to-come with best play, known to lie in ``[low, high]``.

        Bisection by null-window searches: cheaper than one wide search, since each
        test only has to prove a bound, and the table keeps what earlier tests found.
        A fail-soft answer may move a bound past the middle. With ``first`` (a likely
        answer), ``first`` and ``first + 1`` are tested before bisecting.
        """
        tries = [] if first is None else [first, first + 1]
        descents = DESCENTS if first is not None else 0
        while low < high:
            while tries and not low < tries[0] <= high:
                tries.pop(0)
            guessing = bool(tries)
            mid = tries.pop(0) if tries else (low + high + 1) // 2
            found = self._window(job, game, mid - 1, mid, forced)
            if found >= mid:
                low = found
            else:
                high = found
                if guessing and descents > 0:
                    # below the guess: most likely just below it, so try the bound
                    descents -= 1
                    tries = [high]
        return low

    def _per_move(self, job: _Job, answer: Callable[[int], T]) -> dict[Move, T]:
        pos = job.pos
        out: dict[Move, T] = {}
        done: dict[Move, T] = {}
        for move in pos.legal_moves():
            rep = representative(pos, move)
            if rep not in done:
                reveal = move.reveal or pos.reveals_now
                done[rep] = answer(rep.card | (kernel.REVEAL_FLAG if reveal else 0))
            out[move] = done[rep]
        return out

    # -- plumbing ----------------------------------------------------------------------

    def _prepare(self, pos: Position, goal: Goal) -> _Job:
        if not isinstance(pos, Position):
            raise ValueError(f"expected a Position, not {type(pos).__name__}")
        if not isinstance(goal, Goal):
            raise ValueError(f"expected a Goal, not {type(goal).__name__}")
        self._generation += 1
        if self._generation > kernel.MAX_GENERATION:
            self._generation = 1
            self._tt[:] = [kernel.EMPTY_KEY] * len(self._tt)  # rare: every 4 M queries
        target = goal.effective(pos.pair_team)
        holder = pos.pair_holder
        delta = 0
        if holder is not None:
            delta = target - goal.effective(team_of(holder))
        trump = -1 if pos.trump is None else pos.trump
        wcard = wseat = -1
        if pos.trick:
            best = winning_index(pos.trick, pos.trump, pos.revealed)
            wcard, wseat = pos.trick[best], pos.seat_at(best)
        todo = pos.remaining_points
        prm = [0] * kernel.NPARAM
        prm[kernel.P_TRUMP] = trump
        prm[kernel.P_ASK] = 1 if pos.reveal == "ask" else 0
        prm[kernel.P_REVEALED] = 1 if pos.revealed else 0
        prm[kernel.P_LAST] = LAST_TRICK_POINT if pos.last_trick_point else 0
        prm[kernel.P_STEP] = pos.step
        prm[kernel.P_TEAM] = goal.team
        prm[kernel.P_LEADER] = pos.leader
        prm[kernel.P_NTABLE] = len(pos.trick)
        prm[kernel.P_HOLDER] = -1 if holder is None else holder
        prm[kernel.P_PAIR_DELTA] = delta
        prm[kernel.P_FORCED] = -1
        prm[kernel.P_ASKED] = 1 if pos.asked else 0
        prm[kernel.P_GEN] = self._generation
        prm[kernel.P_TODO] = todo
        prm[kernel.P_KQ] = pair_mask(trump) if trump >= 0 else 0
        prm[kernel.P_WCARD] = wcard
        prm[kernel.P_WSEAT] = wseat
        table = [*pos.trick, *([-1] * (CARDS_PER_TRICK - len(pos.trick)))]
        return _Job(
            prm=prm,
            table=table,
            hands=list(pos.hands),
            need=target - pos.points[goal.team],
            low=min(0, delta),
            high=todo + max(0, delta),
            cancellable=pos.cancellable,
            pos=pos,
        )

    def _test(self, job: _Job, game: int, need: int, forced: int) -> bool:
        """One null-window search: can the team gain ``need`` more (margin) points?"""
        return self._window(job, game, need - 1, need, forced) >= need

    def _window(self, job: _Job, game: int, alpha: int, beta: int, forced: int) -> int:
        """Points-to-come with best play, exact when strictly inside ``(alpha, beta)``;
        otherwise a bound on the same side of the window (fail-soft)."""
        job.prm[kernel.P_GAME] = game
        job.prm[kernel.P_ALPHA] = alpha
        job.prm[kernel.P_BETA] = beta
        job.prm[kernel.P_FORCED] = forced
        return int(self._run(job))

    def _run(self, job: _Job) -> int:
        self._prm[:] = job.prm
        if self._stop_at is not None:
            left = self._stop_at - self.nodes
            if left <= 0:
                raise OutOfNodes
            self._prm[kernel.P_LIMIT] = left
        self._hands[:] = job.hands
        self._table[:] = job.table
        found = self._search(
            self._hands,
            self._prm,
            self._table,
            self._pts,
            self._suit_pts,
            self._above,
            self._debruijn,
            self._tt,
            *self._stack,
            self._moves,
            self._scores,
            self._stats,
        )
        if found == kernel.OUT_OF_NODES:
            raise OutOfNodes
        return int(found)


def representative(pos: Position, move: Move) -> Move:
    """The highest move equivalent to ``move``: the same suit, no card of that suit in
    play between them, the same points, and not a pair card while the pair is live."""
    hand = pos.hands[pos.to_move]
    in_play = pos.hands[0] | pos.hands[1] | pos.hands[2] | pos.hands[3]
    for c in pos.trick:
        in_play |= 1 << c
    holder = pos.pair_holder
    protected = pair_mask(pos.trump) if holder is not None and pos.trump is not None else 0
    c = move.card
    if (protected >> c) & 1:
        return move
    suit_cards = in_play & SUIT_MASK[suit_of(c)]
    while True:
        above = suit_cards & ~((2 << c) - 1)
        if not above:
            break
        nxt = (above & -above).bit_length() - 1
        if not hand >> nxt & 1 or POINTS[nxt] != POINTS[c] or (protected >> nxt) & 1:
            break
        c = nxt
    return Move(c, move.reveal)


_default = threading.local()


def default_solver() -> Solver:
    """The solver behind the module functions: the calling thread's, made on first use.

    One per thread: a solver's tables may not be searched by two threads at once.
    """
    found: Solver | None = getattr(_default, "solver", None)
    if found is None:
        found = _default.solver = Solver()
    return found


def can_reach(pos: Position, goal: Goal) -> bool:
    """Whether ``goal.team`` reaches its effective target with best play by both sides."""
    return default_solver().can_reach(pos, goal)


def outcome(pos: Position, goal: Goal) -> Outcome:
    """``REACHED``, ``CANCELLED`` or ``MISSED`` with best play, for ``goal.team``."""
    return default_solver().outcome(pos, goal)


def exact(pos: Position, goal: Goal, guess: int | None = None) -> Value:
    """The best result ``goal.team`` can force (see ``Value``)."""
    return default_solver().exact(pos, goal, guess)


def moves_can_reach(pos: Position, goal: Goal) -> dict[Move, bool]:
    """``can_reach`` after each legal move of the seat to move."""
    return default_solver().moves_can_reach(pos, goal)


def moves_outcome(pos: Position, goal: Goal) -> dict[Move, Outcome]:
    """``outcome`` after each legal move of the seat to move."""
    return default_solver().moves_outcome(pos, goal)


def moves_exact(pos: Position, goal: Goal, guess: int | None = None) -> dict[Move, Value]:
    """``exact`` after each legal move of the seat to move."""
    return default_solver().moves_exact(pos, goal, guess)
