"""Rebuild ``twentynine/data/bidding.json``, the bidding model of the strong bots.

    python -m twentynine.bots.bidding_build --deals 12000 --jobs 2

For each random deal a bidder is placed at a random point of the order of
play; for each of the four suits as (hidden) trumps the exact solver gives
the points the bidder's team takes with best play. A least-squares fit of
those points on features of the bidder's first four cards gives the model's
coefficients; the spread of what the fit misses, by number of trumps held,
gives the width of its make probabilities. Needs numpy (and numba to finish
in minutes rather than hours).

Rows are always gathered in deal order, whatever runs them (one process,
``--jobs`` local processes, or a Dask cluster through ``twentynine
bidding-build --cluster ADDRESS``), so the same seed fits the same model.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import statistics
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from ..game.cards import SUIT_MASK
from ..game.dealing import deal_hands, derive_seed
from ..solver import Goal, Position, Solver
from .bidding import FEATURES, features

LEADER = 0  # seats are relative: seat 0 leads the first trick

Row = tuple[list[float], float, int]
# Runs ``solve_deal`` over the work items and yields the results in the same order.
Mapper = Callable[
    [Callable[[tuple[int, int]], list[Row]], list[tuple[int, int]]], Iterable[list[Row]]
]


def solve_deal(args: tuple[int, int]) -> list[Row]:
    """Rows (features, team points, trumps held) for one random deal."""
    seed, index = args
    s = derive_seed(seed, index)
    hands = deal_hands(s, 3)  # dealer 3: seat 0 leads and gets the first card
    position = s % 4
    bidder = (LEADER + position) % 4
    masks = tuple(sum(1 << c for c in h) for h in hands)
    first = sum(1 << c for c in hands[bidder][:4])
    solver = _solver()
    rows = []
    for trump in range(4):
        pos = Position(hands=masks, leader=LEADER, trump=trump, revealed=False, reveal="auto")  # type: ignore[arg-type]
        value = solver.exact(pos, Goal(bidder & 1, 0))
        assert value.margin is not None
        held = (first & SUIT_MASK[trump]).bit_count()
        rows.append((features(first, trump, position), float(value.margin), held))
    return rows


_SOLVER: Solver | None = None


def _solver() -> Solver:
    global _SOLVER
    if _SOLVER is None:
        _SOLVER = Solver()
    return _SOLVER


def fit(rows: list[Row]) -> dict[str, object]:
    import numpy as np

    x = np.array([r[0] for r in rows], dtype=float)
    y = np.array([r[1] for r in rows], dtype=float)
    coef, *_ = np.linalg.lstsq(x, y, rcond=None)
    pred = x @ coef
    resid = y - pred
    spread = []
    overall = float(np.std(resid))
    for n in range(5):
        errors = [float(e) for e, r in zip(resid, rows, strict=True) if r[2] == n]
        spread.append(round(statistics.pstdev(errors) if len(errors) > 30 else overall, 3))
    r2 = 1 - float(np.sum(resid**2)) / float(np.sum((y - y.mean()) ** 2))
    return {
        "features": list(FEATURES),
        "coefficients": [round(float(c), 4) for c in coef],
        "spread": spread,
        "r2": round(r2, 4),
        "rows": len(rows),
    }


def local_mapper(jobs: int) -> Mapper:
    """One process, or ``jobs`` forked ones; results in work order either way."""

    def run(
        fn: Callable[[tuple[int, int]], list[Row]], work: list[tuple[int, int]]
    ) -> Iterator[list[Row]]:
        if jobs <= 1:
            yield from map(fn, work)
            return
        with mp.get_context("fork").Pool(jobs) as pool:
            yield from pool.imap(fn, work, chunksize=20)

    return run


def add_arguments(p: argparse.ArgumentParser, cluster: bool = False) -> None:
    """The options of the build; ``cluster`` adds ``--cluster`` (the command line's)."""
    p.add_argument("--deals", type=int, default=12000, help="random deals to solve")
    p.add_argument("--seed", type=int, default=2929, help="seed of the deals")
    p.add_argument("--jobs", type=int, default=2, help="local worker processes")
    p.add_argument(
        "--out",
        default=str(Path(__file__).resolve().parent.parent / "data" / "bidding.json"),
        help="where the model goes (default: the one the bots load)",
    )
    if cluster:
        p.add_argument(
            "--cluster",
            metavar="ADDRESS",
            help="solve on a Dask cluster: a scheduler's tcp://HOST:8786, or local:N "
            "for N worker processes here (needs the research extra); same model as locally",
        )


def build(
    deals: int, seed: int, mapper: Mapper, progress: Callable[[int], None] | None = None
) -> dict[str, object]:
    """The fitted model of ``deals`` solved deals, rows gathered in deal order."""
    work = [(seed, i) for i in range(deals)]
    rows: list[Row] = []
    for done, part in enumerate(mapper(solve_deal, work), 1):
        rows.extend(part)
        if progress is not None:
            progress(done)
    model = fit(rows)
    model["deals"] = deals
    model["seed"] = seed
    return model


def run(args: argparse.Namespace, mapper: Mapper | None = None) -> int:
    """Build and write the model; ``mapper`` (a cluster's) replaces the local processes."""
    if args.deals < 1:
        print("bidding build: --deals must be at least 1")
        return 2
    t = time.perf_counter()
    step = max(1, args.deals // 20)

    def progress(done: int) -> None:
        if done % step == 0:
            print(f"  {done}/{args.deals} deals, {time.perf_counter() - t:.0f} s", flush=True)

    model = build(args.deals, args.seed, mapper or local_mapper(args.jobs), progress)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(model, indent=1) + "\n")
    print(
        f"{args.deals} deals, {model['rows']} rows in {time.perf_counter() - t:.0f} s; "
        f"r2 {model['r2']}"
    )
    print(f"wrote {out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m twentynine.bots.bidding_build",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(p)
    return run(p.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
