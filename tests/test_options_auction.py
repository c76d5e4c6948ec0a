"""The order of play and auction options of RULES.md section 4 (with the
clarifications of section 8): direction (who speaks, plays and deals next),
min_bid and max_bid, the open and the duel auction, and all_pass, proved on
exact deals driven through the engine.
"""

from __future__ import annotations

import pytest
from helpers import (
    NO_VOID_HANDS,
    NO_VOID_TRICKS,
    act,
    new_deal,
    one_suit_hands,
    play_tricks,
    rules_of,
    snapshot,
)
from options_helpers import legal_texts, turns

from twentynine.game.actions import Action
from twentynine.game.engine import IllegalAction
from twentynine.game.match import Match
from twentynine.game.observation import observe_deal

# ===========================================================================
# direction


def test_direction_clockwise_first_speaker_is_next_of_dealer_and_turns_go_up() -> None:
    deal = new_deal(NO_VOID_HANDS, dealer=2, profile="pagat")
    assert deal.to_act == 3
    assert turns(deal, "E:pass S:pass W:pass") == [0, 1, 2]
    # dealer_forced: the dealer (North) is the bidder without speaking.
    assert (deal.bidder, deal.bid, deal.forced) == (2, 15, True)


def test_direction_anticlockwise_first_speaker_is_dealers_right_and_turns_go_down() -> None:
    deal = new_deal(NO_VOID_HANDS, dealer=2, profile="modern")
    assert deal.to_act == 1
    assert turns(deal, "W:pass S:pass E:pass N:pass") == [0, 3, 2, 1]
    # first_forced: after four passes the first speaker (West) bids 16.
    assert (deal.bidder, deal.bid, deal.forced) == (1, 16, True)


def test_direction_clockwise_play_order() -> None:
    deal = new_deal(NO_VOID_HANDS, dealer=3)
    act(deal, "S:16 W:pass N:pass E:pass S:trump=H")
    assert deal.to_act == 0
    assert turns(deal, "S:JS W:AS N:KS E:8S") == [1, 2, 3, 0]


def test_direction_anticlockwise_play_order() -> None:
    # modern, dealer West: South speaks and leads first, then East, North, West.
    deal = new_deal(one_suit_hands(0), dealer=1, profile="modern")
    act(deal, "S:16 E:pass N:pass W:pass S:trump=S E:pass")
    assert deal.to_act == 0
    assert turns(deal, "S:7S E:7C N:7D W:7H") == [3, 2, 1, 0]


@pytest.mark.parametrize(
    ("profile", "expected"), [("pagat", [0, 1, 2, 3, 0]), ("modern", [0, 3, 2, 1, 0])]
)
def test_direction_match_passes_the_deal_to_next_of_dealer(
    profile: str, expected: list[int]
) -> None:
    match = Match(rules_of(profile, all_pass="redeal"), hands=NO_VOID_HANDS, dealer=0)
    dealers = [match.deal.dealer]
    for _ in range(4):
        deal = match.deal
        first = deal.to_act
        for _ in range(4):  # four passes: the deal is void and passes on
            match.apply(Action.pass_(match.to_act))
        assert deal.result == "cancelled"
        assert first == (deal.dealer + (1 if profile == "pagat" else 3)) % 4
        assert match.needs_deal
        match.start_deal(NO_VOID_HANDS)
        dealers.append(match.deal.dealer)
    assert dealers == expected


def test_direction_match_refuses_a_deal_by_the_wrong_dealer() -> None:
    match = Match(rules_of("pagat", all_pass="redeal"), hands=NO_VOID_HANDS, dealer=0)
    act(match, "W:pass N:pass E:pass S:pass")
    with pytest.raises(IllegalAction, match="the dealer must be seat 1, not seat 2"):
        match.start_deal(NO_VOID_HANDS, dealer=2)


def test_cancelled_deal_by_hidden_trumps_still_passes_the_deal_on() -> None:
    match = Match(rules_of("pagat"), hands=NO_VOID_HANDS, dealer=3)
    act(match, "S:16 W:pass N:pass E:pass S:trump=H")
    play_tricks(match, NO_VOID_TRICKS)
    assert match.deal.result == "cancelled"
    assert match.next_dealer == 0
    assert match.start_deal(NO_VOID_HANDS).dealer == 0


# ===========================================================================
# min_bid / max_bid


@pytest.mark.parametrize(
    ("profile", "low", "message"),
    [
        ("pagat", 14, "bid 14 is below the minimum 15"),
        ("arcade", 15, "bid 15 is below the minimum 16"),
        ("modern", 15, "bid 15 is below the minimum 16"),
    ],
)
def test_min_bid_a_bid_below_the_minimum_is_refused(profile: str, low: int, message: str) -> None:
    deal = new_deal(NO_VOID_HANDS, dealer=0, profile=profile)
    seat = deal.to_act
    assert f"{low}" not in legal_texts(deal)
    assert f"{low + 1}" in legal_texts(deal)
    with pytest.raises(IllegalAction, match=message):
        deal.apply(Action.bid(seat, low))


@pytest.mark.parametrize(
    ("profile", "high", "message"),
    [
        ("pagat", 29, "bid 29 is above the maximum 28"),
        ("modern", 30, "bid 30 is above the maximum 29"),
    ],
)
def test_max_bid_a_bid_above_the_maximum_is_refused(profile: str, high: int, message: str) -> None:
    deal = new_deal(NO_VOID_HANDS, dealer=0, profile=profile)
    assert str(high - 1) in legal_texts(deal)
    assert str(high) not in legal_texts(deal)
    with pytest.raises(IllegalAction, match=message):
        deal.apply(Action.bid(deal.to_act, high))


@pytest.mark.parametrize(
    ("profile", "options", "top"),
    [("pagat", {}, 28), ("pagat", {"max_bid": 20}, 20), ("modern", {}, 29)],
)
def test_max_bid_ends_the_open_auction_at_once(
    profile: str, options: dict[str, int], top: int
) -> None:
    deal = new_deal(NO_VOID_HANDS, dealer=0, profile=profile, **options)
    seat = deal.to_act
    deal.apply(Action.bid(seat, top))
    assert deal.phase == "trump"
    assert (deal.bidder, deal.bid, deal.to_act) == (seat, top, seat)


def test_min_bid_is_the_forced_bid() -> None:
    deal = new_deal(NO_VOID_HANDS, dealer=0, min_bid=17)
    act(deal, "W:pass N:pass E:pass")
    assert (deal.bidder, deal.bid, deal.forced) == (0, 17, True)
    assert deal.verdict()["target"] == 17


# ===========================================================================
# auction: open


def test_open_auction_a_seat_that_passed_may_bid_later() -> None:
    deal = new_deal(NO_VOID_HANDS, dealer=3)
    act(deal, "S:pass W:16 N:pass E:pass")
    assert deal.phase == "auction" and deal.to_act == 0
    assert "17" in legal_texts(deal)
    act(deal, "S:17 W:pass N:pass E:pass")
    assert (deal.bidder, deal.bid) == (0, 17)


def test_open_auction_ends_only_after_three_passes_in_a_row_following_a_bid() -> None:
    deal = new_deal(NO_VOID_HANDS, dealer=3)
    act(deal, "S:16 W:pass N:pass")
    assert deal.phase == "auction"
    assert deal.to_act == 3
    act(deal, "E:18 S:pass W:pass")  # a new bid starts the count again
    assert deal.phase == "auction"
    act(deal, "N:pass")
    assert deal.phase == "trump"
    assert (deal.bidder, deal.bid, deal.forced) == (3, 18, False)


def test_open_auction_a_bid_must_beat_the_standing_bid_even_partners() -> None:
    deal = new_deal(NO_VOID_HANDS, dealer=3)
    act(deal, "S:16 W:pass")
    with pytest.raises(IllegalAction, match="bid 16 does not beat the standing bid 16"):
        deal.apply(Action.bid(2, 16))
    act(deal, "N:17")  # North may outbid its partner
    assert deal.high_bidder == 2


# ===========================================================================
# auction: duel (BHOOS.md). bhoos is anticlockwise; with dealer South (0) the
# order is A1 = East (3), B1 = North (2), A2 = West (1), B2 = South (0).


def test_duel_bhoos_sample_a1_wins_at_17() -> None:
    deal = new_deal(NO_VOID_HANDS, dealer=0, profile="bhoos")
    assert deal.to_act == 3
    # A1 16, B1 17, A1 17 (match), B1 pass, A2 pass, B2 pass
    assert turns(deal, "E:16 N:17 E:17 N:pass W:pass") == [2, 3, 2, 1, 0]
    act(deal, "S:pass")
    assert deal.phase == "trump"
    assert (deal.bidder, deal.bid, deal.to_act) == (3, 17, 3)


def test_duel_the_defender_may_only_match_or_pass() -> None:
    deal = new_deal(NO_VOID_HANDS, dealer=0, profile="bhoos")
    act(deal, "E:16 N:17")
    assert deal.to_act == 3
    assert legal_texts(deal) == {"pass", "17"}
    before = snapshot(deal)
    with pytest.raises(IllegalAction, match="seat 3 defends and may only match 17 or pass"):
        deal.apply(Action.bid(3, 18))
    assert snapshot(deal) == before


def test_duel_the_challenger_must_go_above_a_matched_bid() -> None:
    deal = new_deal(NO_VOID_HANDS, dealer=0, profile="bhoos")
    act(deal, "E:16 N:17 E:17")
    assert deal.to_act == 2
    bids = {int(t) for t in legal_texts(deal) if t.isdigit()}
    assert min(bids) == 18
    with pytest.raises(IllegalAction, match="bid 17 does not beat the standing bid 17"):
        deal.apply(Action.bid(2, 17))
    act(deal, "N:18 E:18 N:19 E:pass")  # the defender gives up: North defends at 19
    assert deal.to_act == 1
    act(deal, "W:pass S:pass")
    assert (deal.bidder, deal.bid) == (2, 19)


def test_duel_a_pass_is_final() -> None:
    deal = new_deal(NO_VOID_HANDS, dealer=0, profile="bhoos")
    # East passes the opening, North opens, West challenges, North gives up.
    seen = turns(deal, "E:pass N:16 W:17 N:pass S:pass")
    assert seen[:-1] == [2, 1, 2, 0]
    assert deal.phase == "trump"
    assert (deal.bidder, deal.bid) == (1, 17)
    # East, who passed the opening, and North, who passed as defender, never spoke again.


def test_duel_the_auction_ends_at_once_when_the_defender_holds_max_bid() -> None:
    opening = new_deal(NO_VOID_HANDS, dealer=0, profile="bhoos")
    act(opening, "E:28")
    assert (opening.phase, opening.bidder, opening.bid) == ("trump", 3, 28)

    matched = new_deal(NO_VOID_HANDS, dealer=0, profile="bhoos")
    act(matched, "E:16 N:28 E:28")
    assert (matched.phase, matched.bidder, matched.bid) == ("trump", 3, 28)

    given_up = new_deal(NO_VOID_HANDS, dealer=0, profile="bhoos")
    act(given_up, "E:16 N:28 E:pass")
    assert (given_up.phase, given_up.bidder, given_up.bid) == ("trump", 2, 28)


def test_duel_all_pass_dealer_forced_forces_the_dealer_without_speaking() -> None:
    deal = new_deal(NO_VOID_HANDS, dealer=0, profile="bhoos")
    act(deal, "E:pass N:pass W:pass")
    assert deal.phase == "trump"
    assert (deal.bidder, deal.bid, deal.forced, deal.to_act) == (0, 16, True, 0)
    # The forced bid is no action: the next action is the trump choice.
    act(deal, "S:trump=D")
    assert [a.to_json() for a in deal.log][-1] == {"seat": 0, "trump": "D"}
    assert len(deal.log) == 4


def test_duel_all_pass_first_forced_lets_the_last_player_open() -> None:
    deal = new_deal(NO_VOID_HANDS, dealer=0, profile="bhoos", all_pass="first_forced")
    act(deal, "E:pass N:pass W:pass")
    assert deal.phase == "auction" and deal.to_act == 0
    act(deal, "S:pass")
    assert (deal.bidder, deal.bid, deal.forced) == (3, 16, True)

    opens = new_deal(NO_VOID_HANDS, dealer=0, profile="bhoos", all_pass="first_forced")
    act(opens, "E:pass N:pass W:pass S:18")
    assert (opens.phase, opens.bidder, opens.bid, opens.forced) == ("trump", 0, 18, False)


def test_duel_all_pass_redeal_cancels_the_deal() -> None:
    deal = new_deal(NO_VOID_HANDS, dealer=0, profile="bhoos", all_pass="redeal")
    act(deal, "E:pass N:pass W:pass")
    assert deal.phase == "auction"
    act(deal, "S:pass")
    v = deal.verdict()
    assert (v["result"], v["stake"], v["bidder"], v["bid"], v["target"]) == (
        "cancelled",
        0,
        None,
        None,
        None,
    )


# ===========================================================================
# all_pass (open auction)


def test_all_pass_dealer_forced_open_auction() -> None:
    deal = new_deal(NO_VOID_HANDS, dealer=0)
    act(deal, "W:pass N:pass E:pass")
    assert deal.phase == "trump"
    assert (deal.bidder, deal.bid, deal.forced, deal.to_act) == (0, 15, True, 0)
    act(deal, "S:trump=C")
    assert len(deal.log) == 4  # three passes and the trump choice


def test_all_pass_first_forced_open_auction() -> None:
    deal = new_deal(NO_VOID_HANDS, dealer=0, profile="pagat", all_pass="first_forced")
    act(deal, "W:pass N:pass E:pass")
    assert deal.phase == "auction" and deal.to_act == 0  # the dealer still speaks
    act(deal, "S:pass")
    assert (deal.bidder, deal.bid, deal.forced, deal.to_act) == (1, 15, True, 1)


def test_all_pass_redeal_open_auction_cancels_and_the_deal_passes_on() -> None:
    match = Match(rules_of("pagat", all_pass="redeal"), hands=NO_VOID_HANDS, dealer=2)
    events = act(match, "E:pass S:pass W:pass N:pass")
    deal = match.deal
    v = deal.verdict()
    assert v["result"] == "cancelled"
    assert v["stake"] == 0
    assert v["delta"] == [0, 0]
    assert v["bidder"] is None and v["target"] is None
    assert "redeal" in [e["type"] for e in events]
    assert match.score == [0, 0]
    assert match.next_dealer == 3
    assert match.start_deal(NO_VOID_HANDS).to_act == 0


def test_all_pass_redeal_leaves_nobody_to_act() -> None:
    deal = new_deal(NO_VOID_HANDS, dealer=0, all_pass="redeal")
    act(deal, "W:pass N:pass E:pass S:pass")
    assert deal.is_over()
    assert deal.legal_actions() == []
    # Every other finished deal has to_act -1; observers are told nobody is to act.
    assert deal.to_act == -1
    assert observe_deal(deal, None).to_act is None
