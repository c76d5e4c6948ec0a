"""The auction rollout: a call judged by the rest of the auction played out per world."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from test_expert import contract_bot, hands_with_first

from twentynine.bots import contract, make_bot
from twentynine.bots.bidding import default_model
from twentynine.bots.contract import ContractJudge
from twentynine.bots.expert import ExpertBot
from twentynine.bots.rollout import AuctionRollout, rollout_bid, world_deal
from twentynine.game.actions import BID, PASS, Action
from twentynine.game.cards import FULL_DECK, mask_of
from twentynine.game.dealing import deal_hands
from twentynine.game.engine import AUCTION, SEVENTH_CARD_INDEX, Deal
from twentynine.game.observation import Observation, observe_deal
from twentynine.game.rules import PROFILES, parse_assignments, resolve

ROLLOUT = "expert[auction_rollout=1]"


def _duel_challenged(seed: int = 8) -> Deal:
    """A duel auction where the opener defends 16 against the next seat's 17."""
    deal = Deal(PROFILES["bhoos"], 3, deal_hands(seed, 3, PROFILES["bhoos"].clockwise))
    opener = deal.to_act
    deal.apply(Action.bid(opener, 16))
    deal.apply(Action.bid(deal.to_act, 17))
    assert deal.to_act == opener
    return deal


def test_a_world_is_dealt_with_the_seats_own_cards_and_the_auction_replayed():
    deal = _duel_challenged()
    obs = observe_deal(deal, deal.to_act)
    judge = ContractJudge(obs, default_model(), random.Random(3), 10)
    for world in judge.worlds:
        replayed = world_deal(obs, world)
        assert replayed.auction == deal.auction
        assert replayed.to_act == obs.seat and replayed.phase == AUCTION
        assert replayed.legal_actions() == deal.legal_actions()
        own = replayed.hands[obs.seat]
        assert list(own[:4]) == list(obs.hand[:4])
        assert own[SEVENTH_CARD_INDEX] == world.seventh
        assert sum(mask_of(h) for h in replayed.hands) == FULL_DECK
        for seat in range(4):
            assert mask_of(replayed.hands[seat]) == world.hands[seat]
            assert mask_of(replayed.hands[seat][:4]) == world.first[seat]


def test_a_defender_answers_a_challenge_by_matching_it_or_passing():
    deal = _duel_challenged()
    obs = observe_deal(deal, deal.to_act)
    action = rollout_bid(obs, default_model(), random.Random(1), 8, 0.1)
    assert action in obs.legal
    assert action.kind == PASS or action == Action.bid(obs.seat, 17)


def _all_results(monkeypatch: pytest.MonkeyPatch, result: int) -> None:
    monkeypatch.setattr(
        contract.ContractJudge, "result", lambda self, i, bidder, trump, bid: result
    )


def test_when_every_contract_fails_passing_is_worth_the_others_failure(monkeypatch):
    """Whoever ends up holding the contract fails: the seat's pass leaves it to the
    others (worth their stake to the seat's side), its bid may be left to it."""
    _all_results(monkeypatch, -1)
    deal = _duel_challenged()
    obs = observe_deal(deal, deal.to_act)
    judge = ContractJudge(obs, default_model(), random.Random(2), 12)
    rollout = AuctionRollout(obs, default_model(), judge)
    matching, passing = rollout.values(0, [Action.bid(obs.seat, 17), Action.pass_(obs.seat)])
    assert passing > 0 > matching or passing > matching
    assert rollout_bid(obs, default_model(), random.Random(2), 12, 0.1).kind == PASS


def test_when_every_contract_makes_the_seat_keeps_bidding(monkeypatch):
    _all_results(monkeypatch, 1)
    deal = _duel_challenged()
    obs = observe_deal(deal, deal.to_act)
    judge = ContractJudge(obs, default_model(), random.Random(2), 12)
    rollout = AuctionRollout(obs, default_model(), judge)
    matching, passing = rollout.values(0, [Action.bid(obs.seat, 17), Action.pass_(obs.seat)])
    # passing hands the challenger its 17, which makes: the seat's side loses its stake
    assert passing < 0
    assert matching > passing
    assert rollout_bid(obs, default_model(), random.Random(2), 12, 0.1).kind == BID


def test_a_redealt_auction_is_worth_nothing(monkeypatch):
    """With ``all_pass=redeal`` four passes redeal: the last seat, everyone else having
    passed and every contract failing, passes too."""
    _all_results(monkeypatch, -1)
    rules = resolve("bhoos", parse_assignments(["all_pass=redeal"]))
    deal = Deal(rules, 3, deal_hands(8, 3, rules.clockwise))
    for _ in range(3):
        deal.apply(Action.pass_(deal.to_act))
    obs = observe_deal(deal, deal.to_act)
    judge = ContractJudge(obs, default_model(), random.Random(2), 6)
    rollout = AuctionRollout(obs, default_model(), judge)
    bidding, passing = rollout.values(0, [Action.bid(obs.seat, 16), Action.pass_(obs.seat)])
    assert passing == 0.0 and bidding < 0


@pytest.mark.parametrize("profile", ["pagat", "bhoos"])
def test_the_rollout_expert_bids_a_strong_first_batch_and_passes_a_weak_one(profile):
    """Under ``bhoos`` the duel's opener passes the weak batch once opening must beat
    passing by 0.1: at the shipped margins (-0.15 in all there) it may open it, since
    bidding and passing are worth about the same (the rollout's others overcall it and
    it passes then; the arena figures in docs/bots.md are of that gamble)."""
    rules = PROFILES[profile]
    dealer = 3 if rules.clockwise else 1  # North speaks first
    strong = Deal(rules, dealer, hands_with_first(["JS", "9S", "AS", "JH"], 1))
    weak = Deal(rules, dealer, hands_with_first(["7S", "8H", "7D", "8C"], 1))
    spec = "expert[auction_rollout=1,duel_opening_margin=0,rollout_margin=0]"
    assert contract_bot(spec, 5).act(observe_deal(strong, 0)).kind == BID
    assert contract_bot(spec, 5).act(observe_deal(weak, 0)).kind == PASS


def auction_twins(profile: str, seeds: range) -> Iterator[tuple[Observation, Observation]]:
    """Pairs of auctions a seat sees alike: a few calls in, then first- and second-batch
    cards of two other seats exchanged (cards it has not seen)."""
    rules = PROFILES[profile]
    for seed in seeds:
        deal = Deal(rules, seed % 4, deal_hands(seed, seed % 4, rules.clockwise))
        driver = [make_bot("casual", seed=s) for s in range(4)]
        for _ in range(seed % 3):
            if deal.phase != AUCTION:
                break
            deal.apply(driver[deal.to_act].act(observe_deal(deal, deal.to_act)))
        if deal.phase != AUCTION:
            continue
        seat = deal.to_act
        hands = [list(h) for h in deal.hands]
        others = [s for s in range(4) if s != seat]
        a, b = others[0], others[1 + seed % 2]
        hands[a][0], hands[b][0] = hands[b][0], hands[a][0]  # first-batch cards, unseen
        hands[a][5], hands[b][6] = hands[b][6], hands[a][5]  # second-batch cards
        twin = Deal(rules, deal.dealer, hands)
        for action in deal.log:
            twin.apply(action)
        obs, twin_obs = observe_deal(deal, seat), observe_deal(twin, seat)
        assert obs == twin_obs
        yield obs, twin_obs


# More worlds while a call is in doubt (``contract.MoreWorlds``); a high ``z``: always
MORE = "expert[auction_worlds=6,auction_worlds_max=18,auction_z=9]"
# The seat's suit in each world chosen on the other worlds (``held_out_suit``)
HELD = "expert[held_out_suit=1,auction_worlds=12]"


@pytest.mark.parametrize("spec", [ROLLOUT, MORE, HELD])
@pytest.mark.parametrize("profile", ["pagat", "bhoos"])
def test_the_rollout_reads_no_hidden_card(profile, spec):
    """Two auctions the seat sees alike, with the other seats' cards exchanged, get the
    same call (played out, or with more worlds dealt while the call is in doubt)."""
    checked = 0
    for obs, twin_obs in auction_twins(profile, range(12)):
        assert contract_bot(spec, 41).act(obs) == contract_bot(spec, 41).act(twin_obs)
        checked += 1
    assert checked >= 8


def test_the_rollout_is_the_experts_in_the_duel_auction_and_a_switch_elsewhere(monkeypatch):
    """By default the rollout judges the expert's calls in the duel auction only."""
    assert not ExpertBot.auction_rollout and ExpertBot.duel_rollout
    assert {"auction_rollout", "duel_rollout", "rollout_margin"} <= set(ExpertBot.knobs)
    from twentynine.bots import expert

    used: list[str] = []
    monkeypatch.setattr(
        expert, "rollout_bid", lambda obs, *a, **k: used.append(obs.rules.auction) or obs.legal[0]
    )
    for profile, spec, uses in [
        ("bhoos", "expert", True),
        ("pagat", "expert", False),
        ("pagat", ROLLOUT, True),
        ("bhoos", "expert[duel_rollout=0]", False),
    ]:
        rules = PROFILES[profile]
        deal = Deal(rules, 3, deal_hands(8, 3, rules.clockwise))
        used.clear()
        contract_bot(spec, 1).act(observe_deal(deal, deal.to_act))
        assert bool(used) == uses, (profile, spec)
