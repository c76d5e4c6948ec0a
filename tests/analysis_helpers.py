"""What the analysis tests share: a deal played to its end by four bots."""

from __future__ import annotations

from typing import Any

from twentynine.bots import make_bot
from twentynine.game.dealing import deal_hands, derive_seed
from twentynine.game.engine import OVER, Deal
from twentynine.game.observation import observe_deal
from twentynine.game.rules import resolve


def finished(profile: str, seed: int, level: str = "casual", **options: Any) -> Deal:
    """A deal dealt from ``seed`` and played to its end by four bots of ``level``."""
    rules = resolve(profile, options)
    dealer = seed % 4
    deal = Deal(rules, dealer, deal_hands(derive_seed(seed, 0), dealer, rules.clockwise))
    bots = [make_bot(level, seed=seed * 4 + s) for s in range(4)]
    while deal.phase != OVER:
        deal.apply(bots[deal.to_act].act(observe_deal(deal, deal.to_act)))
    return deal
