"""Table signals for bots: bots only signal the truth, and read others' signals carefully.

Random games are played with casual bots; at each card play the honest
signal a bot would attach is checked against the cards it holds, and the
drops the expert would read are checked against what the other seats
really hold (a true drop is read; a lie that the cards contradict is not).
"""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from twentynine.bots import make_bot
from twentynine.bots.expert import ExpertBot
from twentynine.bots.knowledge import analyse
from twentynine.bots.signals import (
    DROP,
    SLAM,
    choose_signal,
    consistent_drops,
    drops,
    slammed_suit,
)
from twentynine.game.actions import PLAY
from twentynine.game.dealing import deal_hands
from twentynine.game.engine import OVER, Deal
from twentynine.game.observation import observe_deal
from twentynine.game.rules import PROFILES


def deal_for(seed: int) -> Deal:
    rules = PROFILES["pagat"]
    dealer = seed % 4
    return Deal(rules, dealer, deal_hands(seed, dealer, rules.clockwise))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32))
def test_bots_signal_only_the_truth(seed: int) -> None:
    deal = deal_for(seed)
    bots = [make_bot("casual", seed=seed + s) for s in range(4)]
    signals: list[tuple[int, int, str]] = []
    while deal.phase != OVER:
        seat = deal.to_act
        obs = observe_deal(deal, seat)
        action = bots[seat].act(obs)
        signal = choose_signal(obs, action)
        if signal is not None:
            assert action.kind == PLAY and action.value is not None
            suit = action.value >> 3
            rest = [c for c in obs.hand if c != action.value]
            if signal == DROP:
                assert not any(c >> 3 == suit for c in rest), "a drop while holding the suit"
                assert obs.trick and obs.trick[0][1] >> 3 == suit  # only when following
            else:
                assert signal == SLAM and not obs.trick  # only on a lead
                assert any(c >> 3 == suit for c in rest)
            signals.append((seat, action.value, signal))
        deal.apply(action)
    # no drop was ever followed by a card of that suit from the same seat
    public = observe_deal(deal, None)
    order = [(s, c) for t in public.tricks for s, c in zip(t[2], t[1], strict=True)]
    for seat, card, kind in signals:
        if kind == DROP:
            at = order.index((seat, card))
            assert not any(s == seat and c >> 3 == card >> 3 for s, c in order[at + 1 :])


def play_to_trick(seed: int, tricks: int) -> Deal:
    deal = deal_for(seed)
    bots = [make_bot("casual", seed=seed + s) for s in range(4)]
    while deal.phase != OVER:
        obs = observe_deal(deal, deal.to_act)
        if len(obs.tricks) >= tricks and not obs.trick:
            return deal
        deal.apply(bots[deal.to_act].act(obs))
    return deal


@pytest.mark.parametrize("seed", range(12))
def test_true_drops_are_read_and_contradicted_ones_are_not(seed: int) -> None:
    deal = play_to_trick(seed, 3)
    if deal.phase == OVER:
        pytest.skip("this deal ended early")
    me = deal.to_act
    obs = observe_deal(deal, me)
    know = analyse(obs)
    assert obs.tricks
    # pretend an opponent signalled a drop with each card it played
    other = (me + 1) % 4
    order = [(s, c) for t in obs.tricks for s, c in zip(t[2], t[1], strict=True)]
    for at, (seat, card) in enumerate(order):
        if seat != other:
            continue
        fake = dataclasses.replace(obs, signals=((other, card, DROP),))
        denied = any(s == other and c >> 3 == card >> 3 for s, c in order[at + 1 :])
        assert drops(fake) == ([] if denied else [(other, card >> 3)])
        if not denied:
            voids = consistent_drops(know, drops(fake))
            truly_void = not any(
                c >> 3 == card >> 3 and c not in deal_played(deal) for c in deal.hands[other]
            )
            if truly_void:  # a true drop always fits the cards, so it is read
                assert voids[other] >> (card >> 3) & 1
    # my own signals never count as information about others
    mine = dataclasses.replace(obs, signals=((me, 0, DROP),))
    assert drops(mine) == []


def deal_played(deal: Deal) -> set[int]:
    obs = observe_deal(deal, None)
    out = {c for t in obs.tricks for c in t[1]}
    out.update(c for _s, c in obs.trick)
    return out


def test_a_drop_that_leaves_cards_nowhere_is_ignored() -> None:
    deal = play_to_trick(5, 5)
    me = deal.to_act
    obs = observe_deal(deal, me)
    know = analyse(obs)
    # every other seat claims to be void in every suit: impossible, so not all can stand
    claims = [(s, u) for s in range(4) if s != me for u in range(4)]
    voids = consistent_drops(know, claims)
    for s in range(4):
        if s != me and know.counts[s] > 0:
            assert voids[s] != 0b1111, "a seat with cards was made void in every suit"


def test_a_slam_asks_the_partner_to_lead_that_suit_back() -> None:
    for seed in range(40):
        deal = play_to_trick(seed, 1)
        if deal.phase == OVER:
            continue
        leader = deal.to_act
        obs = observe_deal(deal, leader)
        partner = (leader + 2) % 4
        suit_cards = {}
        for c in obs.hand:
            suit_cards.setdefault(c >> 3, []).append(c)
        # a slam from the partner in a suit this seat holds
        for suit in suit_cards:
            fake = dataclasses.replace(obs, signals=((partner, suit * 8, SLAM),))
            assert slammed_suit(fake) == suit
            action = make_bot("casual", seed=1).act(fake)
            if action.kind == PLAY:
                assert action.value is not None and action.value >> 3 == suit
            return
    pytest.fail("no position found")


def test_the_expert_reads_drops_through_its_knowledge() -> None:
    deal = play_to_trick(3, 2)
    me = deal.to_act
    obs = observe_deal(deal, me)
    other = (me + 1) % 4
    card = next(c for t in obs.tricks for s, c in zip(t[2], t[1], strict=True) if s == other)
    fake = dataclasses.replace(obs, signals=((other, card, DROP),))
    bot = ExpertBot(seed=1)
    plain = bot.knowledge(obs, random.Random(1))
    read = bot.knowledge(fake, random.Random(1))
    assert plain.voids[other] >> (card >> 3) & 1 == 0 or plain.voids == read.voids
    if drops(fake):
        assert read.voids[other] >> (card >> 3) & 1 or read.voids == plain.voids
