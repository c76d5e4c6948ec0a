"""Bots: from a random player to an expert that samples and solves deals.

``make_bot(level, seed)`` builds one (a level, or a variant of one:
``expert[read_drops=0]``); ``CHARACTERS`` names the personalities the user
interfaces offer.
"""

from __future__ import annotations

from . import variants
from .base import Bot, RandomBot, Style
from .expert import ExpertBot
from .expert_v1 import ExpertV1Bot
from .heuristic import CasualBot, NoviceBot
from .search import StrongBot

LEVELS: dict[str, type[Bot]] = {
    "random": RandomBot,
    "novice": NoviceBot,
    "casual": CasualBot,
    "strong": StrongBot,
    "expert": ExpertBot,
    "expert-v1": ExpertV1Bot,
}
# Levels kept only as frozen baselines for measurements: no character plays them.
BASELINES = ("expert-v1",)


def _resolve(spec: str) -> tuple[type[Bot], dict[str, object]]:
    """The class a spec names and its knobs, checked; ``ValueError`` saying what is wrong."""
    name, knobs = variants.parse(spec)
    if name not in LEVELS:
        raise ValueError(f"unknown bot level {name!r}; levels are: {', '.join(LEVELS)}")
    return LEVELS[name], variants.settings(LEVELS[name], name, knobs)


def make_bot(
    level: str, seed: int = 0, budget: float | None = None, style: Style | None = None
) -> Bot:
    """A bot of ``level``, or of a variant of it: ``expert[read_drops=0]`` (``variants``)."""
    cls, turned = _resolve(level)
    bot = cls(seed=seed, budget=budget, style=style)
    for knob, value in turned.items():
        setattr(bot, knob, value)
    return bot


def spec_error(spec: str) -> str | None:
    """What is wrong with a bot spec (a level or a variant of one), or None."""
    try:
        _resolve(spec)
    except ValueError as e:
        return str(e)
    return None


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
    "spec_error",
]
