"""Every rule option value of RULES.md section 4 (with the clarifications of
section 8), proved on exact deals driven through the engine; then the
validation of rules and the handling of illegal actions.
"""

from __future__ import annotations

import pytest
from helpers import (
    NO_VOID_HANDS,
    NO_VOID_TRICKS,
    TABLE_EW17_NS11,
    act,
    action_of,
    fill_hands,
    hands_from_tricks,
    make_hands,
    new_deal,
    one_suit_hands,
    play_out,
    play_tricks,
    rules_of,
    snapshot,
)

from twentynine.game.actions import Action
from twentynine.game.cards import parse_card, parse_cards
from twentynine.game.engine import Deal, IllegalAction
from twentynine.game.match import Match
from twentynine.game.observation import event_view, observe_deal
from twentynine.game.rules import PROFILES, RulesError, resolve


def legal_texts(deal: Deal) -> set[str]:
    """The legal actions as script tokens' ``what`` part, e.g. {"pass", "16", "JS"}."""
    out = set()
    for a in deal.legal_actions():
        j = a.to_json()
        key = next(k for k in j if k != "seat")
        out.add(str(j[key]) if key in ("bid", "play") else key)
    return out


def legal_cards(deal: Deal) -> set[int]:
    return {a.value for a in deal.legal_actions() if a.kind == "play" and a.value is not None}


def held_cards(deal: Deal, seat: int) -> set[int]:
    return {c for c in range(32) if deal.held[seat] >> c & 1}


def turns(deal: Deal, script: str) -> list[int]:
    """Apply ``script`` and return ``to_act`` after each action."""
    out = []
    for tok in script.split():
        deal.apply(action_of(tok))
        out.append(deal.to_act)
    return out


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


# ===========================================================================
# reveal: auto


def _auto_deal() -> Deal:
    # pagat; dealer East, South leads; West holds no diamonds.
    hands = fill_hands({"S": "7D", "W": "QH", "N": "8D", "E": "KD"}, void={"W": "D"})
    deal = Deal(rules_of("pagat"), 3, hands)
    act(deal, "S:16 W:pass N:pass E:pass S:trump=H")
    return deal


def test_reveal_auto_happens_before_the_first_seat_that_cannot_follow_acts() -> None:
    deal = _auto_deal()
    events = act(deal, "S:7D")
    assert deal.to_act == 1
    assert deal.revealed_in_trick == 1
    assert [e["type"] for e in events] == ["play", "reveal"]
    assert events[1]["seat"] == 1 and events[1]["asked"] is False
    # Everyone sees trumps from now on.
    assert all(observe_deal(deal, s).trump == 1 for s in (None, 0, 1, 2, 3))


def test_reveal_auto_is_no_action_and_the_revealer_is_not_obliged_to_trump() -> None:
    deal = _auto_deal()
    act(deal, "S:7D")
    assert "reveal" not in legal_texts(deal)
    before = snapshot(deal)
    with pytest.raises(IllegalAction, match="revealed automatically"):
        deal.apply(Action.flag(1, "reveal"))
    assert snapshot(deal) == before
    assert legal_cards(deal) == held_cards(deal, 1)  # any card, trump or not


def test_reveal_auto_may_be_caused_by_the_bidder() -> None:
    hands = fill_hands({"S": "7D", "W": "8D", "N": "9D", "E": "QH"}, void={"E": "D"})
    deal = Deal(rules_of("pagat"), 3, hands)
    act(deal, "S:pass W:pass N:pass E:trump=H")  # East, the dealer, is forced
    act(deal, "S:7D W:8D")
    assert deal.revealed_in_trick == 0
    events = act(deal, "N:9D")
    assert deal.revealed_in_trick == 1
    assert deal.revealer == 3 == deal.bidder
    assert events[-1]["type"] == "reveal"


def test_reveal_auto_trumps_have_no_power_before_the_reveal_trick() -> None:
    # Trick 1 is all spades (the trump suit) with no void: no reveal, plain suit.
    deal = new_deal(NO_VOID_HANDS, dealer=3)
    act(deal, "S:16 W:pass N:pass E:pass S:trump=S")
    play_tricks(deal, NO_VOID_TRICKS[:2])
    assert deal.revealed_in_trick == 0
    assert observe_deal(deal, 1).trump is None


# ===========================================================================
# reveal: ask (pagat with reveal=ask: clockwise, South leads, South bids 16,
# hearts trumps).


def _ask_deal(fixed: dict[str | int, str], void: dict[str | int, str]) -> Deal:
    deal = Deal(rules_of("pagat", reveal="ask"), 3, fill_hands(fixed, void))
    act(deal, "S:16 W:pass N:pass E:pass S:trump=H")
    return deal


def test_reveal_ask_a_discard_without_asking_then_a_reveal_in_a_later_trick() -> None:
    deal = _ask_deal(
        {"S": "AD AS", "W": "7H 8S", "N": "8D 9H", "E": "KD KS"},
        {"W": "D", "N": "SH"},
    )
    act(deal, "S:AD")
    assert "reveal" in legal_texts(deal)  # West may ask ...
    act(deal, "W:7H N:8D E:KD")  # ... but just discards a (hidden) trump
    v = deal.verdict()
    assert v["revealed_in_trick"] is None
    assert v["tricks"][0]["winner"] == 0  # 7♥ had no power: A♦ wins
    act(deal, "S:AS W:8S")
    assert deal.to_act == 2 and "reveal" in legal_texts(deal)
    act(deal, "N:reveal")
    assert deal.revealed_in_trick == 2
    assert legal_cards(deal) == {parse_card("9H")}  # North's only trump
    act(deal, "N:9H E:KS")
    v = deal.verdict()
    assert v["revealed_in_trick"] == 2
    assert v["tricks"][0]["winner"] == 0  # the earlier trick is not re-judged
    assert v["tricks"][1]["winner"] == 2


def test_reveal_ask_obligation_a_winning_trump_if_the_seat_has_one() -> None:
    deal = _ask_deal({"S": "7D", "W": "QH", "N": "KH 8H", "E": "8D"}, {"W": "D", "N": "DH"})
    act(deal, "S:7D W:QH")  # West discards Q♥ without asking: a trump once revealed
    act(deal, "N:reveal")
    assert legal_cards(deal) == set(parse_cards("KH"))  # only K♥ beats Q♥
    before = snapshot(deal)
    with pytest.raises(IllegalAction, match="seat 2 asked for the reveal and must play a trump"):
        deal.apply(Action.play(2, parse_card("8H")))
    assert snapshot(deal) == before
    act(deal, "N:KH E:8D")
    assert deal.verdict()["tricks"][0]["winner"] == 2


def test_reveal_ask_obligation_any_trump_when_none_wins() -> None:
    deal = _ask_deal({"S": "7D", "W": "QH", "N": "8H 7H", "E": "8D"}, {"W": "D", "N": "DH"})
    act(deal, "S:7D W:QH N:reveal")
    assert legal_cards(deal) == set(parse_cards("8H 7H"))
    act(deal, "N:7H E:8D")
    assert deal.verdict()["tricks"][0]["winner"] == 1  # West's Q♥ counts as a trump


def test_reveal_ask_obligation_any_trump_when_partner_already_wins_with_a_trump() -> None:
    deal = _ask_deal({"S": "7D", "W": "QH", "N": "8D", "E": "KH 7H"}, {"W": "D", "E": "DH"})
    act(deal, "S:7D W:QH N:8D E:reveal")
    # West (East's partner) wins with Q♥: East may play any trump, not only K♥ ...
    assert legal_cards(deal) == set(parse_cards("KH 7H"))
    # ... but it must be a trump.
    with pytest.raises(IllegalAction, match="must play a trump"):
        deal.apply(Action.play(3, next(iter(held_cards(deal, 3) - set(parse_cards("KH 7H"))))))
    act(deal, "E:7H")
    assert deal.verdict()["tricks"][0]["winner"] == 1


def test_reveal_ask_obligation_any_card_without_trumps() -> None:
    deal = _ask_deal({"S": "7D", "W": "8D", "E": "9D"}, {"N": "DH"})
    act(deal, "S:7D W:8D N:reveal")
    assert deal.revealed_in_trick == 1
    assert legal_cards(deal) == held_cards(deal, 2)
    assert "reveal" not in legal_texts(deal)


def test_reveal_ask_a_trump_discarded_before_the_reveal_counts_later_in_that_trick() -> None:
    deal = _ask_deal({"S": "7D", "W": "JH", "N": "9D", "E": "7H"}, {"W": "D", "E": "DH"})
    act(deal, "S:7D W:JH N:9D E:reveal")
    assert legal_cards(deal) == set(parse_cards("7H"))
    act(deal, "E:7H")
    t = deal.verdict()["tricks"][0]
    assert (t["winner"], t["points"]) == (1, 5)  # West's J♥ wins over North's 9♦


def test_reveal_ask_the_leader_cannot_ask() -> None:
    deal = _ask_deal({"S": "7D"}, {})
    assert deal.to_act == 0
    assert "reveal" not in legal_texts(deal)
    before = snapshot(deal)
    with pytest.raises(IllegalAction, match="seat 0 leads and cannot ask for the reveal"):
        deal.apply(Action.flag(0, "reveal"))
    assert snapshot(deal) == before


def test_reveal_ask_a_seat_that_can_follow_cannot_ask() -> None:
    deal = _ask_deal({"S": "7D", "W": "8D"}, {})
    act(deal, "S:7D")
    with pytest.raises(IllegalAction, match="seat 1 can follow diamonds and cannot ask"):
        deal.apply(Action.flag(1, "reveal"))


def test_reveal_ask_the_bidder_may_ask() -> None:
    deal = Deal(
        rules_of("pagat", reveal="ask"), 3, fill_hands({"S": "7D", "W": "QH KH"}, {"W": "D"})
    )
    act(deal, "S:pass W:16 N:pass E:pass S:pass W:trump=H")
    act(deal, "S:7D")
    assert "reveal" in legal_texts(deal)
    act(deal, "W:reveal")
    assert (deal.revealed_in_trick, deal.revealer, deal.bidder) == (1, 1, 1)
    assert legal_cards(deal) == {c for c in held_cards(deal, 1) if c // 8 == 1}


def test_reveal_ask_after_the_reveal_others_who_cannot_follow_play_anything() -> None:
    deal = _ask_deal({"S": "JD 9D AD TD KD QD 8D 7D", "W": "QH", "N": "KH 8H"}, {"N": "H"})
    act(deal, "S:7D W:QH N:reveal N:KH")
    assert deal.to_act == 3
    assert legal_cards(deal) == held_cards(deal, 3)
    with pytest.raises(IllegalAction, match="trumps are already revealed"):
        deal.apply(Action.flag(3, "reveal"))


def test_reveal_ask_bhoos_profile_asks_in_anticlockwise_order() -> None:
    # bhoos, dealer South: East opens and leads, then North, West, South.
    hands = fill_hands({"E": "7D", "N": "QH 8H"}, {"N": "D"})
    deal = Deal(PROFILES["bhoos"], 0, hands)
    act(deal, "E:16 N:pass W:pass S:pass E:trump=H E:7D")
    assert deal.to_act == 2
    assert "reveal" in legal_texts(deal)
    act(deal, "N:reveal")
    assert legal_cards(deal) == set(parse_cards("QH 8H"))


# ===========================================================================
# seventh_card

SEVENTH_HANDS = fill_hands({"S": "JS 9S AS TS KS QS 8C 7S"}, void={"W": "S"})


def test_seventh_card_trump_is_the_suit_of_the_bidders_seventh_card_which_stays_in_hand() -> None:
    deal = Deal(rules_of("pagat", seventh_card=True), 3, SEVENTH_HANDS)
    act(deal, "S:16 W:pass N:pass E:pass")
    assert "seventh" in legal_texts(deal)
    act(deal, "S:seventh")
    assert deal.trump == 3  # clubs: hands[0][6] is 8♣
    assert deal.held[0] >> parse_card("8C") & 1
    v = deal.verdict()
    assert (v["trump"], v["seventh"]) == ("C", True)


def test_seventh_card_the_bidder_knows_trumps_from_the_second_batch_others_at_the_reveal() -> None:
    deal = Deal(rules_of("pagat", seventh_card=True), 3, SEVENTH_HANDS)
    act(deal, "S:16 W:pass N:pass E:pass")
    first = observe_deal(deal, 0)
    assert first.trump is None and len(first.hand) == 4
    events = act(deal, "S:seventh")
    bidder = observe_deal(deal, 0)
    assert bidder.second_batch and bidder.trump == 3 and len(bidder.hand) == 8
    for seat in (None, 1, 2, 3):
        assert observe_deal(deal, seat).trump is None
    # The events tell the bidder the suit with its second batch, and nobody else.
    views = {seat: [event_view(e, seat) for e in events] for seat in (0, 1, 2, 3, None)}
    assert any(v and v.get("trump") == "C" for v in views[0])
    for seat in (1, 2, 3, None):
        assert not any(v and "trump" in v for v in views[seat])
    act(deal, "S:JS")  # West has no spades: revealed
    assert deal.revealed_in_trick == 1
    for seat in (None, 1, 2, 3):
        assert observe_deal(deal, seat).trump == 3


def test_seventh_card_refused_when_the_option_is_off() -> None:
    deal = new_deal(SEVENTH_HANDS, dealer=3)
    act(deal, "S:16 W:pass N:pass E:pass")
    before = snapshot(deal)
    with pytest.raises(IllegalAction, match=r"seventh card is not allowed .*seventh_card=no"):
        deal.apply(Action.flag(0, "seventh"))
    assert snapshot(deal) == before


def test_seventh_card_ordinary_trump_choice_is_known_to_the_bidder_only() -> None:
    deal = Deal(rules_of("pagat", seventh_card=True), 3, SEVENTH_HANDS)
    act(deal, "S:16 W:pass N:pass E:pass S:trump=D")
    assert observe_deal(deal, 0).trump == 2
    assert all(observe_deal(deal, s).trump is None for s in (None, 1, 2, 3))
    assert deal.verdict()["seventh"] is False


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
# pair


def test_pair_off_no_window_and_target_stays() -> None:
    deal = new_deal(one_suit_hands(0), dealer=3, profile="arcade")
    act(deal, "S:16 W:pass N:pass E:pass S:trump=S S:JS W:JH N:JD E:JC")
    assert deal.phase == "play" and deal.to_act == 0
    assert "pair" not in legal_texts(deal)
    play_out(deal)
    v = deal.verdict()
    assert (v["pair"], v["target"], v["result"]) == (None, 16, "made")


PAIR_WINDOW_TRICKS = [
    ("S", "7S AS 8S JS"),  # E wins, trumps hidden: no window
    ("E", "7D JD 7C 8D"),  # West void: reveal (hearts); S wins: not West's team
    ("S", "QS 9S KS TS"),  # W wins: West is asked (passes)
    ("W", "JC 8C 9C AC"),  # W wins: asked again (declares)
    ("W", "TC QC KC 9D"),  # W wins: the pair is gone
]
PAIR_WINDOW_REST = {"S": "JH 9H AH", "W": "KH QH 7H", "N": "AD TD KD", "E": "TH 8H QD"}


def test_pair_only_after_a_trick_won_by_the_holders_team_once_trumps_are_revealed() -> None:
    rules = rules_of("pagat")
    deal = Deal(rules, 3, hands_from_tricks(rules, PAIR_WINDOW_TRICKS, rest=PAIR_WINDOW_REST))
    act(deal, "S:16 W:pass N:pass E:pass S:trump=H")
    play_tricks(deal, PAIR_WINDOW_TRICKS[:1], pass_pairs=False)
    assert deal.phase == "play" and deal.to_act == 3  # E-W won, but trumps are hidden
    play_tricks(deal, PAIR_WINDOW_TRICKS[1:2], pass_pairs=False)
    assert deal.revealed_in_trick == 2
    assert deal.phase == "play" and deal.to_act == 0  # revealed, but N-S won
    play_tricks(deal, PAIR_WINDOW_TRICKS[2:3], pass_pairs=False)
    assert deal.phase == "pair" and deal.to_act == 1
    assert legal_texts(deal) == {"pair", "pass"}
    # Nobody else is told whose decision it is, not even by acting out of turn.
    assert observe_deal(deal, 0).to_act is None
    with pytest.raises(IllegalAction, match="the table is waiting") as err:
        deal.apply(Action.pass_(3))
    assert "seat 1" not in str(err.value)


def test_pair_a_pass_is_asked_again_after_a_later_won_trick_and_declared_once() -> None:
    rules = rules_of("pagat")
    deal = Deal(rules, 3, hands_from_tricks(rules, PAIR_WINDOW_TRICKS, rest=PAIR_WINDOW_REST))
    act(deal, "S:16 W:pass N:pass E:pass S:trump=H")
    play_tricks(deal, PAIR_WINDOW_TRICKS[:3], after={3: "W:pass"}, pass_pairs=False)
    assert deal.phase == "play" and deal.to_act == 1
    assert deal.target == 16
    play_tricks(deal, PAIR_WINDOW_TRICKS[3:4], pass_pairs=False)
    assert deal.phase == "pair" and deal.to_act == 1
    act(deal, "W:pair")
    assert deal.target == 20
    play_tricks(deal, PAIR_WINDOW_TRICKS[4:], pass_pairs=False)
    assert deal.phase == "play"  # West's team won again: no second pair
    assert deal.verdict()["pair"] == {"seat": 1, "team": 1, "trick": 4}


@pytest.mark.parametrize(
    ("profile", "bid", "target"),
    [("pagat", 24, 28), ("pagat", 25, 28), ("pagat", 17, 21), ("modern", 26, 29)],
)
def test_pair_standard_defenders_pair_adds_4_capped_at_max_bid(
    profile: str, bid: int, target: int
) -> None:
    # West bids and names spades; South holds every spade. West leads a heart,
    # South (void) trumps it with 7♠ and declares.
    if profile == "pagat":
        deal = new_deal(one_suit_hands(0), dealer=0, profile=profile)  # West speaks first
        act(deal, f"W:{bid} N:pass E:pass S:pass W:trump=S W:7H N:7D E:7C S:7S")
    else:
        deal = new_deal(one_suit_hands(0), dealer=2, profile=profile)  # West speaks first
        act(deal, f"W:{bid} S:pass E:pass N:pass W:trump=S S:pass W:7H S:7S E:7C N:7D")
    assert deal.phase == "pair" and deal.to_act == 0
    act(deal, "S:pair")
    assert deal.target == target


@pytest.mark.parametrize(("bid", "target"), [(16, 15), (18, 15), (19, 15), (20, 16), (28, 24)])
def test_pair_standard_bidding_team_subtracts_4_floored_at_min_bid(bid: int, target: int) -> None:
    deal = new_deal(one_suit_hands(0), dealer=3)
    act(deal, f"S:{bid}")
    if bid < 28:  # 28 ends the auction at once
        act(deal, "W:pass N:pass E:pass")
    act(deal, "S:trump=S S:7S W:7H N:7D E:7C S:pair")
    assert deal.target == target


@pytest.mark.parametrize(
    ("bid", "target"),
    [(16, 16), (17, 17), (18, 18), (19, 16), (20, 16), (21, 17), (22, 18), (28, 24)],
)
def test_pair_bangladesh_bidding_team(bid: int, target: int) -> None:
    deal = new_deal(one_suit_hands(0), dealer=1, profile="bangladesh")  # South opens the duel
    act(deal, f"S:{bid}")
    if bid < 28:
        act(deal, "E:pass N:pass W:pass")
    act(deal, "S:trump=S S:7S E:7C N:7D W:7H S:pair")
    assert deal.target == target


@pytest.mark.parametrize(("bid", "target"), [(17, 21), (22, 26), (25, 28)])
def test_pair_bangladesh_defenders_add_4_capped_at_max_bid(bid: int, target: int) -> None:
    # bangladesh, dealer North: West opens; South (every spade) is the defender.
    deal = new_deal(one_suit_hands(0), dealer=2, profile="bangladesh")
    act(deal, f"W:{bid} S:pass E:pass N:pass W:trump=S W:7H S:7S E:7C N:7D")
    assert deal.phase == "pair" and deal.to_act == 0
    act(deal, "S:pair")
    assert deal.target == target


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
