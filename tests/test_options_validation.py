"""The validation of rules (unknown options and profiles, values out of range,
the profiles' option table), then the handling of illegal actions: a clear
message, and the state exactly as it was.
"""

from __future__ import annotations

import pytest
from helpers import NO_VOID_HANDS, NO_VOID_TRICKS, act, new_deal, play_tricks, rules_of, snapshot

from twentynine.game.actions import Action
from twentynine.game.cards import parse_card
from twentynine.game.engine import Deal, IllegalAction
from twentynine.game.match import Match
from twentynine.game.rules import RulesError, resolve

# ===========================================================================
# rules validation


@pytest.mark.parametrize(
    ("profile", "options", "message"),
    [
        ("pagat", {"min_bids": 16}, r"unknown option 'min_bids' \(did you mean min_bid\?\)"),
        ("pagat", {"colour": "red"}, r"unknown option 'colour'"),
        (
            "classic",
            {},
            r"unknown profile 'classic'; profiles are: pagat, arcade, bangladesh, modern, bhoos",
        ),
        (
            "pagat",
            {"direction": "left"},
            r"option direction takes one of clockwise, anticlockwise, not 'left'",
        ),
        ("pagat", {"auction": "english"}, r"option auction takes one of open, duel"),
        ("pagat", {"pair": "double"}, r"option pair takes one of off, standard, bangladesh"),
        ("pagat", {"seventh_card": "maybe"}, r"option seventh_card takes yes or no, not 'maybe'"),
        ("pagat", {"min_bid": "x"}, r"option min_bid takes a whole number"),
        ("pagat", {"min_bid": 20, "max_bid": 18}, r"min_bid 20 is above max_bid 18"),
        ("pagat", {"max_bid": 29}, r"max_bid 29 is above 28 without the last-trick point"),
        (
            "modern",
            {"last_trick_point": False},
            r"max_bid 29 is above 28 without the last-trick point",
        ),
        ("modern", {"max_bid": 30}, r"max_bid 30 is above 29"),
    ],
)
def test_rules_validation_refuses_with_a_clear_message(
    profile: str, options: dict[str, object], message: str
) -> None:
    with pytest.raises(RulesError, match=message):
        resolve(profile, options)


def test_rules_max_bid_29_with_last_trick_point_is_accepted() -> None:
    rules = resolve("pagat", {"max_bid": 29, "last_trick_point": "yes"})
    assert (rules.max_bid, rules.last_trick_point) == (29, True)


@pytest.mark.parametrize(
    ("value", "stake"), [("yes", 3), (True, 3), ("no", False), (False, False), (5, 5), ("4", 4)]
)
def test_rules_single_hand_yes_means_3(value: object, stake: object) -> None:
    assert resolve("pagat", {"single_hand": value}).single_hand == stake


@pytest.mark.parametrize("profile", ["pagat", "arcade", "bangladesh", "bhoos"])
def test_rules_doubling_switched_on_gives_double_by_either_and_no_set(profile: str) -> None:
    rules = resolve(profile, {"doubling": "yes"})
    assert (rules.doubling, rules.double_by, rules.allow_set) == (True, "either", False)


def test_rules_doubling_keeps_explicit_double_by_and_modern_keeps_its_own() -> None:
    assert (
        resolve("pagat", {"doubling": True, "double_by": "bidder_right"}).double_by
        == "bidder_right"
    )
    assert resolve("modern", {"doubling": True}).double_by == "bidder_right"


PROFILE_TABLE = {
    # option: (pagat, arcade, bangladesh, modern, bhoos), RULES.md section 4
    "direction": ("clockwise", "clockwise", "anticlockwise", "anticlockwise", "anticlockwise"),
    "min_bid": (15, 16, 16, 16, 16),
    "max_bid": (28, 28, 28, 29, 28),
    "auction": ("open", "open", "duel", "open", "duel"),
    "all_pass": (
        "dealer_forced",
        "dealer_forced",
        "dealer_forced",
        "first_forced",
        "dealer_forced",
    ),
    "reveal": ("auto", "auto", "auto", "auto", "ask"),
    "seventh_card": (False,) * 5,
    "single_hand": (False,) * 5,
    "doubling": (False, False, False, True, False),
    "pair": ("standard", "off", "bangladesh", "standard", "off"),
    "last_trick_point": (False, False, False, True, False),
    "unrevealed": ("cancel", "score", "cancel", "score", "score"),
    "under_half": (False,) * 5,
    "auto_double_from": (None,) * 5,
    "early_end": (False, False, False, True, False),
    "match_target": (6, None, 6, 6, 6),
}


@pytest.mark.parametrize(
    ("index", "profile"), list(enumerate(["pagat", "arcade", "bangladesh", "modern", "bhoos"]))
)
def test_rules_profiles_match_the_table(index: int, profile: str) -> None:
    rules = resolve(profile)
    for option, values in PROFILE_TABLE.items():
        assert getattr(rules, option) == values[index], option
    if profile == "modern":
        assert (rules.double_by, rules.allow_set) == ("bidder_right", False)


def test_rules_every_option_can_be_set_over_a_profile() -> None:
    rules = resolve(
        "pagat",
        {
            "min_bid": 16,
            "seventh_card": "yes",
            "single_hand": 3,
            "doubling": "yes",
            "under_half": "yes",
            "auto_double_from": 21,
        },
    )
    assert (rules.min_bid, rules.seventh_card, rules.single_hand) == (16, True, 3)
    assert (rules.doubling, rules.under_half, rules.auto_double_from) == (True, True, 21)
    assert rules.direction == "clockwise"


# ===========================================================================
# illegal actions: a clear message, and the state exactly as it was


def _playing_deal() -> Deal:
    deal = new_deal(NO_VOID_HANDS, dealer=3)
    act(deal, "S:16 W:pass N:pass E:pass S:trump=H S:JH")
    return deal


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (Action.play(3, parse_card("8H")), "it is seat 1's turn, not seat 3's"),
        (Action.play(1, parse_card("AS")), "seat 1 must follow hearts"),
        (Action.play(1, parse_card("KH")), "seat 1 does not hold KH"),
        (Action.bid(1, 17), "seat 1 cannot bid now: cards are being played"),
        (Action.pass_(1), "seat 1 cannot pass now"),
        (Action.flag(1, "pair"), "seat 1 cannot pair now"),
    ],
)
def test_illegal_action_in_play_is_refused_and_changes_nothing(
    action: Action, message: str
) -> None:
    deal = _playing_deal()
    before = snapshot(deal)
    with pytest.raises(IllegalAction, match=message):
        deal.apply(action)
    assert snapshot(deal) == before
    act(deal, "W:AH")  # and the deal goes on


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (Action.bid(2, 16), "it is seat 1's turn, not seat 2's"),
        (Action.play(1, parse_card("AS")), "seat 1 cannot play a card now: the auction is on"),
        (Action.trump(1, 0), "seat 1 cannot trump now"),
        (Action.bid(1, 15), "bid 15 does not beat the standing bid 15"),
    ],
)
def test_illegal_action_in_the_auction_is_refused_and_changes_nothing(
    action: Action, message: str
) -> None:
    deal = new_deal(NO_VOID_HANDS, dealer=3)
    act(deal, "S:15")
    before = snapshot(deal)
    with pytest.raises(IllegalAction, match=message):
        deal.apply(action)
    assert snapshot(deal) == before


def test_illegal_action_after_the_deal_is_over() -> None:
    deal = new_deal(NO_VOID_HANDS, dealer=3)
    act(deal, "S:16 W:pass N:pass E:pass S:trump=H")
    play_tricks(deal, NO_VOID_TRICKS)
    before = snapshot(deal)
    with pytest.raises(IllegalAction, match="the deal is over"):
        deal.apply(Action.play(0, parse_card("JS")))
    assert snapshot(deal) == before


def test_illegal_action_in_a_match_leaves_the_match_as_it_was() -> None:
    match = Match(rules_of("pagat"), hands=NO_VOID_HANDS, dealer=3)
    act(match, "S:16 W:pass N:pass E:pass S:trump=H S:JH")
    before = (snapshot(match.deal), match.score[:], match.winner, match.to_act)
    with pytest.raises(IllegalAction, match="seat 1 must follow hearts"):
        match.apply(Action.play(1, parse_card("TS")))
    assert (snapshot(match.deal), match.score[:], match.winner, match.to_act) == before
