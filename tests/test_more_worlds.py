"""More worlds for a call in doubt (``contract.MoreWorlds``), and the play's budget
scaled (``play_scale``): two ways for the expert to spend more of its time where
its worlds leave a decision open. That more worlds read no hidden card is
checked with the rollout's honesty test (``test_rollout``)."""

from __future__ import annotations

import random

import pytest
from test_expert import contract_bot, deterministic, hands_with_first

from twentynine.bots import expert, make_bot
from twentynine.bots.bidding import default_model
from twentynine.bots.contract import ContractJudge, MoreWorlds, simulated_bid, simulated_trump
from twentynine.bots.expert import ExpertBot
from twentynine.bots.rollout import AuctionRollout, rollout_bid
from twentynine.bots.search import StrongBot
from twentynine.game.actions import BID, PLAY, TRUMP, Action
from twentynine.game.dealing import deal_hands
from twentynine.game.engine import OVER, Deal
from twentynine.game.observation import Observation, observe_deal
from twentynine.game.rules import PROFILES


def test_a_mean_far_from_the_margin_is_settled_and_one_near_it_is_not():
    more = MoreWorlds(most=200, z=2.0)
    ones = [1.0] * 40
    assert more.settled(ones, ones, 0.1)  # every world says bid: no doubt at all
    split = [1.0, -1.0] * 20  # mean 0, standard error 1/sqrt(40) = 0.16
    assert not more.settled(split, ones, 0.1)  # 0.1 away: under 2 errors
    assert more.settled(split, ones, 0.4)  # 0.4 away: 2.5 errors
    assert more.settled(split * 3, [1.0] * 120, 0.4)
    assert more.settled(split * 3, [1.0] * 120, 0.25)  # 120 worlds: the error is 0.09
    assert not more.settled(split * 3, [1.0] * 120, 0.15)
    assert more.settled(split, [0.0] * 40, 0.1)  # no weight: nothing to learn
    assert MoreWorlds(most=40).settled(split, ones, 0.0)  # enough worlds whatever the doubt
    # weights count as the mean's does: a heavy world's value is most of the evidence
    assert more.settled([1.0, -1.0, -1.0], [100.0, 0.01, 0.01], 0.1)
    assert more.more(30) == 20 and more.more(190) == 10


def _pagat_opening() -> Observation:
    deal = Deal(PROFILES["pagat"], 3, deal_hands(5, 3))
    return observe_deal(deal, deal.to_act)


def _trump_turn(first: list[str]) -> Observation:
    """North names trumps for its 16, held with ``first`` as its first batch (pagat)."""
    deal = Deal(PROFILES["pagat"], 3, hands_with_first(first, 2))
    deal.apply(Action.bid(0, 16))
    for seat in (1, 2, 3):
        deal.apply(Action.pass_(seat))
    return observe_deal(deal, 0)


def _counting_extend(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    asked: list[int] = []
    plain = ContractJudge.extend

    def extend(self, worlds):
        asked.append(worlds)
        plain(self, worlds)

    monkeypatch.setattr(ContractJudge, "extend", extend)
    return asked


@pytest.mark.parametrize("judge", ["simulated", "rollout"])
def test_a_call_in_doubt_gets_more_worlds_up_to_the_most_and_a_clear_one_none(monkeypatch, judge):
    """The worlds' results are set: half made and half failed puts a bid's worth
    at the margin (more worlds until the most), all made puts it far above."""
    asked = _counting_extend(monkeypatch)
    verdict: list[float] = []

    def results(self, bidder, bid, trump_of):
        return [verdict[i % len(verdict)] for i in range(len(self.worlds))]

    def world_values(self, suit, calls):  # bidding worth the verdict, passing nothing
        return [[verdict[i % len(verdict)], 0.0] for i in range(len(self.judge.worlds))]

    monkeypatch.setattr(ContractJudge, "results", results)
    monkeypatch.setattr(AuctionRollout, "world_values", world_values)
    obs = _pagat_opening()
    model = default_model()

    def call(more: MoreWorlds | None) -> Action:
        asked.clear()
        if judge == "simulated":
            return simulated_bid(obs, model, random.Random(1), 10, 0.0, more=more)
        return rollout_bid(obs, model, random.Random(1), 10, 0.0, more=more)

    verdict[:] = [1.0, -1.0]
    call(MoreWorlds(most=50, z=1.5, step=10))
    assert asked == [10] * 5  # 10 dealt, then 10 at a time until 50
    call(None)
    assert asked == [10]  # no ``more``: the first worlds decide, as before
    verdict[:] = [1.0]
    assert call(MoreWorlds(most=50, z=1.5, step=10)).kind == BID
    assert asked == [10]  # clear at once


def test_a_trump_in_doubt_gets_more_worlds_and_a_clear_one_none(monkeypatch):
    """The best suit's lead over the next is what is in doubt: the same results for
    every suit (no lead at all) deal worlds until the most, one suit that always
    makes and the others that never do deal none."""
    asked = _counting_extend(monkeypatch)
    clear: list[int | None] = [None]

    def results(self, bidder, bid, trump_of):
        if clear[0] is None:
            return [(-1.0) ** i for i in range(len(self.worlds))]
        return [1.0 if trump_of(i) == clear[0] else -1.0 for i in range(len(self.worlds))]

    monkeypatch.setattr(ContractJudge, "results", results)
    obs = _trump_turn(["JD", "9D", "JC", "9C"])
    model = default_model()
    assert len(ContractJudge(obs, model, random.Random(1), 4).ranked_suits(16)) >= 2
    asked.clear()
    simulated_trump(obs, model, random.Random(1), 8, more=MoreWorlds(most=24, step=8))
    assert asked == [8, 8, 8]
    asked.clear()
    clear[0] = 2
    chosen = simulated_trump(obs, model, random.Random(1), 8, more=MoreWorlds(most=24, step=8))
    assert chosen == Action.trump(0, 2) and asked == [8]


def test_more_worlds_change_nothing_but_the_count_of_worlds(monkeypatch):
    """With ``most`` equal to the first worlds, the call is the call without ``more``;
    the worlds added are dealt after the first ones, which stay as they were."""
    obs = _pagat_opening()
    model = default_model()
    calls_plain = [simulated_bid(obs, model, random.Random(s), 8, 0.1) for s in range(3)]
    same = MoreWorlds(most=8)
    assert [simulated_bid(obs, model, random.Random(s), 8, 0.1, more=same) for s in range(3)] == (
        calls_plain
    )
    judge = ContractJudge(obs, model, random.Random(4), 6)
    first = list(judge.worlds)
    judge.extend(5)
    assert judge.worlds[:6] == first and len(judge.worlds) == len(judge.weights) == 11
    assert ContractJudge(obs, model, random.Random(4), 11).worlds == judge.worlds


def test_the_rollout_plays_out_each_world_once_however_many_are_added(monkeypatch):
    obs = _pagat_opening()
    judge = ContractJudge(obs, default_model(), random.Random(2), 6)
    played: list[int] = []
    monkeypatch.setattr(AuctionRollout, "_finish", lambda self, i, w, d: played.append(i) or 0.0)
    roll = AuctionRollout(obs, default_model(), judge)
    calls = [Action.bid(obs.seat, 15), Action.pass_(obs.seat)]
    roll.world_values(0, calls)
    assert sorted(played) == sorted(list(range(6)) * 2)
    judge.extend(3)
    played.clear()
    assert len(roll.world_values(0, calls)) == 9
    assert sorted(played) == sorted([6, 7, 8] * 2)


def test_the_expert_hands_its_calls_more_worlds_only_when_asked(monkeypatch):
    seen: list[MoreWorlds | None] = []

    def judged(obs, model, rng, worlds, *args, more=None, **kw):
        seen.append(more)
        return next(a for a in obs.legal if a.kind in (BID, TRUMP))

    monkeypatch.setattr(expert, "simulated_bid", judged)
    monkeypatch.setattr(expert, "rollout_bid", judged)
    monkeypatch.setattr(expert, "simulated_trump", judged)
    assert ExpertBot.auction_worlds_max == 0  # off by default
    for profile in ("pagat", "bhoos"):
        rules = PROFILES[profile]
        deal = Deal(rules, 3, deal_hands(4, 3, rules.clockwise))
        obs = observe_deal(deal, deal.to_act)
        seen.clear()
        contract_bot("expert", 1).act(obs)
        assert seen == [None], profile
        seen.clear()
        contract_bot("expert[auction_worlds_max=120,auction_z=2]", 1).act(obs)
        assert seen == [MoreWorlds(120, 2.0, 20)], profile
        seen.clear()
        # half the budget: half the worlds, and half as many more
        deterministic("expert[auction_worlds_max=120]", 1, ExpertBot.default_budget / 2).act(obs)
        assert seen == [MoreWorlds(60, 1.5, 10)], profile
    seen.clear()
    contract_bot("expert[auction_worlds_max=80]", 3).act(_trump_turn(["JD", "9D", "7D", "AC"]))
    assert seen == [MoreWorlds(80, 1.5, 20)]  # the trump as well


def test_play_scale_multiplies_the_levels_own_play_budget_and_keeps_to_a_clock(monkeypatch):
    budgets: list[float | None] = []

    def play(self, obs, rng, budget):  # the budget the search would have
        budgets.append(budget)
        return next(a for a in obs.legal if a.kind == PLAY)

    monkeypatch.setattr(StrongBot, "play", play)
    rules = PROFILES["pagat"]
    deal = Deal(rules, 0, deal_hands(3, 0))
    driver = [make_bot("casual", seed=s) for s in range(4)]
    while deal.phase not in ("play", OVER):
        deal.apply(driver[deal.to_act].act(observe_deal(deal, deal.to_act)))
    assert deal.phase == "play"
    obs = observe_deal(deal, deal.to_act)
    own = make_bot("expert[play_scale=3]", seed=2)  # the level's own time
    own.act(obs)
    assert budgets == [pytest.approx(3 * ExpertBot.default_budget)]
    budgets.clear()
    make_bot("expert", seed=2).act(obs)
    assert budgets == [pytest.approx(ExpertBot.default_budget)]
    budgets.clear()
    # a clock's share, given to the bot or to one decision, is kept to
    deterministic("expert[play_scale=3]", 2, 0.02).act(obs)
    own.act(obs, budget=0.03)
    assert budgets == [pytest.approx(0.02), pytest.approx(0.03)]
    budgets.clear()
    own.act(obs)
    assert budgets == [pytest.approx(3 * ExpertBot.default_budget)]
    assert "play_scale" in ExpertBot.knobs
    assert isinstance(make_bot("expert[play_scale=2.5]"), ExpertBot)
