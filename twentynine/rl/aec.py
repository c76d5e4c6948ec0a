"""29 as a PettingZoo AEC environment: four agents, one acting at a time.

Every profile and option of the engine plays here unchanged: the engine
decides who acts, what is legal and what a deal scores; this module only
turns its state into each agent's tensor and mask (through ``observe``,
the engine's single door for hidden information) and game points into
rewards. Agents are ``seat_0`` .. ``seat_3``, the engine's seats.

Seeds: ``reset(seed=s)`` starts a generator from ``s``; every episode
draws its own engine seed from it, so the same ``s`` replays the same
sequence of episodes, and an engine seed names the same deal (or match)
that ``Match(rules, seed)`` deals everywhere else in the project.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..game.dealing import SplitMix64
from ..game.engine import OVER, Deal, IllegalAction
from ..game.match import Match
from ..game.observation import Observation, observe_deal
from ..game.rules import Rules, resolve
from .encoding import (
    NUM_ACTIONS,
    TENSOR_SIZE,
    Encoder,
    action_id,
    action_mask,
    action_name,
    tensor_bounds,
    to_action,
)

AGENTS = ("seat_0", "seat_1", "seat_2", "seat_3")
EPISODES = ("deal", "match")


class IllegalActionError(ValueError):
    """An action id the current agent may not take now; the game is unchanged."""

    def __init__(self, agent: str, action: object, legal: list[int], why: str) -> None:
        names = ", ".join(f"{a} ({action_name(a)})" for a in legal)
        super().__init__(f"{agent} cannot take action {action!r}: {why}; legal now: {names}")
        self.agent = agent
        self.action = action
        self.legal = legal


def rules_of(
    profile: str | None = "pagat",
    options: Mapping[str, Any] | None = None,
    rules: Rules | None = None,
) -> Rules:
    """The rules of an environment: given outright, or a profile with overrides."""
    if rules is not None:
        if options:
            return resolve(rules.profile, options, base=rules)
        return rules
    return resolve(profile, options)


class TwentyNineEnv(AECEnv[str, dict[str, np.ndarray], int]):
    """The raw environment; ``env()`` wraps it in PettingZoo's order checks.

    ``episode``: ``"deal"`` (one deal) or ``"match"`` (deals until a team
    wins; needs a ``match_target``). Rewards are the game points each deal
    moves for the agent's team, given to all four agents when a deal ends;
    with ``zero_sum`` they are the agent's team's points minus the other
    team's. ``max_cycles`` truncates an episode after that many steps per
    agent (4 x max_cycles actions in all).
    """

    metadata: ClassVar[dict[str, Any]] = {
        "name": "twentynine_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        profile: str = "pagat",
        options: Mapping[str, Any] | None = None,
        rules: Rules | None = None,
        episode: str = "deal",
        zero_sum: bool = False,
        max_cycles: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.rules = rules_of(profile, options, rules)
        if episode not in EPISODES:
            raise ValueError(f"episode must be 'deal' or 'match', not {episode!r}")
        if episode == "match" and self.rules.match_target is None:
            raise ValueError(
                f"profile {self.rules.profile} plays single deals (match_target none): "
                "use episode='deal' or set the option match_target"
            )
        if max_cycles is not None and (isinstance(max_cycles, bool) or max_cycles < 1):
            raise ValueError(f"max_cycles must be a positive number or None, not {max_cycles!r}")
        if render_mode is not None and render_mode not in ("ansi", "human"):
            raise ValueError(f"render_mode must be 'ansi', 'human' or None, not {render_mode!r}")
        self.episode = episode
        self.zero_sum = zero_sum
        self.max_cycles = max_cycles
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.encoder = Encoder(self.rules)
        low, high = tensor_bounds(self.rules)
        # One space object per agent: PettingZoo seeds them one by one.
        self._observation_spaces = {
            a: gymnasium.spaces.Dict(
                {
                    "observation": gymnasium.spaces.Box(low, high, (TENSOR_SIZE,), np.float32),
                    "action_mask": gymnasium.spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
                }
            )
            for a in AGENTS
        }
        self._action_spaces = {a: gymnasium.spaces.Discrete(NUM_ACTIONS) for a in AGENTS}
        self._seed_rng = SplitMix64(0x29)
        self._index = {a: i for i, a in enumerate(AGENTS)}
        self.match: Match | None = None
        self.episodes = 0
        self.agents: list[str] = []

    # ------------------------------------------------------------- spaces
    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self._action_spaces[agent]

    # -------------------------------------------------------------- reset
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start an episode. ``options`` may hold ``{"seed": N}``, the engine seed itself
        (the deal ``Match(rules, N)`` deals); other keys are ignored."""
        if seed is not None:
            self._seed_rng = SplitMix64(int(seed))
        engine_seed = None
        if options and "seed" in options:
            engine_seed = options["seed"]
            if isinstance(engine_seed, bool) or not isinstance(engine_seed, int | np.integer):
                raise ValueError(f"options['seed'] must be an integer, not {engine_seed!r}")
        if engine_seed is None:
            engine_seed = self._seed_rng.next()
        self.engine_seed = int(engine_seed)
        self.episodes += 1
        self.match = Match(self.rules, seed=self.engine_seed)
        self.deal = self.match.deal
        self.deal_index = 0
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in AGENTS}
        self.steps = 0
        self._paid = False
        self.agent_selection = AGENTS[self.deal.to_act]

    # ------------------------------------------------------------ observe
    def engine_observation(self, seat: int) -> Observation:
        """What ``seat`` may know now, as the engine shows it (bots take this)."""
        match = self.match
        if match is None:
            raise RuntimeError("call reset() first")
        return observe_deal(
            self.deal,
            seat,
            deal_index=self.deal_index,
            score=(match.score[0], match.score[1]),
            winner=match.winner,
        )

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._index[agent]
        match = self.match
        if match is None:
            raise RuntimeError("call reset() before observe()")
        deal = self.deal
        score = (match.score[0], match.score[1])
        obs = observe_deal(deal, seat, self.deal_index, score, match.winner)
        live = not (self.terminations.get(agent) or self.truncations.get(agent))
        mask = action_mask(obs.legal if live else ())
        return {
            "observation": self.encoder.encode(
                obs, deal.hands[seat][:4], (self.episodes, self.deal_index)
            ),
            "action_mask": mask,
        }

    def legal_ids(self) -> list[int]:
        """Action ids the agent to act may take now (empty once the episode is over)."""
        agent = self.agent_selection
        if self.terminations.get(agent) or self.truncations.get(agent):
            return []
        return sorted(action_id(a) for a in self.deal.legal_actions())

    # --------------------------------------------------------------- step
    def step(self, action: int | np.integer | None) -> None:
        if self.match is None:
            raise RuntimeError("call reset() before step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        deal = self.deal
        match = self.match
        assert match is not None
        aid = self._checked(agent, action)
        try:
            match.apply(to_action(deal.to_act, aid))
        except IllegalAction as e:  # the engine refuses without changing anything
            raise IllegalActionError(
                agent, aid, self.legal_ids(), f"{action_name(aid)}: {e}"
            ) from None
        self._cumulative_rewards[agent] = 0.0
        if self._paid:  # the rewards of the last step go back to zero
            self._clear_rewards()
            self._paid = False
        if deal.phase == OVER:
            self._deal_over(deal)
        self.steps += 1
        if (
            self.max_cycles is not None
            and self.steps >= 4 * self.max_cycles
            and not self.terminations[agent]
        ):
            for a in self.agents:
                self.truncations[a] = True
        if self.terminations[agent] or self.truncations[agent]:
            self.agent_selection = self.agents[0]
        else:
            self.agent_selection = AGENTS[self.deal.to_act]
        if self._paid:
            self._accumulate_rewards()
        if self.render_mode == "human":
            print(self.render())

    def _checked(self, agent: str, action: object) -> int:
        """The action as an id in range, or an ``IllegalActionError``; whether it is legal
        is the engine's call, in ``step``."""
        if type(action) is int and 0 <= action < NUM_ACTIONS:
            return action
        if isinstance(action, bool) or not isinstance(action, int | np.integer):
            raise IllegalActionError(
                agent, action, self.legal_ids(), f"an action is an integer id 0..{NUM_ACTIONS - 1}"
            )
        aid = int(action)
        if not 0 <= aid < NUM_ACTIONS:
            raise IllegalActionError(
                agent, action, self.legal_ids(), f"ids run from 0 to {NUM_ACTIONS - 1}"
            )
        return aid

    def _deal_over(self, deal: Deal) -> None:
        match = self.match
        assert match is not None
        for agent in AGENTS:
            team = self._index[agent] & 1
            mine, theirs = deal.delta[team], deal.delta[1 - team]
            self.rewards[agent] = float(mine - theirs if self.zero_sum else mine)
        self._paid = True
        if self.episode == "deal" or match.is_over():
            for a in self.agents:
                self.terminations[a] = True
            for a in self.agents:
                self.infos[a] = {"result": deal.result, "score": tuple(match.score)}
        else:
            self.deal = match.deal
            self.deal_index = len(match.deals) - 1

    # ------------------------------------------------------------- render
    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        if self.match is None:
            return "no episode yet: call reset()"
        from ..game.account import describe_deal, describe_match

        if self.episode == "deal":  # the match may already have dealt the next one
            return "\n".join(describe_deal(self.deal, 0)) + "\n"
        return describe_match(self.match)

    def close(self) -> None:
        self.match = None


def raw_env(**kwargs: Any) -> TwentyNineEnv:
    return TwentyNineEnv(**kwargs)


def env(**kwargs: Any) -> AECEnv[str, dict[str, np.ndarray], int]:
    """The environment as PettingZoo's classic games ship: order of calls enforced."""
    return wrappers.OrderEnforcingWrapper(TwentyNineEnv(**kwargs))
