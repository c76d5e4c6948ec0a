"""The trump options of RULES.md section 4 (with the clarifications of
section 8): the reveal (auto and ask), the seventh card and the pair, proved
on exact deals driven through the engine.
"""

from __future__ import annotations

import pytest
from helpers import (
    NO_VOID_HANDS,
    NO_VOID_TRICKS,
    act,
    fill_hands,
    hands_from_tricks,
    new_deal,
    one_suit_hands,
    play_out,
    play_tricks,
    rules_of,
    snapshot,
)
from options_helpers import legal_texts

from twentynine.game.actions import Action
from twentynine.game.cards import parse_card, parse_cards
from twentynine.game.engine import Deal, IllegalAction
from twentynine.game.observation import event_view, observe_deal
from twentynine.game.rules import PROFILES


def legal_cards(deal: Deal) -> set[int]:
    return {a.value for a in deal.legal_actions() if a.kind == "play" and a.value is not None}


def held_cards(deal: Deal, seat: int) -> set[int]:
    return {c for c in range(32) if deal.held[seat] >> c & 1}


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
