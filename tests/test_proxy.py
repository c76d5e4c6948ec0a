"""The proxy of a contract's solved result, and the control variate it makes."""

from __future__ import annotations

import random
import statistics

import pytest

from twentynine.bots import contract, make_bot
from twentynine.bots.bidding import default_model
from twentynine.bots.contract import ContractJudge
from twentynine.bots.expert import ExpertBot
from twentynine.bots.proxy import COEFFICIENTS, features, proxy
from twentynine.game.cards import mask_of, parse_cards
from twentynine.game.dealing import deal_hands
from twentynine.game.engine import Deal
from twentynine.game.observation import observe_deal
from twentynine.game.rules import PROFILES

HEARTS = 1  # suits in the engine's order: spades, hearts, diamonds, clubs


def hands_of(*texts: str) -> tuple[int, int, int, int]:
    masks = [mask_of(parse_cards(t.split())) for t in texts]
    return masks[0], masks[1], masks[2], masks[3]


def test_the_features_count_the_bidding_sides_cards() -> None:
    hands = hands_of(
        "JH 9H AH 7H JC 8C 7C QD",
        "TH KH 8D 7D QC KC 9D AD",
        "QH 8H JS 9S 7S TC AC TD",
        "JD KD AS TS KS QS 8S 9C",
    )
    trump = HEARTS
    f = features(hands, 0, trump)
    # seat 0 and its partner seat 2 hold J 9 A Q 8 7 of hearts: six trumps, 6 points
    assert f[0] == 6 and f[1] == 6
    assert f[3:6] == (1.0, 1.0, 1.0)  # the trump jack, nine and ace
    assert f[6] == 3  # jacks: JH, JC, JS
    assert f[9] == 2  # an opponent's longest trump holding: T K of hearts
    assert f[10] == 4  # the bidder's own trumps
    assert len(f) == len(COEFFICIENTS)
    # the ten and king of trumps moved from an opponent to the partner score higher
    swapped = hands_of(
        "JH 9H AH 7H JC 8C 7C QD",
        "QH 8H 8D 7D QC KC 9D AD",
        "TH KH JS 9S 7S TC AC TD",
        "JD KD AS TS KS QS 8S 9C",
    )
    assert proxy(swapped, 0, trump) > proxy(hands, 0, trump)


def _opening(profile: str = "pagat", seed: int = 4) -> tuple[Deal, int]:
    deal = Deal(PROFILES[profile], 0, deal_hands(seed, 0))
    return deal, deal.to_act


def test_a_constant_proxy_leaves_the_plain_mean(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(contract, "proxy", lambda hands, bidder, trump: 0.7)
    deal, seat = _opening()
    obs = observe_deal(deal, seat)
    model = default_model()
    plain = ContractJudge(obs, model, random.Random(3), 10)
    steady = ContractJudge(obs, model, random.Random(3), 10, control=50)
    assert plain.worlds == steady.worlds
    assert steady.expected(seat, 15, lambda i: HEARTS) == pytest.approx(
        plain.expected(seat, 15, lambda i: HEARTS)
    )
    assert len(steady.cheap_worlds()) == 50


def test_the_proxy_steadies_a_bids_value_without_moving_it() -> None:
    """Over 12 draws of 12 worlds the controlled value of an opening bid spreads less than
    the plain one and agrees with it on average."""
    deal, seat = _opening()
    obs = observe_deal(deal, seat)
    model = default_model()
    plain, steady = [], []
    for seed in range(12):
        for control, out in ((0, plain), (300, steady)):
            judge = ContractJudge(obs, model, random.Random(seed), 12, control=control)
            suit, _value = judge.best_suit(15)
            out.append(judge.expected(seat, 15, lambda i, s=suit: s))
    assert statistics.stdev(steady) < statistics.stdev(plain)
    assert abs(statistics.mean(steady) - statistics.mean(plain)) < 0.25


def test_the_knob_reaches_the_bid_and_the_trump(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []
    real = ContractJudge.__init__

    def spy(self: ContractJudge, *args: object, **kwargs: object) -> None:
        real(self, *args, **kwargs)  # type: ignore[arg-type]
        seen.append(self.control)

    monkeypatch.setattr(ContractJudge, "__init__", spy)
    bot = make_bot("expert[control_worlds=60]")
    assert isinstance(bot, ExpertBot) and bot.control_worlds == 60
    deal, seat = _opening()
    bot.act(observe_deal(deal, seat))
    assert seen and set(seen) == {60}
    assert make_bot("expert").control_worlds == 0  # type: ignore[attr-defined]
