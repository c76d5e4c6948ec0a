"""How long a level takes to decide: the measure behind ``bench bots`` and the browser's checks."""

from __future__ import annotations

import time

from ..game.dealing import deal_hands, derive_seed
from ..game.engine import OVER, Deal
from ..game.observation import observe_deal
from ..game.rules import resolve
from . import make_bot


def time_level(
    level: str, rules_profile: str, options: dict[str, str], deals: int, seed: int
) -> list[float]:
    """Seconds of every decision of four ``level`` bots playing ``deals`` seeded deals."""
    rules = resolve(rules_profile, options)
    times: list[float] = []
    for i in range(deals):
        dealer = i % 4
        deal = Deal(rules, dealer, deal_hands(derive_seed(seed, i), dealer, rules.clockwise))
        bots = [make_bot(level, seed=s) for s in range(4)]
        while deal.phase != OVER:
            obs = observe_deal(deal, deal.to_act)
            t = time.perf_counter()
            action = bots[deal.to_act].act(obs)
            times.append(time.perf_counter() - t)
            deal.apply(action)
    return times
