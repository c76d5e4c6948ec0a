"""Game records (``29-record/1``) and the replay verdict: RULES.md sections 6-8.

Records are built by playing seeded matches with random legal actions
(fixtures ``play`` and ``record_json`` of conftest.py) and then edited.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from twentynine.game import record
from twentynine.game.actions import FLAG_KINDS, Action, ActionError
from twentynine.game.cards import SUITS, card_text
from twentynine.game.match import Match
from twentynine.game.record import EXIT_ILLEGAL, EXIT_MALFORMED, EXIT_OK
from twentynine.game.rules import PROFILES, resolve

Play = Callable[..., Match]
RecordOf = Callable[[Match], dict[str, Any]]


def replay(obj: Any) -> record.Verdict:
    text = obj if isinstance(obj, str | bytes) else json.dumps(obj)
    return record.replay_text(text)


def nxt(profile: str, seat: int) -> int:
    return PROFILES[profile].next_seat(seat)


def assert_error(
    v: record.Verdict, status: int, deal: int | None, action: int | None
) -> dict[str, Any]:
    assert v.exit_status == status
    data = v.data
    assert data["ok"] is False
    assert data["complete"] is False
    err = data["error"]
    assert set(err) == {"deal", "action", "message"}
    assert (err["deal"], err["action"]) == (deal, action), err
    assert isinstance(err["message"], str) and err["message"].strip()
    json.dumps(data)
    return data


@pytest.fixture(scope="module")
def two_deals(play: Play, record_json: RecordOf) -> dict[str, Any]:
    """A pagat record: deal 0 finished with 8 tricks played, deal 1 in the middle of play."""
    for seed in range(1, 200):
        match = play("pagat", seed=seed, rng_seed=seed, max_deals=2)
        rec = record_json(match)
        if len(rec["deals"]) < 2:
            continue
        d0 = match.deals[0]
        plays1 = [i for i, a in enumerate(rec["deals"][1]["actions"]) if "play" in a]
        if d0.is_over() and len(d0.tricks) == 8 and d0.result != "cancelled" and len(plays1) > 12:
            rec["deals"] = rec["deals"][:2]
            rec["deals"][1]["actions"] = rec["deals"][1]["actions"][: plays1[10] + 1]
            return rec
    raise AssertionError("no suitable seed")


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


BAD_ACTIONS: list[tuple[Any, list[str]]] = [
    # unknown keys
    ({"seat": 0, "bid": 16, "foo": 1}, ["foo"]),
    ({"seat": 0, "Pass": True}, ["Pass"]),
    ({"seat": 0, "bid": 16, "comment": "x"}, ["comment"]),
    # not exactly one action key
    ({"seat": 0, "bid": 16, "pass": True}, ["bid", "pass"]),
    ({"seat": 0, "play": "JS", "pair": True}, ["play", "pair"]),
    ({"seat": 0}, ["action key"]),
    # flags must be true
    ({"seat": 0, "pass": False}, ["pass", "true"]),
    ({"seat": 0, "pass": 1}, ["pass", "true"]),
    ({"seat": 0, "double": "true"}, ["double", "true"]),
    ({"seat": 0, "pair": None}, ["pair", "true"]),
    ({"seat": 0, "reveal": "yes"}, ["reveal", "true"]),
    ({"seat": 0, "seventh": 0}, ["seventh", "true"]),
    # bids are JSON integers
    ({"seat": 0, "bid": True}, ["bid"]),
    ({"seat": 0, "bid": False}, ["bid"]),
    ({"seat": 0, "bid": 16.0}, ["bid", "16.0"]),
    ({"seat": 0, "bid": 16.5}, ["bid"]),
    ({"seat": 0, "bid": "16"}, ["bid"]),
    ({"seat": 0, "bid": None}, ["bid"]),
    ({"seat": 0, "bid": [16]}, ["bid"]),
    # seats
    ({"seat": 4, "pass": True}, ["seat"]),
    ({"seat": -1, "pass": True}, ["seat"]),
    ({"seat": "0", "pass": True}, ["seat"]),
    ({"seat": True, "pass": True}, ["seat"]),
    ({"seat": 1.0, "pass": True}, ["seat"]),
    ({"seat": None, "pass": True}, ["seat"]),
    ({"pass": True}, ["seat"]),
    # cards and suits
    ({"seat": 0, "play": "1S"}, ["play", "1S"]),
    ({"seat": 0, "play": "JX"}, ["play", "JX"]),
    ({"seat": 0, "play": ""}, ["play"]),
    ({"seat": 0, "play": "JSS"}, ["play", "JSS"]),
    ({"seat": 0, "play": "6H"}, ["play", "6H"]),
    ({"seat": 0, "play": 5}, ["play"]),
    ({"seat": 0, "play": None}, ["play"]),
    ({"seat": 0, "trump": "X"}, ["trump", "X"]),
    ({"seat": 0, "trump": "SH"}, ["trump"]),
    ({"seat": 0, "trump": 1}, ["trump"]),
    # not an object
    ([0, "pass"], ["object"]),
    ("pass", ["object"]),
    (None, ["object"]),
]


@pytest.mark.parametrize(("obj", "words"), BAD_ACTIONS, ids=[repr(o) for o, _ in BAD_ACTIONS])
def test_action_from_json_rejects_with_a_message_naming_the_problem(
    obj: Any, words: list[str]
) -> None:
    with pytest.raises(ActionError) as err:
        Action.from_json(obj)
    message = str(err.value)
    for word in words:
        assert word in message, (word, message)
    assert isinstance(err.value, ValueError)


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


# ---------------------------------------------------------------- illegal actions
def held_before(deal_rec: dict[str, Any], upto: int) -> list[set[str]]:
    """Each seat's cards before action ``upto`` (the second batch is dealt at the trump choice)."""
    held = [set(h) for h in deal_rec["hands"]]
    for a in deal_rec["actions"][:upto]:
        if "play" in a:
            held[a["seat"]].discard(a["play"])
    return held


def test_illegal_action_stops_the_replay_with_the_deals_before_it(
    two_deals: dict[str, Any],
) -> None:
    good = replay(two_deals).data
    rec = copy.deepcopy(two_deals)
    actions = rec["deals"][1]["actions"]
    j = max(i for i, a in enumerate(actions) if "play" in a)
    seat = actions[j]["seat"]
    held = held_before(rec["deals"][1], j)
    other = sorted(held[(seat + 1) % 4])[0]
    actions[j] = {"seat": seat, "play": other}
    data = assert_error(replay(rec), EXIT_ILLEGAL, 1, j)
    assert other in data["error"]["message"]
    assert data["deals"] == good["deals"][:1]
    assert data["score"] == good["deals"][0]["delta"]
    assert data["winner"] is None


def test_not_following_suit_is_illegal(two_deals: dict[str, Any]) -> None:
    rec = copy.deepcopy(two_deals)
    deal = rec["deals"][0]
    actions = deal["actions"]
    plays = [i for i, a in enumerate(actions) if "play" in a]
    for n, j in enumerate(plays):
        if n % 4 == 0:
            continue
        led = actions[plays[n - n % 4]]["play"][1]
        seat = actions[j]["seat"]
        held = held_before(deal, j)[seat]
        off = sorted(c for c in held if c[1] != led)
        if any(c[1] == led for c in held) and off:
            actions[j] = {"seat": seat, "play": off[0]}
            break
    else:
        pytest.skip("no seat could have revoked")
    data = assert_error(replay(rec), EXIT_ILLEGAL, 0, j)
    suit_name = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}[led]
    assert "follow" in data["error"]["message"] and suit_name in data["error"]["message"]
    assert data["deals"] == []


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda first: {"seat": (first + 1) % 4, "pass": True}, ["turn"]),
        (lambda first: {"seat": first, "bid": 40}, ["40"]),
        (lambda first: {"seat": first, "bid": 14}, ["14"]),
        (lambda first: {"seat": first, "play": "JS"}, []),
        (lambda first: {"seat": first, "trump": "S"}, []),
        (lambda first: {"seat": first, "double": True}, []),
        (lambda first: {"seat": first, "bid": True}, ["bid"]),
        (lambda first: {"seat": first, "bid": 16, "pass": True}, ["bid", "pass"]),
        (lambda first: {"seat": first, "bid": 16, "x": 1}, ["'x'"]),
    ],
)
def test_faulty_first_action_gives_both_indexes_and_exit_1(
    make: Callable[[int], dict[str, Any]], words: list[str]
) -> None:
    match = Match(PROFILES["pagat"], seed=11)
    first = match.to_act
    rec = json.loads(record.dumps(match))
    rec["deals"][0]["actions"] = [make(first)]
    data = assert_error(replay(rec), EXIT_ILLEGAL, 0, 0)
    for word in words:
        assert word in data["error"]["message"]
    assert data["deals"] == [] and data["score"] == [0, 0]


def test_action_after_the_deal_is_over_is_illegal(two_deals: dict[str, Any]) -> None:
    rec = copy.deepcopy(two_deals)
    rec["deals"] = rec["deals"][:1]
    n = len(rec["deals"][0]["actions"])
    rec["deals"][0]["actions"].append({"seat": 0, "pass": True})
    data = assert_error(replay(rec), EXIT_ILLEGAL, 0, n)
    assert data["deals"] == []


# ---------------------------------------------------------------- deal-level faults
def test_wrong_dealer_is_a_deal_fault(two_deals: dict[str, Any]) -> None:
    good = replay(two_deals).data
    rec = copy.deepcopy(two_deals)
    right = rec["deals"][1]["dealer"]
    assert right == nxt("pagat", rec["deals"][0]["dealer"])
    rec["deals"][1]["dealer"] = (right + 1) % 4
    data = assert_error(replay(rec), EXIT_ILLEGAL, 1, None)
    assert "dealer" in data["error"]["message"]
    assert data["deals"] == good["deals"][:1]
    assert data["score"] == good["score"]


@pytest.mark.parametrize("dealer", [4, -1, "1", True, None, 1.0])
def test_dealer_that_is_not_a_seat_is_a_deal_fault(two_deals: dict[str, Any], dealer: Any) -> None:
    rec = copy.deepcopy(two_deals)
    rec["deals"][0]["dealer"] = dealer
    data = assert_error(replay(rec), EXIT_ILLEGAL, 0, None)
    assert "dealer" in data["error"]["message"]


def _three_hands(h: list[list[str]]) -> Any:
    return h[:3]


def _seven_cards(h: list[list[str]]) -> Any:
    return [h[0][:7], *h[1:]]


def _nine_cards(h: list[list[str]]) -> Any:
    return [[*h[0], h[1][0]], h[1][1:], h[2], h[3]]


def _twice(h: list[list[str]]) -> Any:
    return [h[0], [h[0][0], *h[1][1:]], h[2], h[3]]


def _bad_card(h: list[list[str]]) -> Any:
    return [["ZZ", *h[0][1:]], *h[1:]]


def _not_a_list(h: list[list[str]]) -> Any:
    return "JS 9S"


@pytest.mark.parametrize(
    "edit", [_three_hands, _seven_cards, _nine_cards, _twice, _bad_card, _not_a_list]
)
def test_hands_must_be_four_times_eight_distinct_cards(
    two_deals: dict[str, Any], edit: Callable[[list[list[str]]], Any]
) -> None:
    good = replay(two_deals).data
    rec = copy.deepcopy(two_deals)
    rec["deals"][1]["hands"] = edit(rec["deals"][1]["hands"])
    data = assert_error(replay(rec), EXIT_ILLEGAL, 1, None)
    assert "hand" in data["error"]["message"]
    assert data["deals"] == good["deals"][:1]


def test_deal_after_an_unfinished_deal_is_a_deal_fault(two_deals: dict[str, Any]) -> None:
    rec = copy.deepcopy(two_deals)
    rec["deals"][0]["actions"] = rec["deals"][0]["actions"][:-1]
    data = assert_error(replay(rec), EXIT_ILLEGAL, 1, None)
    assert "unfinished" in data["error"]["message"] or "finish" in data["error"]["message"]
    assert len(data["deals"]) == 1
    assert data["deals"][0]["result"] == "in-progress"


def test_deal_after_the_match_was_decided_is_a_deal_fault(
    play: Play, record_json: RecordOf
) -> None:
    match = play("pagat", options={"match_target": 2}, seed=3, rng_seed=3, max_deals=100)
    assert match.winner is not None
    rec = record_json(match)
    good = replay(rec).data
    assert good["ok"] and good["complete"] and good["winner"] == match.winner
    n = len(rec["deals"])
    extra = copy.deepcopy(rec["deals"][-1])
    extra["dealer"] = nxt("pagat", rec["deals"][-1]["dealer"])
    extra["actions"] = []
    rec["deals"].append(extra)
    data = assert_error(replay(rec), EXIT_ILLEGAL, n, None)
    assert "decided" in data["error"]["message"] or "over" in data["error"]["message"]
    assert data["deals"] == good["deals"]
    assert data["score"] == good["score"]
    assert data["winner"] == match.winner


# ---------------------------------------------------------------- record-level faults
RECORD_FAULTS: list[tuple[str, Any, list[str]]] = [
    ("not JSON", "{", ["JSON"]),
    ("empty", "", ["JSON"]),
    ("not UTF-8", b"\xff\xfe{", []),
    ("a list", "[]", []),
    ("a number", "29", []),
    ("no format", {"rules": {"profile": "pagat"}, "deals": []}, ["format"]),
    ("wrong format", {"format": "29-record/2", "deals": []}, ["format"]),
    ("unknown profile", {"format": "29-record/1", "rules": {"profile": "nope"}, "deals": []}, []),
    ("unknown option", {"format": "29-record/1", "rules": {"nope": 1}, "deals": []}, ["nope"]),
    ("bad value", {"format": "29-record/1", "rules": {"reveal": "sometimes"}, "deals": []}, []),
    (
        "min above max",
        {"format": "29-record/1", "rules": {"min_bid": 25, "max_bid": 20}, "deals": []},
        [],
    ),
    ("max 29 no point", {"format": "29-record/1", "rules": {"max_bid": 29}, "deals": []}, []),
    (
        "max 30",
        {"format": "29-record/1", "rules": {"last_trick_point": True, "max_bid": 30}, "deals": []},
        [],
    ),
    ("rules a string", {"format": "29-record/1", "rules": "pagat", "deals": []}, ["rules"]),
    ("no deals", {"format": "29-record/1"}, ["deals"]),
    ("deals an object", {"format": "29-record/1", "deals": {}}, ["deals"]),
    ("deals a string", {"format": "29-record/1", "deals": "none"}, ["deals"]),
]


@pytest.mark.parametrize(
    ("name", "obj", "words"), RECORD_FAULTS, ids=[name for name, _, _ in RECORD_FAULTS]
)
def test_record_level_faults_give_exit_2_without_deal_or_action(
    name: str, obj: Any, words: list[str]
) -> None:
    data = assert_error(replay(obj), EXIT_MALFORMED, None, None)
    assert data["deals"] == [] and data["score"] == [0, 0] and data["winner"] is None
    for word in words:
        assert word in data["error"]["message"], (name, data["error"]["message"])


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


# ---------------------------------------------------------------- nothing crashes
LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 40),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=4),
    st.sampled_from(["JS", "10H", "S", "pass", "29-record/1", "pagat", "modern", 16, 3]),
)
KEYS = st.sampled_from(["seat", "bid", "pass", "play", "trump", "profile", "min_bid", "dealer"])
JSON_VALUES = st.recursive(
    LEAVES,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(KEYS | st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=8,
)


def json_paths(obj: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.extend(json_paths(v, (*prefix, k)))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out.extend(json_paths(v, (*prefix, i)))
    return out


@pytest.fixture(scope="module")
def small_record(play: Play, record_json: RecordOf) -> dict[str, Any]:
    rec = record_json(play("pagat", seed=5, rng_seed=5, max_deals=2))
    return rec


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_replay_never_crashes_on_edited_records(
    small_record: dict[str, Any], data: st.DataObject
) -> None:
    """RULES.md 7: nothing crashes; the status, ok and error always agree."""
    rec: Any = copy.deepcopy(small_record)
    paths = json_paths(small_record)
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(paths))
        value = data.draw(JSON_VALUES)
        if not path:
            rec = value
            continue
        try:
            node = rec
            for k in path[:-1]:
                node = node[k]
            if data.draw(st.booleans()) and isinstance(node, dict):
                node.pop(path[-1], None)
            else:
                node[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            pass
    v = replay(rec)
    data_out = json.loads(json.dumps(v.data))
    assert v.exit_status in (EXIT_OK, EXIT_ILLEGAL, EXIT_MALFORMED)
    assert data_out["ok"] is (v.exit_status == EXIT_OK)
    if v.exit_status == EXIT_OK:
        assert "error" not in data_out
    else:
        err = data_out["error"]
        assert err["message"]
        if v.exit_status == EXIT_MALFORMED:
            assert (err["deal"], err["action"]) == (None, None)
            assert data_out["deals"] == []
        else:
            assert isinstance(err["deal"], int)
            assert len(data_out["deals"]) == err["deal"]


def test_deeply_nested_json_is_malformed_not_a_crash() -> None:
    v = record.replay_text("[" * 100_000)
    assert_error(v, EXIT_MALFORMED, None, None)
