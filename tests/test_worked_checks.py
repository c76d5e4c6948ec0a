"""The worked checks of RULES.md section 5, each played through the engine.

Every scenario is an exact deal: the hands are chosen so that the situation is
forced, the auction and play are explicit actions, and the verdict fields are
checked. Trick tables list cards in playing order from the leader; the helper
checks every trick against an independent account of the rules (follow suit,
trumps active from the reveal, highest trump else highest of the suit led).
"""

from __future__ import annotations

import pytest
from helpers import (
    TABLE_EW17_NS11,
    act,
    hands_from_tricks,
    make_hands,
    new_deal,
    one_suit_hands,
    play_out,
    play_tricks,
    rules_of,
)

from twentynine.game.engine import Deal

# ---------------------------------------------------------------------------
# Hearts led: A♥ 9♥ J♥ K♥, no trumps active: J♥ wins, 6 points.


def test_hearts_led_a9jk_without_trumps_jack_wins_six_points() -> None:
    rules = rules_of("pagat")
    tricks = [("S", "AH 9H JH KH")]  # South leads; North's J♥ wins
    hands = hands_from_tricks(
        rules,
        tricks,
        rest={
            "S": "JS 9S AS TS KS QS 8S",
            "W": "7S JD 9D AD TD KD QD",
            "N": "8D 7D JC 9C AC TC KC",
            "E": "QC 8C 7C QH 8H 7H TH",
        },
    )
    deal = Deal(rules, 3, hands)
    act(deal, "S:16 W:pass N:pass E:pass S:trump=C")
    play_tricks(deal, tricks)
    v = deal.verdict()
    assert v["tricks"][0] == {
        "leader": 0,
        "cards": ["AH", "9H", "JH", "KH"],
        "winner": 2,
        "points": 6,
    }
    assert v["revealed_in_trick"] is None
    assert v["points"] == [6, 0]
    assert deal.to_act == 2  # the winner leads next


# ---------------------------------------------------------------------------
# Clubs secret trumps. West leads 8♥, North K♥; East has no hearts, trumps are
# revealed, East plays 7♣ (now a trump, beats K♥); South, void too, plays J♣
# and wins.

CLUBS_HANDS = make_hands(
    "JC 9S AS TS KS QS 8S 7S",  # South: no hearts
    "8H 7H AH TH JD 9D AD TD",  # West
    "KH QH JH 9H KD QD 8D 7D",  # North
    "7C 8C QC KC JS TC AC 9C",  # East: no hearts
)


def _clubs_deal() -> Deal:
    deal = new_deal(CLUBS_HANDS, dealer=0)  # pagat, clockwise: West speaks and leads first
    act(deal, "W:pass N:16 E:pass S:pass W:pass N:trump=C")
    assert deal.to_act == 1
    return deal


def test_clubs_secret_trumps_void_east_reveals_before_playing() -> None:
    deal = _clubs_deal()
    act(deal, "W:8H")
    assert deal.revealed_in_trick == 0
    events = act(deal, "N:KH")
    # The turn reaches East, who cannot follow: trumps are revealed before East acts.
    assert deal.to_act == 3
    assert deal.revealed_in_trick == 1
    reveal = [e for e in events if e["type"] == "reveal"]
    assert len(reveal) == 1
    assert reveal[0]["seat"] == 3
    assert reveal[0]["trump"] == "C"


def test_clubs_secret_trumps_east_seven_of_clubs_beats_king_of_hearts() -> None:
    deal = _clubs_deal()
    act(deal, "W:8H N:KH E:7C S:7S")  # South discards a spade this time
    v = deal.verdict()
    assert v["tricks"][0] == {
        "leader": 1,
        "cards": ["8H", "KH", "7C", "7S"],
        "winner": 3,
        "points": 0,
    }


def test_clubs_secret_trumps_south_void_plays_jack_of_clubs_and_wins() -> None:
    deal = _clubs_deal()
    act(deal, "W:8H N:KH E:7C S:JC")
    v = deal.verdict()
    assert v["revealed_in_trick"] == 1
    assert v["trump"] == "C"
    assert v["tricks"][0] == {
        "leader": 1,
        "cards": ["8H", "KH", "7C", "JC"],
        "winner": 0,
        "points": 3,
    }
    assert v["points"] == [3, 0]
    assert deal.to_act == 0


# ---------------------------------------------------------------------------
# Clubs secret trumps, 7♣ led; a later seat is void in clubs: trumps are
# revealed, the clubs already played count as trumps, the highest club wins.


def test_clubs_led_then_void_seat_reveals_and_highest_club_wins() -> None:
    hands = make_hands(
        "8C JS 9S AS TS KS QS 8S",  # South
        "7C AC TC KC 8H 7H AH TH",  # West
        "JH 9H KH QH JD 9D AD TD",  # North: no clubs
        "9C QC JC 7S KD QD 8D 7D",  # East
    )
    deal = new_deal(hands, dealer=0)
    act(deal, "W:pass N:16 E:pass S:pass W:pass N:trump=C")
    act(deal, "W:7C")
    # North cannot follow clubs: the reveal comes before North plays, with 7♣ on the table.
    assert deal.revealed_in_trick == 1
    assert deal.to_act == 2
    act(deal, "N:JH E:9C S:8C")
    v = deal.verdict()
    assert v["tricks"][0] == {
        "leader": 1,
        "cards": ["7C", "JH", "9C", "8C"],
        "winner": 3,
        "points": 5,
    }
    assert v["points"] == [0, 5]


# ---------------------------------------------------------------------------
# pagat: North bids 20; after East-West win a trick West shows K♠ Q♠ (spades
# trumps): North-South need 24.

PAGAT_DEFENDERS_PAIR = [
    ("N", "7H 7S 8H QH"),  # East is void in hearts: reveal; 7♠ trumps, E-W win
    ("E", "AC 9C TC JC"),  # N wins 7
    ("N", "KC 7C 9H 8C"),  # N wins 2
    ("N", "JH AD AH KH"),  # N wins 5
    ("N", "TH KD 7D JD"),  # N wins 4
    ("N", "QD 9D 8D QS"),  # W trumps, wins 2
    ("W", "KS 9S JS 8S"),  # E wins 5
    ("E", "TD AS TS QC"),  # S wins 3 with A♠
]


def test_pagat_defenders_pair_after_their_won_trick_raises_north_target_20_to_24() -> None:
    rules = rules_of("pagat")
    hands = hands_from_tricks(rules, PAGAT_DEFENDERS_PAIR)
    deal = Deal(rules, 1, hands)  # North speaks and leads first
    act(deal, "N:20 E:pass S:pass W:pass N:trump=S")
    play_tricks(deal, PAGAT_DEFENDERS_PAIR[:1], pass_pairs=False)
    # East-West won the reveal trick and West holds K♠ Q♠: West is asked.
    assert deal.phase == "pair"
    assert deal.to_act == 1
    act(deal, "W:pair")
    assert deal.target == 24
    play_tricks(deal, PAGAT_DEFENDERS_PAIR[1:])
    v = deal.verdict()
    assert v["pair"] == {"seat": 1, "team": 1, "trick": 1}
    assert v["target"] == 24
    assert v["points"] == [21, 7]
    # 21 would have made the bid of 20, but not the raised target of 24.
    assert v["result"] == "failed"
    assert v["delta"] == [-1, 0]


# ---------------------------------------------------------------------------
# Pair targets from a one-suit layout: the bidder holds all eight spades
# (trumps), the others one suit each. The bidder leads J♠, the next seat is
# void and reveals, the bidder wins and holds K♠ Q♠: the pair window opens.


def test_pagat_bid_18_bidding_team_pair_target_14_floored_at_15() -> None:
    deal = new_deal(one_suit_hands(0), dealer=3)  # South speaks and leads
    act(deal, "S:18 W:pass N:pass E:pass S:trump=S")
    act(deal, "S:JS W:JH N:JD E:JC")
    assert deal.phase == "pair"
    assert deal.to_act == 0
    act(deal, "S:pair")
    assert deal.target == 15
    play_out(deal)
    v = deal.verdict()
    assert v["target"] == 15
    assert v["pair"] == {"seat": 0, "team": 0, "trick": 1}
    assert v["result"] == "made"


def test_modern_bid_20_bidding_team_pair_target_16() -> None:
    # modern is anticlockwise: dealer West (1), South (0) speaks and leads first.
    deal = new_deal(one_suit_hands(0), dealer=1, profile="modern")
    act(deal, "S:20 E:pass N:pass W:pass S:trump=S")
    act(deal, "E:pass")  # the bidder's right-hand opponent declines to double
    act(deal, "S:7S E:7C N:7D W:7H")  # a trick of no points, won by South with trumps shown
    assert deal.phase == "pair"
    act(deal, "S:pair")
    assert deal.target == 16
    assert deal.verdict()["target"] == 16


def test_modern_bid_20_defenders_pair_target_24() -> None:
    # West bids 20 and (badly) names spades; South holds every spade and the pair.
    deal = new_deal(one_suit_hands(0), dealer=1, profile="modern")
    act(deal, "S:pass E:pass N:pass W:20 S:pass E:pass N:pass W:trump=S")
    act(deal, "S:pass")  # South is West's right-hand opponent: no double
    act(deal, "S:7S E:7C N:7D W:7H")
    assert deal.phase == "pair"
    assert deal.to_act == 0
    act(deal, "S:pair")
    assert deal.target == 24
    v = deal.verdict()
    assert v["target"] == 24
    assert v["pair"] == {"seat": 0, "team": 0, "trick": 1}


@pytest.mark.parametrize(("bid", "target"), [(17, 17), (19, 16)])
def test_bangladesh_bidding_team_pair_17_stays_17_and_19_becomes_16(bid: int, target: int) -> None:
    # bangladesh: anticlockwise duel auction; dealer West, South opens.
    deal = new_deal(one_suit_hands(0), dealer=1, profile="bangladesh")
    act(deal, f"S:{bid} E:pass N:pass W:pass S:trump=S")
    assert (deal.bidder, deal.bid) == (0, bid)
    act(deal, "S:JS E:JC N:JD W:JH")
    assert deal.phase == "pair"
    act(deal, "S:pair")
    assert deal.target == target
    play_out(deal)
    v = deal.verdict()
    assert v["target"] == target
    assert v["result"] == "made"


# ---------------------------------------------------------------------------
# Bid 17 taken 19: +1. East bids 22, East-West take 20: East-West −1.

BID17_TAKEN19 = [
    ("S", "AD 8D 9D TD"),  # N wins 4
    ("N", "QH 9H 8S 8H"),  # South void in hearts: reveal; E wins 2 with 9♥
    ("E", "QC 8C JC KC"),  # W wins 3
    ("W", "KD 7D AC JD"),  # S wins 4
    ("S", "QD AS TC JS"),  # S wins 5
    ("S", "KS 7S 9S 9C"),  # N wins 4
    ("N", "KH JH QS TH"),  # E wins 4
    ("E", "7C TS 7H AH"),  # N wins 2 with A♥ over 7♥
]


def test_bid_17_taken_19_scores_plus_one() -> None:
    rules = rules_of("pagat")
    deal = Deal(rules, 3, hands_from_tricks(rules, BID17_TAKEN19))
    act(deal, "S:17 W:pass N:pass E:pass S:trump=H")
    play_tricks(deal, BID17_TAKEN19)
    v = deal.verdict()
    assert (v["bidder"], v["bid"], v["target"]) == (0, 17, 17)
    assert v["points"] == [19, 9]
    assert v["result"] == "made"
    assert v["stake"] == 1
    assert v["delta"] == [1, 0]


EAST22_TAKEN20 = [
    ("E", "8H QH JH QS"),  # North void in hearts: reveal (diamonds); W wins 3
    ("W", "7S KS TS 9S"),  # S wins 3
    ("S", "KD TD JD 8D"),  # N wins 4
    ("N", "7C 9C AC TC"),  # E wins 4
    ("E", "AH 7H 9D 8C"),  # W trumps with 9♦, wins 3
    ("W", "8S JC AD JS"),  # E trumps with A♦, wins 7
    ("E", "TH 9H QD KC"),  # W trumps with Q♦, wins 3
    ("W", "AS QC KH 7D"),  # S trumps with 7♦, wins 1
]


def test_east_bids_22_east_west_take_20_scores_minus_one() -> None:
    rules = rules_of("pagat")
    deal = Deal(rules, 2, hands_from_tricks(rules, EAST22_TAKEN20))  # East speaks first
    act(deal, "E:22 S:pass W:pass N:pass E:trump=D")
    play_tricks(deal, EAST22_TAKEN20)
    v = deal.verdict()
    assert (v["bidder"], v["bid"], v["target"]) == (3, 22, 22)
    assert v["points"] == [8, 20]
    assert v["result"] == "failed"
    assert v["stake"] == 1
    assert v["delta"] == [0, -1]


# ---------------------------------------------------------------------------
# Bid 18, 20 points against 8: made. Defenders bid 18 and take 17: failed.

BID18_TAKEN20 = [
    ("S", "JH QH AH 8S"),  # East void in hearts: reveal (clubs); S wins 4
    ("S", "9H KH TH JC"),  # E trumps with J♣, wins 6
    ("E", "7S TS QS AS"),  # N wins 2
    ("N", "AD TD KD 7D"),  # N wins 2
    ("N", "8C AC TC KC"),  # E wins 2
    ("E", "JS KS 9S 9C"),  # N trumps with 9♣, wins 7
    ("N", "7C QD 8H 8D"),  # N wins 0
    ("N", "QC 9D JD 7H"),  # N wins 5
]


def test_bid_18_with_20_points_against_8_is_made() -> None:
    rules = rules_of("pagat")
    deal = Deal(rules, 3, hands_from_tricks(rules, BID18_TAKEN20))
    act(deal, "S:18 W:pass N:pass E:pass S:trump=C")
    play_tricks(deal, BID18_TAKEN20)
    v = deal.verdict()
    assert v["points"] == [20, 8]
    assert v["result"] == "made"
    assert v["delta"] == [1, 0]


def test_defenders_east_west_bid_18_and_take_17_is_failed() -> None:
    rules = rules_of("pagat")
    deal = Deal(rules, 2, hands_from_tricks(rules, TABLE_EW17_NS11))
    act(deal, "E:18 S:pass W:pass N:pass E:trump=S")
    play_tricks(deal, TABLE_EW17_NS11)
    v = deal.verdict()
    assert v["points"] == [11, 17]
    assert v["result"] == "failed"
    assert v["delta"] == [0, -1]
    assert v["stake"] == 1
