"""Bots: from a random player to an expert that samples and solves deals.

``make_bot(level, seed)`` builds one; ``CHARACTERS`` names the personalities
the user interfaces offer.
"""

from __future__ import annotations

from collections.abc import Callable

from .base import Bot, RandomBot, Style
from .expert import ExpertBot
from .expert_v1 import ExpertV1Bot
from .heuristic import CasualBot, NoviceBot
from .search import StrongBot

LEVELS: dict[str, Callable[..., Bot]] = {
    "random": RandomBot,
    "novice": NoviceBot,
    "casual": CasualBot,
    "strong": StrongBot,
    "expert": ExpertBot,
    "expert-v1": ExpertV1Bot,
}
# Levels kept only as frozen baselines for measurements: no character plays them.
BASELINES = ("expert-v1",)


def make_bot(
    level: str, seed: int = 0, budget: float | None = None, style: Style | None = None
) -> Bot:
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}; levels are: {', '.join(LEVELS)}")
    return LEVELS[level](seed=seed, budget=budget, style=style)


__all__ = [
    "BASELINES",
    "LEVELS",
    "Bot",
    "CasualBot",
    "ExpertBot",
    "ExpertV1Bot",
    "NoviceBot",
    "RandomBot",
    "StrongBot",
    "Style",
    "make_bot",
]
