"""Train a bidding policy against casual bots, then measure it in the duplicate arena.

    python examples/train_bidding.py                  # about two minutes on one core
    python examples/train_bidding.py --episodes 300 --eval-deals 20   # a quick look

The learner sits at seat 0 of the Gymnasium environment (``twentynine.rl.gym``)
with casual bots in the three other seats. It decides one thing: how high
it is willing to bid with the four cards of its first batch. Everything else
(trumps, play, doubling) it leaves to a casual bot's judgement, so what it
learns is bidding alone.

The policy is a softmax over bid limits (never bid, or up to min_bid + k)
whose logits are linear in a few features of the first batch; it learns by
REINFORCE with a linear baseline, numpy only, from the game points of each
deal (own team minus the other: a contract the opponents fail is worth as
much as one we make). Before and after training, the same duplicate deals
are played in the arena against plain casual bots: the change in game points
per deal is the figure to watch.
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from twentynine import PROFILES, Rules
from twentynine.game.actions import BID
from twentynine.services.arena import play_board, summarise
from twentynine.bots import CasualBot, make_bot
from twentynine.bots.base import Bot
from twentynine.bots.bidding import default_model
from twentynine.game.cards import JACK, NINE, SUIT_MASK, mask_of
from twentynine.game.observation import Observation
from twentynine.rl.encoding import action_id
from twentynine.rl.gym import TwentyNineGymEnv

LIMITS = 10  # 0: never bid; k >= 1: bid up to min_bid + k - 1
FEATURES = 9
MODEL = default_model()


def features(obs: Observation) -> np.ndarray:
    """What the policy looks at: the first batch, and where the seat speaks from."""
    assert obs.seat is not None
    first = mask_of(obs.hand) if not obs.second_batch else 0
    order = (obs.seat - obs.rules.next_seat(obs.dealer)) % 4
    if not obs.rules.clockwise:
        order = (obs.rules.next_seat(obs.dealer) - obs.seat) % 4
    suit, value = MODEL.best_trump(first, order)
    trumps = (first & SUIT_MASK[suit]).bit_count()
    jacks = sum(first >> (s * 8 + JACK) & 1 for s in range(4))
    nines = sum(first >> (s * 8 + NINE) & 1 for s in range(4))
    x = np.zeros(FEATURES)
    x[0] = 1.0
    x[1] = (value - 16.0) / 4.0
    x[2] = trumps / 4.0
    x[3] = jacks / 2.0
    x[4] = nines / 2.0
    x[5 + order] = 1.0
    return x


@dataclass
class LimitPolicy:
    """Softmax over bid limits, logits linear in ``features``."""

    theta: np.ndarray = field(default_factory=lambda: np.zeros((LIMITS, FEATURES)))
    baseline: np.ndarray = field(default_factory=lambda: np.zeros(FEATURES))

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        z = self.theta @ x
        z -= z.max()
        p = np.exp(z)
        return p / p.sum()

    def sample(self, x: np.ndarray, rng: np.random.Generator) -> int:
        return int(rng.choice(LIMITS, p=self.probabilities(x)))

    def greedy(self, x: np.ndarray) -> int:
        return int(np.argmax(self.theta @ x))

    def learn(self, x: np.ndarray, k: int, reward: float, lr: float, lr_base: float) -> None:
        advantage = reward - float(self.baseline @ x)
        grad = -self.probabilities(x)[:, None] * x[None, :]
        grad[k] += x
        self.theta += lr * advantage * grad
        self.baseline += lr_base * advantage * x


def auction_choice(obs: Observation, limit: int) -> Any:
    """The lowest legal bid within ``limit`` (see LIMITS), else the pass."""
    bids = sorted((a for a in obs.legal if a.kind == BID), key=lambda a: a.value or 0)
    ceiling = obs.rules.min_bid + limit - 1
    if limit > 0 and bids and (bids[0].value or 0) <= ceiling:
        return bids[0]
    return next(a for a in obs.legal if a.kind == "pass")


class LearnedBidder(Bot):
    """A casual player whose bids follow the policy's greedy limit."""

    level = "learned"

    def __init__(self, policy: LimitPolicy, seed: int = 0) -> None:
        super().__init__(seed=seed)
        self.policy = policy
        self.casual = CasualBot(seed=seed)

    def decide(self, obs: Observation, rng: random.Random, budget: float | None) -> Any:
        if any(a.kind == BID for a in obs.legal):
            return auction_choice(obs, self.policy.greedy(features(obs)))
        return self.casual.decide(obs, rng, budget)


def train(
    policy: LimitPolicy, rules: Rules, episodes: int, seed: int, lr: float = 0.05
) -> list[float]:
    """REINFORCE over ``episodes`` deals at seat 0 of the Gymnasium environment."""
    env = TwentyNineGymEnv(rules=rules, seat=0, opponents="casual", zero_sum=True)
    rng = np.random.default_rng(seed)
    rewards: list[float] = []
    obs, _ = env.reset(seed=seed)
    for episode in range(episodes):
        casual = CasualBot(seed=seed + episode)
        chosen: tuple[np.ndarray, int] | None = None
        total = 0.0
        while True:
            view = env.aec.engine_observation(0)
            if any(a.kind == BID for a in view.legal):
                if chosen is None:
                    x = features(view)
                    chosen = (x, policy.sample(x, rng))
                action = action_id(auction_choice(view, chosen[1]))
            else:
                action = action_id(casual.act(view))
            assert obs["action_mask"][action]
            obs, reward, terminated, _, _ = env.step(action)
            total += reward
            if terminated:
                break
        if chosen is not None:
            policy.learn(chosen[0], chosen[1], total, lr, lr_base=0.02)
        rewards.append(total)
        obs, _ = env.reset()
    return rewards


def arena(policy: LimitPolicy, rules: Rules, deals: int, seed: int) -> tuple[float, float, float]:
    """Game points per duplicate deal of the learned bidder minus casual, with a 95% CI."""

    def factory(spec: str, bot_seed: int) -> Bot:
        if spec == "learned":
            return LearnedBidder(policy, seed=bot_seed)
        return make_bot(spec, seed=bot_seed)

    boards = [play_board(rules, "learned", "casual", i, seed, factory) for i in range(deals)]
    s = summarise("learned", "casual", boards)
    return s.mean, s.ci95[0], s.ci95[1]


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--episodes", type=int, default=30_000, help="training deals")
    p.add_argument("--eval-deals", type=int, default=1000, help="duplicate deals in the arena")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--profile", default="pagat", choices=sorted(PROFILES))
    args = p.parse_args(argv)
    rules = PROFILES[args.profile]
    policy = LimitPolicy()
    # Untrained: random preferences among the limits, the same for every hand.
    policy.theta[:, 0] = np.random.default_rng(args.seed).normal(0, 1, LIMITS)
    before = arena(policy, rules, args.eval_deals, seed=1000 + args.seed)
    print(
        f"before training: learned - casual = {before[0]:+.3f} per deal "
        f"(95% CI {before[1]:+.3f} .. {before[2]:+.3f})",
        flush=True,
    )
    t = time.perf_counter()
    rewards = train(policy, rules, args.episodes, args.seed)
    elapsed = time.perf_counter() - t
    window = max(1, len(rewards) // 5)
    early = float(np.mean(rewards[:window]))
    late = float(np.mean(rewards[-window:]))
    print(
        f"trained on {args.episodes} deals in {elapsed:.0f} s; mean reward per deal "
        f"{early:+.3f} in the first fifth, {late:+.3f} in the last",
        flush=True,
    )
    after = arena(policy, rules, args.eval_deals, seed=1000 + args.seed)
    print(
        f"after training:  learned - casual = {after[0]:+.3f} per deal "
        f"(95% CI {after[1]:+.3f} .. {after[2]:+.3f})"
    )
    return {
        "before": before,
        "after": after,
        "reward_first_fifth": early,
        "reward_last_fifth": late,
        "seconds": elapsed,
        "policy": policy,
    }


if __name__ == "__main__":
    main()
