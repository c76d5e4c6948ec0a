"""A search in which the seat's own cards are chosen without seeing the world
(αμ, after Cazenave and Ventos' algorithm for bridge card play).

Sampled worlds solved one by one (``search``) let the seat play each world as
if it could see it: at its next turn it would play one card in one world and
another in another, though it cannot tell the two apart. Adding those
best-case plays up overrates the moves whose success needs that sight
(*strategy fusion*). Here the seat's next ``depth - 1`` turns after this one
are played with one card for every world that reaches them by the same
cards, as at the table; only after them is each world solved on its own.

The other seats still play each world as if they could see it: an opponent
picks its best card in each world (the worst for the seat), the partner its
best for the side. What a node answers is therefore not one number but a set
of vectors, one entry per world that reaches it: each vector is what one
strategy of the seat gets in each world, and a vector that another matches
or beats in every world is dropped (the set is a Pareto front). At an opponent's turn the
seat may answer every card with another strategy, so the node's vectors are
every combination of its children's, taken world by world at the worst; at
the partner's, at the best. With ``depth`` 1 this is the sampled worlds'
search again (a test checks it move for move).

Of cards equivalent in a hand (one suit, the same points, no card still in
play between them) only one is tried, as the solver does. For the other
seats that is a simplification: which of two equal cards they play could
tell the seat something, and the search does not let them choose it to
mislead.

The cost grows with the tricks left, so the expert uses it for the last
tricks only (``expert[alphamu=3]``, off by default). A search that would pass
its count of solved positions stops and says so (``TooBig``); ``deepest``
goes from depth 2 up and keeps the deepest search finished, and where not
even depth 2 finishes the caller plays by the worlds solved one by one.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..solver import Goal, Move, Position, representative
from .solving import solver

Vector = tuple[int, ...]  # the seat's side's result in each world of a node: 1, 0 or -1
FRONT_LIMIT = 64  # vectors kept at a node at most (the best by their sum)


class TooBig(Exception):
    """The search would solve more positions than it was allowed."""


def front(vectors: Sequence[Vector]) -> list[Vector]:
    """The vectors no other one beats or equals in every world (the Pareto front),
    best sum first; at most ``FRONT_LIMIT`` of them."""
    ranked = sorted(set(vectors), key=sum, reverse=True)
    kept: list[Vector] = []
    for v in ranked:
        if not any(all(k >= x for k, x in zip(u, v, strict=True)) for u in kept):
            kept.append(v)
            if len(kept) == FRONT_LIMIT:
                break
    return kept


class AlphaMu:
    """One αμ search for ``seat`` over the positions of its worlds.

    ``limit`` caps the positions the solver is asked about (one per world at each
    node where the seat's last fixed card is chosen); passing it raises ``TooBig``.
    """

    def __init__(self, seat: int, goal: Goal, limit: int = 4000) -> None:
        self.seat = seat
        self.goal = goal
        self.sign = 1 if seat & 1 == goal.team else -1
        self.limit = limit
        self.solved = 0

    def root(self, positions: Sequence[Position], depth: int) -> dict[Move, list[Vector]]:
        """Each legal move of the seat with the front of what it leads to, over
        ``positions`` (one per world, the seat to move in each)."""
        if depth < 1:
            raise ValueError(f"depth must be 1 or more, not {depth}")
        if depth == 1:
            return {m: [v] for m, v in self._solved(positions).items()}
        first = positions[0]
        fronts: dict[Move, list[Vector]] = {}
        out: dict[Move, list[Vector]] = {}
        for m in self._own_moves(positions):
            rep = representative(first, m)
            if rep not in fronts:
                fronts[rep] = self._node([p.advance(rep) for p in positions], depth - 1)
            out[m] = fronts[rep]
        return out

    def values(
        self, positions: Sequence[Position], weights: Sequence[float], depth: int
    ) -> dict[Move, float]:
        """Each move's best weighed mean over its front (1: made in every world)."""
        total = sum(weights)
        if total <= 0:
            raise ValueError("the worlds' weights add up to nothing")
        out: dict[Move, float] = {}
        for move, vectors in self.root(positions, depth).items():
            out[move] = max(sum(w * x for w, x in zip(weights, v, strict=True)) for v in vectors)
            out[move] /= total
        return out

    def deepest(
        self, positions: Sequence[Position], weights: Sequence[float], most: int
    ) -> tuple[int, dict[Move, float]]:
        """``values`` at depth 2, then 3 and on up to ``most`` while the count of solved
        positions allows: the deepest depth finished and its values (``TooBig`` if not
        even the first)."""
        done: tuple[int, dict[Move, float]] | None = None
        for depth in range(min(2, most), most + 1):
            try:
                done = depth, self.values(positions, weights, depth)
            except TooBig:
                if done is None:
                    raise
                break
        assert done is not None
        return done

    # -- the search --------------------------------------------------------------------
    def _own_moves(self, positions: Sequence[Position]) -> list[Move]:
        first = positions[0]
        if first.to_move != self.seat:
            raise ValueError(f"seat {self.seat} is not to move")
        moves = first.legal_moves()
        # (a card's equivalents are the same in every world: the cards still in play
        # are, only their holders differ)
        for p in positions[1:]:
            if p.legal_moves() != moves:
                # the worlds disagree on the seat's own choices (a hidden trump that
                # differs between them): the seat would be choosing by the world
                raise ValueError("the worlds give the seat different moves")
        return moves

    def _node(self, positions: list[Position], depth: int) -> list[Vector]:
        first = positions[0]
        if first.is_over:
            return [tuple(self._final(p) for p in positions)]
        mover = first.to_move
        if mover == self.seat:
            if depth == 1:
                return front(list(self._solved(positions).values()))
            found: list[Vector] = []
            for move in dict.fromkeys(representative(first, m) for m in self._own_moves(positions)):
                found += self._node([p.advance(move) for p in positions], depth - 1)
            return front(found)
        friendly = mover & 1 == self.seat & 1
        groups: dict[Move, list[int]] = {}
        for i, p in enumerate(positions):
            for move in dict.fromkeys(representative(p, m) for m in p.legal_moves()):
                groups.setdefault(move, []).append(i)
        # every combination of the children's strategies, world by world at the worst
        # (an opponent's card) or the best (the partner's); worlds not yet reached by a
        # child hold a value no result passes, the same in every combination so far
        start = -2 if friendly else 2
        acc: list[Vector] = [tuple(start for _ in positions)]
        for move, worlds in groups.items():
            child = self._node([positions[i].advance(move) for i in worlds], depth)
            combined: list[Vector] = []
            for a in acc:
                for v in child:
                    b = list(a)
                    for j, i in enumerate(worlds):
                        b[i] = max(b[i], v[j]) if friendly else min(b[i], v[j])
                    combined.append(tuple(b))
            acc = front(combined)
        return acc

    def _solved(self, positions: Sequence[Position]) -> dict[Move, Vector]:
        """Each of the seat's moves, with every world solved on its own after it."""
        moves = self._own_moves(positions)
        self.solved += len(positions)
        if self.solved > self.limit:
            raise TooBig(f"more than {self.limit} positions to solve")
        s = solver()
        per_world = [s.moves_outcome(p, self.goal) for p in positions]
        return {m: tuple(self.sign * int(o[m]) for o in per_world) for m in moves}

    def _final(self, p: Position) -> int:
        return self.sign * int(p.final_value(self.goal).outcome)


__all__ = ["AlphaMu", "TooBig", "Vector", "front"]
