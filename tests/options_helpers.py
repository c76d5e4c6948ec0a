"""What the rule option tests share: the legal actions as script tokens, and
the seat to act after each action of a script.
"""

from __future__ import annotations

from helpers import action_of

from twentynine.game.engine import Deal


def legal_texts(deal: Deal) -> set[str]:
    """The legal actions as script tokens' ``what`` part, e.g. {"pass", "16", "JS"}."""
    out = set()
    for a in deal.legal_actions():
        j = a.to_json()
        key = next(k for k in j if k != "seat")
        out.add(str(j[key]) if key in ("bid", "play") else key)
    return out


def turns(deal: Deal, script: str) -> list[int]:
    """Apply ``script`` and return ``to_act`` after each action."""
    out = []
    for tok in script.split():
        deal.apply(action_of(tok))
        out.append(deal.to_act)
    return out
