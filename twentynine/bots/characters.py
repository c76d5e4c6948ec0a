"""Named bot characters for the user interfaces.

A character is a level with a temperament: how boldly it bids and how
readily it doubles. The names are the project's own. Its rating, when the
ladder has measured it (``twentynine ladder --write-ratings``), comes from
``twentynine/data/ladder.json``, or the file ``$TWENTYNINE_LADDER`` names.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from .base import Bot, Style

LADDER_ENV = "TWENTYNINE_LADDER"
LADDER_FILE = "data/ladder.json"  # in the package
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Character:
    id: str
    name: str
    level: str
    blurb: str
    style: Style = field(default_factory=Style)

    def make(self, seed: int = 0, budget: float | None = None) -> Bot:
        from . import make_bot

        return make_bot(self.level, seed=seed, budget=budget, style=self.style)

    def to_json(self, ratings: dict[str, Rating] | None = None) -> dict[str, Any]:
        """What a client shows of the character; the rating is the ladder's (``ratings``,
        by default the shipped ones), null when it has none for this character."""
        rated = (ladder_ratings() if ratings is None else ratings).get(self.id)
        return {
            "id": self.id,
            "name": self.name,
            "level": self.level,
            "blurb": self.blurb,
            "rating": None if rated is None else rated.rating,
            "rating_ci95": None if rated is None or rated.ci95 is None else list(rated.ci95),
        }


@dataclass(frozen=True)
class Rating:
    """A player's ladder rating on the Elo scale, with its 95% interval when there is one."""

    rating: float
    ci95: tuple[float, float] | None


def read_ratings(path: str | Path | None = None) -> dict[str, Rating]:
    """The ratings of a ladder file (by default ``$TWENTYNINE_LADDER``, else the shipped
    ``twentynine/data/ladder.json``): none when there is no file; a file that cannot be
    read as one counts as none too, with a warning in the log."""
    if path is None:
        path = os.environ.get(LADDER_ENV) or None
    try:
        if path is None:
            text = resources.files("twentynine").joinpath(LADDER_FILE).read_text("utf-8")
        else:
            text = Path(path).read_text("utf-8")
    except (FileNotFoundError, OSError):
        return {}
    try:
        out = {}
        for ident, entry in json.loads(text)["ratings"].items():
            if entry.get("rating") is None:
                continue
            lo, hi = entry.get("ci95") or (None, None)
            ci95 = None if lo is None or hi is None else (float(lo), float(hi))
            out[str(ident)] = Rating(float(entry["rating"]), ci95)
        return out
    except (ValueError, TypeError, KeyError, AttributeError) as e:
        log.warning("the ladder file %s is not one: %s", path or LADDER_FILE, e)
        return {}


@lru_cache(maxsize=1)
def ladder_ratings() -> dict[str, Rating]:
    """The ratings the characters show, read once (``read_ratings()``)."""
    return read_ratings()


CHARACTERS: tuple[Character, ...] = (
    Character("pip", "Pip", "random", "Plays any legal card at random. A practice target."),
    Character("tara", "Tara", "novice", "Knows the order J 9 A 10 and not much more."),
    Character(
        "bablu",
        "Bablu",
        "novice",
        "A hopeful beginner who likes to open with a jack.",
        Style(boldness=-0.05),
    ),
    Character("meera", "Meera", "casual", "Counts the jacks, gives points to a winning partner."),
    Character(
        "raju",
        "Raju",
        "casual",
        "A club regular who bids a point too high, often.",
        Style(boldness=-0.08),
    ),
    Character("anil", "Anil", "strong", "Thinks through the hands he cannot see. Steady bidder."),
    Character(
        "sunita",
        "Sunita",
        "strong",
        "Strong and daring: bids thin contracts and doubles.",
        Style(boldness=-0.08, doubling_nerve=0.08),
    ),
    Character("dada", "Dada", "expert", "Reads the auction and every discard. Rarely wrong."),
    Character(
        "kiran",
        "Kiran",
        "expert",
        "Expert and careful: bids only what is there.",
        Style(boldness=0.07, doubling_nerve=-0.05),
    ),
)

BY_ID = {c.id: c for c in CHARACTERS}


def character(ident: str) -> Character:
    if ident not in BY_ID:
        raise ValueError(f"unknown character {ident!r}; characters: {', '.join(BY_ID)}")
    return BY_ID[ident]
