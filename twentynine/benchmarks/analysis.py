"""``twentynine bench analysis``: how long the analysis of a finished deal takes.

Deals are dealt from a seed and played to the end by bots (casual by default:
quick to play, and they leave mistakes to find), cycling through the rule
profiles unless one is named. Each finished deal is then analysed whole (every
action with every hand known, and from the acting seat's view) and timed:
the whole analysis and its all-hands part, median and 95th percentile, in
wall time and in CPU time of this process (the machine may be shared). The
solver is loaded and warmed on one deal first, so the figures are those of a
server that has been running.

``--pure`` also times the plain Python kernel, the one the browser has
(Pyodide has no numba), on ``--pure-deals`` deals; ``--effort`` scales the
seat's-view node budgets (a fraction samples fewer worlds in the early tricks).
"""

from __future__ import annotations

import argparse
import statistics
import time

from ..bots import make_bot
from ..game.dealing import deal_hands, derive_seed
from ..game.engine import OVER, Deal
from ..game.observation import observe_deal
from ..game.rules import PROFILES
from ..services.analysis import analyse_deal
from ..solver import Solver, numba_available

PERCENTILE = 95


def play_deals(count: int, seed: int, profile: str | None, level: str) -> list[Deal]:
    """``count`` finished deals, played by four bots of ``level``."""
    names = [profile] if profile else list(PROFILES)
    out = []
    for i in range(count):
        rules = PROFILES[names[i % len(names)]]
        dealer = i % 4
        deal = Deal(rules, dealer, deal_hands(derive_seed(seed, i), dealer, rules.clockwise))
        bots = [make_bot(level, seed=seed * 4 + s) for s in range(4)]
        while deal.phase != OVER:
            deal.apply(bots[deal.to_act].act(observe_deal(deal, deal.to_act)))
        out.append(deal)
    return out


def _percentile(values: list[float], pct: int) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(pct / 100 * (len(ordered) - 1)))]


def time_deals(
    deals: list[Deal], solver: Solver, effort: float, seat_view: bool = True
) -> dict[str, list[float]]:
    """Per deal: wall and CPU seconds of the whole analysis and of its all-hands part."""
    times: dict[str, list[float]] = {"wall": [], "cpu": [], "all_hands": [], "all_hands_cpu": []}
    for deal in deals:
        wall, cpu = time.perf_counter(), time.process_time()
        result = analyse_deal(deal, seat_view=seat_view, solver=solver, effort=effort)
        times["wall"].append(time.perf_counter() - wall)
        times["cpu"].append(time.process_time() - cpu)
        times["all_hands"].append(result.seconds["all_hands"])
        times["all_hands_cpu"].append(result.seconds["all_hands_cpu"])
    return times


def report(label: str, times: dict[str, list[float]]) -> None:
    def line(name: str, values: list[float]) -> str:
        return (
            f"    {name:<16} median {statistics.median(values):6.2f} s"
            f"   p{PERCENTILE} {_percentile(values, PERCENTILE):6.2f} s"
            f"   max {max(values):6.2f} s"
        )

    print(f"  {label}: {len(times['wall'])} deals")
    print(line("whole (wall)", times["wall"]))
    print(line("whole (cpu)", times["cpu"]))
    print(line("all hands (wall)", times["all_hands"]))
    print(line("all hands (cpu)", times["all_hands_cpu"]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="twentynine bench analysis",
        description=__doc__.splitlines()[0] if __doc__ else None,
    )
    parser.add_argument("--deals", type=int, default=20, help="deals to analyse (default 20)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the deals (default 1)")
    parser.add_argument("--profile", choices=list(PROFILES), help="one profile (default: all)")
    parser.add_argument("--players", default="casual", help="bot level playing the deals")
    parser.add_argument("--effort", type=float, default=1.0, help="seat's-view budget scale")
    parser.add_argument("--pure", action="store_true", help="also time the plain Python kernel")
    parser.add_argument("--pure-deals", type=int, default=3, help="deals for --pure (default 3)")
    parser.add_argument(
        "--pure-effort", type=float, default=None, help="budget scale for --pure (default --effort)"
    )
    args = parser.parse_args(argv)
    if args.deals < 1 or args.pure_deals < 1:
        parser.error("--deals and --pure-deals must be at least 1")
    if args.effort <= 0 or (args.pure_effort is not None and args.pure_effort <= 0):
        parser.error("an effort must be above 0")
    start = time.perf_counter()
    deals = play_deals(args.deals + 1, args.seed, args.profile, args.players)
    warm, deals = deals[0], deals[1:]
    print(
        f"analysis of finished deals: {args.deals} deals played by {args.players} bots"
        f" ({args.profile or 'every profile in turn'}), seed {args.seed}"
        f" (dealt and played in {time.perf_counter() - start:.1f} s)"
    )
    backends: list[tuple[str, list[Deal], float]] = []
    if numba_available():
        backends.append(("numba", deals, args.effort))
    if args.pure or not numba_available():
        effort = args.pure_effort if args.pure_effort is not None else args.effort
        backends.append(("pure", deals[: args.pure_deals], effort))
    for backend, subset, effort in backends:
        solver = Solver(backend)  # type: ignore[arg-type]
        t = time.perf_counter()
        analyse_deal(warm, seat_view=False, solver=solver)
        print(f"{backend}: warm-up (load the kernel, one deal) {time.perf_counter() - t:.2f} s")
        report(f"effort {effort:g}", time_deals(subset, solver, effort))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
