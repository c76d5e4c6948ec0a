"""The hint and the bidding advisor over HTTP: ``GET /api/games/{id}/hint`` and
``/advice``.

Through Starlette's TestClient with a lobby over an in-memory store: a hint is
given only to the seat whose token asked, on its turn, in a game whose setup
turned the hint on with one person at the table; every refusal is a 4xx with a
message saying why (never a 500); the work runs in the bots' pool, not on the
event loop, and a second request for the same decision is answered from memory.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from twentynine.bots.characters import BY_ID
from twentynine.game.engine import OVER
from twentynine.server import botpool
from twentynine.server.config import ServerConfig
from twentynine.server.game import Game
from twentynine.server.hint import hints_of
from twentynine.server.lobby import Lobby
from twentynine.server.session import GameSession
from twentynine.server.setup import SetupError, parse_setup
from twentynine.server.store import SQLiteStore, hash_token
from twentynine.web.app import create_app

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

QUICK = ServerConfig(bot_delay=0, bot_workers=0, warm_up=False)
QUICK_BOTS = [{"bot": "tara"}, {"bot": "bablu"}, {"bot": "pip"}]


@pytest.fixture
def client() -> Iterator[TestClient]:
    store = SQLiteStore(":memory:")
    with TestClient(create_app(QUICK, store)) as c:
        yield c
    store.close()


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The thread each hint ran on (the pool's ``hint``, counted)."""
    seen: list[str] = []
    real = botpool.hint

    def counted(obs: Any) -> dict[str, Any]:
        seen.append(threading.current_thread().name)
        return real(obs)

    monkeypatch.setattr(botpool, "hint", counted)
    return seen


def lobby_of(client: TestClient) -> Lobby:
    lobby: Lobby = client.app.state.lobby  # type: ignore[attr-defined]
    return lobby


def new_session(client: TestClient, **setup: Any) -> GameSession:
    setup.setdefault("seats", [{"human": True}, *QUICK_BOTS])
    return lobby_of(client).create(parse_setup(setup))


def drive(session: GameSession, until: Callable[[Game], bool], limit: int = 3000) -> None:
    """Play every seat with a random bot (next deals included) until ``until(game)``."""
    bot = BY_ID["pip"]
    for _ in range(limit):
        game = session.game
        if until(game):
            return
        if game.deal_over:
            game.next_deal()
        else:
            seat = game.to_act
            game.apply(bot.make(seat).act(game.observation(seat)))
    raise AssertionError("the game did not get there")


def south_to_play(g: Game) -> bool:
    return (
        g.match.deal.phase == "play"
        and g.to_act == 0
        and len(g.observation(0).legal) > 1
        and len(g.match.deal.tricks) >= 1
    )


def south_to_bid(g: Game) -> bool:
    return g.match.deal.phase == "auction" and g.to_act == 0


def ask(client: TestClient, what: str, ident: str, token: str | None, **params: Any) -> Any:
    if token is not None:
        params["token"] = token
    return client.get(f"/api/games/{ident}/{what}", params=params)


def test_the_hint_is_off_unless_the_setup_turns_it_on() -> None:
    assert not parse_setup({}).hint_allowed
    assert not parse_setup({"length": "match"}).hint_allowed
    assert parse_setup({"hint": True}).hint_allowed
    assert parse_setup({"hint": True, "length": "match"}).hint_allowed
    two = [{"human": True}, {"human": True}, {"bot": "pip"}, {"bot": "tara"}]
    assert not parse_setup({"hint": True, "seats": two}).hint_allowed
    assert parse_setup({"hint": True}).public()["hint"] is True
    assert parse_setup({}).public()["hint"] is False
    again = parse_setup(parse_setup({"hint": True, "seed": 4}).to_json())
    assert again.hint_allowed
    with pytest.raises(SetupError, match="'hint' must be true or false"):
        parse_setup({"hint": "yes"})


def test_the_seat_to_play_gets_a_hint_worked_out_in_the_pool_once(
    client: TestClient, calls: list[str]
) -> None:
    session = new_session(client, profile="pagat", seed=5, length="single", hint=True)
    drive(session, south_to_play)
    r = ask(client, "hint", session.ident, session.token)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["seat"] == 0 and body["at"] == len(session.game.log)
    hint = body["hint"]
    legal = [
        {k: v for k, v in a.to_json().items() if k != "seat"}
        for a in session.game.observation(0).legal
    ]
    best = {k: hint["best"][k] for k in hint["best"] if k not in ("p_make", "points", "score")}
    assert best in legal
    assert hint["reason"] in ("makes", "beats", "points", "score")
    assert hint["source"] == "worlds" and hint["worlds"] >= 1
    assert len(calls) == 1 and calls[0].startswith("bot")  # a worker thread, not the loop
    again = ask(client, "hint", session.ident, session.token, seat=0)
    assert again.json() == body and len(calls) == 1
    assert hints_of(lobby_of(client)).computed == 1


def test_a_hint_is_refused_when_it_is_not_the_seat_s_turn(
    client: TestClient, calls: list[str]
) -> None:
    session = new_session(client, profile="pagat", seed=6, length="single", hint=True)
    drive(session, lambda g: g.to_act not in (0, -1) and g.match.deal.phase == "play")
    r = ask(client, "hint", session.ident, session.token)
    assert r.status_code == 409 and "not your turn" in r.json()["error"]
    assert calls == []


@pytest.mark.parametrize("token", ["wrong", "", None, "bad token!"])
def test_a_wrong_token_is_refused(client: TestClient, calls: list[str], token: Any) -> None:
    session = new_session(client, profile="pagat", seed=5, length="single", hint=True)
    drive(session, south_to_play)
    r = ask(client, "hint", session.ident, token)
    assert r.status_code == 403 and "wrong token" in r.json()["error"]
    assert calls == []


def test_another_seat_of_a_room_is_refused(client: TestClient, calls: list[str]) -> None:
    setup = parse_setup({"hint": True, "seats": [{"human": True}, *QUICK_BOTS]})
    tokens = ("south-token", "", "", "")
    session = lobby_of(client).create(
        setup, token_hashes=tuple(hash_token(t) if t else "" for t in tokens)
    )
    drive(session, south_to_play)
    for seat in ("1", "4", "x", "-1"):
        r = ask(client, "hint", session.ident, "south-token", seat=seat)
        assert 400 <= r.status_code < 500 and "seat" in r.json()["error"]
    assert calls == []


def test_a_match_that_counts_refuses_the_hint(client: TestClient, calls: list[str]) -> None:
    session = new_session(client, profile="pagat", seed=5, length="match")
    drive(session, south_to_play)
    r = ask(client, "hint", session.ident, session.token)
    assert r.status_code == 403 and "the hint is off in this game" in r.json()["error"]
    r = ask(client, "advice", session.ident, session.token)
    assert r.status_code == 403
    assert calls == []


def test_hot_seat_with_two_people_refuses_the_hint(client: TestClient) -> None:
    seats = [{"human": True}, {"bot": "pip"}, {"human": True}, {"bot": "tara"}]
    session = new_session(client, profile="pagat", seed=5, length="single", hint=True, seats=seats)
    r = ask(client, "hint", session.ident, session.token)
    assert r.status_code == 403 and "practice against bots" in r.json()["error"]


def test_a_finished_deal_and_an_unknown_game_are_refused(
    client: TestClient, calls: list[str]
) -> None:
    session = new_session(client, profile="pagat", seed=7, length="single", hint=True)
    drive(session, lambda g: g.match.deal.phase == OVER)
    r = ask(client, "hint", session.ident, session.token)
    assert r.status_code == 409 and "over" in r.json()["error"]
    assert ask(client, "hint", "nope", "t").status_code == 404
    assert ask(client, "hint", "no/pe", "t").status_code == 404
    assert ask(client, "advice", "nope", "t").status_code == 404
    assert calls == []


def test_the_bidding_advisor_gives_each_bid_with_each_trump(client: TestClient) -> None:
    session = new_session(client, profile="pagat", seed=9, length="single", hint=True)
    drive(session, south_to_bid)
    r = ask(client, "advice", session.ident, session.token)
    assert r.status_code == 200, r.text
    advice = r.json()["advice"]
    rules = session.game.match.rules
    assert [s["trump"] for s in advice["suits"]] == ["S", "H", "D", "C"]
    for s in advice["suits"]:
        assert set(s["p_make"]) == {str(b) for b in range(rules.min_bid, rules.max_bid + 1)}
        chances = list(s["p_make"].values())
        assert all(0 <= p <= 1 for p in chances) and chances == sorted(chances, reverse=True)
    assert advice["legal_bids"] and min(advice["legal_bids"]) >= rules.min_bid
    # the auction's hint is the bidding model's too
    hint = ask(client, "hint", session.ident, session.token).json()["hint"]
    assert hint["source"] == "model"


def test_the_advisor_is_refused_once_the_auction_is_over(client: TestClient) -> None:
    session = new_session(client, profile="pagat", seed=5, length="single", hint=True)
    drive(session, south_to_play)
    r = ask(client, "advice", session.ident, session.token)
    assert r.status_code == 409 and "auction" in r.json()["error"]


def test_a_failing_hint_is_a_503_with_a_message(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(obs: Any) -> dict[str, Any]:
        raise RuntimeError("solver fell over")

    monkeypatch.setattr(botpool, "hint", broken)
    session = new_session(client, profile="pagat", seed=5, length="single", hint=True)
    drive(session, south_to_play)
    r = ask(client, "hint", session.ident, session.token)
    assert r.status_code == 503 and "could not be worked out" in r.json()["error"]
