"""The PettingZoo environment: PettingZoo's own checks, every profile and option,
rewards in game points, seeds, and illegal actions that change nothing."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, seed_test
from pettingzoo.utils.wrappers import TerminateIllegalWrapper

from twentynine import PROFILES, Match, resolve
from twentynine.game.engine import OVER
from twentynine.game.observation import observe_deal
from twentynine.rl.aec import IllegalActionError, TwentyNineEnv, env
from twentynine.rl.encoding import (
    NUM_ACTIONS,
    PASS_ID,
    TENSOR_SIZE,
    Encoder,
    action_id,
    tensor_slice,
    to_action,
)

# Options switched on over a profile, so that every decision kind appears.
VARIANTS = [
    ("pagat", {}),
    ("arcade", {}),
    ("bangladesh", {}),
    ("modern", {}),
    ("bhoos", {}),
    ("pagat", {"seventh_card": "yes", "single_hand": "3", "all_pass": "redeal"}),
    ("pagat", {"doubling": "yes", "allow_set": "yes", "under_half": "yes"}),
    ("modern", {"auto_double_from": "20", "double_by": "either", "pair": "bangladesh"}),
    ("bhoos", {"seventh_card": "yes", "pair": "standard", "doubling": "yes"}),
    ("bangladesh", {"all_pass": "first_forced", "early_end": "yes", "unrevealed": "score"}),
]


def random_episode(e: TwentyNineEnv, rng: random.Random) -> dict[str, float]:
    """Play random legal actions to the end; return each agent's total reward."""
    totals = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        assert e.observation_space(agent).contains(obs)
        totals[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        ids = np.flatnonzero(obs["action_mask"])
        e.step(int(ids[rng.randrange(len(ids))]))
    return totals


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_pettingzoo_api_test_passes_for_every_profile(profile: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env(profile=profile), num_cycles=60)


@pytest.mark.parametrize("episode", ["deal", "match"])
def test_pettingzoo_seed_test_passes(episode: str) -> None:
    seed_test(lambda: env(profile="modern", episode=episode), num_cycles=100)


@pytest.mark.parametrize(("profile", "options"), VARIANTS)
def test_mask_is_exactly_the_engine_legal_actions_and_the_tensor_stays_in_bounds(
    profile: str, options: dict[str, str]
) -> None:
    e = TwentyNineEnv(profile=profile, options=options)
    space = e.observation_space("seat_0")
    rng = random.Random(7)
    for episode in range(6):
        e.reset(seed=episode)
        for _agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            assert space.contains(obs)
            if term or trunc:
                e.step(None)
                continue
            legal = sorted(action_id(a) for a in e.deal.legal_actions())
            assert np.flatnonzero(obs["action_mask"]).tolist() == legal
            e.step(legal[rng.randrange(len(legal))])


def test_deal_rewards_are_the_game_points_of_each_team() -> None:
    e = TwentyNineEnv(profile="arcade")
    rng = random.Random(3)
    for s in range(20):
        e.reset(seed=s)
        totals = random_episode(e, rng)
        delta = e.deal.delta
        for i, agent in enumerate(e.possible_agents):
            assert totals[agent] == delta[i & 1]


def test_zero_sum_rewards_are_own_team_minus_the_other() -> None:
    e = TwentyNineEnv(profile="pagat", options={"doubling": "yes"}, zero_sum=True)
    rng = random.Random(4)
    for s in range(20):
        e.reset(seed=s)
        totals = random_episode(e, rng)
        assert totals["seat_0"] == -totals["seat_1"] == e.deal.delta[0] - e.deal.delta[1]


@pytest.mark.parametrize(
    "options",
    [{}, {"doubling": "yes", "allow_set": "yes", "single_hand": "5", "under_half": "yes"}],
)
def test_a_match_episode_ends_with_a_winner_and_rewards_add_up_to_the_score(
    options: dict[str, str],
) -> None:
    e = TwentyNineEnv(profile="pagat", options=options, episode="match")
    e.reset(seed=11)
    totals = random_episode(e, random.Random(11))
    assert e.match is not None and e.match.winner is not None
    score = e.match.score
    assert max(abs(score[0]), abs(score[1])) >= 6
    assert totals["seat_0"] == totals["seat_2"] == score[0]
    assert totals["seat_1"] == totals["seat_3"] == score[1]
    assert len(e.match.deals) > 1


def test_a_match_episode_needs_a_match_target() -> None:
    with pytest.raises(ValueError, match="match_target"):
        TwentyNineEnv(profile="arcade", episode="match")
    TwentyNineEnv(profile="arcade", options={"match_target": "6"}, episode="match")


def test_reset_with_a_seed_replays_the_same_episodes_and_engine_seeds_name_deals() -> None:
    a, b = TwentyNineEnv(), TwentyNineEnv()
    a.reset(seed=5)
    b.reset(seed=5)
    assert a.engine_seed == b.engine_seed
    assert a.deal.hands == b.deal.hands
    a.reset()
    b.reset()
    assert a.deal.hands == b.deal.hands
    a.reset(options={"seed": 1234})
    assert a.deal.hands == Match(PROFILES["pagat"], seed=1234).deal.hands
    with pytest.raises(ValueError, match="integer"):
        a.reset(options={"seed": "x"})


def test_an_illegal_action_names_itself_and_the_legal_ones_and_changes_nothing() -> None:
    e = TwentyNineEnv()
    e.reset(seed=2)
    agent = e.agent_selection
    before = e.observe(agent)
    log = len(e.deal.log)
    legal = e.legal_ids()
    illegal = next(a for a in range(NUM_ACTIONS) if a not in legal)
    with pytest.raises(IllegalActionError) as err:
        e.step(illegal)
    text = str(err.value)
    assert agent in text and str(illegal) in text
    for aid in legal:
        assert str(aid) in text
    assert err.value.legal == legal
    for bad in (-1, NUM_ACTIONS, 3.5, "pass", None, True):
        with pytest.raises(IllegalActionError):
            e.step(bad)  # type: ignore[arg-type]
    after = e.observe(agent)
    assert e.agent_selection == agent and len(e.deal.log) == log
    assert np.array_equal(before["observation"], after["observation"])
    assert np.array_equal(before["action_mask"], after["action_mask"])
    e.step(PASS_ID)  # the game goes on normally
    assert len(e.deal.log) == log + 1


def test_an_illegal_card_gives_the_engine_reason() -> None:
    e = TwentyNineEnv()
    e.reset(seed=3)
    rng = random.Random(0)
    while e.deal.phase != "play" or not e.deal.trick_cards:
        ids = e.legal_ids()
        e.step(ids[rng.randrange(len(ids))])
        if e.deal.phase == OVER:
            e.reset(seed=rng.randrange(1000))
    seat = e.deal.to_act
    foreign = next(c for c in range(32) if not e.deal.held[seat] >> c & 1)
    with pytest.raises(IllegalActionError, match="does not hold"):
        e.step(foreign)


def test_pettingzoo_terminate_illegal_wrapper_penalises_instead_of_raising() -> None:
    e = TerminateIllegalWrapper(TwentyNineEnv(), illegal_reward=-1)
    e.reset(seed=1)
    agent = e.agent_selection
    e.last()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e.step(0)  # no card can be played during the auction
    assert all(e.terminations.values())
    assert e.rewards[agent] == -1


def test_max_cycles_truncates_after_that_many_steps_per_agent() -> None:
    e = TwentyNineEnv(profile="pagat", episode="match", max_cycles=4)
    e.reset(seed=0)
    counts = dict.fromkeys(e.possible_agents, 0)
    steps = 0
    for agent in e.agent_iter():
        counts[agent] += 1
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            assert trunc and not term
            e.step(None)
            continue
        ids = np.flatnonzero(obs["action_mask"])
        e.step(int(ids[0]))
        steps += 1
    assert steps == 16
    assert sum(counts.values()) == 16 + 4  # one last visit each to see the truncation
    with pytest.raises(ValueError):
        TwentyNineEnv(max_cycles=0)


def test_stepping_or_observing_before_reset_says_so() -> None:
    e = TwentyNineEnv()
    with pytest.raises(RuntimeError, match="reset"):
        e.step(PASS_ID)
    with pytest.raises(RuntimeError, match="reset"):
        e.observe("seat_0")


def test_bad_construction_is_refused_clearly() -> None:
    with pytest.raises(ValueError, match="episode"):
        TwentyNineEnv(episode="season")
    with pytest.raises(ValueError, match="unknown profile"):
        TwentyNineEnv(profile="poker")
    with pytest.raises(ValueError, match="unknown option"):
        TwentyNineEnv(options={"min_bidd": 16})
    with pytest.raises(ValueError, match="render_mode"):
        TwentyNineEnv(render_mode="rgb_array")


def test_ansi_render_tells_the_game_so_far() -> None:
    e = TwentyNineEnv(render_mode="ansi")
    e.reset(seed=1)
    random_episode(e, random.Random(1))
    text = e.render()
    assert isinstance(text, str) and "Deal 1" in text


def test_a_seat_tensor_does_not_depend_on_cards_it_cannot_see() -> None:
    rules = PROFILES["pagat"]
    match = Match(rules, seed=9)
    hands = [list(h) for h in match.deal.hands]
    other = [list(h) for h in hands]
    # Swap the second batches of seats 1 and 3: seat 0 cannot tell the difference.
    other[1][4:], other[3][4:] = hands[3][4:], hands[1][4:]
    a = Match(rules, dealer=match.deal.dealer, hands=hands)
    b = Match(rules, dealer=match.deal.dealer, hands=other)
    enc = Encoder(rules)
    rng = random.Random(2)
    while a.deal.phase == "auction":
        for m in (a, b):
            obs = observe_deal(m.deal, 0)
            assert obs.hand == observe_deal(a.deal, 0).hand
        x = enc.encode(observe_deal(a.deal, 0), a.deal.hands[0][:4])
        y = enc.encode(observe_deal(b.deal, 0), b.deal.hands[0][:4])
        assert np.array_equal(x, y)
        legal = a.deal.legal_actions()
        act = legal[rng.randrange(len(legal))]
        a.apply(act)
        b.apply(act)


def test_tensor_slices_cover_it_exactly_once() -> None:
    from twentynine.rl.encoding import SLICES

    covered = np.zeros(TENSOR_SIZE, int)
    for name, _, _ in SLICES:
        covered[tensor_slice(name)] += 1
    assert (covered == 1).all()


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    profile=st.sampled_from(sorted(PROFILES)),
    variant=st.integers(0, len(VARIANTS) - 1),
)
def test_the_incremental_tensor_equals_the_tensor_built_from_scratch(
    seed: int, profile: str, variant: int
) -> None:
    options = VARIANTS[variant][1] if VARIANTS[variant][0] == profile else {}
    rules = resolve(profile, options)
    enc, fresh = Encoder(rules), Encoder(rules)
    match = Match(rules, seed=seed)
    deal = match.deal
    rng = random.Random(seed)
    while deal.phase != OVER:
        for seat in range(4):
            obs = observe_deal(deal, seat)
            x = enc.encode(obs, deal.hands[seat][:4], key=seed)
            y = fresh.encode(obs, deal.hands[seat][:4])
            assert np.array_equal(x, y)
        legal = deal.legal_actions()
        deal.apply(legal[rng.randrange(len(legal))])


def test_action_ids_round_trip_for_every_seat() -> None:
    for seat in range(4):
        for aid in range(NUM_ACTIONS):
            assert action_id(to_action(seat, aid)) == aid
            assert to_action(seat, aid).seat == seat


def test_the_rl_benchmark_runs_on_a_tiny_input(capsys: pytest.CaptureFixture[str]) -> None:
    from twentynine.cli.main import main

    assert main(["bench", "rl", "--seconds", "0.05", "--runs", "1", "--profile", "bhoos"]) == 0
    out = capsys.readouterr().out
    for loop in ("engine", "aec", "openspiel"):
        assert loop in out
    assert "steps/s" in out and "target 30,000/s" in out


def test_the_documented_tensor_layout_is_the_real_one() -> None:
    import re
    from pathlib import Path

    from twentynine.rl.encoding import OFFSETS, SLICES

    doc = (Path(__file__).resolve().parent.parent / "docs" / "research.md").read_text()
    for name, size, _ in SLICES:
        start = OFFSETS[name][0]
        entries = f"{start}–{start + size - 1}" if size > 1 else str(start)
        row = re.search(rf"\| `{name}` \| ([^|]+) \|", doc)
        assert row is not None, f"slice {name} is not documented"
        assert row.group(1).strip() == entries, name
    assert f"{TENSOR_SIZE} float32 entries" in doc
