"""Duplicate matches between two bots.

Each deal is played twice with the same cards in the same seats: once with
bot A on North-South, once with A on East-West. Whatever luck the cards
carry is the same for both bots, so the difference in game points measures
skill. Deals run in parallel worker processes with ``jobs`` > 1.
"""

from __future__ import annotations

import math
import os
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from ..bots import make_bot
from ..bots.base import Bot
from ..game.dealing import deal_hands, derive_seed
from ..game.engine import MULTIPLIER, OVER, Deal
from ..game.match import Match
from ..game.observation import observe_deal
from ..game.rules import Rules
from .protocols.fault import BotFault

W = TypeVar("W")
R = TypeVar("R")
Z95 = 1.959963984540054
ELO_SCALE = 400.0


@dataclass
class GameResult:
    """One of the two games of a duplicate deal."""

    deal: int
    a_team: int  # the team bot A sat on
    record: dict[str, Any]
    delta: tuple[int, int]
    bidder: int | None
    bid: int | None
    points: tuple[int, int]
    result: str
    times: dict[str, list[float]]  # bot label -> decision seconds
    fault: dict[str, Any] | None = None  # the BotFault that forfeited this game, if any


@dataclass
class BoardResult:
    deal: int
    games: list[GameResult]

    def a_minus_b(self) -> float:
        """Game points of A minus those of B, averaged over the two games."""
        total = 0
        for g in self.games:
            total += g.delta[g.a_team] - g.delta[1 - g.a_team]
        return total / 2


BotFactory = Callable[[str, int], Bot]


FORFEIT = "forfeit"


def is_url(spec: str) -> bool:
    """A bot spec naming an external contest-protocol bot rather than one of our levels."""
    return spec.startswith(("http://", "https://"))


def default_factory(spec: str, seed: int) -> Bot:
    if is_url(spec):
        from .protocols.bhoos.adapter import ProtocolBot

        return ProtocolBot(spec, seed=seed)
    return make_bot(spec, seed=seed)


def play_game(
    rules: Rules,
    dealer: int,
    hands: list[list[int]],
    bots: list[Bot],
    labels: list[str],
) -> tuple[Deal, dict[str, list[float]]]:
    """Play one deal with the given bots at the four seats (a ``BotFault`` propagates)."""
    deal, times, fault = play_until_fault(rules, dealer, hands, bots, labels)
    if fault is not None:
        raise fault
    return deal, times


def play_until_fault(
    rules: Rules,
    dealer: int,
    hands: list[list[int]],
    bots: list[Bot],
    labels: list[str],
) -> tuple[Deal, dict[str, list[float]], BotFault | None]:
    """Play one deal; stop at the first ``BotFault`` and return it with the unfinished deal."""
    deal = Deal(rules, dealer, hands)
    times: dict[str, list[float]] = {label: [] for label in set(labels)}
    while deal.phase != OVER:
        seat = deal.to_act
        obs = observe_deal(deal, seat)
        t = time.perf_counter()
        try:
            action = bots[seat].act(obs)
        except BotFault as fault:
            if fault.seat is None:
                fault.seat = seat
            return deal, times, fault
        times[labels[seat]].append(time.perf_counter() - t)
        deal.apply(action)
    return deal, times, None


def forfeit_delta(deal: Deal, team: int) -> tuple[int, int]:
    """The score of a game forfeited by ``team``: that team loses the stake, as if it had
    bid and failed (stake 1; 2 once the bid reaches ``auto_double_from``; times the
    doubling multiplier as it stands), whatever the cards would have said; the other
    team's score does not change, as with any contract."""
    rules = deal.rules
    stake = 1
    if rules.auto_double_from is not None and deal.bid >= rules.auto_double_from:
        stake = 2
    stake *= MULTIPLIER[deal.doubling]
    delta = [0, 0]
    delta[team] = -stake
    return delta[0], delta[1]


def play_board(
    rules: Rules, a: str, b: str, deal_no: int, seed: int, factory: BotFactory = default_factory
) -> BoardResult:
    dealer = deal_no % 4
    hands = deal_hands(derive_seed(seed, deal_no), dealer, rules.clockwise)
    games = []
    for a_team in (0, 1):
        labels = ["A" if s % 2 == a_team else "B" for s in range(4)]
        bots = [
            factory(a if labels[s] == "A" else b, derive_seed(seed, deal_no, s)) for s in range(4)
        ]
        deal, times, fault = play_until_fault(rules, dealer, hands, bots, labels)
        match = Match(rules)
        match.first_dealer = dealer
        match.deals.append(deal)
        delta = (deal.delta[0], deal.delta[1])
        result = deal.result
        report = None
        if fault is not None:
            assert fault.seat is not None
            delta = forfeit_delta(deal, fault.seat & 1)
            result = FORFEIT
            report = {"label": labels[fault.seat], "team": fault.seat & 1, **fault.to_json()}
        games.append(
            GameResult(
                deal=deal_no,
                a_team=a_team,
                record=match.to_record(),
                delta=delta,
                bidder=deal.bidder if deal.bidder >= 0 else None,
                bid=deal.bid if deal.bidder >= 0 else None,
                points=(deal.points[0], deal.points[1]),
                result=result,
                times=times,
                fault=report,
            )
        )
    return BoardResult(deal_no, games)


@dataclass
class Summary:
    a: str
    b: str
    deals: int
    mean: float
    ci95: tuple[float, float]
    elo: float | None
    elo_ci95: tuple[float | None, float | None]
    make_rate: dict[str, float | None]
    defend_rate: dict[str, float | None]
    bid_margin: dict[str, float | None]
    bid_abs_error: dict[str, float | None]
    contracts: dict[str, int]
    decision_ms: dict[str, dict[str, float]]
    running: list[float] = field(default_factory=list)
    # Games forfeited by a faulty bot (late, illegal, unreachable): per label, and each fault.
    forfeits: dict[str, int] = field(default_factory=lambda: {"A": 0, "B": 0})
    faults: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        d = self.__dict__.copy()
        d.pop("running")
        return d


def _elo(score: float) -> float | None:
    if score <= 0 or score >= 1:
        return None
    return -ELO_SCALE * math.log10(1 / score - 1)


def decision_ms(xs: list[float]) -> dict[str, float]:
    """Median and 95th percentile of decision times given in seconds, in milliseconds."""
    if not xs:
        return {"median": 0.0, "p95": 0.0, "decisions": 0}
    s = sorted(xs)
    return {
        "median": statistics.median(s) * 1000,
        "p95": s[min(len(s) - 1, int(0.95 * len(s)))] * 1000,
        "decisions": len(s),
    }


def mean_interval(values: Sequence[float]) -> tuple[float, tuple[float, float]]:
    """The mean of per-deal figures and its 95% interval (normal, from their spread;
    unbounded with fewer than two)."""
    n = len(values)
    mean = statistics.fmean(values) if values else 0.0
    half = Z95 * statistics.stdev(values) / math.sqrt(n) if n > 1 else float("inf")
    return mean, (mean - half, mean + half)


def summarise(a: str, b: str, boards: list[BoardResult]) -> Summary:
    boards = sorted(boards, key=lambda x: x.deal)
    diffs = [x.a_minus_b() for x in boards]
    n = len(diffs)
    mean, ci95 = mean_interval(diffs)
    wins = sum(1 for d in diffs if d > 0) + 0.5 * sum(1 for d in diffs if d == 0)
    score = wins / n if n else 0.5
    se = math.sqrt(score * (1 - score) / n) if n else 0.0
    made: dict[str, list[bool]] = {"A": [], "B": []}
    defended: dict[str, list[bool]] = {"A": [], "B": []}
    margin: dict[str, list[int]] = {"A": [], "B": []}
    times: dict[str, list[float]] = {"A": [], "B": []}
    forfeits = {"A": 0, "B": 0}
    faults: list[dict[str, Any]] = []
    for board in boards:
        for g in board.games:
            for label, secs in g.times.items():
                times[label].extend(secs)
            if g.fault is not None:
                forfeits[g.fault["label"]] += 1
                faults.append({"deal": g.deal, "a_team": g.a_team, **g.fault})
            if g.bidder is None or g.bid is None or g.result not in ("made", "failed"):
                continue
            bidder_label = "A" if g.bidder % 2 == g.a_team else "B"
            other = "B" if bidder_label == "A" else "A"
            made[bidder_label].append(g.result == "made")
            defended[other].append(g.result == "failed")
            margin[bidder_label].append(g.points[g.bidder % 2] - g.bid)

    def rate(xs: list[bool]) -> float | None:
        return sum(xs) / len(xs) if xs else None

    running, total = [], 0.0
    for d in diffs:
        total += d
        running.append(total)
    return Summary(
        a=a,
        b=b,
        deals=n,
        mean=mean,
        ci95=ci95,
        elo=_elo(score),
        elo_ci95=(_elo(score - Z95 * se), _elo(score + Z95 * se)),
        make_rate={k: rate(v) for k, v in made.items()},
        defend_rate={k: rate(v) for k, v in defended.items()},
        bid_margin={k: statistics.fmean(v) if v else None for k, v in margin.items()},
        bid_abs_error={
            k: statistics.fmean(abs(x) for x in v) if v else None for k, v in margin.items()
        },
        contracts={k: len(v) for k, v in made.items()},
        decision_ms={k: decision_ms(v) for k, v in times.items()},
        running=running,
        forfeits=forfeits,
        faults=faults,
    )


@dataclass(frozen=True)
class Paired:
    """Two bots A1 and A2, each measured against one B on the same deals, compared
    deal by deal: the game points per deal of (A1 − B) − (A2 − B)."""

    deals: int
    mean: float
    ci95: tuple[float, float]
    first: float  # A1 − B per deal over these deals
    second: float  # A2 − B per deal over these deals
    differ: int  # deals whose result differs between the two runs


def compare_paired(pairs: Sequence[tuple[BoardResult, BoardResult]]) -> Paired:
    """The difference between the runs of two bots against one opponent on the same
    deals, with a 95% interval from the spread of the deals' differences."""
    firsts = [one.a_minus_b() for one, _ in pairs]
    seconds = [other.a_minus_b() for _, other in pairs]
    diffs = [x - y for x, y in zip(firsts, seconds, strict=True)]
    mean, ci95 = mean_interval(diffs)
    return Paired(
        deals=len(diffs),
        mean=mean,
        ci95=ci95,
        first=statistics.fmean(firsts) if firsts else 0.0,
        second=statistics.fmean(seconds) if seconds else 0.0,
        differ=sum(1 for d in diffs if d != 0),
    )


def _board_job(args: tuple[Rules, str, str, int, int]) -> BoardResult:
    rules, a, b, deal_no, seed = args
    return play_board(rules, a, b, deal_no, seed)


def run_jobs(
    job: Callable[[W], R], work: list[W], jobs: int = 1, chunksize: int | None = None
) -> Iterator[R]:
    """``job`` of each work item, yielded as they finish: in order in this process
    with ``jobs`` <= 1, else in any order from a pool of ``jobs`` worker processes.

    A worker hands back its items ``chunksize`` at a time (by default a twentieth of
    its share, which suits many short items); ``chunksize=1`` yields each item as it
    finishes, for callers that keep each one (a stopped run loses only those in play)."""
    if jobs <= 1:
        for w in work:
            yield job(w)
        return
    import multiprocessing as mp

    ctx = mp.get_context("spawn" if os.name == "nt" else "fork")
    chunk = chunksize if chunksize is not None else max(1, len(work) // (jobs * 20))
    with ctx.Pool(jobs) as pool:
        yield from pool.imap_unordered(job, work, chunksize=chunk)


def deal_numbers(deals: int | Sequence[int]) -> list[int]:
    """The deals to play: the first ``deals`` ones, or exactly those listed."""
    return list(range(deals)) if isinstance(deals, int) else list(deals)


def run_boards(
    rules: Rules,
    a: str,
    b: str,
    deals: int | Sequence[int],
    seed: int,
    jobs: int = 1,
    chunksize: int | None = None,
) -> Iterator[BoardResult]:
    """Yield board results as they finish (in any order when ``jobs`` > 1). ``deals``
    is how many (numbers 0 to deals - 1) or which deal numbers to play; ``chunksize``
    as in ``run_jobs`` (1: each board as soon as it is played)."""
    work = [(rules, a, b, i, seed) for i in deal_numbers(deals)]
    return run_jobs(_board_job, work, jobs, chunksize)


def plot(summary: Summary, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4), dpi=110)
    ax.plot(range(1, len(summary.running) + 1), summary.running, color="#1f6f43")
    ax.axhline(0, color="#888", linewidth=0.8)
    ax.set_xlabel("deal")
    ax.set_ylabel(f"game points, {summary.a} minus {summary.b} (cumulative)")
    lo, hi = summary.ci95
    ax.set_title(
        f"{summary.a} vs {summary.b}: {summary.mean:+.3f}/deal (95% CI {lo:+.3f}..{hi:+.3f})"
    )
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def format_summary(s: Summary) -> str:
    def pct(x: float | None) -> str:
        return "-" if x is None else f"{100 * x:.1f}%"

    def num(x: float | None) -> str:
        return "-" if x is None else f"{x:+.2f}"

    lo, hi = s.ci95
    elo = "-" if s.elo is None else f"{s.elo:+.0f}"
    elo_lo, elo_hi = s.elo_ci95
    elo_ci = ""
    if elo_lo is not None and elo_hi is not None:
        elo_ci = f" (95% CI {elo_lo:+.0f}..{elo_hi:+.0f})"
    lines = [
        f"{s.a} (A) vs {s.b} (B), {s.deals} duplicate deals",
        f"  game points per deal, A minus B: {s.mean:+.3f}  (95% CI {lo:+.3f} .. {hi:+.3f})",
        f"  Elo estimate of A over B: {elo}{elo_ci}",
    ]
    for k, name in (("A", s.a), ("B", s.b)):
        t = s.decision_ms[k]
        lines.append(
            f"  {k} {name}: made {pct(s.make_rate[k])} of {s.contracts[k]} contracts as bidder, "
            f"beat {pct(s.defend_rate[k])} as defender, bid margin {num(s.bid_margin[k])} "
            f"(mean |error| {num(s.bid_abs_error[k]).lstrip('+')}), "
            f"decision median {t['median']:.2f} ms, p95 {t['p95']:.2f} ms"
        )
    for k, name in (("A", s.a), ("B", s.b)):
        if s.forfeits.get(k):
            first = next(f for f in s.faults if f["label"] == k)
            lines.append(
                f"  {k} {name}: forfeited {s.forfeits[k]} games by faults; first in deal "
                f"{first['deal']}, seat {first['seat']}: {first['message']}"
            )
    return "\n".join(lines)
