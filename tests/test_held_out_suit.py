"""A bid valued with the suit the other half of the worlds chose
(``ContractJudge.held_out_suits``, the expert's ``held_out_suit``): the best
suit's mean over the worlds that chose it is flattered by their luck, the
held-out mean is not. That the worlds read no hidden card is the judge's own
honesty test (``test_rollout``); this only changes which suit a world's
contract is solved with."""

from __future__ import annotations

import random

import pytest
from test_expert import contract_bot, hands_with_first

from twentynine.bots import contract, expert
from twentynine.bots.bidding import default_model
from twentynine.bots.contract import ContractJudge, simulated_bid
from twentynine.bots.rollout import AuctionRollout, rollout_bid
from twentynine.game.actions import BID, PASS, TRUMP, Action
from twentynine.game.dealing import deal_hands
from twentynine.game.engine import Deal
from twentynine.game.observation import Observation, observe_deal
from twentynine.game.rules import PROFILES

# Suit 0 makes in worlds 0, 2 and 3; suit 1 in worlds 1 and 3; suits 2 and 3 nowhere.
# Over all four worlds suit 0 is best, +0.5. Chosen on the odd worlds (1, 3) the best
# is suit 1, which fails in the even worlds 0 and 2; chosen on the even ones it is suit 0,
# which fails in world 1 and makes in world 3: held out, -0.5.
TABLE = {0: [1.0, -1.0, 1.0, 1.0], 1: [-1.0, 1.0, -1.0, 1.0], 2: [-1.0] * 4, 3: [-1.0] * 4}


def _opening(profile: str = "pagat", first: list[str] | None = None) -> Observation:
    rules = PROFILES[profile]
    hands = hands_with_first(first, 2) if first else deal_hands(5, 3, rules.clockwise)
    deal = Deal(rules, 3, hands)
    return observe_deal(deal, deal.to_act)


def _tabled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every suit worth solving, with results from ``TABLE`` by world and suit."""
    monkeypatch.setattr(contract, "SUIT_WINDOW", 99.0)
    monkeypatch.setattr(
        ContractJudge, "result", lambda self, i, bidder, trump, bid: TABLE[trump][i]
    )


def test_each_half_of_the_worlds_names_the_suit_the_other_half_chose(monkeypatch):
    _tabled(monkeypatch)
    obs = _opening()
    judge = ContractJudge(obs, default_model(), random.Random(1), 4, weigh_calls=False)
    assert judge.best_suit(15) == (0, 0.5)
    trump_of = judge.held_out_suits(15)
    assert [trump_of(i) for i in range(4)] == [1, 0, 1, 0]
    assert trump_of(4) == 0  # past the solved worlds (a proxy's): the best of all
    results = judge.results(obs.seat, 15, trump_of)
    assert results == [-1.0, -1.0, -1.0, 1.0]
    assert judge.mean(obs.seat, results, trump_of) == -0.5


def test_a_bid_its_suits_luck_carried_is_passed_with_the_suit_held_out(monkeypatch):
    _tabled(monkeypatch)
    obs = _opening()
    model = default_model()

    def call(held_out: bool) -> str:
        rng = random.Random(1)
        return simulated_bid(obs, model, rng, 4, 0.1, weigh_calls=False, held_out=held_out).kind

    assert call(False) == BID  # +0.5 against passing, 0 (nobody has bid)
    assert call(True) == PASS  # -0.5


def test_the_rollout_solves_each_world_with_its_held_out_suit(monkeypatch):
    _tabled(monkeypatch)
    obs = _opening("bhoos")
    judge = ContractJudge(obs, default_model(), random.Random(1), 4, weigh_calls=False)
    named: dict[int, int] = {}

    def finish(self, i, world, deal):
        named[i] = self.suit
        return 0.0

    monkeypatch.setattr(AuctionRollout, "_finish", finish)
    roll = AuctionRollout(obs, default_model(), judge)
    calls = [next(a for a in obs.legal if a.kind == BID), Action.pass_(obs.seat)]
    roll.world_values(judge.held_out_suits(16), calls)
    assert named == {0: 1, 1: 0, 2: 1, 3: 0}
    named.clear()
    roll.world_values(2, calls)  # one suit for every world, as before
    assert set(named.values()) == {2}
    passes = rollout_bid(obs, default_model(), random.Random(1), 4, 0.1, held_out=True)
    assert passes.kind == PASS  # every call worth 0 here: nothing beats the margin


@pytest.mark.parametrize("seed", range(6))
def test_the_held_out_value_is_never_above_the_best_suits(seed):
    """Solved for real: each half's own choice does at least as well on it as the
    other half's, so the held-out mean is at most the chosen-on-all mean."""
    first = [["JD", "9D", "JC", "9C"], ["JS", "AS", "9H", "TH"], ["7D", "8C", "JH", "9H"]]
    obs = _opening(first=first[seed % 3])
    judge = ContractJudge(obs, default_model(), random.Random(seed), 10)
    suit, value = judge.best_suit(16)
    trump_of = judge.held_out_suits(16)
    held = judge.mean(obs.seat, judge.results(obs.seat, 16, trump_of), trump_of)
    assert held <= value + 1e-9
    ranked = [s for _, s in judge.ranked_suits(16)]
    assert {trump_of(i) for i in range(10)} <= set(ranked)
    if len(ranked) == 1:
        assert {trump_of(i) for i in range(10)} == {suit}


def test_the_expert_asks_for_held_out_suits_only_with_the_knob(monkeypatch):
    seen: list[bool] = []

    def judged(obs, model, rng, worlds, *args, held_out=False, **kw):
        seen.append(held_out)
        return next(a for a in obs.legal if a.kind in (BID, TRUMP))

    monkeypatch.setattr(expert, "simulated_bid", judged)
    monkeypatch.setattr(expert, "rollout_bid", judged)
    assert expert.ExpertBot.held_out_suit is False  # off by default
    for profile in ("pagat", "bhoos"):
        obs = _opening(profile)
        seen.clear()
        contract_bot("expert", 1).act(obs)
        contract_bot("expert[held_out_suit=1]", 1).act(obs)
        assert seen == [False, True], profile
