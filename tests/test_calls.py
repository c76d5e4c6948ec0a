"""The others' calls read closely, by the model bidders' rule (``bots/calls.py``)."""

from __future__ import annotations

import math
import random
from dataclasses import replace

import pytest

from twentynine.bots import make_bot
from twentynine.bots.bidding import PARTNER_NEED, default_model, place_of
from twentynine.bots.calls import Call, CallReading, public_calls, rule_likelihood
from twentynine.bots.contract import ContractJudge
from twentynine.bots.expert import ExpertBot
from twentynine.bots.expert_v1 import ExpertV1Bot
from twentynine.bots.knowledge import analyse
from twentynine.game.actions import Action
from twentynine.game.cards import mask_of
from twentynine.game.dealing import deal_hands
from twentynine.game.engine import AUCTION, PLAYING, Deal
from twentynine.game.observation import observe_deal
from twentynine.game.rules import PROFILES


def _auction(profile: str, seed: int, level: str = "strong") -> Deal:
    rules = PROFILES[profile]
    deal = Deal(rules, seed % 4, deal_hands(seed, seed % 4, rules.clockwise))
    bots = [make_bot(level, seed=s) for s in range(4)]
    while deal.phase == AUCTION:
        deal.apply(bots[deal.to_act].act(observe_deal(deal, deal.to_act)))
    return deal


def test_a_pass_declines_the_lowest_bid_the_seat_could_make_then() -> None:
    pagat = PROFILES["pagat"]
    deal = Deal(pagat, 3, deal_hands(1, 3))
    first = deal.to_act
    deal.apply(Action.pass_(first))  # nothing stands: it declined the lowest bid, 15
    second = deal.to_act
    deal.apply(Action.bid(second, 17))
    third = deal.to_act
    deal.apply(Action.pass_(third))  # it declined 18
    fourth = deal.to_act
    deal.apply(Action.pass_(fourth))  # over its partner's 17: the rule asks for more
    calls = public_calls(observe_deal(deal, deal.to_act))
    assert calls == [
        Call(first, 15, False, 0.5),
        Call(second, 17, True, 0.5),
        Call(third, 18, False, 0.5),
        Call(fourth, 18, False, 0.5 + PARTNER_NEED),
    ]


def test_in_the_duel_auction_a_defender_s_pass_declines_the_match() -> None:
    bhoos = PROFILES["bhoos"]
    deal = Deal(bhoos, 3, deal_hands(8, 3, bhoos.clockwise))
    opener = deal.to_act
    deal.apply(Action.bid(opener, 16))
    challenger = deal.to_act
    deal.apply(Action.bid(challenger, 18))
    assert deal.to_act == opener
    deal.apply(Action.pass_(opener))
    calls = public_calls(observe_deal(deal, deal.to_act))
    assert calls[-1] == Call(opener, 18, False, 0.5)  # the match, not 19


@pytest.mark.parametrize("profile", ["pagat", "bhoos"])
def test_the_rule_explains_the_model_bidders_calls_better_than_the_loose_reading(profile):
    """``strong`` bids by the rule: with its true first batch every seat's calls are
    likely (several calls near the line each cost a little), and more likely than the
    loose reading makes them."""
    model = default_model()
    rule_log = loose_log = 0.0
    seats = 0
    for seed in range(24):
        deal = _auction(profile, seed)
        obs = observe_deal(deal, 0)
        reading = CallReading(obs, model)
        calls = public_calls(obs)
        for seat, loose_call in reading.loose.items():
            first = mask_of(deal.hands[seat][:4])
            mine = [c for c in calls if c.seat == seat]
            rule = rule_likelihood(model, first, mine, obs.rules, place_of(obs, seat))
            assert rule > 0.25, (seed, seat, mine)
            rule_log += math.log(rule)
            loose = model.auction_likelihood(first, loose_call, obs.rules, place_of(obs, seat))
            loose_log += math.log(loose)
            seats += 1
    assert seats > 50
    assert rule_log > loose_log + 0.1 * seats


def test_without_the_close_share_a_world_weighs_what_it_did() -> None:
    """``close_calls`` 0 is the loose reading, weight for weight: the judge's worlds
    and the expert's play weights are ``expert-v1``'s."""
    deal = _auction("pagat", 5)
    obs = observe_deal(deal, deal.to_act)
    model = default_model()
    judge = ContractJudge(obs, model, random.Random(2), 20)
    assert judge.weights == ContractJudge(obs, model, random.Random(2), 20, close_calls=0.0).weights
    reading = CallReading(obs, model)
    assert reading.rule_calls == {}
    for world, w in zip(judge.worlds, judge.weights, strict=True):
        assert reading.weight(world.first) == w


def test_the_close_reading_weighs_down_worlds_the_opponents_calls_rule_out() -> None:
    """An opponent that passed with a first batch the rule would have bid holds it
    in few of the closely weighed worlds."""
    model = default_model()
    for seed in range(40):
        deal = _auction("pagat", seed)
        obs = observe_deal(deal, deal.to_act if deal.phase == AUCTION else 0)
        seat = obs.seat
        assert seat is not None
        opponents = [c for c in public_calls(obs) if c.seat & 1 != seat & 1]
        if any(not c.bid for c in opponents):
            break
    else:
        pytest.fail("no auction with an opponent's pass")
    loose = ContractJudge(obs, model, random.Random(4), 200)
    close = ContractJudge(obs, model, random.Random(4), 200, close_calls=0.9)
    assert loose.worlds == close.worlds
    reading = CallReading(obs, model, 0.9)
    # the worlds that break the rule for some opponent
    broken = [
        i
        for i, world in enumerate(close.worlds)
        if any(
            rule_likelihood(model, world.first[s], calls, obs.rules, place_of(obs, s)) < 0.01
            for s, calls in reading.rule_calls.items()
        )
    ]
    assert broken

    def share(judge: ContractJudge) -> float:
        return sum(judge.weights[i] for i in broken) / sum(judge.weights)

    assert share(close) < 0.5 * share(loose)


def test_the_expert_reads_the_calls_closely_in_play_only_with_the_knob() -> None:
    deal = _auction("pagat", 3)
    assert deal.phase != AUCTION
    bots = [make_bot("strong", seed=s) for s in range(4)]
    while deal.phase != PLAYING:
        deal.apply(bots[deal.to_act].act(observe_deal(deal, deal.to_act)))
    obs = observe_deal(deal, deal.to_act)
    plain = ExpertBot(seed=1)
    close = make_bot("expert[close_calls=0.8]", seed=1)
    assert isinstance(close, ExpertBot) and close.close_calls == 0.8
    v1 = ExpertV1Bot(seed=1)
    know = analyse(obs)
    rng = random.Random(6)
    differ = 0
    for _ in range(30):
        world = plain.sample(obs, know, rng)
        base = plain.weight(obs, know, world)
        assert base == v1.weight(obs, know, world)
        reading = CallReading(obs, default_model(), 0.8)
        assert world.first is not None
        expected = base / CallReading(obs, default_model()).weight(world.first)
        expected *= reading.weight(world.first)
        assert close.weight(obs, know, world) == pytest.approx(expected, rel=1e-9)
        differ += close.weight(obs, know, world) != pytest.approx(base)
    assert differ


def test_an_auction_the_rules_do_not_allow_is_read_up_to_its_first_wrong_call() -> None:
    deal = _auction("pagat", 2)
    obs = observe_deal(deal, 0)
    assert obs.auction
    broken = replace(obs, auction=((obs.auction[0][0], 10), *obs.auction))  # below 15
    assert public_calls(broken) == []
    CallReading(broken, default_model(), 0.8).weight((0, 0, 0, 0))  # no error either
