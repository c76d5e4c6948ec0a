"""The contest bot protocol (BHOOS.md): notation, requests, the served bot's answers.

No sockets here: request bodies are built from observations and parsed back,
and the served app is driven through Starlette's TestClient. Golden bodies
are written from the field lists of BHOOS.md; live matches and broken bots
are in ``test_bhoos_live.py``.
"""

from __future__ import annotations

import copy
import json
import random
import re
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from twentynine.game.actions import BID, PLAY, REVEAL, Action
from twentynine.game.cards import parse_card
from twentynine.game.match import Match
from twentynine.game.observation import Observation, observe
from twentynine.game.rules import PROFILES, RulesError, resolve
from twentynine.services.protocols.bhoos.notation import (
    ProtocolError,
    card_in,
    card_out,
    check_rules,
)
from twentynine.services.protocols.bhoos.observation import parse_request
from twentynine.services.protocols.bhoos.requests import request_for, seat_ids
from twentynine.services.protocols.bhoos.server import budget_for, create_app

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

BHOOS = PROFILES["bhoos"]
IDS = ["A1", "B1", "A2", "B2"]
CARD = re.compile(r"^[J91TKQ87][SHDC]$")
# The sample auction of BHOOS.md: A1 16, B1 17, A1 17, B1 pass, A2 pass, B2 pass.
SAMPLE_AUCTION = [["A1", 16], ["B1", 17], ["A1", 17], ["B1", 0], ["A2", 0], ["B2", 0]]


# --------------------------------------------------------------------- helpers


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app("casual", warm=False)) as c:
        yield c


def random_deals(games: int, seed: int = 0) -> Iterator[tuple[Match, Observation]]:
    """Every decision of ``games`` random bhoos deals, as (match, observation to act)."""
    for game in range(games):
        rng = random.Random(seed * 1000 + game)
        match = Match(BHOOS, seed=seed * 1000 + game)
        deal = match.deal
        while not deal.is_over():
            yield match, observe(match, deal.to_act)
            legal = deal.legal_actions()
            kinds = sorted({a.kind for a in legal})
            kind = rng.choice(kinds)
            deal.apply(rng.choice([a for a in legal if a.kind == kind]))


def check_body(endpoint: str, body: dict[str, Any]) -> None:
    """A request body against BHOOS.md's field list and notation (an independent reading)."""
    common = {"playerId", "playerIds", "timeRemaining", "cards", "bidHistory"}
    fields = {
        "bid": common | {"bidState"},
        "chooseTrump": common,
        "play": common | {"teams", "played", "handsHistory", "trumpSuit", "trumpRevealed"},
    }[endpoint]
    assert set(body) == fields, (endpoint, sorted(body))
    ids = body["playerIds"]
    assert len(ids) == 4 and len(set(ids)) == 4 and body["playerId"] in ids
    assert isinstance(body["timeRemaining"], int | float) and body["timeRemaining"] >= 0
    cards = list(body["cards"])
    assert all(CARD.match(c) for c in cards), cards
    for pid, amount in body["bidHistory"]:
        assert pid in ids and isinstance(amount, int) and (amount == 0 or 16 <= amount <= 28)
    if endpoint in ("bid", "chooseTrump"):
        assert len(cards) == 4
    if endpoint == "bid":
        state = body["bidState"]
        assert set(state) == {"defenderId", "challengerId", "defenderBid", "challengerBid"}
        assert state["defenderId"] in ids and state["challengerId"] in ids
        assert isinstance(state["defenderBid"], int) and isinstance(state["challengerBid"], int)
        return
    if endpoint == "chooseTrump":
        return
    teams = body["teams"]
    assert len(teams) == 2
    members = [p for t in teams for p in t["players"]]
    assert sorted(members) == sorted(ids)
    for t in teams:
        a, b = t["players"]
        assert abs(ids.index(a) - ids.index(b)) == 2  # partners two apart
        assert set(t) == {"players", "bid", "won"}
    assert sum(1 for t in teams if t["bid"]) == 1
    assert all(CARD.match(c) for c in body["played"]) and len(body["played"]) <= 3
    for leader, trick, winner in body["handsHistory"]:
        assert leader in ids and winner in ids and len(trick) == 4
        assert all(CARD.match(c) for c in trick)
        cards += trick
    cards += body["played"]
    assert len(cards) == len(set(cards))  # no card twice
    assert body["trumpSuit"] is False or body["trumpSuit"] in ("S", "H", "D", "C")
    revealed = body["trumpRevealed"]
    assert revealed is False or (
        set(revealed) == {"hand", "playerId"}
        and revealed["playerId"] in ids
        and 1 <= revealed["hand"] <= len(body["handsHistory"]) + 1
        and body["trumpSuit"] is not False
    )


def same_observation(original: Observation, rebuilt: Observation, mapping: dict[int, int]) -> None:
    """The rebuilt observation tells the player what the original did (seats renamed)."""

    def m(seat: int | None) -> int | None:
        return None if seat is None else mapping[seat]

    assert rebuilt.seat == m(original.seat)
    assert rebuilt.phase == original.phase and rebuilt.second_batch == original.second_batch
    assert rebuilt.hand == original.hand
    assert sorted(map(repr, rebuilt.legal)) == sorted(
        repr(Action(m(a.seat) or 0, a.kind, a.value)) for a in original.legal
    )
    assert rebuilt.auction == tuple((m(s), b) for s, b in original.auction)
    assert (rebuilt.bidder, rebuilt.bid, rebuilt.forced) == (
        m(original.bidder),
        original.bid,
        original.forced,
    )
    assert rebuilt.trump == original.trump
    assert rebuilt.trump_revealed == original.trump_revealed
    assert rebuilt.revealed_in_trick == original.revealed_in_trick
    assert (rebuilt.revealer, rebuilt.asked) == (m(original.revealer), m(original.asked))
    assert rebuilt.trick == tuple((m(s), c) for s, c in original.trick)
    assert rebuilt.tricks == tuple(
        (m(lead), cards, tuple(m(s) for s in seats), m(win), pts)
        for lead, cards, seats, win, pts in original.tricks
    )
    for seat in range(4):
        assert rebuilt.points[mapping[seat] & 1] == original.points[seat & 1]
    if original.duel is not None:
        assert rebuilt.duel == {
            k: m(v) if k in ("defender", "challenger") else v for k, v in original.duel.items()
        }
    rules = rebuilt.rules
    assert rules.next_seat(rebuilt.dealer) == mapping[original.rules.next_seat(original.dealer)]
    assert rebuilt.hands is None  # the invented cards of the others never show


# ------------------------------------------------------------------- notation


def test_protocol_notation_writes_the_ace_as_1_and_the_ten_as_T():
    assert card_out(parse_card("AS")) == "1S"
    assert card_out(parse_card("TH")) == "TH"
    assert card_out(parse_card("JC")) == "JC"
    for card in range(32):
        assert card_in(card_out(card)) == card


@pytest.mark.parametrize("text", ["AS", "10H", "js", "JX", "J", "", 7, None, "1SS"])
def test_protocol_notation_refuses_other_spellings(text: Any):
    with pytest.raises(ProtocolError):
        card_in(text)


def test_only_rules_the_protocol_can_express_are_accepted():
    check_rules(BHOOS)
    check_rules(resolve("bhoos", {"match_target": 2, "early_end": True}))
    for profile in ("pagat", "modern", "bangladesh", "arcade"):
        with pytest.raises(RulesError, match="protocol"):
            check_rules(PROFILES[profile])
    with pytest.raises(RulesError, match="doubling=yes"):
        check_rules(resolve("bhoos", {"doubling": True}))


# -------------------------------------------------------- requests both ways


def test_every_request_body_follows_the_field_list_and_parses_back_to_the_same_view():
    shapes = set()
    for _match, obs in random_deals(40):
        endpoint, body = request_for(obs, 1234.5)
        body = json.loads(json.dumps(body))  # exactly what goes on the wire
        check_body(endpoint, body)
        req = parse_request(endpoint, body)
        ids = seat_ids(obs)
        mapping = {s: req.table.seat(ids[s]) for s in range(4)}
        same_observation(obs, req.observation, mapping)
        shapes.add(endpoint)
        if obs.asked is not None:
            shapes.add("after-ask")
        if obs.forced:
            shapes.add("forced")
    assert shapes >= {"bid", "chooseTrump", "play", "after-ask", "forced"}


def test_a_forced_bid_is_written_at_the_end_of_the_bid_history():
    match = Match(BHOOS, seed=3)
    deal = match.deal
    for _ in range(3):
        deal.apply(Action.pass_(deal.to_act))
    obs = observe(match, deal.to_act)
    endpoint, body = request_for(obs, 1000)
    assert endpoint == "chooseTrump"
    ids = body["playerIds"]
    assert body["bidHistory"] == [[ids[0], 0], [ids[1], 0], [ids[2], 0], [ids[3], 16]]
    assert body["playerId"] == ids[3]
    # Without the record of the forced bid the history means the same.
    body["bidHistory"] = body["bidHistory"][:3]
    assert parse_request(endpoint, body).observation.forced


def test_requests_with_the_player_ids_in_a_fixed_order_are_read_from_the_bid_history():
    """An engine may keep playerIds fixed and move the dealer: the first bidder tells."""
    body = {
        "playerId": "A2",
        "playerIds": IDS,
        "timeRemaining": 1000,
        "cards": ["JS", "9S", "1S", "TS"],
        "bidHistory": [["B1", 16], ["A2", 0]],  # B1 spoke first: playing order B1 A2 B2 A1
        "bidState": {"defenderId": "B1", "challengerId": "B2", "defenderBid": 16,
                     "challengerBid": 0},
    }  # fmt: skip
    with pytest.raises(ProtocolError, match="B2's turn to bid, not A2's"):
        parse_request("bid", body)
    body["playerId"] = "B2"
    obs = parse_request("bid", body).observation
    assert {a.value for a in obs.legal if a.kind == BID} == set(range(17, 29))


# ----------------------------------------------------------------- golden bodies

GOLDEN_BID = {
    "playerId": "B2",
    "playerIds": IDS,
    "timeRemaining": 1200,
    "cards": ["JS", "9H", "1C", "TD"],
    "bidHistory": SAMPLE_AUCTION[:5],
    "bidState": {"defenderId": "A1", "challengerId": "B2", "defenderBid": 17, "challengerBid": 0},
}
GOLDEN_OPENING = {
    "playerId": "A1",
    "playerIds": IDS,
    "timeRemaining": 1500,
    "cards": ["7S", "8H", "QD", "KC"],
    "bidHistory": [],
    "bidState": {"defenderId": "A1", "challengerId": "B1", "defenderBid": 0, "challengerBid": 0},
}
GOLDEN_MATCH = {
    "playerId": "A1",
    "playerIds": IDS,
    "timeRemaining": 1400.5,
    "cards": ["JH", "JD", "9C", "1S"],
    "bidHistory": [["A1", 16], ["B1", 17]],
    "bidState": {"defenderId": "A1", "challengerId": "B1", "defenderBid": 16, "challengerBid": 17},
}
GOLDEN_TRUMP = {
    "playerId": "A1",
    "playerIds": IDS,
    "timeRemaining": 1100,
    "cards": ["JH", "9H", "1H", "7C"],
    "bidHistory": SAMPLE_AUCTION,
}
# Trick 1: A1 7S, B1 JS, A2 8S, B2 QS (B1 wins, 3 points). Trick 2: B1 leads 1S,
# A2 KS, B2 TS; A1, the bidder (trumps hearts), has no spade.
GOLDEN_PLAY_BIDDER = {
    "playerId": "A1",
    "playerIds": IDS,
    "timeRemaining": 900,
    "cards": ["JH", "9H", "7H", "1D", "TD", "8C", "7C"],
    "bidHistory": SAMPLE_AUCTION,
    "teams": [
        {"players": ["A1", "A2"], "bid": 17, "won": 0},
        {"players": ["B1", "B2"], "bid": 0, "won": 3},
    ],
    "played": ["1S", "KS", "TS"],
    "handsHistory": [["A1", ["7S", "JS", "8S", "QS"], "B1"]],
    "trumpSuit": "H",
    "trumpRevealed": False,
}
# Trick 1: A1 JS, B1 7S, A2 8S, B2 QS (A1 wins, 3 points). Trick 2: A1 leads 1S; B1,
# a defender with no spade, does not know trumps.
GOLDEN_PLAY_DEFENDER = {
    "playerId": "B1",
    "playerIds": IDS,
    "timeRemaining": 800,
    "cards": ["JH", "9H", "TH", "KD", "QD", "8C", "7C"],
    "bidHistory": SAMPLE_AUCTION,
    "teams": [
        {"players": ["A1", "A2"], "bid": 17, "won": 3},
        {"players": ["B1", "B2"], "bid": 0, "won": 0},
    ],
    "played": ["1S"],
    "handsHistory": [["A1", ["JS", "7S", "8S", "QS"], "A1"]],
    "trumpSuit": False,
    "trumpRevealed": False,
}


def golden(body: dict[str, Any], **changes: Any) -> dict[str, Any]:
    out = copy.deepcopy(body)
    out.update(changes)
    return out


def legal_of(obs: Observation) -> set[str]:
    return {
        card_out(a.value) if a.kind == PLAY and a.value is not None else str(a.value or a.kind)
        for a in obs.legal
    }


def test_golden_bid_of_a_challenger_after_the_sample_auction(client: TestClient):
    obs = parse_request("bid", GOLDEN_BID).observation
    assert obs.duel is not None
    assert obs.duel["defender_bid"] == 17 and obs.duel["challenger_bid"] is None
    assert legal_of(obs) == {"pass"} | {str(b) for b in range(18, 29)}
    answer = client.post("/bid", json=GOLDEN_BID).json()
    assert set(answer) == {"bid"} and (answer["bid"] == 0 or 18 <= answer["bid"] <= 28)


def test_golden_opening_bid_and_a_defender_who_may_only_match(client: TestClient):
    assert legal_of(parse_request("bid", GOLDEN_OPENING).observation) == {"pass"} | {
        str(b) for b in range(16, 29)
    }
    assert legal_of(parse_request("bid", GOLDEN_MATCH).observation) == {"pass", "17"}
    for body, allowed in ((GOLDEN_OPENING, {0, *range(16, 29)}), (GOLDEN_MATCH, {0, 17})):
        r = client.post("/bid", json=body)
        assert r.status_code == 200 and r.json()["bid"] in allowed


def test_golden_choose_trump_by_the_winner_of_the_sample_auction(client: TestClient):
    obs = parse_request("chooseTrump", GOLDEN_TRUMP).observation
    assert obs.bidder == obs.seat and obs.bid == 17
    r = client.post("/chooseTrump", json=GOLDEN_TRUMP)
    assert r.status_code == 200 and r.json() == {"suit": "H"}  # the casual bot's clear choice
    r = client.post("/chooseTrump", json=golden(GOLDEN_TRUMP, playerId="B1"))
    assert r.status_code == 400 and "A1 won the auction" in r.json()["error"]


def test_golden_play_a_bidder_who_cannot_follow_reveals_and_plays_in_one_answer(
    client: TestClient,
):
    obs = parse_request("play", GOLDEN_PLAY_BIDDER).observation
    assert obs.trump == parse_card("JH") >> 3 and not obs.trump_revealed
    assert legal_of(obs) == set(GOLDEN_PLAY_BIDDER["cards"]) | {"reveal"}
    answer = client.post("/play", json=GOLDEN_PLAY_BIDDER).json()
    # The casual bidder asks when the opponents win the trick, then must play a trump.
    assert answer["revealTrump"] is True and answer["card"] in ("JH", "9H", "7H")
    # Asked in two steps instead: the same player, trumps shown, must play a trump.
    after = golden(GOLDEN_PLAY_BIDDER, trumpRevealed={"hand": 2, "playerId": "A1"})
    assert legal_of(parse_request("play", after).observation) == {"JH", "9H", "7H"}
    answer = client.post("/play", json=after).json()
    assert set(answer) == {"card"} and answer["card"] in ("JH", "9H", "7H")


def test_golden_play_a_defender_asks_for_the_reveal_then_must_trump(client: TestClient):
    obs = parse_request("play", GOLDEN_PLAY_DEFENDER).observation
    assert obs.trump is None and obs.seat is not None
    assert legal_of(obs) == set(GOLDEN_PLAY_DEFENDER["cards"]) | {"reveal"}
    assert [c for _, c in obs.trick] == [parse_card("AS")]
    answer = client.post("/play", json=GOLDEN_PLAY_DEFENDER).json()
    assert answer == {"revealTrump": True} or (set(answer) == {"card"})
    after = golden(GOLDEN_PLAY_DEFENDER, trumpSuit="H", trumpRevealed={"hand": 2, "playerId": "B1"})
    obs = parse_request("play", after).observation
    assert obs.asked == obs.seat and obs.trump_revealed
    assert legal_of(obs) == {"JH", "9H", "TH"}
    answer = client.post("/play", json=after).json()
    assert set(answer) == {"card"} and answer["card"] in ("JH", "9H", "TH")


def test_hi_says_hello(client: TestClient):
    r = client.get("/hi")
    assert r.status_code == 200 and r.json() == {"value": "hello"}


# -------------------------------------------------------------- bad requests

BAD_REQUESTS: list[tuple[str, Any, str]] = [
    ("bid", "not json", "not JSON"),
    ("bid", [1, 2], "JSON object"),
    ("bid", {k: v for k, v in GOLDEN_BID.items() if k != "playerIds"}, "playerIds"),
    ("bid", golden(GOLDEN_BID, playerId="C9"), "playerId"),
    ("bid", golden(GOLDEN_BID, cards=["AS", "9H", "1C", "TD"]), "ace is written 1"),
    ("bid", golden(GOLDEN_BID, cards=["JS", "9H", "1C", "TD", "7D"]), "must hold 4"),
    ("bid", golden(GOLDEN_BID, timeRemaining="soon"), "timeRemaining"),
    ("bid", golden(GOLDEN_BID, bidHistory=[["A1", 15]]), "bidHistory[0][1]"),
    ("bid", golden(GOLDEN_BID, bidHistory=[["A1", 16], ["A2", 17]]), "B1's turn"),
    ("bid", golden(GOLDEN_BID, bidHistory=[["A1", 16], ["B1", 16]]), "does not beat"),
    ("bid", golden(GOLDEN_BID, bidState={"defenderId": "B1", "challengerId": "B2",
                                         "defenderBid": 17, "challengerBid": 0}), "bidState"),
    ("chooseTrump", golden(GOLDEN_TRUMP, bidHistory=SAMPLE_AUCTION[:5]), "not over"),
    ("play", golden(GOLDEN_PLAY_DEFENDER, played=["JH"]), "twice"),
    ("play", golden(GOLDEN_PLAY_DEFENDER, handsHistory=[["A1", ["JS", "7S", "8S", "QS"], "B2"]]),
     "A1 won trick 1, not B2"),
    ("play", golden(GOLDEN_PLAY_DEFENDER, teams=[
        {"players": ["A1", "A2"], "bid": 17, "won": 5},
        {"players": ["B1", "B2"], "bid": 0, "won": 0}]), "won is 5"),
    ("play", golden(GOLDEN_PLAY_DEFENDER, teams=[
        {"players": ["A1", "B1"], "bid": 17, "won": 3},
        {"players": ["A2", "B2"], "bid": 0, "won": 0}]), "partners"),
    ("play", golden(GOLDEN_PLAY_DEFENDER, trumpSuit="H"), "not the bidder"),
    ("play", golden(GOLDEN_PLAY_BIDDER, trumpSuit=False), "is the bidder"),
    ("play", golden(GOLDEN_PLAY_DEFENDER, playerId="A2",
                    cards=["9S", "KH", "QH", "8H", "7H", "1C", "TC"]), "B1's turn"),
    # B1 shows spades now but did not follow spades in trick 1: an illegal history.
    ("play", golden(GOLDEN_PLAY_DEFENDER, cards=["7S", "9H", "TH", "KD", "QD", "8C", "7C"],
                    handsHistory=[["A1", ["JS", "JH", "8S", "QS"], "A1"]]), "must follow spades"),
    ("play", golden(GOLDEN_PLAY_DEFENDER, cards=["JH"]), "should hold 7 cards"),
    ("play", golden(GOLDEN_PLAY_DEFENDER, trumpRevealed={"hand": 1, "playerId": "B1"}),
     "trumpSuit is false"),
    ("play", golden(GOLDEN_PLAY_DEFENDER, trumpSuit="H",
                    trumpRevealed={"hand": 2, "playerId": "B2"}), "B2 asked in trick 2"),
    ("play", golden(GOLDEN_PLAY_DEFENDER, bidHistory=[]), "no contract"),
]  # fmt: skip


@pytest.mark.parametrize(("endpoint", "body", "words"), BAD_REQUESTS)
def test_malformed_or_inconsistent_requests_get_a_400_with_a_clear_message(
    client: TestClient, endpoint: str, body: Any, words: str
):
    if isinstance(body, str):
        r = client.post(f"/{endpoint}", content=body)
    else:
        r = client.post(f"/{endpoint}", json=body)
    assert r.status_code == 400, r.text
    message = r.json()["error"]
    assert words in message, message
    assert message.startswith(f"/{endpoint}")


def test_wrong_methods_and_paths_are_refused_without_a_crash(client: TestClient):
    assert client.get("/bid").status_code == 405
    assert client.post("/hello", json={}).status_code == 404
    deep = "[" * 100_000 + "]" * 100_000
    assert client.post("/play", content=deep).status_code == 400


def test_mutated_requests_are_answered_or_refused_never_crash():
    """Random damage to real request bodies: a ProtocolError or an observation, nothing else."""
    rng = random.Random(5)
    junk: list[Any] = [None, True, False, 0, -1, 16, 99, 1.5, "", "1S", "AS", "A1", "Z", [], {},
                       [["A1", 16]], ["1S"], {"hand": 1, "playerId": "A1"}, [None] * 4]  # fmt: skip
    bodies = [request_for(obs, 1000) for _, obs in random_deals(6, seed=2)]
    refused = 0
    for _ in range(1500):
        endpoint, body = rng.choice(bodies)
        body = json.loads(json.dumps(body))
        target: Any = body
        for _depth in range(rng.randrange(1, 4)):
            if isinstance(target, dict) and target:
                key = rng.choice(sorted(target))
                if rng.random() < 0.5 or not isinstance(target[key], dict | list):
                    target[key] = rng.choice(junk)
                    break
                target = target[key]
            elif isinstance(target, list) and target:
                i = rng.randrange(len(target))
                if rng.random() < 0.5 or not isinstance(target[i], dict | list):
                    target[i] = rng.choice(junk)
                    break
                target = target[i]
        try:
            parse_request(endpoint, body)
        except ProtocolError:
            refused += 1
    assert refused > 1000


# ------------------------------------------------------------------ the budget


def test_the_served_bot_thinks_for_a_safe_share_of_its_clock():
    assert budget_for(1500, 10, cap=0.6) == pytest.approx(0.25 * 1.45 / 10)
    assert budget_for(100_000, 2, cap=0.6) == 0.6  # never more than the level's own
    assert budget_for(0, 8, cap=0.6) == 0.001  # out of time: the least, never negative
    assert budget_for(-50, 8, cap=None) == 0.001
    # A whole game's worth of shares stays within the clock even if each runs 4x over.
    left, used = 1500.0, 0.0
    for decisions in range(11, 0, -1):
        spent = 4 * 1000 * budget_for(left, decisions, cap=0.6)
        used, left = used + spent, left - spent
    assert used < 1500


def test_an_answer_names_only_legal_moves_across_random_requests(client: TestClient):
    """The served bot's answers to requests of random deals are legal in those deals."""
    for n, (_, obs) in enumerate(random_deals(3, seed=4)):
        if n % 3:
            continue
        endpoint, body = request_for(obs, 1500)
        r = client.post(f"/{endpoint}", json=body)
        assert r.status_code == 200, r.text
        answer = r.json()
        legal = {a.kind for a in obs.legal}
        if endpoint == "bid":
            assert answer["bid"] == 0 or Action.bid(obs.seat or 0, answer["bid"]) in obs.legal
        elif endpoint == "play":
            if answer.get("revealTrump"):
                assert REVEAL in legal
            else:
                assert Action.play(obs.seat or 0, card_in(answer["card"])) in obs.legal
