"""``twentynine bench bots``: decision times of every level, and cold start.

Each level plays whole deals against itself (so the positions are the ones
that level reaches) and every decision is timed: median, p95 and the worst.
The cold start is a fresh Python process that imports the package, builds
an expert bot and makes one decision, timed from outside.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

from ..bots import LEVELS
from ..bots.timing import time_level
from ..game.rules import PROFILES, parse_assignments

# A fresh process: import, build an expert bot, and let it make its first card
# decision of a deal (the first that needs the solver). Printed: seconds from
# the start of the script to that decision, and that decision alone.
COLD_START = """
import time
t0 = time.perf_counter()
from twentynine.bots import make_bot
from twentynine.game.dealing import deal_hands
from twentynine.game.engine import Deal
from twentynine.game.observation import observe_deal
from twentynine.game.rules import PROFILES
deal = Deal(PROFILES["pagat"], 0, deal_hands(1, 0))
expert, helper = make_bot("expert"), make_bot("casual")
while deal.phase != "play":
    deal.apply(helper.act(observe_deal(deal, deal.to_act)))
t1 = time.perf_counter()
deal.apply(expert.act(observe_deal(deal, deal.to_act)))
t2 = time.perf_counter()
print(f"{t2 - t0:.3f} {t2 - t1:.3f}")
"""


def cold_start(runs: int = 2) -> list[tuple[float, float, float]]:
    """Per run: wall time of the whole process, time from its start to the expert's
    first card decision, and that decision alone. The first run may also fill
    numba's on-disk cache."""
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", COLD_START], check=True, capture_output=True, text=True
        )
        wall = time.perf_counter() - t
        ready, first = (float(x) for x in done.stdout.split())
        out.append((wall, ready, first))
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="twentynine bench bots", description=__doc__)
    p.add_argument("--levels", default=",".join(LEVELS), help="comma-separated levels")
    p.add_argument("--deals", type=int, default=20, help="deals per level")
    p.add_argument("--profile", default="pagat", choices=sorted(PROFILES))
    p.add_argument("--set", dest="options", action="append", default=[], metavar="K=V")
    p.add_argument("--seed", type=int, default=29)
    p.add_argument("--no-cold", action="store_true", help="skip the cold-start measurement")
    args = p.parse_args(argv)
    options = parse_assignments(args.options)
    print(f"bot decision times, profile {args.profile}, {args.deals} deals per level, one core")
    for level in args.levels.split(","):
        if level not in LEVELS:
            p.error(f"unknown level {level!r}")
        ts = sorted(time_level(level, args.profile, options, args.deals, args.seed))
        p95 = ts[min(len(ts) - 1, int(0.95 * len(ts)))]
        print(
            f"  {level:<7} {len(ts):>5} decisions: median {statistics.median(ts) * 1000:8.2f} ms, "
            f"p95 {p95 * 1000:8.2f} ms, worst {ts[-1] * 1000:8.2f} ms"
        )
    if not args.no_cold:
        for i, (wall, ready, first) in enumerate(cold_start(), start=1):
            print(
                f"  cold start {i}: process {wall:.2f} s, first expert card decision "
                f"{ready:.2f} s after start (that decision {first:.2f} s)"
            )
    return 0
