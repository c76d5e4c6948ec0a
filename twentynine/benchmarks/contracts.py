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

``--run DIR`` plays nothing: it takes the contracts an arena run played
(``twentynine arena ... --out DIR``), scores each by its solution the same
way and sets that beside what was played. The difference per deal, played
minus solved, is what the play (declaring and defending, and any forfeit)
added to the auction's contracts; per side it prints how often the
solution makes its contracts and how often they were made at the table
when it did and when it did not.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..bots import make_bot, spec_error
from ..bots.contract import contract_goal, opening_position
from ..game.cards import mask_of
from ..game.dealing import deal_hands, derive_seed
from ..game.engine import MULTIPLIER, OVER, Deal, contract_stake
from ..game.observation import observe_deal
from ..game.record import RecordError, parse_hands, replay_record
from ..game.rules import PROFILES, Rules, RulesError, from_json, parse_assignments, resolve
from ..services.arena import run_jobs
from ..services.arena_folder import FolderError, read_boards
from ..solver import outcome as solve_outcome

Z95 = 1.959963984540054


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


def solved_result(deal: Deal, hands: list[list[int]] | None = None) -> int:
    """The contract's outcome with perfect play, all hands known, from the first lead
    (``hands``: the deal's eight cards a seat, when the deal has been played)."""
    rules = deal.rules
    masks = [mask_of(h) for h in (deal.hands if hands is None else hands)]
    pos = opening_position(rules, deal.dealer, masks, deal.trump)
    goal = contract_goal(rules, deal.bidder, deal.bid)
    return int(solve_outcome(pos, goal))


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


# -- an arena run's contracts, solved beside the play ------------------------------------
@dataclass
class PlayedContract:
    side: str  # "A" or "B": whose bot held the contract
    solved: int  # +1, 0, -1 by the solution
    played: int  # +1 made, 0 cancelled, -1 failed at the table
    stake: int


@dataclass
class PlayedBoard:
    deal: int
    played: float  # A − B as the arena scored it, game points averaged over the two games
    solved: float  # the same with each contract scored by its solution
    contracts: list[PlayedContract] = field(default_factory=list)


def read_run(folder: Path) -> tuple[dict[str, object], list[PlayedBoard]]:
    """An arena run's description and its boards, each contract solved.

    Raises ``FolderError`` with a one-line reason when the folder is not a run."""
    try:
        ident = json.loads((folder / "run.json").read_text())
        from_json(ident["rules"])  # rules this program knows
        a, b = str(ident["a"]), str(ident["b"])
    except (OSError, ValueError, KeyError, TypeError, RulesError) as e:
        raise FolderError(f"{folder} is not an arena run (run.json: {e})") from None
    boards = read_boards(folder / "boards.jsonl")
    if not boards:
        raise FolderError(f"{folder} holds no finished board")
    out = []
    for board in boards:
        pb = PlayedBoard(board.deal, board.a_minus_b(), 0.0)
        total = 0
        for g in board.games:
            side = "A-NS" if g.a_team == 0 else "A-EW"
            path = folder / "games" / f"deal{board.deal:05d}-{side}.json"
            try:
                record = json.loads(path.read_text())
                match, fault = replay_record(record)
                hands = parse_hands(record["deals"][0]["hands"], 0)
            except (OSError, ValueError, KeyError, IndexError, TypeError, RecordError) as e:
                raise FolderError(f"{path}: not a game record of the run ({e})") from None
            deal = match.deals[0] if match.deals else None
            if fault is not None or deal is None or deal.phase != OVER:
                continue  # forfeited or unfinished: no contract to solve (the arena's
                # score of it stays in ``played``)
            if deal.bidder < 0 or deal.trump is None or deal.trump < 0 or deal.single >= 0:
                continue  # redealt, or a single hand: the solution here is a contract's
            holder = "A" if deal.bidder & 1 == g.a_team else "B"
            stake = contract_stake(deal.rules, deal.bid, MULTIPLIER[deal.doubling], False)
            solved = solved_result(deal, hands)
            played = {"made": 1, "failed": -1}.get(g.result, 0)
            pb.contracts.append(PlayedContract(holder, solved, played, stake))
            total += solved * stake if holder == "A" else -solved * stake
        pb.solved = total / 2
        out.append(pb)
    return {"a": a, "b": b, "rules": ident["rules"], "seed": ident.get("seed")}, out


def _interval(xs: list[float]) -> str:
    mean = statistics.fmean(xs)
    half = Z95 * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else math.inf
    return f"{mean:+.3f}  (95% CI {mean - half:+.3f} .. {mean + half:+.3f})"


def report_run(folder: Path, ident: dict[str, object], boards: list[PlayedBoard]) -> str:
    a, b = ident["a"], ident["b"]
    lines = [
        f"{a} (A) vs {b} (B), {len(boards)} duplicate deals of {folder}, "
        "each contract also scored by its solution",
        f"  as played:           A minus B {_interval([x.played for x in boards])}",
        f"  by the solution:     A minus B {_interval([x.solved for x in boards])}"
        "  (the auction's contracts)",
        f"  played minus solved: {_interval([x.played - x.solved for x in boards])}"
        "  (the play: declaring and defending)",
    ]
    for label, name in (("A", a), ("B", b)):
        held = [c for x in boards for c in x.contracts if c.side == label]
        makes = [c for c in held if c.solved > 0]
        fails = [c for c in held if c.solved < 0]

        def share(part: list[PlayedContract], of: list[PlayedContract]) -> str:
            return f"{100 * len(part) / len(of):.1f}%" if of else "-"

        made_of_makes = share([c for c in makes if c.played > 0], makes)
        made_of_fails = share([c for c in fails if c.played > 0], fails)
        lines.append(
            f"  {label} {name}: held {len(held)} contracts; the solution makes "
            f"{share(makes, held)}; made at the table {made_of_makes} of those and "
            f"{made_of_fails} of the others"
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
        help="play nothing: solve the contracts of the arena run kept in DIR (arena --out)",
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
        try:
            ident, played = read_run(args.run)
        except FolderError as e:
            p.error(str(e))
        print(report_run(args.run, ident, played))
        return 0
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
