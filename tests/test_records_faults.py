"""Faulty game records (``29-record/1``) and the replay's refusals: RULES.md sections 6-8.

An action's JSON is refused with a message naming the problem; a faulty action,
deal or record stops the replay with its exit status, the deal and action at fault
and the deals before it; edited records never crash it.
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
from records_helpers import Play, RecordOf, assert_error, nxt, replay, two_deals_record

from twentynine.game import record
from twentynine.game.actions import Action, ActionError
from twentynine.game.match import Match
from twentynine.game.record import EXIT_ILLEGAL, EXIT_MALFORMED, EXIT_OK
from twentynine.game.rules import PROFILES


@pytest.fixture(scope="module")
def two_deals(play: Play, record_json: RecordOf) -> dict[str, Any]:
    """A pagat record: deal 0 finished with 8 tricks played, deal 1 in the middle of play."""
    return two_deals_record(play, record_json)


# ---------------------------------------------------------------- faulty actions
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
