"""The history API: summaries of a browser's games, replays and exports.

Driven through Starlette's TestClient with a lobby over an in-memory
``SQLiteStore``: strict input (400 with a message, never a 500), 404 for an
unknown game and 403 for a wrong token, a deal in progress never shown, the
replay's steps in agreement with the engine's verdict of the record, the
export equal to the record, and finished games still there from the store
once their session is gone.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from apis import QUICK, drive, lobby_of, new_session

from twentynine.game.engine import OVER
from twentynine.game.match import Match
from twentynine.game.record import replay_text
from twentynine.server.game import Game
from twentynine.server.history import MAX_BODY, MAX_GAMES, deal_steps
from twentynine.server.session import GameSession
from twentynine.server.store import SQLiteStore
from twentynine.web.app import create_app

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def store() -> Iterator[SQLiteStore]:
    s = SQLiteStore(":memory:")
    yield s
    s.close()


@pytest.fixture
def client(store: SQLiteStore) -> Iterator[TestClient]:
    with TestClient(create_app(QUICK, store)) as c:
        yield c


def deals_over(n: int) -> Callable[[Game], bool]:
    return lambda g: sum(d.phase == OVER for d in g.match.deals) >= n


def mid_deal(g: Game) -> bool:
    deal = g.match.deal
    return deal.phase == "play" and len(deal.tricks) >= 2


def history(client: TestClient, *pairs: tuple[str, str]) -> dict[str, Any]:
    r = client.post("/api/history", json={"games": [{"game": g, "token": t} for g, t in pairs]})
    assert r.status_code == 200, r.text
    answer: dict[str, Any] = r.json()
    return answer


def replay_of(client: TestClient, session: GameSession) -> dict[str, Any]:
    r = client.get(f"/api/games/{session.ident}/replay", params={"token": session.token})
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


# ---------------------------------------------------------------------- bad input


def game(i: int = 0) -> dict[str, str]:
    return {"game": f"g{i}", "token": f"t{i}"}


BAD_BODIES: list[tuple[str, bytes]] = [
    ("not JSON", b"{games"),
    ("empty", b""),
    ("a list", b"[]"),
    ("a number", b"3"),
    ("no games", b"{}"),
    ("unknown key", json.dumps({"games": [], "more": 1}).encode()),
    ("games not a list", json.dumps({"games": {"g": "t"}}).encode()),
    ("too many", json.dumps({"games": [game(i) for i in range(MAX_GAMES + 1)]}).encode()),
    ("item not an object", json.dumps({"games": ["g1"]}).encode()),
    ("extra key in an item", json.dumps({"games": [{**game(), "seat": 0}]}).encode()),
    ("no token", json.dumps({"games": [{"game": "g1"}]}).encode()),
    ("id not text", json.dumps({"games": [{"game": 12, "token": "t"}]}).encode()),
    ("empty token", json.dumps({"games": [{"game": "g1", "token": ""}]}).encode()),
    ("token too long", json.dumps({"games": [{"game": "g1", "token": "x" * 129}]}).encode()),
    ("odd characters", json.dumps({"games": [{"game": "g1/../x", "token": "t"}]}).encode()),
    ("nested too deep", b"[" * 50_000),
    ("too large", b'{"games": [' + b" " * (MAX_BODY + 1) + b"]}"),
    ("not UTF-8", b'{"games": ["\xff"]}'),
]


@pytest.mark.parametrize("body", [b for _, b in BAD_BODIES], ids=[n for n, _ in BAD_BODIES])
def test_bad_requests_get_a_400_with_a_message(client: TestClient, body: bytes) -> None:
    r = client.post("/api/history", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == 400, r.text
    message = r.json()["error"]
    assert isinstance(message, str) and len(message) > 10


def test_the_list_takes_up_to_the_limit_and_get_is_refused(client: TestClient) -> None:
    answer = history(client, *[(f"g{i}", "t") for i in range(MAX_GAMES)])
    assert answer["games"] == [] and len(answer["missing"]) == MAX_GAMES
    assert client.get("/api/history").status_code == 405


# ---------------------------------------------------------------------- tokens


def test_unknown_games_and_wrong_tokens(client: TestClient) -> None:
    session = new_session(client, profile="arcade", seed=3)
    drive(session, deals_over(1))
    for what in ("replay", "export"):
        url = f"/api/games/{session.ident}/{what}"
        assert client.get(url, params={"token": "wrong"}).status_code == 403
        assert client.get(url).status_code == 403
        assert client.get(f"/api/games/nope/{what}", params={"token": "t"}).status_code == 404
        assert client.get(url, params={"token": session.token}).status_code == 200
    answer = history(
        client,
        ("unknown", "t"),
        (session.ident, "wrong"),
        (session.ident, session.token),
    )
    assert [g["game"] for g in answer["games"]] == [session.ident]
    assert answer["missing"] == ["unknown"]
    answer = history(client, (session.ident, "wrong"))
    assert answer == {"games": [], "missing": [session.ident]}


# ---------------------------------------------------------------------- summaries


def test_summaries_say_how_each_game_stands(client: TestClient) -> None:
    done = new_session(client, profile="arcade", seed=5, length="single")
    drive(done, deals_over(1))
    busy = new_session(client, profile="pagat", seed=6, length="match", target=20)
    drive(busy, deals_over(1))
    drive(busy, mid_deal)
    fresh = new_session(client, profile="modern", seed=7, options={"single_hand": 3})
    answer = history(
        client, (fresh.ident, fresh.token), (done.ident, done.token), (busy.ident, busy.token)
    )
    assert answer["missing"] == []
    by_id = {g["game"]: g for g in answer["games"]}
    assert list(by_id) == [fresh.ident, done.ident, busy.ident]  # the order asked

    g = by_id[done.ident]
    verdict = replay_text(json.dumps(done.game.record())).data
    assert g["status"] == "finished" and g["deals"] == 1 and not g["deal_in_play"]
    assert g["profile"] == "arcade" and g["match_target"] is None and g["live"]
    last = dict(verdict["deals"][0])
    del last["tricks"]
    assert g["last_deal"] == last
    assert g["score"] == verdict["score"] and g["winner"] is None
    assert [s["kind"] for s in g["seats"]] == ["human", "bot", "bot", "bot"]
    assert "seed" not in json.dumps(g)
    assert isinstance(g["created"], float) and g["updated"] >= g["created"]
    assert g["ended"] == g["updated"]  # the store's times, for a live game too

    g = by_id[busy.ident]
    assert g["status"] == "in-progress" and g["deal_in_play"] and g["resumable"]
    assert g["created"] is not None and g["ended"] is None
    assert g["deals"] == 1 and g["match_target"] == 20 and g["options"] == {"match_target": 20}

    g = by_id[fresh.ident]
    assert g["status"] == "in-progress" and g["deals"] == 0 and g["last_deal"] is None
    assert g["options"] == {"single_hand": 3}


# ---------------------------------------------------------------------- replays


def test_a_deal_in_progress_is_never_shown(client: TestClient) -> None:
    session = new_session(client, profile="pagat", seed=11, length="match", target=20)
    drive(session, mid_deal)
    data = replay_of(client, session)
    assert data["deals"] == [] and data["deal_in_play"] and data["status"] == "in-progress"

    drive(session, deals_over(1))
    drive(session, mid_deal)
    data = replay_of(client, session)
    assert [d["index"] for d in data["deals"]] == [0] and data["deal_in_play"]
    text = json.dumps(data)
    current = session.game.match.deal
    for seat in range(4):
        hand = [c for c in session.game.record()["deals"][0]["hands"][seat]]
        assert json.dumps(hand) in text  # the finished deal is all there
        live = json.dumps([c for c in current.to_record()["hands"][seat]])
        assert live not in text  # the current one is not
    export = client.get(f"/api/games/{session.ident}/export", params={"token": session.token})
    assert len(export.json()["deals"]) == 1


def check_steps_against_verdict(deal_json: dict[str, Any], verdict: dict[str, Any]) -> None:
    """The steps of one replayed deal tell the same story as the verdict of the record."""
    steps = deal_json["steps"]
    assert deal_json["verdict"] == verdict
    assert len(steps) == len(deal_json_actions(deal_json))
    done = [s for s in steps if s["winner"] is not None]
    assert [(s["winner"], s["trick_points"], [p["card"] for p in s["table"]]) for s in done] == [
        (t["winner"], t["points"], t["cards"]) for t in verdict["tricks"]
    ]
    assert [s["trick"] for s in done] == list(range(1, len(verdict["tricks"]) + 1))
    hands = deal_json["hands"]
    gone: set[str] = set()
    for step in steps:
        card = step["action"].get("play")
        if card is not None:
            assert card in hands[step["seat"]] and card not in gone
            gone.add(card)
            assert step["table"][-1] == {"seat": step["seat"], "card": card}
    last = steps[-1] if steps else None
    if last is not None:
        assert last["phase"] == "over" and last["points"] == verdict["points"]
        ends = [e for e in last["events"] if e["type"] == "deal_end"]
        assert ends and ends[0]["result"] == verdict["result"]
        assert last["trump"] == verdict["trump"]


def deal_json_actions(deal_json: dict[str, Any]) -> list[dict[str, Any]]:
    return [s["action"] for s in deal_json["steps"]]


def test_replay_steps_agree_with_the_verdict_of_the_record(client: TestClient) -> None:
    session = new_session(client, profile="modern", seed=21, length="match", target=2)
    drive(session, lambda g: g.match_over)
    data = replay_of(client, session)
    record = session.game.record()
    verdict = replay_text(json.dumps(record)).data
    assert verdict["ok"] and len(data["deals"]) == len(verdict["deals"]) == len(record["deals"])
    for deal_json, deal_verdict, deal_record in zip(
        data["deals"], verdict["deals"], record["deals"], strict=True
    ):
        check_steps_against_verdict(deal_json, deal_verdict)
        assert deal_json["hands"] == deal_record["hands"]
        assert deal_json_actions(deal_json) == deal_record["actions"]
    assert data["score"] == verdict["score"] and data["winner"] == verdict["winner"]
    assert data["status"] == "finished" and not data["deal_in_play"]
    running = [0, 0]
    for d in data["deals"]:
        assert d["score_before"] == running
        running = [running[0] + d["verdict"]["delta"][0], running[1] + d["verdict"]["delta"][1]]
        assert d["score_after"] == running


CASES: list[tuple[str, dict[str, Any]]] = [
    ("pagat", {}),
    ("bhoos", {}),
    ("bangladesh", {}),
    ("modern", {"allow_set": True, "single_hand": 3}),
    ("pagat", {"seventh_card": True, "doubling": True, "all_pass": "redeal"}),
    ("arcade", {"early_end": True, "under_half": True}),
]


@pytest.mark.parametrize(("profile", "options"), CASES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_steps_of_random_matches_agree_with_the_verdict(
    play: Callable[..., Match], profile: str, options: dict[str, Any], seed: int
) -> None:
    match = play(profile, seed=seed, rng_seed=seed, options={**options, "match_target": 4})
    record = match.to_record()
    verdict = replay_text(json.dumps(record)).data
    finished = [d for d in match.deals if d.phase == OVER]
    assert finished
    for deal, deal_verdict in zip(finished, verdict["deals"], strict=False):
        steps = deal_steps(deal)
        hands = [[c for c in h] for h in deal.to_record()["hands"]]
        deal_json = {"steps": steps, "verdict": deal.verdict(), "hands": hands}
        check_steps_against_verdict(deal_json, deal_verdict)


def test_a_deal_in_progress_has_no_steps(play: Callable[..., Match]) -> None:
    match = play("pagat", seed=4, max_actions=12)
    assert match.deal.phase != OVER
    with pytest.raises(ValueError):
        deal_steps(match.deal)


# ---------------------------------------------------------------------- exports and the store


def test_the_export_is_the_record_as_a_download(client: TestClient) -> None:
    session = new_session(client, profile="arcade", seed=8)
    drive(session, deals_over(2))
    r = client.get(f"/api/games/{session.ident}/export", params={"token": session.token})
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("application/json")
    disposition = r.headers["content-disposition"]
    assert disposition == f'attachment; filename="29-{session.ident}.json"'
    assert r.json() == session.game.record()
    assert replay_text(r.content).ok


def test_finished_games_come_from_the_store_once_the_session_is_gone(
    client: TestClient, store: SQLiteStore
) -> None:
    lobby = lobby_of(client)
    won = new_session(client, profile="arcade", seed=9, length="match", target=1)
    drive(won, lambda g: g.match_over)
    record = won.game.record()
    before = replay_of(client, won)
    half = new_session(client, profile="pagat", seed=10, length="match", target=20)
    drive(half, deals_over(1))
    drive(half, mid_deal)
    half_record = half.game.record()
    del lobby.sessions[won.ident], lobby.sessions[half.ident]

    answer = history(client, (won.ident, won.token), (half.ident, half.token))
    assert answer["missing"] == []
    g, h = answer["games"]
    assert g["status"] == "finished" and not g["live"] and g["winner"] is not None
    assert g["ended"] is not None and g["created"] <= g["ended"]
    assert not g["resumable"]
    assert h["status"] == "in-progress" and not h["live"] and h["resumable"]
    assert h["deals"] == 1 and h["deal_in_play"]
    assert won.ident not in lobby.sessions and half.ident not in lobby.sessions  # not woken

    assert replay_of(client, won) == before
    assert [d["index"] for d in replay_of(client, half)["deals"]] == [0]
    for session, expected in ((won, record), (half, half_record)):
        url = f"/api/games/{session.ident}/export"
        r = client.get(url, params={"token": session.token})
        assert r.status_code == 200 and r.json() == expected
        assert "attachment" in r.headers["content-disposition"]
        assert client.get(url, params={"token": "nope"}).status_code == 403
    assert store.load(won.ident).record == record


def test_without_a_store_a_forgotten_game_is_missing() -> None:
    app = create_app(QUICK)
    with TestClient(app) as client:
        session = new_session(client, profile="arcade", seed=12)
        drive(session, deals_over(1))
        answer = history(client, (session.ident, session.token))
        assert answer["games"][0]["created"] is None  # no store, no times
        del lobby_of(client).sessions[session.ident]
        assert history(client, (session.ident, session.token))["missing"] == [session.ident]
        url = f"/api/games/{session.ident}/replay"
        assert client.get(url, params={"token": session.token}).status_code == 404
