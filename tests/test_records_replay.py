"""Game records (``29-record/1``) that replay: RULES.md sections 6-8.

Actions round-trip through JSON; a good record's verdict gives every deal, in
progress or finished, with forced bids, redeals, single hands and deals in a row.
Records are built by playing seeded matches with random legal actions
(fixtures ``play`` and ``record_json`` of conftest.py) and then edited.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from records_helpers import Play, RecordOf, assert_error, nxt, replay, two_deals_record

from twentynine.game import record
from twentynine.game.actions import FLAG_KINDS, Action
from twentynine.game.cards import SUITS, card_text
from twentynine.game.match import Match
from twentynine.game.record import EXIT_ILLEGAL, EXIT_OK
from twentynine.game.rules import PROFILES, resolve


@pytest.fixture(scope="module")
def two_deals(play: Play, record_json: RecordOf) -> dict[str, Any]:
    """A pagat record: deal 0 finished with 8 tricks played, deal 1 in the middle of play."""
    return two_deals_record(play, record_json)


# ---------------------------------------------------------------- actions and JSON
def every_action() -> list[Action]:
    out: list[Action] = []
    for s in range(4):
        out.extend(Action.bid(s, b) for b in range(1, 30))
        out.extend(Action.play(s, c) for c in range(32))
        out.extend(Action.trump(s, t) for t in range(4))
        out.extend(Action.flag(s, k) for k in sorted(FLAG_KINDS))
    return out


def test_every_action_type_round_trips_between_action_and_json() -> None:
    kinds = set()
    for a in every_action():
        js = a.to_json()
        kinds.add(a.kind)
        assert set(js) == {"seat", a.kind}
        assert js["seat"] == a.seat
        value = js[a.kind]
        if a.kind in FLAG_KINDS:
            assert value is True
        elif a.kind == "bid":
            assert type(value) is int and value == a.value
        elif a.kind == "trump":
            assert value in ("S", "H", "D", "C")
        else:
            assert value == card_text(a.value or 0) and len(value) == 2
        text = json.dumps(js)
        assert Action.from_json(json.loads(text)) == a
        assert Action.from_json(js).to_json() == js
    assert kinds == {"bid", "trump", "play", *FLAG_KINDS}


def test_the_actions_of_the_rules_example_round_trip() -> None:
    example = [
        {"seat": 0, "bid": 16},
        {"seat": 1, "pass": True},
        {"seat": 0, "trump": "S"},
        {"seat": 0, "seventh": True},
        {"seat": 1, "double": True},
        {"seat": 0, "redouble": True},
        {"seat": 2, "set": True},
        {"seat": 3, "single": True},
        {"seat": 0, "play": "JS"},
        {"seat": 2, "pair": True},
        {"seat": 1, "reveal": True},
    ]
    for js in example:
        assert Action.from_json(js).to_json() == js


@pytest.mark.parametrize(
    ("given", "canonical"),
    [
        ({"seat": 1, "play": "10h"}, {"seat": 1, "play": "TH"}),
        ({"seat": 1, "play": "10H"}, {"seat": 1, "play": "TH"}),
        ({"seat": 2, "play": "j♠"}, {"seat": 2, "play": "JS"}),
        ({"seat": 3, "play": "9♦"}, {"seat": 3, "play": "9D"}),
        ({"seat": 0, "play": "qc"}, {"seat": 0, "play": "QC"}),
        ({"seat": 0, "trump": "♣"}, {"seat": 0, "trump": "C"}),
        ({"seat": 0, "trump": "h"}, {"seat": 0, "trump": "H"}),
    ],
)
def test_action_input_accepts_ten_lower_case_and_suit_symbols(
    given: dict[str, Any], canonical: dict[str, Any]
) -> None:
    assert Action.from_json(given).to_json() == canonical


# ---------------------------------------------------------------- good records
def test_good_record_replays_ok(two_deals: dict[str, Any]) -> None:
    v = replay(two_deals)
    assert v.exit_status == EXIT_OK and v.ok
    data = v.data
    assert set(data) == {"ok", "deals", "score", "winner", "complete"}
    assert len(data["deals"]) == 2
    assert data["complete"] is False  # deal 1 is in the middle of play
    assert data["deals"][0]["result"] in ("made", "failed")
    assert data["deals"][1]["result"] == "in-progress"
    assert data["score"] == data["deals"][0]["delta"]
    assert data["winner"] is None
    keys = {
        "dealer",
        "bidder",
        "bid",
        "trump",
        "seventh",
        "single",
        "doubling",
        "revealed_in_trick",
        "pair",
        "target",
        "points",
        "tricks_played",
        "result",
        "stake",
        "delta",
        "tricks",
    }
    for d in data["deals"]:
        assert set(d) == keys
        for t in d["tricks"]:
            assert set(t) == {"leader", "cards", "winner", "points"}


def test_rules_omitted_means_pagat(two_deals: dict[str, Any]) -> None:
    expected = replay(two_deals).data
    for rules in ("omitted", None, {}, {"profile": "pagat"}):
        rec = copy.deepcopy(two_deals)
        if rules == "omitted":
            del rec["rules"]
        else:
            rec["rules"] = rules
        v = replay(rec)
        assert v.exit_status == EXIT_OK
        assert v.data == expected


def test_rules_change_what_is_legal() -> None:
    """A pagat bid of 15 is illegal once min_bid is 16."""
    match = Match(PROFILES["pagat"], seed=5)
    first = match.to_act
    match.apply(Action.bid(first, 15))
    rec = json.loads(record.dumps(match))
    assert replay(rec).exit_status == EXIT_OK
    rec["rules"] = {"profile": "pagat", "min_bid": 16}
    data = assert_error(replay(rec), EXIT_ILLEGAL, 0, 0)
    assert "15" in data["error"]["message"]


def test_cards_may_be_written_with_ten_lower_case_and_symbols(two_deals: dict[str, Any]) -> None:
    symbols = dict(zip("SHDC", "♠♥♦♣", strict=True))

    def fancy(c: str) -> str:
        rank = "10" if c[0] == "T" else c[0].lower()
        return rank + symbols[c[1]]

    rec = copy.deepcopy(two_deals)
    for d in rec["deals"]:
        d["hands"] = [[fancy(c) for c in h] for h in d["hands"]]
        for a in d["actions"]:
            if "play" in a:
                a["play"] = fancy(a["play"])
            if "trump" in a:
                a["trump"] = a["trump"].lower()
    assert replay(rec).data == replay(two_deals).data


def test_dumps_and_loads_round_trip(play: Play) -> None:
    match = play("modern", seed=8, rng_seed=8, max_actions=150)
    text = record.dumps(match)
    again = record.loads(text)
    assert record.dumps(again) == text
    assert again.legal_actions() == match.legal_actions()
    assert json.loads(text)["format"] == "29-record/1"


def test_empty_deals_list_is_a_complete_record() -> None:
    v = replay({"format": "29-record/1", "deals": []})
    assert v.exit_status == EXIT_OK
    assert v.data == {"ok": True, "deals": [], "score": [0, 0], "winner": None, "complete": True}


# ---------------------------------------------------------------- records in progress
def test_record_in_progress_reports_nulls_until_known() -> None:
    rules = PROFILES["pagat"]
    match = Match(rules, seed=21)
    deal = match.deal
    first = match.to_act

    def verdict() -> dict[str, Any]:
        v = replay(record.dumps(match))
        assert v.exit_status == EXIT_OK and v.ok
        assert v.data["complete"] is False
        assert v.data["score"] == [0, 0]
        d: dict[str, Any] = v.data["deals"][-1]
        assert d["result"] == "in-progress"
        assert d["stake"] is None and d["delta"] == [0, 0]
        return d

    d = verdict()  # no action at all
    assert (d["bidder"], d["bid"], d["trump"], d["target"]) == (None, None, None, None)
    assert d["tricks"] == [] and d["tricks_played"] == 0 and d["points"] == [0, 0]
    assert d["dealer"] == deal.dealer
    match.apply(Action.bid(first, 17))  # the auction goes on
    d = verdict()
    assert (d["bidder"], d["bid"], d["trump"]) == (None, None, None)
    seat = rules.next_seat(first)
    for _ in range(3):
        match.apply(Action.pass_(seat))
        seat = rules.next_seat(seat)
    d = verdict()  # the auction is over, trumps not yet chosen
    assert (d["bidder"], d["bid"], d["trump"]) == (first, 17, None)
    match.apply(Action.trump(first, 2))
    d = verdict()
    assert d["trump"] == "D" and d["target"] == 17
    plays = 0
    while plays < 6:  # one trick and a half
        match.apply(match.legal_actions()[0])
        plays += match.deal.log[-1].kind == "play"
    d = verdict()
    assert d["tricks_played"] == len(d["tricks"]) == 1
    assert len(d["tricks"][0]["cards"]) == 4
    assert sum(d["points"]) == d["tricks"][0]["points"]


# ---------------------------------------------------------------- forced bids
@pytest.mark.parametrize(
    ("profile", "passes", "forced_seat"),
    [
        ("pagat", 3, "dealer"),  # dealer_forced, open auction
        ("bangladesh", 3, "dealer"),  # dealer_forced, duel auction
        ("modern", 4, "first"),  # first_forced
    ],
)
def test_forced_bid_is_no_action_the_next_is_the_trump_choice(
    profile: str, passes: int, forced_seat: str
) -> None:
    rules = PROFILES[profile]
    match = Match(rules, seed=4)
    dealer = match.deal.dealer
    first = rules.next_seat(dealer)
    rec = json.loads(record.dumps(match))
    seat = first
    actions: list[dict[str, Any]] = []
    for _ in range(passes):
        actions.append({"seat": seat, "pass": True})
        seat = rules.next_seat(seat)
    bidder = dealer if forced_seat == "dealer" else first
    rec["deals"][0]["actions"] = [*actions, {"seat": bidder, "trump": "H"}]
    v = replay(rec)
    assert v.exit_status == EXIT_OK, v.data
    d = v.data["deals"][0]
    assert (d["bidder"], d["bid"], d["trump"]) == (bidder, rules.min_bid, "H")
    # writing the forced bid as an action is an error
    rec["deals"][0]["actions"] = [*actions, {"seat": bidder, "bid": rules.min_bid}]
    assert_error(replay(rec), EXIT_ILLEGAL, 0, passes)


def test_redeal_voids_the_deal_and_passes_it_on() -> None:
    rules = resolve("pagat", {"all_pass": "redeal"})
    match = Match(rules, seed=4)
    dealer = match.deal.dealer
    seat = rules.next_seat(dealer)
    for _ in range(4):
        match.apply(Action.pass_(seat))
        seat = rules.next_seat(seat)
    assert match.deal.dealer == rules.next_seat(dealer)  # the next deal has started
    v = replay(record.dumps(match))
    assert v.exit_status == EXIT_OK
    d = v.data["deals"][0]
    assert d["result"] == "cancelled"
    assert (d["bidder"], d["bid"], d["trump"], d["target"]) == (None, None, None, None)
    assert d["stake"] == 0 and d["delta"] == [0, 0] and d["tricks"] == []
    assert v.data["deals"][1]["dealer"] == rules.next_seat(dealer)


# ---------------------------------------------------------------- single hand
@pytest.mark.parametrize("options", [{"single_hand": 3}, {"single_hand": True, "doubling": True}])
def test_single_hand_verdict_keeps_bidder_bid_and_trump(
    play: Play, record_json: RecordOf, options: dict[str, Any]
) -> None:
    declarer: dict[str, int] = {}

    def policy(match: Match, legal: list[Action], rng: Any) -> Action | None:
        single = [a for a in legal if a.kind == "single"]
        if single and not declarer:
            declarer["seat"] = single[0].seat
            return single[0]
        return None

    rules = resolve("pagat", options)
    assert rules.single_hand_stake == 3
    match = play(rules, seed=6, rng_seed=6, max_deals=1, policy=policy)
    deal = match.deals[0]
    assert deal.is_over()
    v = replay(record_json(match))
    assert v.exit_status == EXIT_OK
    d = v.data["deals"][0]
    assert d["single"] == declarer["seat"]
    assert d["bidder"] == deal.bidder >= 0 and d["bid"] == deal.bid
    assert d["trump"] in SUITS
    assert d["target"] is None and d["doubling"] == 1
    assert d["revealed_in_trick"] is None and d["pair"] is None
    assert d["result"] in ("single-made", "single-failed")
    assert d["stake"] == 3
    team = declarer["seat"] % 2
    sign = 1 if d["result"] == "single-made" else -1
    assert d["delta"][team] == 3 * sign and d["delta"][1 - team] == 0
    assert all(len(t["cards"]) == 3 for t in d["tricks"])
    assert d["tricks"][0]["leader"] == declarer["seat"]
    # no doubling is offered after a declaration
    kinds = [next(k for k in a if k != "seat") for a in record_json(match)["deals"][0]["actions"]]
    assert "double" not in kinds[kinds.index("single") :]


# ---------------------------------------------------------------- single deals
def test_single_deals_follow_each_other_and_the_score_adds_up(
    play: Play, record_json: RecordOf
) -> None:
    match = play("arcade", seed=12, rng_seed=12, max_deals=4)
    assert len(match.deals) == 4 and match.deals[-1].is_over()
    rec = record_json(match)
    v = replay(rec)
    assert v.exit_status == EXIT_OK and v.data["complete"] is True
    total = [sum(d["delta"][t] for d in v.data["deals"]) for t in (0, 1)]
    assert v.data["score"] == total
    assert v.data["winner"] is None
    for a, b in zip(rec["deals"], rec["deals"][1:], strict=False):
        assert b["dealer"] == nxt("arcade", a["dealer"])
