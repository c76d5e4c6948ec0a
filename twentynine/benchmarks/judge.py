"""``twentynine bench judge --run DIR``: the contract judge's value of a bid, checked.

The expert values a bid as the mean result, over its sampled worlds, of the
suit that does best over those same worlds (``bots/contract.py``). Picking the
best of several noisy means flatters the winner: part of its lead is the luck
of those worlds. This measures by how much, on the call decisions of a kept
arena run (``arena ... --out DIR``), every seat's, both tables'.

At each call where the seat may bid or pass, the judge deals ``--worlds``
worlds as the expert does (weighed by the calls so far) and values the
lowest bid allowed two ways: with the best suit over all the worlds
(``best``), and with the suit the other half of the worlds chose for each
world (``held out``, ``ContractJudge.held_out_suits``). A second judge deals
``--fresh`` other worlds, alike in every other way, and values the suit the
first judge would name there: an unbiased value of that choice. Printed per
kind of decision (who holds the standing bid; how many suits were solved):
the decisions, and each value's mean error against the fresh one, with a 95%
interval. A mean error of zero is an honest value; the margin a bid must beat
passing by pays for any error left.

Only the seat's observation goes into the judges, as in play; no card the seat
cannot see.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
from dataclasses import dataclass
from pathlib import Path

from ..bots.bidding import default_model
from ..bots.contract import ContractJudge, standing_bid
from ..game.actions import BID, PASS
from ..game.dealing import derive_seed
from ..game.engine import AUCTION, Deal
from ..game.observation import Observation, observe_deal
from ..game.record import replay_record
from ..services.arena import run_jobs
from ..services.arena_folder import FolderError, read_run
from .played import Z95, kept_game
from .positions import games_of

KINDS = (
    "nobody has bid",
    "an opponent holds the only bid",
    "an opponent holds, after two or more",
    "the partner holds",
)


@dataclass(frozen=True)
class Valued:
    """One call decision: its kind, the suits solved, and the bid's three values."""

    game: str
    step: int
    kind: str
    suits: int
    best: float  # the best suit's mean over the judge's worlds
    held_out: float  # the held-out suits' mean over the same worlds
    fresh: float  # the best suit's mean over the fresh judge's worlds


def kind_of(obs: Observation) -> str:
    holder, _ = standing_bid(obs)
    assert obs.seat is not None
    if holder is None:
        return KINDS[0]
    if holder & 1 == obs.seat & 1:
        return KINDS[3]
    bids = sum(1 for _, amount in obs.auction if amount)
    return KINDS[1] if bids == 1 else KINDS[2]


def value_call(
    obs: Observation, worlds: int, fresh: int, seed: int
) -> tuple[int, float, float, float]:
    """The suits solved, and the lowest bid's value three ways (``Valued``)."""
    assert obs.seat is not None
    lowest = min(a.value or 0 for a in obs.legal if a.kind == BID)
    model = default_model()
    judge = ContractJudge(obs, model, random.Random(seed), worlds)
    ranked = judge.ranked_suits(lowest)
    value, suit = ranked[0]
    trump_of = judge.held_out_suits(lowest)
    held = judge.expected(obs.seat, lowest, trump_of)
    other = ContractJudge(obs, model, random.Random(derive_seed(seed, 1)), fresh)
    truth = other.expected(obs.seat, lowest, lambda _i: suit)
    return len(ranked), value, held, truth


def value_game(item: tuple[Path, int, int, int, int]) -> list[Valued]:
    """Every call decision of one kept game, valued."""
    path, number, worlds, fresh, seed = item
    match = kept_game(path, lambda obj: replay_record(obj)[0])  # as far as it went
    if not match.deals:
        return []
    played = match.deals[0]
    replay = Deal(played.rules, played.dealer, played.hands)
    out: list[Valued] = []
    for step, action in enumerate(played.log):
        if replay.phase != AUCTION:
            break
        seat = replay.to_act
        obs = observe_deal(replay, seat)
        kinds = {a.kind for a in obs.legal}
        if BID in kinds and PASS in kinds:
            sub = derive_seed(seed, number, step)
            suits, best, held, truth = value_call(obs, worlds, fresh, sub)
            out.append(Valued(path.name, step, kind_of(obs), suits, best, held, truth))
        replay.apply(action)
    return out


def judge_run(
    folder: Path,
    games: int | None = None,
    worlds: int = 40,
    fresh: int = 120,
    seed: int = 1,
    jobs: int = 1,
    skip: int = 0,
) -> list[Valued]:
    """Each call decision of the run's kept games (``positions.games_of``), valued."""
    kept = read_run(folder)
    work = [
        (path, number, worlds, fresh, seed)
        for number, (path, _team) in enumerate(games_of(kept, games, skip), start=skip)
    ]
    found: list[Valued] = []
    for valued in run_jobs(value_game, work, jobs):
        found.extend(valued)
    return sorted(found, key=lambda v: (v.game, v.step))


def _error(values: list[float]) -> str:
    mean = statistics.fmean(values)
    if len(values) < 2:
        return f"{mean:+.3f}"
    half = Z95 * statistics.stdev(values) / math.sqrt(len(values))
    return f"{mean:+.3f} ({mean - half:+.3f} .. {mean + half:+.3f})"


def report(folder: Path, valued: list[Valued], worlds: int, fresh: int) -> str:
    lines = [
        f"{folder}: {len(valued)} call decisions; the lowest bid valued over {worlds} worlds, "
        f"checked against {fresh} fresh ones",
        "  decisions | best suit − fresh (95% CI) | held out − fresh (95% CI) | kind",
    ]
    groups: list[tuple[str, list[Valued]]] = [("all", valued)]
    groups += [(k, [v for v in valued if v.kind == k]) for k in KINDS]
    for n, label in ((1, "1 suit solved"), (2, "2 suits solved"), (3, "3 or 4 suits solved")):
        groups.append((label, [v for v in valued if min(v.suits, 3) == n]))
    for label, rows in groups:
        if not rows:
            continue
        best = _error([v.best - v.fresh for v in rows])
        held = _error([v.held_out - v.fresh for v in rows])
        lines.append(f"  {len(rows):9d} | {best} | {held} | {label}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="twentynine bench judge", description=__doc__)
    p.add_argument("--run", type=Path, required=True, metavar="DIR", help="an arena run (--out)")
    p.add_argument("--games", type=int, help="only N of the run's games (the first ones)")
    p.add_argument("--skip", type=int, default=0, help="leave out the run's first K games")
    p.add_argument("--worlds", type=int, default=40, help="the judge's worlds (the expert's: 40)")
    p.add_argument("--fresh", type=int, default=120, help="the checking judge's worlds")
    p.add_argument("--seed", type=int, default=1, help="the judges' seed")
    p.add_argument("--jobs", type=int, default=1)
    args = p.parse_args(argv)
    if args.games is not None and args.games < 1:
        p.error("--games must be at least 1")
    if args.skip < 0:
        p.error("--skip must be 0 or more")
    if args.worlds < 2 or args.fresh < 1:
        p.error("--worlds must be at least 2 and --fresh at least 1")
    try:
        valued = judge_run(
            args.run, args.games, args.worlds, args.fresh, args.seed, args.jobs, args.skip
        )
    except FolderError as e:
        p.error(str(e))
    print(report(args.run, valued, args.worlds, args.fresh))
    return 0
