"""Bots: from a random player to an expert that samples and solves deals.

``make_bot(level, seed)`` builds one; ``CHARACTERS`` names the personalities
the user interfaces offer.
"""

from __future__ import annotations

from collections.abc import Callable

from .base import Bot, RandomBot, Style
from .heuristic import CasualBot, NoviceBot
from .search import ExpertBot, StrongBot

LEVELS: dict[str, Callable[..., Bot]] = {
    "random": RandomBot,
    "novice": NoviceBot,
    "casual": CasualBot,
    "strong": StrongBot,
    "expert": ExpertBot,
}


def make_bot(
    level: str, seed: int = 0, budget: float | None = None, style: Style | None = None
) -> Bot:
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}; levels are: {', '.join(LEVELS)}")
    return LEVELS[level](seed=seed, budget=budget, style=style)


__all__ = [
    "LEVELS",
    "Bot",
    "CasualBot",
    "ExpertBot",
    "NoviceBot",
    "RandomBot",
    "StrongBot",
    "Style",
    "make_bot",
]
