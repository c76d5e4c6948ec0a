"""``twentynine bench engine``: how fast the rules engine runs random deals.

Every figure goes through the public API (``Deal``, ``legal_actions``,
``apply``, ``clone``) with random legal actions, on one core. Each
measurement is repeated ``--runs`` times and reported as the median and the
worst run, since this machine is shared and noisy.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from ..game.dealing import deal_hands, derive_seed
from ..game.engine import OVER, Deal
from ..game.rules import PROFILES, parse_assignments, resolve


def _random_deals(profile: str, options: dict[str, str], n: int, seed: int) -> Callable[[], int]:
    rules = resolve(profile, options)

    def run() -> int:
        rng = random.Random(seed)
        actions = 0
        for i in range(n):
            deal = Deal(rules, i % 4, deal_hands(derive_seed(seed, i), i % 4, rules.clockwise))
            while deal.phase != OVER:
                legal = deal.legal_actions()
                deal.apply(legal[int(rng.random() * len(legal))])
                actions += 1
        return actions

    return run


def _midgame_positions(n: int, seed: int) -> list[Deal]:
    """Deals stopped at a random point of the play, for per-call costs."""
    rules = PROFILES["pagat"]
    rng = random.Random(seed)
    out: list[Deal] = []
    i = 0
    while len(out) < n:
        deal = Deal(rules, i % 4, deal_hands(derive_seed(seed, i), i % 4))
        stop = rng.randrange(4, 30)
        steps = 0
        while deal.phase != OVER and not (deal.phase == "play" and steps >= stop):
            legal = deal.legal_actions()
            deal.apply(legal[int(rng.random() * len(legal))])
            steps += 1
        if deal.phase == "play":
            out.append(deal)
        i += 1
    return out


def _per_call(fn: Callable[[Deal], object], deals: list[Deal], repeat: int) -> float:
    """Microseconds per call, averaged over ``repeat`` passes over ``deals``."""
    t = time.perf_counter()
    for _ in range(repeat):
        for d in deals:
            fn(d)
    return (time.perf_counter() - t) / (repeat * len(deals)) * 1e6


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="twentynine bench engine", description=__doc__)
    p.add_argument("--deals", type=int, default=2000, help="random deals per run (default 2000)")
    p.add_argument("--runs", type=int, default=5, help="repetitions; the median is reported")
    p.add_argument("--profile", default="pagat", choices=sorted(PROFILES))
    p.add_argument("--set", dest="options", action="append", default=[], metavar="K=V")
    p.add_argument("--seed", type=int, default=29)
    args = p.parse_args(argv)
    if args.deals < 1 or args.runs < 1:
        p.error("--deals and --runs must be at least 1")
    run = _random_deals(args.profile, parse_assignments(args.options), args.deals, args.seed)
    rates, per_action = [], []
    for _ in range(args.runs):
        t = time.perf_counter()
        actions = run()
        el = time.perf_counter() - t
        rates.append(args.deals / el)
        per_action.append(el / actions * 1e6)
    deals = _midgame_positions(min(args.deals, 500), args.seed)
    repeat = max(1, 20_000 // len(deals))
    clone = [_per_call(Deal.clone, deals, repeat) for _ in range(args.runs)]
    legal = [_per_call(Deal.legal_actions, deals, repeat) for _ in range(args.runs)]
    print(f"engine benchmark: profile {args.profile}, {args.deals} deals x {args.runs} runs")
    print(
        f"  complete random deals: median {statistics.median(rates):,.0f}/s "
        f"(slowest run {min(rates):,.0f}/s), {statistics.median(per_action):.2f} us per action"
    )
    print(f"  clone():         median {statistics.median(clone):.2f} us (worst {max(clone):.2f})")
    print(f"  legal_actions(): median {statistics.median(legal):.2f} us (worst {max(legal):.2f})")
    return 0
