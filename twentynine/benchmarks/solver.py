"""``twentynine bench solver``: how fast the exact solver answers from the first trick.

Random full deals, each with its own random trump state (revealed or hidden,
``auto`` or ``ask``, cancel or score, pair pending, last-trick point) and a target
between 16 and 20 for the bidder's team. For each backend it times a yes/no solve
(``can_reach``) and an exact solve (``exact``) of every deal and prints the median,
the 95th percentile and the nodes searched per second. The first call of a backend
is timed apart: for numba it loads (or compiles) the kernel.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from ..game.cards import NUM_CARDS, SUITS
from ..game.contract import PAIR_SHIFT
from ..solver import Goal, Position, Solver, numba_available
from ..solver.position import CARDS_PER_HAND, SEATS

LOW_TARGET, HIGH_TARGET = 16, 20
PERCENTILE = 95


def random_problem(rng: random.Random, trumps: str = "mixed") -> tuple[Position, Goal]:
    """A fresh deal at the first trick, with random rules and a bidder's target.

    ``trumps`` is ``mixed`` (revealed or hidden at random), ``revealed`` or ``hidden``.
    """
    deck = list(range(NUM_CARDS))
    rng.shuffle(deck)
    hands = [0] * SEATS
    for i, c in enumerate(deck):
        hands[i // CARDS_PER_HAND] |= 1 << c
    trump = rng.randrange(len(SUITS))
    pos = Position(
        hands=(hands[0], hands[1], hands[2], hands[3]),
        leader=rng.randrange(SEATS),
        trump=trump,
        revealed=trumps == "revealed" or (trumps == "mixed" and rng.random() < 0.5),
        reveal=rng.choice(("auto", "ask")),
        unrevealed=rng.choice(("score", "cancel")),
        last_trick_point=rng.random() < 0.5,
        pair_pending=rng.random() < 0.5,
        clockwise=rng.random() < 0.5,
    )
    target = rng.randint(LOW_TARGET, HIGH_TARGET)
    goal = Goal(rng.randrange(2), target, target - PAIR_SHIFT, target + PAIR_SHIFT)
    return pos, goal


def _percentile(values: list[float], pct: int) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, round(pct / 100 * (len(ordered) - 1)))
    return ordered[index]


def _measure(
    solver: Solver, problems: list[tuple[Position, Goal]], query: Callable[..., object]
) -> tuple[list[float], int, float]:
    times: list[float] = []
    nodes_before = solver.nodes
    for pos, goal in problems:
        start = time.perf_counter()
        query(pos, goal)
        times.append(time.perf_counter() - start)
    return times, solver.nodes - nodes_before, sum(times)


def _report(label: str, times: list[float], nodes: int, total: float) -> None:
    ms = [t * 1000 for t in times]
    rate = nodes / total if total > 0 else 0.0
    print(
        f"  {label:7s} median {statistics.median(ms):8.2f} ms   p{PERCENTILE}"
        f" {_percentile(ms, PERCENTILE):8.2f} ms   max {max(ms):8.2f} ms"
        f"   {nodes / len(ms):10.0f} nodes/solve   {rate / 1e6:6.2f} M nodes/s"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="twentynine bench solver", description=__doc__.splitlines()[0] if __doc__ else None
    )
    parser.add_argument("--deals", type=int, default=200, help="random deals (default 200)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument(
        "--trumps",
        choices=("mixed", "revealed", "hidden"),
        default="mixed",
        help="trumps revealed at the first trick, hidden, or either at random (default)",
    )
    parser.add_argument(
        "--pure", action="store_true", help="also time the uncompiled (plain Python) kernel"
    )
    parser.add_argument(
        "--pure-deals",
        type=int,
        default=None,
        help="deals for the plain Python kernel (default: --deals)",
    )
    args = parser.parse_args(argv)
    if args.deals < 1:
        parser.error("--deals must be at least 1")
    rng = random.Random(args.seed)
    problems = [random_problem(rng, args.trumps) for _ in range(args.deals)]
    backends: list[tuple[str, int]] = []
    if numba_available():
        backends.append(("numba", args.deals))
    if args.pure or not numba_available():
        backends.append(("pure", min(args.deals, args.pure_deals or args.deals)))
    print(
        f"solver from the first trick: {args.deals} random deals, seed {args.seed},"
        f" trumps {args.trumps}"
    )
    for backend, count in backends:
        solver = Solver(backend)  # type: ignore[arg-type]
        start = time.perf_counter()
        solver.can_reach(*problems[0])
        first = time.perf_counter() - start
        print(f"{backend}: {count} deals, first call {first * 1000:.0f} ms (load or compile)")
        subset = problems[:count]
        _report("yes/no", *_measure(solver, subset, solver.can_reach))
        _report("exact", *_measure(solver, subset, solver.exact))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
