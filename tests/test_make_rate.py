"""A contract's worlds valued by the chance of making it at the table (``MakeRate``)."""

from __future__ import annotations

import random

import pytest

from twentynine.bots import make_bot
from twentynine.bots.bidding import default_model
from twentynine.bots.contract import (
    COMFORTABLE,
    NEAR_MISS,
    ContractJudge,
    MakeRate,
    contract_goal,
    opening_position,
    shifted,
)
from twentynine.bots.solving import solver
from twentynine.game.actions import BID
from twentynine.game.dealing import deal_hands
from twentynine.game.engine import AUCTION, Deal
from twentynine.game.observation import observe_deal
from twentynine.game.rules import PROFILES

SOFT = "expert[soft_contract=1]"


def _opening(seed: int, profile: str = "pagat") -> Deal:
    rules = PROFILES[profile]
    return Deal(rules, seed % 4, deal_hands(seed, seed % 4, rules.clockwise))


def test_a_shifted_goal_moves_every_target_it_has():
    goal = contract_goal(PROFILES["pagat"], 1, 18)
    up = shifted(goal, 3)
    assert up.team == goal.team
    assert up.target == goal.target + 3
    assert up.target_own_pair == goal.target_own_pair + 3
    assert up.target_their_pair == goal.target_their_pair + 3
    bare = contract_goal(PROFILES["bhoos"], 0, 17)
    assert shifted(bare, -2).target == bare.target - 2


@pytest.mark.parametrize("profile", ["pagat", "bhoos"])
def test_each_world_is_valued_by_the_range_of_its_exact_margin(profile):
    deal = _opening(21, profile)
    obs = observe_deal(deal, deal.to_act)
    rate = MakeRate()
    judge = ContractJudge(obs, default_model(), random.Random(4), 12, make_rate=rate)
    seen = set()
    for index, world in enumerate(judge.worlds):
        for trump in (0, 2):
            bid = 17
            pos = opening_position(obs.rules, obs.dealer, world.hands, trump)
            margin = solver().exact(pos, contract_goal(obs.rules, obs.seat, bid)).margin
            if margin is None:
                expected = 0.0
            elif margin >= COMFORTABLE:
                expected = rate.comfortable
            elif margin >= 0:
                expected = rate.thin
            elif margin >= NEAR_MISS:
                expected = rate.near_miss
            else:
                expected = rate.missed
            seen.add(expected)
            assert judge.result(index, obs.seat, trump, bid) == expected
    # the worlds of a deal fall in more than one range: the value is not made or failed
    assert len(seen) >= 3


def test_the_ranges_are_ordered_and_within_a_result():
    rate = MakeRate()
    assert 1 >= rate.comfortable > rate.thin > 0 > rate.near_miss > rate.missed >= -1


def test_the_soft_expert_bids_and_names_trumps_legally_and_repeatably():
    deal = _opening(41)
    bot = make_bot(SOFT, seed=5)
    while deal.phase == AUCTION:
        obs = observe_deal(deal, deal.to_act)
        action = bot.act(obs)
        if not deal.auction:  # one seed and one observation: one call, whoever asks
            assert make_bot(SOFT, seed=5).act(obs) == action
        assert action in obs.legal
        deal.apply(action)
    if deal.bidder >= 0:
        obs = observe_deal(deal, deal.to_act)
        action = bot.act(obs)
        assert action in obs.legal
        assert action.kind != BID
