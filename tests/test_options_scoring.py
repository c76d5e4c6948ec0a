"""The contract and scoring options of RULES.md section 4 (with the
clarifications of section 8): single_hand, doubling, last_trick_point,
unrevealed, under_half and auto_double_from, early_end and match_target,
proved on exact deals driven through the engine.
"""

from __future__ import annotations

import pytest
from helpers import (
    NO_VOID_HANDS,
    NO_VOID_TRICKS,
    TABLE_EW17_NS11,
    act,
    hands_from_tricks,
    make_hands,
    new_deal,
    one_suit_hands,
    play_out,
    play_tricks,
    rules_of,
    snapshot,
)
from options_helpers import legal_texts, turns

from twentynine.game.actions import Action
from twentynine.game.engine import Deal, IllegalAction
from twentynine.game.match import Match

# ===========================================================================
# single_hand (pagat with single_hand=3; dealer South; West, North, East pass
# and South is forced at 15, naming clubs).

SINGLE_LOST_HANDS = make_hands(
    "7S 7H 8H KH QH 8D 7D 7C",  # South: sits out
    "8S JC 9C AC TC KC QC 8C",  # West
    "JS 9S AS TS KD QD JH 9H",  # North: the declarer
    "KS QS JD 9D AD TD AH TH",  # East
)
SINGLE_MADE_HANDS = make_hands(
    "KD QD 8D 7D KC QC 8C 7C",
    "8S 7S 8H 7H JC 9C AC TC",
    "JS 9S AS TS JH 9H AH TH",
    "KS QS KH QH JD 9D AD TD",
)
SINGLE_MADE_TRICKS = [
    ("N", "JS KS 8S"),
    ("N", "9S QS 7S"),
    ("N", "AS JD JC"),
    ("N", "TS 9D 9C"),
    ("N", "JH KH 8H"),
    ("N", "9H QH 7H"),
    ("N", "AH AD AC"),
    ("N", "TH TD TC"),
]


def _single_deal(hands: list[list[int]], **options: object) -> Deal:
    deal = Deal(rules_of("pagat", single_hand=3, **options), 0, hands)
    act(deal, "W:pass N:pass E:pass S:trump=C")
    return deal


def test_single_hand_is_offered_in_turn_from_next_of_dealer() -> None:
    deal = _single_deal(SINGLE_MADE_HANDS)
    assert deal.phase == "single"
    assert legal_texts(deal) == {"single", "pass"}
    assert turns(deal, "W:pass N:pass E:pass S:pass") == [2, 3, 0, 1]
    assert deal.phase == "play"  # nobody declared: ordinary play, West leads
    assert deal.single == -1


def test_single_hand_declarer_leads_partner_sits_out_three_card_tricks_no_trumps() -> None:
    deal = _single_deal(SINGLE_LOST_HANDS)
    act(deal, "W:pass N:single")
    assert deal.phase == "play"
    assert deal.to_act == 2  # the declarer leads; East and South were not asked
    assert turns(deal, "N:JS E:KS W:8S") == [3, 1, 2]  # South sits out
    events = act(deal, "N:9S E:QS W:JC")  # West's J♣ (the named trump) has no power
    assert "reveal" not in [e["type"] for e in events]
    t = deal.verdict()["tricks"][1]
    assert (t["cards"], t["winner"], t["points"]) == (["9S", "QS", "JC"], 2, 5)
    assert deal.revealed_in_trick == 0


def test_single_hand_lost_at_trick_3_ends_the_deal_single_failed() -> None:
    deal = _single_deal(SINGLE_LOST_HANDS)
    act(deal, "W:pass N:single N:JS E:KS W:8S N:9S E:QS W:JC N:KD E:JD W:9C")
    assert deal.is_over()
    v = deal.verdict()
    assert v["tricks_played"] == 3
    assert v["tricks"][2]["winner"] == 3
    assert v["result"] == "single-failed"
    assert (v["single"], v["stake"], v["delta"]) == (2, 3, [-3, 0])
    # The auction's contract is kept; there is no target and no doubling.
    assert (v["bidder"], v["bid"], v["trump"], v["target"], v["doubling"]) == (0, 15, "C", None, 1)


def test_single_hand_made_after_all_8_tricks_and_never_cancelled() -> None:
    deal = _single_deal(SINGLE_MADE_HANDS)
    act(deal, "W:pass N:single")
    play_tricks(deal, SINGLE_MADE_TRICKS)
    v = deal.verdict()
    assert v["tricks_played"] == 8
    assert v["revealed_in_trick"] is None  # pagat cancels unrevealed deals, but not a single hand
    assert v["result"] == "single-made"
    assert (v["stake"], v["delta"]) == (3, [3, 0])


def test_single_hand_stake_is_the_option_value_alone() -> None:
    deal = Deal(
        rules_of("pagat", single_hand=5, auto_double_from=15, doubling=True), 0, SINGLE_MADE_HANDS
    )
    act(deal, "W:pass N:pass E:pass S:trump=C W:pass N:single")
    assert deal.phase == "play"  # after a declaration there is no doubling
    play_tricks(deal, SINGLE_MADE_TRICKS)
    v = deal.verdict()
    assert (v["result"], v["stake"], v["delta"], v["doubling"]) == ("single-made", 5, [5, 0], 1)


def test_single_hand_comes_before_doubling() -> None:
    deal = Deal(rules_of("pagat", single_hand=3, doubling=True), 0, SINGLE_MADE_HANDS)
    act(deal, "W:pass N:pass E:pass S:trump=C")
    assert deal.phase == "single"
    act(deal, "W:pass N:pass E:pass S:pass")
    assert deal.phase == "double"
    assert deal.to_act == 1  # either: from next(bidder)


# ===========================================================================
# doubling (one-suit layout: the spades seat takes every trick with spades trumps)


def _doubling_deal(spades_seat: int = 0, **options: object) -> Deal:
    deal = Deal(rules_of("pagat", doubling=True, **options), 3, one_suit_hands(spades_seat))
    act(deal, "S:16 W:pass N:pass E:pass S:trump=S")
    return deal


def test_double_by_either_asks_both_defenders_from_next_of_bidder() -> None:
    deal = _doubling_deal()
    assert deal.phase == "double"
    assert deal.to_act == 1
    assert legal_texts(deal) == {"double", "pass"}
    assert turns(deal, "W:pass E:pass") == [3, 0]
    assert deal.phase == "play"
    assert deal.verdict()["doubling"] == 1


def test_double_by_either_stops_at_the_first_double() -> None:
    deal = _doubling_deal()
    act(deal, "W:pass E:double")
    assert (deal.phase, deal.to_act) == ("redouble", 0)
    deal2 = _doubling_deal()
    act(deal2, "W:double")
    assert (deal2.phase, deal2.to_act) == ("redouble", 0)  # East is not asked
    act(deal2, "S:pass")
    assert deal2.phase == "play"
    assert deal2.verdict()["doubling"] == 2


def test_double_by_either_anticlockwise_starts_at_next_of_bidder() -> None:
    deal = Deal(rules_of("modern", double_by="either"), 1, one_suit_hands(0))
    act(deal, "S:16 E:pass N:pass W:pass S:trump=S")
    assert deal.to_act == 3
    assert turns(deal, "E:pass W:pass") == [1, 0]


def test_double_by_bidder_right_asks_only_seat_bidder_plus_3() -> None:
    deal = _doubling_deal(double_by="bidder_right")
    assert deal.to_act == 3
    before = snapshot(deal)
    with pytest.raises(IllegalAction, match="it is seat 3's turn, not seat 1's"):
        deal.apply(Action.flag(1, "double"))
    assert snapshot(deal) == before
    act(deal, "E:pass")
    assert deal.phase == "play"


def test_double_by_bidder_right_in_modern_is_the_seat_playing_after_the_bidder() -> None:
    deal = new_deal(one_suit_hands(0), dealer=0, profile="modern")  # East speaks first
    act(deal, "E:pass N:pass W:pass S:20 E:pass N:pass W:pass S:trump=S")
    assert deal.to_act == 3
    act(deal, "E:double")
    assert (deal.phase, deal.to_act) == ("redouble", 0)
    act(deal, "S:redouble")
    assert deal.phase == "play"  # modern has no set
    assert deal.verdict()["doubling"] == 4


def test_redouble_is_the_bidders_alone() -> None:
    deal = _doubling_deal()
    act(deal, "W:double")
    with pytest.raises(IllegalAction, match="it is seat 0's turn, not seat 2's"):
        deal.apply(Action.flag(2, "redouble"))
    assert legal_texts(deal) == {"redouble", "pass"}


def test_set_is_the_doublers_alone_and_needs_allow_set() -> None:
    no_set = _doubling_deal()
    act(no_set, "W:double S:redouble")
    assert no_set.phase == "play"
    deal = _doubling_deal(allow_set=True)
    act(deal, "W:pass E:double S:redouble")
    assert (deal.phase, deal.to_act) == ("set", 3)
    with pytest.raises(IllegalAction, match="it is seat 3's turn, not seat 1's"):
        deal.apply(Action.flag(1, "set"))
    act(deal, "E:set")
    assert deal.phase == "play"
    assert deal.verdict()["doubling"] == 6


@pytest.mark.parametrize(
    ("script", "spades_seat", "stake", "delta"),
    [
        ("W:double S:pass", 0, 2, [2, 0]),
        ("W:double S:redouble", 0, 4, [4, 0]),
        ("W:double S:redouble W:set", 0, 6, [6, 0]),
        ("W:double S:redouble W:set", 1, 6, [-6, 0]),
        ("W:pass E:double S:redouble E:pass", 1, 4, [-4, 0]),
    ],
)
def test_doubling_multiplies_stake_and_delta(
    script: str, spades_seat: int, stake: int, delta: list[int]
) -> None:
    deal = _doubling_deal(spades_seat, allow_set=True)
    act(deal, script)
    play_out(deal)
    v = deal.verdict()
    assert v["result"] == ("made" if spades_seat == 0 else "failed")
    assert (v["doubling"], v["stake"], v["delta"]) == (stake, stake, delta)


# ===========================================================================
# last_trick_point


@pytest.mark.parametrize(("ltp", "total"), [(True, 29), (False, 28)])
def test_last_trick_point_makes_29_in_all_counted_in_the_eighth_trick(
    ltp: bool, total: int
) -> None:
    deal = new_deal(one_suit_hands(0), dealer=3, last_trick_point=ltp)
    act(deal, "S:16 W:pass N:pass E:pass S:trump=S")
    play_out(deal)
    v = deal.verdict()
    assert sum(v["points"]) == total
    assert sum(t["points"] for t in v["tricks"]) == total
    card_pts = [
        sum({"J": 3, "9": 2, "A": 1, "T": 1}.get(c[0], 0) for c in t["cards"]) for t in v["tricks"]
    ]
    assert [t["points"] for t in v["tricks"][:7]] == card_pts[:7]
    assert v["tricks"][7]["points"] == card_pts[7] + (1 if ltp else 0)


def test_last_trick_point_goes_to_the_winner_of_the_eighth_trick() -> None:
    rules = rules_of("pagat", last_trick_point=True)
    deal = Deal(rules, 2, hands_from_tricks(rules, TABLE_EW17_NS11))
    act(deal, "E:18 S:pass W:pass N:pass E:trump=S")
    play_tricks(deal, TABLE_EW17_NS11)
    assert deal.verdict()["points"] == [12, 17]  # North took the last trick


# ===========================================================================
# unrevealed


def test_unrevealed_cancel_voids_a_deal_where_trumps_were_never_shown() -> None:
    deal = new_deal(NO_VOID_HANDS, dealer=3, profile="pagat")
    act(deal, "S:16 W:pass N:pass E:pass S:trump=H")
    play_tricks(deal, NO_VOID_TRICKS)
    v = deal.verdict()
    assert v["revealed_in_trick"] is None
    assert v["points"] == [28, 0]
    assert (v["result"], v["stake"], v["delta"]) == ("cancelled", 0, [0, 0])


@pytest.mark.parametrize(
    ("bidder_script", "result", "delta"),
    [
        ("S:16 W:pass N:pass E:pass S:trump=H", "made", [1, 0]),
        ("S:pass W:16 N:pass E:pass S:pass W:trump=H", "failed", [0, -1]),
    ],
)
def test_unrevealed_score_scores_the_deal_as_usual(
    bidder_script: str, result: str, delta: list[int]
) -> None:
    deal = new_deal(NO_VOID_HANDS, dealer=3, profile="arcade")
    act(deal, bidder_script)
    play_tricks(deal, NO_VOID_TRICKS)
    v = deal.verdict()
    assert v["revealed_in_trick"] is None
    assert (v["result"], v["stake"], v["delta"]) == (result, 1, delta)


# ===========================================================================
# under_half and auto_double_from


@pytest.mark.parametrize(("bid", "stake"), [(22, 1), (23, 2)])
def test_under_half_failure_below_half_the_bid_loses_double(bid: int, stake: int) -> None:
    # North-South take 11 points: 2 x 11 = 22 is not below 22, but is below 23.
    rules = rules_of("pagat", under_half=True)
    deal = Deal(rules, 2, hands_from_tricks(rules, TABLE_EW17_NS11))
    act(deal, f"E:pass S:{bid} W:pass N:pass E:pass S:trump=S")
    play_tricks(deal, TABLE_EW17_NS11)
    v = deal.verdict()
    assert v["points"] == [11, 17]
    assert (v["result"], v["stake"], v["delta"]) == ("failed", stake, [-stake, 0])


def test_under_half_off_a_failure_far_below_half_loses_the_plain_stake() -> None:
    deal = new_deal(one_suit_hands(1), dealer=3)
    act(deal, "S:16 W:pass N:pass E:pass S:trump=S")
    play_out(deal)
    v = deal.verdict()
    assert v["points"] == [0, 28]
    assert (v["result"], v["stake"], v["delta"]) == ("failed", 1, [-1, 0])


def test_under_half_does_not_touch_a_made_contract() -> None:
    deal = new_deal(one_suit_hands(0), dealer=3, under_half=True)
    act(deal, "S:16 W:pass N:pass E:pass S:trump=S")
    play_out(deal)
    assert (deal.result, deal.stake, deal.delta) == ("made", 1, [1, 0])


@pytest.mark.parametrize(
    ("bid", "spades_seat", "options", "stake", "delta"),
    [
        (19, 0, {}, 1, [1, 0]),
        (20, 0, {}, 2, [2, 0]),
        (24, 1, {}, 2, [-2, 0]),
        (20, 1, {"under_half": True}, 4, [-4, 0]),
    ],
)
def test_auto_double_from_doubles_the_stake_of_bids_from_n(
    bid: int, spades_seat: int, options: dict[str, bool], stake: int, delta: list[int]
) -> None:
    deal = new_deal(one_suit_hands(spades_seat), dealer=3, auto_double_from=20, **options)
    act(deal, f"S:{bid} W:pass N:pass E:pass S:trump=S")
    play_out(deal)
    assert (deal.stake, deal.delta) == (stake, delta)


def test_under_half_doubles_a_doubled_loss_again() -> None:
    deal = new_deal(one_suit_hands(1), dealer=3, doubling=True, under_half=True)
    act(deal, "S:16 W:pass N:pass E:pass S:trump=S W:double S:pass")
    play_out(deal)
    v = deal.verdict()
    assert (v["result"], v["doubling"], v["stake"], v["delta"]) == ("failed", 2, 4, [-4, 0])


def test_auto_double_from_combines_with_doubling() -> None:
    deal = new_deal(one_suit_hands(0), dealer=3, auto_double_from=20, doubling=True)
    act(deal, "S:21 W:pass N:pass E:pass S:trump=S W:double S:pass")
    play_out(deal)
    v = deal.verdict()
    assert (v["doubling"], v["stake"], v["delta"]) == (2, 4, [4, 0])


# ===========================================================================
# early_end (pagat with early_end=yes unless said otherwise)


def test_early_end_made_as_soon_as_the_target_is_reached_with_no_pair_reachable() -> None:
    deal = new_deal(one_suit_hands(0), dealer=3, early_end=True, pair="off")
    act(deal, "S:20 W:pass N:pass E:pass S:trump=S S:JS W:JH N:JD E:JC")
    assert not deal.is_over()  # 12 of 20
    act(deal, "S:9S W:9H N:9D E:9C")
    assert deal.is_over()
    v = deal.verdict()
    assert (v["tricks_played"], v["points"], v["result"], v["delta"]) == (
        2,
        [20, 0],
        "made",
        [1, 0],
    )


def test_early_end_failed_once_the_target_cannot_be_reached() -> None:
    # West bids 16 in spades, but South holds every spade.
    deal = new_deal(one_suit_hands(0), dealer=3, early_end=True)
    act(deal, "S:pass W:16 N:pass E:pass S:pass W:trump=S S:JS W:JH N:JD E:JC")
    assert not deal.is_over()  # East-West 0, 16 still in play
    act(deal, "S:pass S:9S W:9H N:9D E:9C")  # South passes the pair
    assert deal.is_over()
    v = deal.verdict()
    assert (v["tricks_played"], v["points"], v["result"], v["stake"], v["delta"]) == (
        2,
        [20, 0],
        "failed",
        1,
        [0, -1],
    )


def test_early_end_with_under_half_waits_until_the_doubled_loss_is_settled() -> None:
    deal = new_deal(one_suit_hands(0), dealer=3, early_end=True, under_half=True)
    act(deal, "S:pass W:16 N:pass E:pass S:pass W:trump=S S:JS W:JH N:JD E:JC S:pass")
    act(deal, "S:9S W:9H N:9D E:9C")
    # Failed for sure, but East-West could still take 8 = half the bid.
    assert not deal.is_over()
    act(deal, "S:pass S:AS W:AH N:AD E:AC")
    assert deal.is_over()
    v = deal.verdict()
    assert (v["tricks_played"], v["result"], v["stake"], v["delta"]) == (3, "failed", 2, [0, -2])


EARLY_PAIR_A = [
    ("S", "JD 7D JC 7H"),  # North void: reveal; S 6
    ("S", "JS JH 9C 7S"),  # S 8 (14)
    ("S", "9D 8D AC 8H"),  # S 3 (17): the bid is reached, East could still show K♠ Q♠
    ("S", "AD QD TC QH"),  # S 2 (19)
    ("S", "TD KD KC KH"),  # S 1 (20): beyond the defenders' pair
]
EARLY_PAIR_A_REST = {"S": "9S AS TS", "W": "9H AH TH", "N": "QC 8C 7C", "E": "KS QS 8S"}


@pytest.mark.parametrize(("pair", "ends_after"), [("standard", 5), ("off", 3)])
def test_early_end_a_reachable_defenders_pair_delays_made_until_its_target(
    pair: str, ends_after: int
) -> None:
    rules = rules_of("pagat", early_end=True, pair=pair)
    hands = hands_from_tricks(rules, EARLY_PAIR_A, rest=EARLY_PAIR_A_REST)
    deal = Deal(rules, 3, hands)
    act(deal, "S:16 W:pass N:pass E:pass S:trump=S")
    play_tricks(deal, EARLY_PAIR_A[:ends_after])
    assert deal.is_over()
    v = deal.verdict()
    assert (v["tricks_played"], v["result"], v["target"]) == (ends_after, "made", 16)
    assert v["points"][0] == (20 if pair == "standard" else 17)


EARLY_PAIR_B = [
    ("S", "JD TD 7C 7H"),  # North void: reveal; S 4
    ("S", "9D AD JC 8H"),  # S 6 (10)
    ("S", "KD JH 9C KH"),  # S 5 (15)
    ("S", "QD 9H 8C QH"),  # S 2 (17)
    ("S", "8D AH 7S KC"),  # N trumps: 1 (18)
    ("N", "AC QC 7D AS"),  # W trumps: E-W win, East holds K♠ Q♠ as its last cards
]
EARLY_PAIR_B_REST = {"S": "JS 9S", "W": "TH TS", "N": "TC 8S", "E": "KS QS"}


def _early_pair_b() -> Deal:
    rules = rules_of("pagat", early_end=True)
    deal = Deal(rules, 3, hands_from_tricks(rules, EARLY_PAIR_B, rest=EARLY_PAIR_B_REST))
    act(deal, "S:16 W:pass N:pass E:pass S:trump=S")
    play_tricks(deal, EARLY_PAIR_B[:5])
    assert not deal.is_over()  # 18 >= 16, but East's pair could still make it 20
    play_tricks(deal, EARLY_PAIR_B[5:], pass_pairs=False)
    assert not deal.is_over()  # the window is open now
    assert (deal.phase, deal.to_act) == ("pair", 3)
    return deal


def test_early_end_pair_unreachable_after_six_tricks_once_its_window_passed() -> None:
    deal = _early_pair_b()
    act(deal, "E:pass")  # checked again after the pair decision: six tricks done
    assert deal.is_over()
    v = deal.verdict()
    assert (v["tricks_played"], v["points"], v["result"], v["target"]) == (6, [18, 2], "made", 16)


@pytest.mark.parametrize(("pair", "ends_after"), [("standard", 3), ("off", 2)])
def test_early_end_the_bidding_teams_reachable_pair_delays_failure(
    pair: str, ends_after: int
) -> None:
    # Same cards, but East bids 19: East holds K♠ Q♠, so the target may still fall to 15.
    rules = rules_of("pagat", early_end=True, pair=pair)
    deal = Deal(rules, 3, hands_from_tricks(rules, EARLY_PAIR_B, rest=EARLY_PAIR_B_REST))
    act(deal, "S:pass W:16 N:pass E:19 S:pass W:pass N:pass E:trump=S")
    play_tricks(deal, EARLY_PAIR_B[: ends_after - 1])
    assert not deal.is_over()
    play_tricks(deal, EARLY_PAIR_B[ends_after - 1 : ends_after])
    assert deal.is_over()
    v = deal.verdict()
    assert (v["tricks_played"], v["result"], v["delta"]) == (ends_after, "failed", [0, -1])


def test_early_end_declared_defenders_pair_keeps_the_deal_going() -> None:
    deal = _early_pair_b()
    act(deal, "E:pair")
    assert deal.target == 20
    assert not deal.is_over()
    assert (deal.phase, deal.to_act) == ("play", 1)


def test_early_end_checked_again_after_the_bidding_teams_pair() -> None:
    deal = new_deal(one_suit_hands(0), dealer=3, early_end=True)
    act(deal, "S:24 W:pass N:pass E:pass S:trump=S S:JS W:JH N:JD E:JC S:pass S:9S W:9H N:9D E:9C")
    assert not deal.is_over()  # 20 of 24, the pair may still lower it to 20
    assert deal.phase == "pair"
    act(deal, "S:pair")
    assert deal.is_over()
    v = deal.verdict()
    assert (v["tricks_played"], v["target"], v["result"]) == (2, 20, "made")


@pytest.mark.parametrize(
    ("unrevealed", "tricks", "result"), [("cancel", 8, "cancelled"), ("score", 4, "made")]
)
def test_early_end_nothing_is_settled_before_the_reveal_with_unrevealed_cancel(
    unrevealed: str, tricks: int, result: str
) -> None:
    deal = new_deal(NO_VOID_HANDS, dealer=3, early_end=True, unrevealed=unrevealed)
    act(deal, "S:16 W:pass N:pass E:pass S:trump=H")
    play_tricks(deal, NO_VOID_TRICKS[:tricks])
    assert deal.is_over()
    v = deal.verdict()
    assert (v["tricks_played"], v["result"]) == (tricks, result)


def test_early_end_modern_counts_the_last_trick_point_still_in_play() -> None:
    # modern, dealer West: South leads; West bids 17 in spades, South holds every spade.
    deal = new_deal(one_suit_hands(0), dealer=1, profile="modern")
    act(deal, "S:pass E:pass N:pass W:17 S:pass E:pass N:pass W:trump=S S:pass")
    act(deal, "S:JS E:JC N:JD W:JH")
    # East-West 0; 16 card points + the last-trick point = 17 still in play.
    assert not deal.is_over()
    act(deal, "S:pass S:9S E:9C N:9D W:9H")
    assert deal.is_over()
    assert (deal.result, deal.delta, len(deal.tricks)) == ("failed", [0, -1], 2)
    assert deal.points == [20, 0]  # nobody gets the last-trick point: trick 8 was not played


def test_early_end_without_last_trick_point_fails_one_trick_sooner() -> None:
    deal = new_deal(one_suit_hands(0), dealer=3, early_end=True)
    act(deal, "S:pass W:17 N:pass E:pass S:pass W:trump=S S:JS W:JH N:JD E:JC")
    assert deal.is_over()
    assert (deal.result, len(deal.tricks)) == ("failed", 1)


def test_early_end_off_plays_all_eight_tricks() -> None:
    deal = new_deal(one_suit_hands(0), dealer=3)
    act(deal, "S:16 W:pass N:pass E:pass S:trump=S")
    play_out(deal)
    assert len(deal.tricks) == 8


# ===========================================================================
# match_target


def _forced_sweep(match: Match, spades_seat: int, doubling: str = "") -> None:
    """Next deal: the dealer is forced, names spades, and ``spades_seat`` holds them all."""
    deal = (
        match.deal
        if match.deals and not match.deal.is_over()
        else match.start_deal(one_suit_hands(spades_seat))
    )
    dealer = deal.dealer
    for _ in range(3):
        match.apply(Action.pass_(match.to_act))
    assert deal.bidder == dealer
    match.apply(Action.trump(dealer, 0))
    if doubling:
        act(match, doubling)
    play_out(match)


def test_match_target_a_match_ends_exactly_at_plus_6() -> None:
    match = Match(rules_of("pagat", doubling=True), hands=one_suit_hands(0), dealer=0)
    _forced_sweep(match, 0, "W:double S:redouble")  # South forced, made x4
    assert match.score == [4, 0] and match.winner is None
    _forced_sweep(match, 0)  # West forced at 15 but South takes all: West fails
    assert match.score == [4, -1] and match.winner is None
    _forced_sweep(match, 2)  # North forced and made
    assert match.score == [5, -1] and match.winner is None and not match.is_over()
    _forced_sweep(match, 0)  # East forced, fails
    assert match.score == [5, -2] and match.winner is None
    _forced_sweep(match, 0)  # South forced, made: 6
    assert match.score == [6, -2]
    assert match.winner == 0 and match.is_over()
    with pytest.raises(IllegalAction, match="the match is over"):
        match.start_deal(one_suit_hands(0))


def test_match_target_a_team_at_minus_6_loses() -> None:
    match = Match(
        rules_of("pagat", doubling=True, allow_set=True), hands=one_suit_hands(1), dealer=0
    )
    _forced_sweep(match, 1, "W:double S:redouble W:pass")
    assert match.score == [-4, 0] and match.winner is None
    _forced_sweep(match, 1)  # West forced and made
    assert match.score == [-4, 1] and match.winner is None
    _forced_sweep(match, 1, "E:pass W:double N:pass")  # North forced, doubled, fails
    assert match.score == [-6, 1]
    assert match.winner == 1 and match.is_over()


def test_match_target_set_reaches_6_in_one_deal() -> None:
    match = Match(
        rules_of("pagat", doubling=True, allow_set=True), hands=one_suit_hands(0), dealer=0
    )
    _forced_sweep(match, 0, "W:double S:redouble W:set")
    assert match.score == [6, 0] and match.winner == 0


def test_match_target_option_value() -> None:
    match = Match(
        rules_of("pagat", match_target=2, doubling=True), hands=one_suit_hands(0), dealer=0
    )
    _forced_sweep(match, 0, "W:double S:pass")
    assert match.winner == 0


def test_match_target_null_is_over_after_each_deal_and_the_score_adds_up() -> None:
    match = Match(rules_of("arcade"), hands=one_suit_hands(0), dealer=0)
    assert not match.is_over()
    _forced_sweep(match, 0)  # South (dealer) forced and made
    assert match.is_over() and match.winner is None
    assert match.score == [1, 0]
    # Eleven more deals: the dealer's team makes it when it is North-South
    # (South holds every spade) and fails when it is East-West.
    for _ in range(11):
        match.start_deal(one_suit_hands(0))
        _forced_sweep(match, 0)
        assert match.is_over()
    assert match.score == [6, -6]
    assert match.winner is None
