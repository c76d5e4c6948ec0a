"""Rebuild ``twentynine/data/bidding.json``, the bidding model of the strong bots.

    python -m twentynine.bots.bidding_build --deals 12000 --jobs 2

For each random deal a bidder is placed at a random point of the order of
play; for each of the four suits as (hidden) trumps the exact solver gives
the points the bidder's team takes with best play. A least-squares fit of
those points on features of the bidder's first four cards gives the model's
coefficients; the spread of what the fit misses, by number of trumps held,
gives the width of its make probabilities. Needs numpy (and numba to finish
in minutes rather than hours).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import statistics
import time
from pathlib import Path

from ..game.cards import SUIT_MASK
from ..game.dealing import deal_hands, derive_seed
from ..solver import Goal, Position, Solver
from .bidding import FEATURES, features

LEADER = 0  # seats are relative: seat 0 leads the first trick


def solve_deal(args: tuple[int, int]) -> list[tuple[list[float], float, int]]:
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


def fit(rows: list[tuple[list[float], float, int]]) -> dict[str, object]:
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


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m twentynine.bots.bidding_build", description=__doc__)
    p.add_argument("--deals", type=int, default=12000)
    p.add_argument("--seed", type=int, default=2929)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument(
        "--out", default=str(Path(__file__).resolve().parent.parent / "data" / "bidding.json")
    )
    args = p.parse_args(argv)
    t = time.perf_counter()
    work = [(args.seed, i) for i in range(args.deals)]
    rows: list[tuple[list[float], float, int]] = []
    step = max(1, args.deals // 20)

    def progress(done: int) -> None:
        if done % step == 0:
            print(f"  {done}/{args.deals} deals, {time.perf_counter() - t:.0f} s", flush=True)

    if args.jobs > 1:
        with mp.get_context("fork").Pool(args.jobs) as pool:
            for done, part in enumerate(pool.imap_unordered(solve_deal, work, chunksize=20), 1):
                rows.extend(part)
                progress(done)
    else:
        for done, w in enumerate(work, 1):
            rows.extend(solve_deal(w))
            progress(done)
    model = fit(rows)
    model["deals"] = args.deals
    model["seed"] = args.seed
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(model, indent=1) + "\n")
    print(
        f"{args.deals} deals, {len(rows)} rows in {time.perf_counter() - t:.0f} s; r2 {model['r2']}"
    )
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
