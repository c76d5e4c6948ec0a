"""``twentynine bench contracts --run DIR``: an arena run set against the solution.

Nothing is played. Each contract the run kept (``twentynine arena ... --out
DIR``) is scored by the exact solution of its whole deal, all hands known,
from the first lead, as ``bench contracts`` scores the contracts it bids:
made +1, cancelled 0, failed −1, times the stake, for the holding side. Set
beside the run's own figure, that splits it in two, each with its 95%
interval: what the auction's contracts were worth by the solution, and the
rest, played minus solved, which is what declaring and defending (and any
forfeit) made of them. Per side it prints how often the solution makes the
contracts it held and how often they were made at the table when it did
and when it did not.

With ``--moves`` every card (and every call for the trumps under ``reveal:
ask``) is also set against the solution of the position it was played in:
a *give-away* is a move after which the contract's solved result is worse
for the mover's side than before it (made to cancelled or failed for the
declaring side, failed to cancelled or made for the defence). They are
counted per side and role, for leads in the first four tricks, leads
after, and cards played to a trick, each over its *chances*: the moves made
where the mover's side had something to lose. A solved give-away is not
always a mistake (the mover could not see the hands the solution saw), but
two bots compared on the same deals lose their chances at different rates.
"""

from __future__ import annotations

import json
import math
import statistics
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from ..bots.contract import contract_goal, opening_position
from ..game.actions import PLAY, REVEAL
from ..game.cards import mask_of
from ..game.engine import MULTIPLIER, OVER, PLAYING, Deal, contract_stake
from ..game.record import RecordError, played_contract
from ..game.rules import RulesError, from_json
from ..services.analysis.allhands import contract_goal as goal_in_play
from ..services.analysis.allhands import play_position
from ..services.arena_folder import FolderError, read_run, record_name
from ..solver import outcome as solve_outcome
from .odds import OddsCount

Z95 = 1.959963984540054

T = TypeVar("T")

# the three kinds of move counted with ``--moves``
EARLY_LEAD, LATE_LEAD, FOLLOW = "leads, tricks 1-4", "leads, tricks 5-8", "cards to a trick"
KINDS = (EARLY_LEAD, LATE_LEAD, FOLLOW)
RESULTS = {"made": 1, "failed": -1}  # anything else played out (cancelled) is 0


@dataclass
class PlayedContract:
    side: str  # "A" or "B": whose bot held the contract
    solved: int  # +1, 0, -1 by the solution
    played: int  # +1 made, 0 cancelled, -1 failed at the table
    stake: int
    bid: int = 0
    role: str = ""  # how the holder came to it (``call_role``)


@dataclass
class PlayedBoard:
    deal: int
    played: float  # A − B as the arena scored it, game points averaged over the two games
    solved: float  # the same with each contract scored by its solution
    contracts: list[PlayedContract] = field(default_factory=list)


@dataclass
class Giveaways:
    """Per (side, role, kind): the moves with something to lose, and those that lost it."""

    chances: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    lost: Counter[tuple[str, str, str]] = field(default_factory=Counter)


# How the holder came to its contract, by its last call (``call_role``).
OPENED, RAISED, MATCHED, FORCED = "opened", "raised", "matched", "forced"
ROLES = (OPENED, RAISED, MATCHED, FORCED)


def call_role(deal: Deal) -> str:
    """How the contract's holder came to it: ``opened`` (its opening bid stood),
    ``raised`` (it bid over another seat's bid: an overcall in the open auction, a
    challenge nobody matched in the duel), ``matched`` (a duel defender that matched
    a challenge) or ``forced`` (nobody bid: the ``all_pass`` rule gave it)."""
    bids = [(seat, amount) for seat, amount in deal.auction if amount]
    if deal.forced or not bids:
        return FORCED
    last = max(i for i, (seat, amount) in enumerate(bids) if seat == deal.bidder)
    if last == 0:
        return OPENED
    if bids[last - 1][1] == bids[last][1]:
        return MATCHED
    return RAISED


def solved_result(deal: Deal) -> int:
    """The contract's outcome with perfect play, all hands known, from the first lead
    (``deal.hands`` are the cards as dealt, however far the deal has been played)."""
    rules = deal.rules
    masks = [mask_of(h) for h in deal.hands]
    pos = opening_position(rules, deal.dealer, masks, deal.trump)
    goal = contract_goal(rules, deal.bidder, deal.bid)
    return int(solve_outcome(pos, goal))


def _solved_now(deal: Deal) -> int | None:
    """The contract's solved result for the bidders as the deal stands in the play, all
    hands known (None outside the play: a pair to declare, say)."""
    if deal.phase == OVER:
        return RESULTS.get(deal.result, 0)
    if deal.phase != PLAYING:
        return None
    return int(solve_outcome(play_position(deal, False), goal_in_play(deal)))


def count_giveaways(deal: Deal, a_team: int, into: Giveaways) -> None:
    """Replay a finished ``deal`` from its cards as dealt and count each play or call
    for the trumps against the solution of the position it was made in."""
    replay = Deal(deal.rules, deal.dealer, deal.hands)
    for action in deal.log:
        counted = action.kind in (PLAY, REVEAL) and replay.phase == PLAYING
        before = _solved_now(replay) if counted else None
        kind = ""
        if before is not None:
            if replay.trick_cards:
                kind = FOLLOW
            else:
                kind = EARLY_LEAD if len(replay.tricks) < 4 else LATE_LEAD
        replay.apply(action)
        if before is None:
            continue
        after = _solved_now(replay)
        if after is None:
            continue  # a trick that opens the pair window: judged at the next card
        declaring = action.seat & 1 == replay.bidder & 1
        sign = 1 if declaring else -1
        if sign * before == -1:
            continue  # nothing left to lose
        key = (
            "A" if action.seat & 1 == a_team else "B",
            "declaring" if declaring else "defending",
            kind,
        )
        into.chances[key] += 1
        if sign * (after - before) < 0:
            into.lost[key] += 1


def kept_game(path: Path, read: Callable[[dict[str, Any]], T]) -> T:
    """``read`` of the kept game record at ``path``.

    Raises ``FolderError`` naming the file when it is not a game record."""
    try:
        return read(json.loads(path.read_text()))
    except (OSError, ValueError, KeyError, IndexError, TypeError, RecordError) as e:
        raise FolderError(f"{path}: not a game record of the run ({e})") from None


def contract_deal(path: Path) -> Deal | None:
    """The deal a kept game record played, if a contract was played to its end there:
    None for a forfeited or unfinished game, a redeal and a single hand.

    Raises ``FolderError`` naming the file when it is not a game record."""
    return kept_game(path, played_contract)


def solved_run(
    folder: Path, moves: bool = False, odds: OddsCount | None = None
) -> tuple[dict[str, object], list[PlayedBoard], Giveaways | None]:
    """An arena run's description and its boards, each contract solved (and with
    ``moves``, each move counted by ``count_giveaways``; with ``odds``, each trick's
    start counted into it by solved margin and result).

    Raises ``FolderError`` with a one-line reason when the folder is not a run."""
    kept = read_run(folder)  # the arena's own reading of its folder
    try:
        from_json(kept.identity["rules"])  # rules this program knows
    except (ValueError, KeyError, TypeError, RulesError) as e:
        reason = f"{folder / 'run.json'} holds rules this version cannot read: {e}"
        raise FolderError(reason) from None
    boards = kept.boards
    if not boards:
        raise FolderError(f"{folder} holds no finished board")
    giveaways = Giveaways() if moves else None
    out = []
    for board in boards:
        pb = PlayedBoard(board.deal, board.a_minus_b(), 0.0)
        total = 0
        for g in board.games:
            deal = contract_deal(folder / "games" / record_name(board.deal, g.a_team))
            if deal is None:
                continue  # no contract played to its end: nothing to solve (the arena's
                # score of a forfeit stays in ``played``)
            holder = "A" if deal.bidder & 1 == g.a_team else "B"
            stake = contract_stake(deal.rules, deal.bid, MULTIPLIER[deal.doubling], False)
            solved = solved_result(deal)
            played = RESULTS.get(g.result, 0)
            role = call_role(deal)
            pb.contracts.append(PlayedContract(holder, solved, played, stake, deal.bid, role))
            total += solved * stake if holder == "A" else -solved * stake
            if giveaways is not None:
                count_giveaways(deal, g.a_team, giveaways)
            if odds is not None:
                odds.add(deal)
        pb.solved = total / 2
        out.append(pb)
    ident = kept.identity
    bots = {"a": str(ident["a"]), "b": str(ident["b"])}
    return {**bots, "rules": ident["rules"], "seed": ident["seed"]}, out, giveaways


def _interval(xs: list[float]) -> str:
    mean = statistics.fmean(xs)
    half = Z95 * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else math.inf
    return f"{mean:+.3f}  (95% CI {mean - half:+.3f} .. {mean + half:+.3f})"


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def report_run(
    folder: Path,
    ident: dict[str, object],
    boards: list[PlayedBoard],
    giveaways: Giveaways | None = None,
    roles: bool = False,
) -> str:
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
        made_of_makes = _share(sum(1 for c in makes if c.played > 0), len(makes))
        made_of_fails = _share(sum(1 for c in fails if c.played > 0), len(fails))
        lines.append(
            f"  {label} {name}: held {len(held)} contracts; the solution makes "
            f"{_share(len(makes), len(held))}; made at the table {made_of_makes} of those and "
            f"{made_of_fails} of the others"
        )
    if roles:
        lines.extend(report_roles(boards))
    if giveaways is not None:
        lines.append("  give-aways: moves that worsened the solved result for the mover's side,")
        lines.append("  of the moves with something to lose")
        lines.append("    " + " " * 22 + "".join(f"{k:>22}" for k in KINDS))
        for label in ("A", "B"):
            for role in ("declaring", "defending"):
                cells = []
                for kind in KINDS:
                    lost = giveaways.lost[(label, role, kind)]
                    chances = giveaways.chances[(label, role, kind)]
                    cells.append(f"{_share(lost, chances)} of {chances}")
                lines.append(f"    {label + ' ' + role:<22}" + "".join(f"{c:>22}" for c in cells))
    return "\n".join(lines)


def report_roles(boards: list[PlayedBoard]) -> list[str]:
    """Per side, how it came to hold its contracts (``call_role``) and at what bid: how
    many, how many the solution makes, how many it made at the table, and the game
    points they brought its side (the holder's results times their stakes)."""
    lines = [
        "  how each side came to hold its contracts (its last call), by bid:",
        f"    {'side':<5}{'role':<9}{'bid':>4}{'held':>7}{'solution makes':>16}"
        f"{'made':>8}{'game points':>13}",
    ]
    for label in ("A", "B"):
        held = [c for x in boards for c in x.contracts if c.side == label]
        for role in ROLES:
            for bid in sorted({c.bid for c in held if c.role == role}):
                group = [c for c in held if c.role == role and c.bid == bid]
                makes = sum(1 for c in group if c.solved > 0)
                made = sum(1 for c in group if c.played > 0)
                points = sum(c.played * c.stake for c in group)
                lines.append(
                    f"    {label:<5}{role:<9}{bid:>4}{len(group):>7}"
                    f"{_share(makes, len(group)):>16}{_share(made, len(group)):>8}{points:>+13d}"
                )
    return lines


__all__ = [
    "ROLES",
    "Giveaways",
    "PlayedBoard",
    "PlayedContract",
    "call_role",
    "contract_deal",
    "count_giveaways",
    "kept_game",
    "report_roles",
    "report_run",
    "solved_run",
]
