"""``twentynine bench hint``: how long the table's hint takes for a card to play.

A hint is asked while a player waits, so its latency is what matters. Deals
are dealt from a seed and played to the end by bots (casual by default),
cycling through the rule profiles unless one is named; in each deal one seat
(turning round the table from deal to deal) asks ``hint_for`` at every card it
plays that has a choice (more than one legal card), first trick included: the
first trick is the dearest, with the most unseen cards to sample. The figures
are the median, the 95th percentile and the maximum, in wall time and in CPU
time of this process (the machine may be shared), for every decision and for
the first trick alone. The solver is loaded and warmed on one hint first, so
they are those of a server that has been running.
"""

from __future__ import annotations

import argparse
import statistics
import time

from ..bots import make_bot
from ..game.dealing import deal_hands, derive_seed
from ..game.engine import OVER, PLAYING, Deal
from ..game.observation import Observation, observe_deal
from ..game.rules import PROFILES
from ..services.analysis import DEFAULT_WORLDS, hint_for
from ..solver import Solver, numba_available

PERCENTILE = 95


def card_decisions(count: int, seed: int, profile: str | None, level: str) -> list[Observation]:
    """The observations of one seat per deal at each card it plays with a choice.

    Each is paired with its trick number through ``len(obs.tricks)``; the deal is
    played on by the bots whatever the hint would have said.
    """
    names = [profile] if profile else list(PROFILES)
    out: list[Observation] = []
    for i in range(count):
        rules = PROFILES[names[i % len(names)]]
        dealer = i % 4
        deal = Deal(rules, dealer, deal_hands(derive_seed(seed, i), dealer, rules.clockwise))
        bots = [make_bot(level, seed=seed * 4 + s) for s in range(4)]
        asker = (dealer + 1 + i) % 4
        while deal.phase != OVER:
            seat = deal.to_act
            obs = observe_deal(deal, seat)
            plays = [a for a in obs.legal if a.play is not None]
            if seat == asker and deal.phase == PLAYING and len(plays) > 1:
                out.append(obs)
            deal.apply(bots[seat].act(obs))
    return out


def _percentile(values: list[float], pct: int) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(pct / 100 * (len(ordered) - 1)))]


def time_hints(
    decisions: list[Observation], solver: Solver, worlds: int
) -> list[tuple[int, float, float]]:
    """Per decision: its trick number (0 the first), wall and CPU seconds of the hint."""
    out = []
    for obs in decisions:
        wall, cpu = time.perf_counter(), time.process_time()
        hint_for(obs, worlds=worlds, solver=solver)
        out.append((len(obs.tricks), time.perf_counter() - wall, time.process_time() - cpu))
    return out


def _line(name: str, values: list[float]) -> str:
    return (
        f"    {name:<22} median {statistics.median(values):6.3f} s"
        f"   p{PERCENTILE} {_percentile(values, PERCENTILE):6.3f} s"
        f"   max {max(values):6.3f} s"
    )


def report(times: list[tuple[int, float, float]]) -> None:
    first = [t for t in times if t[0] == 0]
    print(f"  {len(times)} card decisions, {len(first)} in the first trick")
    print(_line("every card (wall)", [t[1] for t in times]))
    print(_line("every card (cpu)", [t[2] for t in times]))
    if first:
        print(_line("first trick (wall)", [t[1] for t in first]))
        print(_line("first trick (cpu)", [t[2] for t in first]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="twentynine bench hint",
        description=__doc__.splitlines()[0] if __doc__ else None,
    )
    parser.add_argument("--deals", type=int, default=8, help="deals played (default 8)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the deals (default 1)")
    parser.add_argument("--profile", choices=list(PROFILES), help="one profile (default: all)")
    parser.add_argument("--players", default="casual", help="bot level playing the deals")
    parser.add_argument(
        "--worlds",
        type=int,
        default=DEFAULT_WORLDS,
        help="sampled deals per hint (default: the table's)",
    )
    parser.add_argument("--pure", action="store_true", help="use the plain Python kernel")
    args = parser.parse_args(argv)
    if args.deals < 1:
        parser.error("--deals must be at least 1")
    if args.worlds < 1:
        parser.error("--worlds must be at least 1")
    start = time.perf_counter()
    decisions = card_decisions(args.deals, args.seed, args.profile, args.players)
    if not decisions:
        parser.error("no card decision with a choice in these deals: deal more")
    backend = "pure" if args.pure or not numba_available() else "numba"
    print(
        f"hint for a card: {args.deals} deals played by {args.players} bots"
        f" ({args.profile or 'every profile in turn'}), seed {args.seed}, {args.worlds} worlds,"
        f" {backend} (dealt and played in {time.perf_counter() - start:.1f} s)"
    )
    solver = Solver(backend)  # type: ignore[arg-type]
    t = time.perf_counter()
    hint_for(decisions[-1], worlds=args.worlds, solver=solver)
    print(f"  warm-up (load the kernel, one hint) {time.perf_counter() - t:.2f} s")
    report(time_hints(decisions, solver, args.worlds))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
