"""``twentynine bench positions --run DIR BOT [BOT ...]``: bots' cards on the same positions.

An arena compares two bots over whole deals, and each deal's score carries
the noise of everything else that happened in it. This puts several bots
in the very same places instead. From the games an arena run kept (``arena
... --out DIR``), it takes each position of the kind asked for (leads or
cards to a trick, declaring or defending, in a range of tricks) where the
side to move still held its result by the solution (all hands known: the
bidders' contract made, or the defence's beaten). Each bot is shown that
seat's observation, and nothing else, and its move is set against the
solution of every legal move there: a *give-away* is a move after which
the result is worse for the mover's side (``bench contracts --moves``
counts the same of the moves that were played, but leaves out a card that
completes a trick and opens the pair window; here every move is judged by
the solution of the position before it).

Printed: per bot, the give-aways out of the positions and its decision
times; per bot after the first, the difference in give-aways from the
first bot with a 95% interval, paired position by position, and how many
positions each of the two lost alone. Bots deciding on the same positions
differ only where their moves do, so this is several times sharper than an
arena for a change that touches the play. A solved give-away is not always
a mistake (the mover could not see the hands the solution saw), so the
counts compare bots; they do not grade one.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

from ..bots import make_bot, spec_error
from ..game.actions import PLAY, REVEAL, Action
from ..game.dealing import derive_seed
from ..game.engine import PLAYING, Deal
from ..game.observation import observe_deal
from ..services.analysis.allhands import contract_goal, play_position
from ..services.arena import run_jobs
from ..services.arena_folder import FolderError, KeptRun, read_run, record_name
from ..solver import Move, moves_outcome
from .played import Z95, contract_deal

ROLES = ("defending", "declaring", "both")
CARDS = ("leads", "follows", "all")


@dataclass(frozen=True)
class Choice:
    """What to look at: whose moves, which kind, in which tricks (1-based, inclusive)."""

    role: str = "defending"
    cards: str = "leads"
    first: int = 1
    last: int = 4

    def wants(self, deal: Deal, seat: int) -> bool:
        trick = len(deal.tricks) + 1
        if not self.first <= trick <= self.last:
            return False
        leading = not deal.trick_cards
        if self.cards != "all" and leading != (self.cards == "leads"):
            return False
        declaring = seat & 1 == deal.bidder & 1
        return self.role == "both" or declaring == (self.role == "declaring")


@dataclass
class Verdict:
    """One position: which bots gave the result away there, and their decision times."""

    game: str
    step: int
    mover: str  # "A" or "B": whose bot moved here in the run
    played_lost: bool  # whether the move played in the run gave the result away
    lost: list[bool]
    seconds: list[float]


def action_value(values: dict[Move, int], action: Action, declaring: bool) -> int:
    """The solved result (for the bidders) after ``action``: a card's own, a call for the
    reveal's the best of the cards the mover may then play."""
    if action.kind == REVEAL:
        after = [v for m, v in values.items() if m.reveal]
        return max(after) if declaring else min(after)
    assert action.kind == PLAY and action.value is not None
    return values[Move(action.value, False)]


def judge_game(item: tuple[Path, int, int, tuple[str, ...], Choice, int]) -> list[Verdict]:
    """Every wanted position of one kept game (bot A on team ``a_team``), each bot's move
    there judged."""
    path, a_team, number, bots, choice, seed = item
    deal = contract_deal(path)
    if deal is None:
        return []  # no contract played to its end
    replay = Deal(deal.rules, deal.dealer, deal.hands)
    out: list[Verdict] = []
    for step, played in enumerate(deal.log):
        seat = replay.to_act
        if (
            replay.phase == PLAYING
            and played.kind in (PLAY, REVEAL)
            and seat is not None
            and choice.wants(replay, seat)
        ):
            mover = "A" if seat & 1 == a_team else "B"
            sub = derive_seed(seed, number, step)
            out.extend(judge_position(replay, seat, path.name, step, mover, played, bots, sub))
        replay.apply(played)
    return out


def judge_position(
    deal: Deal,
    seat: int,
    name: str,
    step: int,
    mover: str,
    played: Action,
    bots: tuple[str, ...],
    seed: int,
) -> list[Verdict]:
    """Each bot's move at ``seat`` set against the solution, if the side had a result to
    lose there (else nothing). Every bot gets the same ``seed``."""
    raw = moves_outcome(play_position(deal, False), contract_goal(deal))
    values = {m: int(v) for m, v in raw.items()}
    declaring = seat & 1 == deal.bidder & 1
    sign = 1 if declaring else -1
    before = max(values.values()) if declaring else min(values.values())
    if sign * before == -1:
        return []  # nothing left to lose
    obs = observe_deal(deal, seat)
    played_lost = sign * (action_value(values, played, declaring) - before) < 0
    lost, seconds = [], []
    for spec in bots:
        bot = make_bot(spec, seed=seed)
        t = time.perf_counter()
        action = bot.act(obs)
        seconds.append(time.perf_counter() - t)
        lost.append(sign * (action_value(values, action, declaring) - before) < 0)
    return [Verdict(name, step, mover, played_lost, lost, seconds)]


def games_of(kept: KeptRun, limit: int | None, skip: int = 0) -> list[tuple[Path, int]]:
    """The kept games of a run's finished boards, in deal order: (record file, bot A's
    team); the first ``skip`` left out, then at most ``limit``."""
    out = [
        (kept.path / "games" / record_name(board.deal, g.a_team), g.a_team)
        for board in sorted(kept.boards, key=lambda b: b.deal)
        for g in board.games
    ]
    out = out[skip:]
    return out[:limit] if limit is not None else out


def judge(
    kept: KeptRun,
    bots: tuple[str, ...],
    choice: Choice,
    games: int | None = None,
    seed: int = 1,
    jobs: int = 1,
    skip: int = 0,
) -> list[Verdict]:
    """Each wanted position of the run's games (``games_of``), each bot's move judged."""
    work = [
        (path, a_team, number, bots, choice, seed)
        for number, (path, a_team) in enumerate(games_of(kept, games, skip), start=skip)
    ]
    found: list[Verdict] = []
    for verdicts in run_jobs(judge_game, work, jobs):
        found.extend(verdicts)
    return sorted(found, key=lambda v: (v.game, v.step))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def report(
    folder: Path,
    run_bots: tuple[str, str],
    bots: tuple[str, ...],
    choice: Choice,
    verdicts: list[Verdict],
) -> str:
    n = len(verdicts)
    what = {"leads": "leads", "follows": "cards to a trick", "all": "moves"}[choice.cards]
    whose = "" if choice.role == "both" else f"{choice.role} "
    lines = [
        f"{folder}: {n} {whose}{what} in tricks {choice.first}-{choice.last} where the side "
        "to move held its result by the solution"
    ]
    if not n:
        return lines[0]
    played = []
    for label, spec in zip("AB", run_bots, strict=True):
        mine = [v for v in verdicts if v.mover == label]
        lost = sum(v.played_lost for v in mine)
        share = f" ({100 * lost / len(mine):.1f}%)" if mine else ""
        played.append(f"{label} {spec} gave away {lost} of {len(mine)}{share}")
    lines.append("  as played in the run: " + "; ".join(played))
    for i, spec in enumerate(bots):
        lost = sum(v.lost[i] for v in verdicts)
        times = [v.seconds[i] for v in verdicts]
        line = (
            f"  {spec}: gave away {lost} ({100 * lost / n:.1f}%), decisions median "
            f"{statistics.median(times) * 1000:.0f} ms, p95 {percentile(times, 0.95) * 1000:.0f} ms"
        )
        if i:
            d = [int(v.lost[i]) - int(v.lost[0]) for v in verdicts]
            total = sum(d)
            half = Z95 * statistics.stdev(d) * math.sqrt(n) if n > 1 else math.inf
            alone = sum(1 for x in d if x > 0), sum(1 for x in d if x < 0)
            line += (
                f"; against {bots[0]}: {total:+d} (95% CI {total - half:+.0f} .. "
                f"{total + half:+.0f}), lost alone {alone[0]} / {alone[1]}"
            )
        lines.append(line)
    return "\n".join(lines)


def tricks_range(text: str) -> tuple[int, int]:
    try:
        first, _, last = text.partition("-")
        lo, hi = int(first), int(last or first)
    except ValueError:
        raise argparse.ArgumentTypeError(f"tricks as A-B or A, not {text!r}") from None
    if not 1 <= lo <= hi <= 8:
        raise argparse.ArgumentTypeError(f"tricks within 1-8, first to last, not {text!r}")
    return lo, hi


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="twentynine bench positions", description=__doc__)
    p.add_argument("bots", nargs="+", help="bot levels or variants; the first is the reference")
    p.add_argument("--run", type=Path, required=True, metavar="DIR", help="an arena run (--out)")
    p.add_argument("--role", choices=ROLES, default="defending", help="whose moves")
    p.add_argument("--cards", choices=CARDS, default="leads", help="which moves")
    p.add_argument("--tricks", type=tricks_range, default=(1, 4), help="e.g. 1-4 (the default)")
    p.add_argument("--games", type=int, help="only N of the run's games (the first ones)")
    p.add_argument("--skip", type=int, default=0, help="leave out the run's first K games")
    p.add_argument("--seed", type=int, default=1, help="the bots' seed")
    p.add_argument("--jobs", type=int, default=1)
    args = p.parse_args(argv)
    for spec in args.bots:
        error = spec_error(spec)
        if error is not None:
            p.error(error)
    if args.games is not None and args.games < 1:
        p.error("--games must be at least 1")
    if args.skip < 0:
        p.error("--skip must be 0 or more")
    choice = Choice(args.role, args.cards, *args.tricks)
    bots = tuple(args.bots)
    try:
        kept = read_run(args.run)
        verdicts = judge(kept, bots, choice, args.games, args.seed, args.jobs, args.skip)
    except FolderError as e:
        p.error(str(e))
    run_bots = (str(kept.identity["a"]), str(kept.identity["b"]))
    print(report(args.run, run_bots, bots, choice, verdicts))
    return 0
