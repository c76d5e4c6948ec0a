"""The OpenSpiel game: OpenSpiel's random-simulation test, hidden information kept
hidden, worlds resampled for ISMCTS, and OpenSpiel's ISMCTS bot playing it."""

from __future__ import annotations

import random

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import ismcts, mcts

from twentynine import PROFILES, resolve
from twentynine.rl.encoding import NUM_ACTIONS, TENSOR_SIZE
from twentynine.rl.openspiel import (
    OBSERVATION_SIZE,
    SHORT_NAME,
    game_of,
    options_text,
)

VARIANTS = [(profile, "") for profile in sorted(PROFILES)] + [
    ("pagat", "seventh_card:yes;single_hand:3;doubling:yes;allow_set:yes;under_half:yes"),
    ("bhoos", "seventh_card:yes;pair:standard;early_end:yes"),
    ("modern", "auto_double_from=20,double_by=either"),
]


def random_state(game: object, rng: random.Random, stop: int) -> object:
    """A decision node ``stop`` decisions into a random deal (or its end)."""
    state = game.new_initial_state()  # type: ignore[attr-defined]
    decisions = 0
    while not state.is_terminal() and (state.is_chance_node() or decisions < stop):
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
            decisions += 1
    return state


@pytest.mark.parametrize(("profile", "options"), VARIANTS)
@pytest.mark.parametrize("returns", ["points", "difference"])
def test_openspiel_random_simulation_test_passes(profile: str, options: str, returns: str) -> None:
    game = pyspiel.load_game(
        SHORT_NAME, {"profile": profile, "options": options, "returns": returns}
    )
    pyspiel.random_sim_test(game, num_sims=4, serialize=True, verbose=False)


def test_game_string_round_trips_with_its_options() -> None:
    rules = resolve("pagat", {"seventh_card": "yes", "min_bid": "16"})
    game = game_of(rules, dealer=2)
    again = pyspiel.load_game(str(game))
    assert again.rules == rules
    assert options_text(rules) in str(game)
    assert game.num_distinct_actions() == NUM_ACTIONS
    assert game.information_state_tensor_shape() == [TENSOR_SIZE]
    assert game.observation_tensor_shape() == [OBSERVATION_SIZE]
    assert game.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    zero = game_of(rules, returns="difference")
    assert zero.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM


@pytest.mark.parametrize(
    "params",
    [{"profile": "poker"}, {"options": "min_bid:40"}, {"dealer": 5}, {"returns": "money"}],
)
def test_bad_parameters_are_refused_clearly(params: dict[str, object]) -> None:
    with pytest.raises(Exception, match=r"python_twentynine|profile|min_bid|dealer|returns"):
        pyspiel.load_game(SHORT_NAME, params)


def test_returns_are_the_game_points_of_each_team() -> None:
    game = game_of(PROFILES["arcade"])
    rng = random.Random(5)
    for _ in range(20):
        state = random_state(game, rng, 10_000)
        delta = state.core.deal.delta
        assert state.returns() == [float(delta[s & 1]) for s in range(4)]


def test_an_illegal_action_is_refused_and_changes_nothing() -> None:
    game = game_of(PROFILES["pagat"])
    state = random_state(game, random.Random(1), 0)
    before = (state.history(), state.information_state_string(), state.legal_actions())
    with pytest.raises(Exception, match="cannot play"):
        state.apply_action(0 if 0 not in state.legal_actions() else 1)
    assert (state.history(), state.information_state_string(), state.legal_actions()) == before


def test_information_state_hides_the_others_cards() -> None:
    """Two deals that differ only in seat 1's and seat 3's cards look the same to seat 0
    and seat 2 until something is played."""
    game = game_of(PROFILES["pagat"])
    rng = random.Random(3)
    a = random_state(game, rng, 0)
    cards = list(a.core.cards)
    # Cards 1 and 3 of each round go to seats 1 and 3 when seat 0 deals clockwise.
    swapped = cards[:]
    for k in range(0, 32, 4):
        swapped[k + 0], swapped[k + 2] = cards[k + 2], cards[k + 0]
    b = game.new_initial_state()
    for c in swapped:
        b.apply_action(c)
    for player in (0, 2):
        assert a.information_state_string(player) == b.information_state_string(player)
        assert np.array_equal(
            a.information_state_tensor(player), b.information_state_tensor(player)
        )
        assert a.observation_string(player) == b.observation_string(player)
    assert a.information_state_string(1) != b.information_state_string(1)


@pytest.mark.parametrize(("profile", "options"), VARIANTS)
def test_resampled_worlds_keep_the_information_state_and_vary_the_rest(
    profile: str, options: str
) -> None:
    game = pyspiel.load_game(SHORT_NAME, {"profile": profile, "options": options})
    rng = random.Random(11)
    varied = 0
    for stop in (2, 8, 20, 30):
        state = random_state(game, rng, stop)
        if state.is_terminal():
            continue
        player = state.current_player()
        sampler = lambda: rng.random()  # noqa: E731
        for _ in range(3):
            world = state.resample_from_infostate(player, sampler)
            assert world.information_state_string(player) == state.information_state_string(player)
            assert world.current_player() == player
            assert world.legal_actions() == state.legal_actions()
            varied += world.core.cards != state.core.cards
    assert varied > 0


def test_openspiel_ismcts_bot_plays_a_deal_against_random_players() -> None:
    game = game_of(PROFILES["pagat"])
    rs = np.random.RandomState(7)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=8, random_state=rs)
    state = game.new_initial_state()
    searched = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rs.randint(len(outcomes))][0])
        elif state.current_player() in (0, 2):
            legal = state.legal_actions()
            action = bot.step(state)
            assert action in legal
            state.apply_action(action)
            searched += len(legal) > 1
        else:
            state.apply_action(rs.choice(state.legal_actions()))
    assert searched > 0
    assert all(abs(r) <= game.max_utility() for r in state.returns())
