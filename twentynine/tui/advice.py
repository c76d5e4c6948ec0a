"""The hint, the bid chances and the analysis of a finished deal, for the terminal.

The terminal game and its plain mode share these words: a hint is the
expert's choice for the seat's decision from its observation alone (I), the
bid chances the bidding table of its first four cards (T, in the auction), and
after a deal the analysis of the deal (A): its turning points, then what each
of your cards cost. The hint follows the web table's rule: practice only, so
one person at the table and no match that counts.
"""

from __future__ import annotations

from ..game.cards import card_symbol
from ..game.engine import OVER, Deal
from ..game.observation import Observation
from ..services.analysis import advice_for, analyse_deal, hint_for, hint_line
from ..services.analysis.hint import HintError, advice_lines
from ..services.analysis.table import turning_text
from .session import Table

NO_HINT_MATCH = "no hints in a match that counts: they are for single deals against bots"
NO_HINT_PEOPLE = "no hints with several people at the table"


def hint_refusal(table: Table) -> str | None:
    """Why this table gives no hint, or None when it does."""
    if len(table.humans) != 1:
        return NO_HINT_PEOPLE
    if table.rules.match_target is not None:
        return NO_HINT_MATCH
    return None


def hint_text(obs: Observation) -> str:
    """The hint in one line, or why there is none."""
    try:
        return "Hint: " + hint_line(hint_for(obs))
    except HintError as e:
        return str(e)


def advice_text(obs: Observation) -> str:
    """The bid chances of the seat's four cards, as lines."""
    try:
        return "\n".join(
            ["Chance to make each bid with your four cards:", *advice_lines(advice_for(obs))]
        )
    except HintError as e:
        return str(e)


def deal_report(deal: Deal, seat: int) -> str:
    """A finished deal's turning points and what each of ``seat``'s cards cost."""
    if deal.phase != OVER:
        return "the deal is not over yet: it can be analysed once its last card is played"
    result = analyse_deal(deal)
    lines = ["Turning points:"]
    turning = result.turning_points
    lines += [f"  {turning_text(a)}" for a in turning] or ["  none: no decision changed the result"]
    lines.append("")
    lines.append("Your cards (every hand known: card points lost; your view: game points lost):")
    mine = [a for a in result.actions if a.action.seat == seat and a.action.kind == "play"]
    for a in mine:
        assert a.action.value is not None
        card = card_symbol(a.action.value)
        parts = []
        if a.dd is not None:
            lost = a.dd.cost_points
            parts.append("free" if not lost and not a.dd.outcome_lost else f"-{lost} points")
            if a.dd.outcome_lost:
                parts.append(f"{a.dd.best_outcome} became {a.dd.outcome_after}")
        if a.view is not None:
            cost = a.view.cost(a.action)["score"] or 0.0
            parts.append(f"your view -{cost:.2f}" if cost >= 0.005 else "your view: best")
        elif a.legal == 1:
            parts.append("forced")
        lines.append(f"  trick {a.trick}: {card:<4} " + ", ".join(parts))
    if not mine:
        lines.append("  (you played no card in this deal)")
    return "\n".join(lines)
