"""Named bot characters for the user interfaces.

A character is a level with a temperament: how boldly it bids and how
readily it doubles. The names are the project's own.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .base import Bot, Style


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

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "name": self.name, "level": self.level, "blurb": self.blurb}


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
