"""One seat learns, our bots play the other three: a Gymnasium environment.

The learner sees exactly what the PettingZoo environment shows its seat
(the tensor and the action mask, as a dict) and gets the same rewards; the
three other seats are filled by ``make_bot`` levels, each given only its
own ``observe`` view, so they play as honestly as anywhere else.

A deal in which the learner would have nothing to decide (its partner
plays a single hand alone before the learner has spoken) is skipped at
reset: every episode starts at one of the learner's decisions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

import gymnasium
import numpy as np

from ..bots import LEVELS, make_bot
from ..bots.base import Bot
from ..game.dealing import derive_seed
from ..game.rules import Rules
from .aec import AGENTS, IllegalActionError, TwentyNineEnv
from .encoding import NUM_ACTIONS, action_id, action_name

SKIP_LIMIT = 100  # deals skipped in a row before giving up (never reached in practice)


class TwentyNineGymEnv(gymnasium.Env[dict[str, np.ndarray], int]):
    """``seat`` learns; ``opponents`` names the bot level of each other seat (one level
    for all three, or three levels in seat order skipping the learner).

    ``illegal_reward``: None (the default) makes an illegal action raise
    ``IllegalActionError``, changing nothing; a number instead ends the
    episode with that reward, the convention of PettingZoo's
    ``TerminateIllegalWrapper``, for code that samples without the mask.
    """

    metadata = {"render_modes": ["ansi"]}  # noqa: RUF012 (gymnasium's own attribute)

    def __init__(
        self,
        profile: str = "pagat",
        options: Mapping[str, Any] | None = None,
        rules: Rules | None = None,
        seat: int = 0,
        opponents: str | Sequence[str] = "casual",
        episode: str = "deal",
        zero_sum: bool = False,
        illegal_reward: float | None = None,
        bot_budget: float | None = None,
        render_mode: str | None = None,
    ) -> None:
        if isinstance(seat, bool) or seat not in (0, 1, 2, 3):
            raise ValueError(f"seat must be 0, 1, 2 or 3, not {seat!r}")
        levels = [opponents] * 3 if isinstance(opponents, str) else list(opponents)
        if len(levels) != 3:
            raise ValueError(f"opponents: one level or three, not {len(levels)}")
        for level in levels:
            if level not in LEVELS:
                raise ValueError(f"unknown bot level {level!r}; levels are: {', '.join(LEVELS)}")
        if render_mode is not None and render_mode != "ansi":
            raise ValueError(f"render_mode must be 'ansi' or None, not {render_mode!r}")
        self.aec = TwentyNineEnv(
            profile=profile,
            options=options,
            rules=rules,
            episode=episode,
            zero_sum=zero_sum,
            render_mode=render_mode,
        )
        self.rules = self.aec.rules
        self.seat = seat
        self.agent = AGENTS[seat]
        others = [s for s in range(4) if s != seat]
        self.levels = {s: level for s, level in zip(others, levels, strict=True)}
        self.illegal_reward = illegal_reward
        self.bot_budget = bot_budget
        self.render_mode = render_mode
        self.observation_space = self.aec.observation_space(self.agent)
        self.action_space = cast(
            gymnasium.spaces.Space[int], gymnasium.spaces.Discrete(NUM_ACTIONS)
        )
        self.bots: dict[int, Bot] = {}
        self._over = True

    # ------------------------------------------------------------------ API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        for _ in range(SKIP_LIMIT):
            engine_seed = int(self.np_random.integers(0, 2**63 - 1))
            self.aec.reset(options={"seed": engine_seed})
            self.bots = {
                s: make_bot(level, seed=derive_seed(engine_seed, s), budget=self.bot_budget)
                for s, level in self.levels.items()
            }
            self._over = False
            self._advance()
            if not self._over:
                return self._observation(), self._info()
        raise RuntimeError(f"the learner had no decision in {SKIP_LIMIT} deals in a row")

    def step(
        self, action: int | np.integer
    ) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        if self._over:
            raise RuntimeError("the episode is over: call reset()")
        aec = self.aec
        try:
            aec.step(action)
        except IllegalActionError as e:
            if self.illegal_reward is None:
                raise
            self._over = True
            info = self._info()
            info["illegal"] = str(e)
            return self._observation(), float(self.illegal_reward), True, False, info
        reward = aec.rewards[self.agent] + self._advance()
        return self._observation(), float(reward), self._over, False, self._info()

    def render(self) -> str | None:
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()

    # -------------------------------------------------------------- helpers
    def _advance(self) -> float:
        """Let the bots act until the learner must decide or the episode ends; return the
        learner's reward meanwhile."""
        aec = self.aec
        total = 0.0
        while True:
            if aec.terminations[self.agent] or aec.truncations[self.agent]:
                self._over = True
                return total
            seat = aec.deal.to_act
            if seat == self.seat:
                return total
            obs = aec.engine_observation(seat)
            aec.step(action_id(self.bots[seat].act(obs)))
            total += aec.rewards[self.agent]

    def _observation(self) -> dict[str, np.ndarray]:
        obs = self.aec.observe(self.agent)
        if self._over:
            obs["action_mask"][:] = 0
        return obs

    def _info(self) -> dict[str, Any]:
        match = self.aec.match
        assert match is not None
        legal = [] if self._over else self.aec.legal_ids()
        return {
            "legal": [action_name(a) for a in legal],
            "score": (match.score[0], match.score[1]),
            "engine_seed": self.aec.engine_seed,
        }
