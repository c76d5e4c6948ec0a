"""The single-agent Gymnasium wrapper: Gymnasium's env checker, bots in the other
seats, rewards in game points, seeds, and illegal actions."""

from __future__ import annotations

import random

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from twentynine.rl.aec import IllegalActionError
from twentynine.rl.encoding import NUM_ACTIONS
from twentynine.rl.gym import TwentyNineGymEnv


def play(env: TwentyNineGymEnv, seed: int) -> tuple[float, int]:
    rng = random.Random(seed)
    obs, _ = env.reset(seed=seed)
    total, steps = 0.0, 0
    while True:
        ids = np.flatnonzero(obs["action_mask"])
        assert len(ids) > 0
        obs, reward, terminated, truncated, _ = env.step(int(ids[rng.randrange(len(ids))]))
        total += reward
        steps += 1
        assert not truncated
        if terminated:
            return total, steps


@pytest.mark.parametrize("profile", ["pagat", "bhoos"])
def test_gymnasium_env_checker_passes(profile: str) -> None:
    # The checker samples actions without the mask: the penalty mode takes them.
    check_env(TwentyNineGymEnv(profile=profile, illegal_reward=-1.0), skip_render_check=True)


def test_the_learner_decides_only_for_its_seat_and_bots_play_the_rest() -> None:
    env = TwentyNineGymEnv(profile="pagat", seat=2, opponents=["random", "casual", "novice"])
    for seed in range(5):
        obs, _ = env.reset(seed=seed)
        while True:
            assert env.aec.deal.to_act == 2
            ids = np.flatnonzero(obs["action_mask"])
            obs, _, terminated, _, _ = env.step(int(ids[0]))
            if terminated:
                break
        assert env.aec.deal.phase == "over"


def test_deal_rewards_are_the_learners_team_game_points() -> None:
    env = TwentyNineGymEnv(profile="arcade", seat=1)
    for seed in range(10):
        total, _ = play(env, seed)
        assert total == env.aec.deal.delta[1]


def test_a_match_episode_pays_the_final_score() -> None:
    env = TwentyNineGymEnv(profile="modern", episode="match", opponents="casual")
    total, steps = play(env, 3)
    match = env.aec.match
    assert match is not None and match.winner is not None
    assert total == match.score[0]
    assert steps > 10


def test_the_same_seed_gives_the_same_episode() -> None:
    a, b = TwentyNineGymEnv(opponents="casual"), TwentyNineGymEnv(opponents="casual")
    assert play(a, 8) == play(b, 8)
    assert a.aec.match is not None and b.aec.match is not None
    assert a.aec.match.to_record() == b.aec.match.to_record()


def test_an_illegal_action_raises_and_changes_nothing_unless_a_penalty_is_set() -> None:
    env = TwentyNineGymEnv()
    obs, _ = env.reset(seed=4)
    bad = next(a for a in range(NUM_ACTIONS) if not obs["action_mask"][a])
    log = len(env.aec.deal.log)
    with pytest.raises(IllegalActionError, match="legal now"):
        env.step(bad)
    assert len(env.aec.deal.log) == log
    assert np.array_equal(env.reset(seed=4)[0]["observation"], obs["observation"])
    penal = TwentyNineGymEnv(illegal_reward=-2.0)
    obs, _ = penal.reset(seed=4)
    _, reward, terminated, _, info = penal.step(bad)
    assert reward == -2.0 and terminated and "cannot take action" in info["illegal"]
    with pytest.raises(RuntimeError, match="reset"):
        penal.step(0)


def test_bad_construction_is_refused_clearly() -> None:
    with pytest.raises(ValueError, match="seat"):
        TwentyNineGymEnv(seat=4)
    with pytest.raises(ValueError, match="unknown bot level"):
        TwentyNineGymEnv(opponents="grandmaster")
    with pytest.raises(ValueError, match="three"):
        TwentyNineGymEnv(opponents=["casual", "casual"])
