"""What every bot is: an observation in, a legal action out.

A bot never sees the engine's state, only an ``Observation``. Its random
choices come from a generator seeded by the bot's seed *and* the
observation itself, so the same seed and the same observation always give
the same action, whatever happened before and whatever cards the others
really hold. That is what makes a bot provably honest: the honesty test
plays two deals that differ only in hidden cards and checks the actions.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

from ..game.actions import Action
from ..game.observation import Observation


@dataclass(frozen=True)
class Style:
    """Small differences of temperament between characters of one level."""

    boldness: float = 0.0  # added to the make-probability a bidder asks for (negative: bolder)
    doubling_nerve: float = 0.0  # likewise for doubling


def fingerprint(seed: int, obs: Observation) -> int:
    """A stable 64-bit digest of everything the seat knows, mixed with the seed."""
    key = (
        seed,
        obs.seat,
        obs.deal_index,
        obs.dealer,
        obs.phase,
        obs.hand,
        obs.auction,
        obs.bidder,
        obs.trump,
        obs.revealed_in_trick,
        obs.asked,
        obs.single,
        obs.doubling,
        obs.pair,
        tuple((t[0], t[1]) for t in obs.tricks),
        obs.trick,
        obs.score,
        tuple(a.to_json().__repr__() for a in obs.legal),
    )
    digest = hashlib.blake2b(repr(key).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little")


class Bot:
    """Base class: subclasses implement ``decide``."""

    level = "base"

    def __init__(self, seed: int = 0, budget: float | None = None, style: Style | None = None):
        self.seed = seed
        self.budget = budget  # seconds per decision; None: the level's default
        self.style = style or Style()

    def act(self, obs: Observation, budget: float | None = None) -> Action:
        """Choose a legal action for ``obs`` (whose turn it must be)."""
        if not obs.legal:
            raise ValueError(f"seat {obs.seat} has nothing to decide now")
        if len(obs.legal) == 1:
            return obs.legal[0]
        rng = random.Random(fingerprint(self.seed, obs))
        limit = budget if budget is not None else self.budget
        action = self.decide(obs, rng, limit)
        if action not in obs.legal:  # a bot bug must never become an illegal move
            raise AssertionError(f"{type(self).__name__} chose {action}, not legal")
        return action

    def decide(self, obs: Observation, rng: random.Random, budget: float | None) -> Action:
        """The choice itself; ``budget`` is the thinking time allowed, in seconds."""
        raise NotImplementedError


class RandomBot(Bot):
    """Uniformly random legal actions: the baseline every level must beat."""

    level = "random"

    def decide(self, obs: Observation, rng: random.Random, budget: float | None) -> Action:
        return obs.legal[rng.randrange(len(obs.legal))]
