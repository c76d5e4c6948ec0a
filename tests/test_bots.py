"""Bots: legal play everywhere, determinism, and honesty."""

from __future__ import annotations

import random

import pytest
from helpers import swap_hidden_cards
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from twentynine.bots import BASELINES, LEVELS, make_bot
from twentynine.bots.heuristic import certain_single_hand
from twentynine.game.actions import Action
from twentynine.game.cards import parse_card, parse_cards
from twentynine.game.dealing import deal_hands
from twentynine.game.engine import OVER, Deal
from twentynine.game.observation import observe_deal
from twentynine.game.rules import PROFILES, resolve

FAST_LEVELS = ["random", "novice", "casual"]
ALL_OPTIONS = {
    "seventh_card": True,
    "single_hand": 3,
    "doubling": True,
    "allow_set": True,
    "under_half": True,
    "early_end": True,
}


def deterministic(level: str, seed: int, budget: float | None = None):
    bot = make_bot(level, seed=seed, budget=budget)
    bot.wall_guard = None  # only the node budget limits the search: fully repeatable
    return bot


def play_deal(rules, seed: int, levels: list[str], bot_seed: int = 0) -> Deal:
    dealer = seed % 4
    deal = Deal(rules, dealer, deal_hands(seed, dealer, rules.clockwise))
    bots = [deterministic(levels[s], bot_seed + s, budget=0.02) for s in range(4)]
    steps = 0
    while deal.phase != OVER:
        seat = deal.to_act
        obs = observe_deal(deal, seat)
        action = bots[seat].act(obs)
        assert action in deal.legal_actions()
        deal.apply(action)
        steps += 1
        assert steps < 200
    return deal


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    profile=st.sampled_from(sorted(PROFILES)),
    extras=st.booleans(),
    seed=st.integers(0, 2**32),
    levels=st.lists(st.sampled_from(FAST_LEVELS), min_size=4, max_size=4),
)
def test_every_bot_plays_only_legal_actions_in_every_profile(profile, extras, seed, levels):
    rules = resolve(profile, ALL_OPTIONS if extras else {})
    deal = play_deal(rules, seed, levels)
    assert deal.is_over()


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    profile=st.sampled_from(sorted(PROFILES)),
    extras=st.booleans(),
    seed=st.integers(0, 2**32),
    level=st.sampled_from(["strong", "expert"]),
)
def test_search_bots_play_only_legal_actions_in_every_profile(profile, extras, seed, level):
    rules = resolve(profile, ALL_OPTIONS if extras else {})
    deal = play_deal(rules, seed, [level, "casual", level, "casual"])
    assert deal.is_over()


@pytest.mark.parametrize("level", [*FAST_LEVELS, "strong", "expert"])
def test_same_seed_same_observation_same_action(level):
    rules = PROFILES["pagat"]
    deal = Deal(rules, 0, deal_hands(5, 0))
    obs = observe_deal(deal, deal.to_act)
    a = deterministic(level, 11, 0.02).act(obs)
    for _ in range(3):
        assert deterministic(level, 11, 0.02).act(obs) == a


@pytest.mark.parametrize(
    "level",
    [
        *FAST_LEVELS,
        "strong",
        "expert",
        "expert[read_plays=1]",
        "expert[close_calls=0.8]",
        "expert[alphamu=3,alphamu_from=3]",
    ],
)
@pytest.mark.parametrize("profile", ["pagat", "bhoos", "modern"])
def test_bot_is_honest_hidden_cards_do_not_change_its_action(level, profile):
    """Two deals that give a seat the same observation get the same action."""
    rules = PROFILES[profile]
    rng = random.Random(3)
    checked = 0
    for seed in range(40):
        deal = Deal(rules, seed % 4, deal_hands(seed, seed % 4, rules.clockwise))
        driver = [make_bot("casual", seed=s) for s in range(4)]
        stop = rng.randrange(3, 30)
        for _ in range(stop):
            if deal.phase == OVER:
                break
            deal.apply(driver[deal.to_act].act(observe_deal(deal, deal.to_act)))
        if deal.phase == OVER or deal.phase == "pair":
            continue
        seat = deal.to_act
        hands = swap_hidden_cards(deal, seat, rng)
        if hands is None:
            continue
        twin = Deal(rules, deal.dealer, hands)
        for action in deal.log:
            twin.apply(action)
        assert twin.held != deal.held  # the hidden cards really differ
        obs, twin_obs = observe_deal(deal, seat), observe_deal(twin, seat)
        assert obs == twin_obs
        bot = deterministic(level, 99, 0.01)
        assert bot.act(obs) == deterministic(level, 99, 0.01).act(twin_obs)
        checked += 1
    assert checked >= 10


def test_certain_single_hand_only_with_unbroken_top_runs():
    def hand(text: str) -> int:
        return sum(1 << c for c in parse_cards(text))

    assert certain_single_hand(hand("JS 9S AS JH 9H JD JC 9C"))
    assert not certain_single_hand(hand("JS 9S TS JH 9H JD JC 9C"))  # the ace is missing
    assert not certain_single_hand(hand("9S AS TS KS QS 8S 7S JH"))  # the jack of spades is out


def test_casual_feeds_points_to_a_partner_who_wins_the_trick():
    # North leads the jack of hearts (the top heart); East follows; South holds
    # the ace and the seven of hearts and gives its partner the ace.
    rules = PROFILES["pagat"]
    hands = [
        parse_cards("AH 7H 8S 7S 7D 8D 7C 8C"),
        parse_cards("QH 9S AS TS KS QS 9D AD"),
        parse_cards("JH 9H TH JS JD TD KD QD"),
        parse_cards("KH 8H JC 9C AC TC KC QC"),
    ]
    deal = Deal(rules, 1, hands)  # West deals, North speaks and leads first
    for seat in (2, 3, 0, 1):
        deal.apply(Action.bid(2, 15) if seat == 2 else Action.pass_(seat))
    deal.apply(Action.trump(2, 1))
    deal.apply(Action.play(2, parse_card("JH")))
    deal.apply(Action.play(3, parse_card("8H")))
    action = make_bot("casual").act(observe_deal(deal, 0))
    assert action == Action.play(0, parse_card("AH"))


def test_levels_are_registered():
    assert set(LEVELS) == {"random", "novice", "casual", "strong", "expert", "expert-v1"}
    assert set(BASELINES) <= set(LEVELS)


def test_characters_name_every_level_and_build_bots():
    from twentynine.bots.characters import CHARACTERS, character

    assert {c.level for c in CHARACTERS} == set(LEVELS) - set(BASELINES)
    assert len({c.id for c in CHARACTERS}) == len(CHARACTERS)
    for c in CHARACTERS:
        assert c.name and c.blurb
        assert c.make(seed=1).level == c.level
    with pytest.raises(ValueError, match="unknown character"):
        character("nobody")


def test_bots_benchmark_cold_start_reports_the_first_expert_decision():
    from twentynine.benchmarks import bots

    (wall, ready, first) = bots.cold_start(runs=1)[0]
    assert 0 < first <= ready <= wall


def test_bots_benchmark_runs_on_a_tiny_input(capsys):
    from twentynine.benchmarks import bots

    assert bots.main(["--levels", "casual,strong", "--deals", "1", "--no-cold"]) == 0
    out = capsys.readouterr().out
    assert "casual" in out and "strong" in out and "p95" in out


def test_bidding_model_builder_runs_on_a_tiny_input_and_its_output_loads(tmp_path):
    import json

    from twentynine.bots.bidding import FEATURES, BiddingModel
    from twentynine.bots.bidding_build import main as build

    out = tmp_path / "bidding.json"
    assert build(["--deals", "4", "--jobs", "1", "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["features"] == list(FEATURES)
    model = BiddingModel(tuple(data["coefficients"]), tuple(data["spread"]), "fitted")
    hand = sum(1 << c for c in parse_cards("JS 9S AS TS"))
    assert 0.0 <= model.make_probability(hand, 0, 0, 16) <= 1.0


def test_bidding_model_prefers_the_suit_with_jack_and_nine():
    from twentynine.bots.bidding import default_model

    model = default_model()
    hand = sum(1 << c for c in parse_cards("JH 9H 7H 8C"))
    suit, value = model.best_trump(hand, 0)
    assert suit == 1
    weak = sum(1 << c for c in parse_cards("7S 8H QD KC"))
    assert value > model.best_trump(weak, 0)[1]
    assert model.make_probability(hand, 1, 0, 16) > model.make_probability(weak, 0, 0, 16)
