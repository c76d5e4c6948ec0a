"""``twentynine bench contracts A B``: the bidding of two bots alone, duplicate.

Each deal is bid twice with the same cards, bot A on North–South and then on
East–West, up to the first lead (auction, trump, doubling). The contract is
then scored by the exact solution of the whole deal, all hands known: made
+1, cancelled 0, failed −1, times its stake, for the bidding side. No card
is played by a bot, so this measures the contracts alone, several times
faster than an arena and without the play's noise; the arena stays the
judge of strength (a solved deal is not a played one: measured on
``expert-v1`` games, bidders made 81% of the contracts the solution made and
19% of those it failed).

Printed: solved game points per deal A − B with a 95% interval, and per side
the contracts won, the share the solution makes, the mean bid, and the
contract decision times (median and p95).

``--run DIR`` plays nothing: it sets an arena run's contracts (and with
``--moves`` its cards) against the solution (``benchmarks/played.py``); with
``--odds`` it also counts how often each solved margin at a trick's start
was made (``benchmarks/odds.py``); with ``--roles``, how each side came to
hold its contracts (opened, raised over another bid, matched a challenge,
forced) at each bid, and how those went.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..bots import make_bot, spec_error
from ..game.dealing import deal_hands, derive_seed
from ..game.engine import MULTIPLIER, OVER, Deal, contract_stake
from ..game.observation import observe_deal
from ..game.rules import PROFILES, Rules, parse_assignments, resolve
from ..services.arena import run_jobs
from ..services.arena_folder import FolderError
from .odds import OddsCount, report_odds
from .played import Z95, report_run, solved_result, solved_run


@dataclass
class Contract:
    side: str  # "A" or "B": whose bot won the auction
    bid: int
    result: int  # +1, 0, -1 by the solution
    stake: int


@dataclass
class Board:
    deal: int
    a_minus_b: float
    contracts: list[Contract] = field(default_factory=list)
    times: dict[str, list[float]] = field(default_factory=lambda: {"A": [], "B": []})


def bid_board(rules: Rules, a: str, b: str, n: int, seed: int) -> Board:
    dealer = n % 4
    hands = deal_hands(derive_seed(seed, n), dealer, rules.clockwise)
    board = Board(n, 0.0)
    total = 0
    for a_team in (0, 1):
        labels = ["A" if s % 2 == a_team else "B" for s in range(4)]
        bots = [
            make_bot(a if labels[s] == "A" else b, seed=derive_seed(seed, n, s)) for s in range(4)
        ]
        deal = Deal(rules, dealer, hands)
        while deal.phase not in (OVER, "play"):
            seat = deal.to_act
            t = time.perf_counter()
            action = bots[seat].act(observe_deal(deal, seat))
            board.times[labels[seat]].append(time.perf_counter() - t)
            deal.apply(action)
        if deal.bidder < 0 or deal.trump is None or deal.trump < 0:
            continue  # a deal void before play: nobody scores
        result = solved_result(deal)
        stake = contract_stake(rules, deal.bid, MULTIPLIER[deal.doubling], False)
        side = labels[deal.bidder]
        board.contracts.append(Contract(side, deal.bid, result, stake))
        total += result * stake if side == "A" else -result * stake
    board.a_minus_b = total / 2
    return board


def _job(args: tuple[Rules, str, str, int, int]) -> Board:
    return bid_board(*args)


def run(rules: Rules, a: str, b: str, deals: int, seed: int, jobs: int = 1) -> list[Board]:
    return list(run_jobs(_job, [(rules, a, b, n, seed) for n in range(deals)], jobs))


def report(a: str, b: str, boards: list[Board]) -> str:
    diffs = [x.a_minus_b for x in boards]
    n = len(diffs)
    mean = statistics.fmean(diffs) if diffs else 0.0
    half = Z95 * statistics.stdev(diffs) / math.sqrt(n) if n > 1 else math.inf
    lines = [
        f"{a} (A) vs {b} (B), {n} duplicate deals, bidding only,"
        " contracts scored by their solution",
        f"  solved game points per deal, A minus B: {mean:+.3f}"
        f"  (95% CI {mean - half:+.3f} .. {mean + half:+.3f})",
    ]
    for label, name in (("A", a), ("B", b)):
        won = [c for x in boards for c in x.contracts if c.side == label]
        made = sum(1 for c in won if c.result > 0)
        share = f"{100 * made / len(won):.1f}%" if won else "-"
        mean_bid = f"{statistics.fmean(c.bid for c in won):.2f}" if won else "-"
        times = sorted(t for x in boards for t in x.times[label])
        med = statistics.median(times) * 1000 if times else 0.0
        p95 = times[min(len(times) - 1, int(0.95 * len(times)))] * 1000 if times else 0.0
        lines.append(
            f"  {label} {name}: won {len(won)} auctions, solution makes {share}, mean bid "
            f"{mean_bid}, contract decisions median {med:.1f} ms, p95 {p95:.1f} ms"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="twentynine bench contracts", description=__doc__)
    p.add_argument("a", nargs="?", help="bot level A")
    p.add_argument("b", nargs="?", help="bot level B")
    p.add_argument(
        "--run",
        type=Path,
        metavar="DIR",
        action="append",
        help="play nothing: solve the contracts of the arena run kept in DIR (arena --out); "
        "repeatable, each run reported apart, --odds counted over all",
    )
    p.add_argument(
        "--moves",
        action="store_true",
        help="with --run: also count the moves that gave back the solved result",
    )
    p.add_argument(
        "--roles",
        action="store_true",
        help="with --run: also show how each side came to hold its contracts (opened, "
        "raised, matched, forced) by bid, and how they went",
    )
    p.add_argument(
        "--odds",
        action="store_true",
        help="with --run: also count how often each solved margin at a trick's start was "
        "made (the table of expert[soft_play=1])",
    )
    p.add_argument("--deals", type=int, default=200)
    p.add_argument("--profile", default="pagat", choices=sorted(PROFILES))
    p.add_argument("--set", action="append", default=[], metavar="K=V")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1)
    args = p.parse_args(argv)
    if args.run is not None:
        if args.a is not None:
            p.error("--run reads its bots from the run: name no bot with it")
        odds = OddsCount() if args.odds else None
        for folder in args.run:
            try:
                ident, played, giveaways = solved_run(folder, args.moves, odds)
            except FolderError as e:
                p.error(str(e))
            print(report_run(folder, ident, played, giveaways, args.roles))
        if odds is not None:
            print(report_odds(odds))
        return 0
    for flag in ("moves", "odds", "roles"):
        if getattr(args, flag):
            p.error(f"--{flag} goes with --run DIR")
    if args.a is None or args.b is None:
        p.error("name the two bots, A and B (or give --run DIR)")
    for spec in (args.a, args.b):
        error = spec_error(spec)  # a level, or a variant of one (``expert[read_auction=0]``)
        if error is not None:
            p.error(error)
    if args.deals < 1:
        p.error("--deals must be at least 1")
    try:
        rules = resolve(args.profile, parse_assignments(args.set))
    except ValueError as e:
        p.error(str(e))
    boards = run(rules, args.a, args.b, args.deals, args.seed, args.jobs)
    print(report(args.a, args.b, sorted(boards, key=lambda x: x.deal)))
    return 0
