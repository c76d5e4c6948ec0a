"""The analysis API: ``GET /api/games/{id}/analysis?token=...&deal=N``.

Through Starlette's TestClient with a lobby over an in-memory store: only a
finished deal is analysed (a deal in play gets the same 404 as one that does
not exist, and nothing of its cards), tokens as for the replay, the work done
in the bots' pool and not on the event loop, and kept: a second request is
answered from memory, and two at once share one analysis.
"""

from __future__ import annotations

import json
import threading
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from loops import run_async

from twentynine.bots.characters import BY_ID
from twentynine.game.engine import OVER
from twentynine.server import botpool
from twentynine.server.analysis import Analyses, analyses_of
from twentynine.server.config import ServerConfig
from twentynine.server.game import Game
from twentynine.server.lobby import Lobby
from twentynine.server.session import GameSession
from twentynine.server.setup import parse_setup
from twentynine.server.store import SQLiteStore
from twentynine.web.app import create_app

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

QUICK = ServerConfig(bot_delay=0, bot_workers=0, warm_up=False)
QUICK_BOTS = [{"bot": "tara"}, {"bot": "bablu"}, {"bot": "pip"}]


@pytest.fixture
def store() -> Iterator[SQLiteStore]:
    s = SQLiteStore(":memory:")
    yield s
    s.close()


@pytest.fixture
def client(store: SQLiteStore) -> Iterator[TestClient]:
    with TestClient(create_app(QUICK, store)) as c:
        yield c


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The name of the thread each analysis ran on (the pool's ``analyse``, counted)."""
    seen: list[str] = []
    real = botpool.analyse

    def counted(record: dict[str, Any], index: int) -> dict[str, Any]:
        seen.append(threading.current_thread().name)
        return real(record, index)

    monkeypatch.setattr(botpool, "analyse", counted)
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
        session._save()
    raise AssertionError("the game did not get there")


def deals_over(n: int) -> Callable[[Game], bool]:
    return lambda g: sum(d.phase == OVER for d in g.match.deals) >= n


def mid_deal(g: Game) -> bool:
    deal = g.match.deal
    return deal.phase == "play" and len(deal.tricks) >= 2


def analysis(client: TestClient, ident: str, token: str, deal: Any) -> Any:
    return client.get(f"/api/games/{ident}/analysis", params={"token": token, "deal": deal})


def test_a_finished_deal_is_analysed_in_the_pool_once(client: TestClient, calls: list[str]) -> None:
    session = new_session(client, profile="pagat", seed=3, length="match", target=20)
    drive(session, deals_over(1))
    r = analysis(client, session.ident, session.token, 0)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["game"] == session.ident and body["index"] == 0
    result = body["analysis"]
    record = session.game.record()["deals"][0]
    assert [a["action"] for a in result["actions"]] == record["actions"]
    assert result["deal"] == 1 and result["result"] == session.game.match.deals[0].result
    for a in result["actions"]:
        if "play" in a["action"]:
            assert "dd_points_after" in a and "dd_best_points" in a
    # in the pool's worker (a thread here: bot_workers=0), never on the event loop
    assert len(calls) == 1 and calls[0].startswith("bot")
    again = analysis(client, session.ident, session.token, 0)
    assert again.status_code == 200 and again.json() == body
    assert len(calls) == 1 and analyses_of(lobby_of(client)).computed == 1


def test_a_deal_in_play_is_never_analysed(client: TestClient, calls: list[str]) -> None:
    session = new_session(client, profile="pagat", seed=11, length="match", target=20)
    drive(session, mid_deal)
    r = analysis(client, session.ident, session.token, 0)
    assert r.status_code == 404 and "no finished deal 0" in r.json()["error"]
    drive(session, deals_over(1))
    drive(session, mid_deal)
    current = session.game.match.deal
    in_play = analysis(client, session.ident, session.token, 1)
    missing = analysis(client, session.ident, session.token, 5)
    assert in_play.status_code == missing.status_code == 404
    text = in_play.text
    for seat in range(4):
        assert not any(card in text for card in current.to_record()["hands"][seat])
    assert calls == []
    assert analysis(client, session.ident, session.token, 0).status_code == 200


@pytest.mark.parametrize("deal", ["", "-1", "x", "1.5", "٣", "99999999"])
def test_a_deal_that_is_not_an_index_is_a_400(client: TestClient, deal: str) -> None:
    session = new_session(client, profile="arcade", seed=2, length="single")
    drive(session, deals_over(1))
    r = analysis(client, session.ident, session.token, deal)
    assert r.status_code == 400 and "deal" in r.json()["error"]


def test_tokens_and_unknown_games(client: TestClient, calls: list[str]) -> None:
    session = new_session(client, profile="arcade", seed=3, length="single")
    drive(session, deals_over(1))
    assert analysis(client, session.ident, "wrong", 0).status_code == 403
    assert client.get(f"/api/games/{session.ident}/analysis?deal=0").status_code == 403
    assert analysis(client, "nope", "t", 0).status_code == 404
    assert analysis(client, "no/pe", "t", 0).status_code == 404
    assert calls == []


def test_a_stored_game_is_analysed_after_its_session_is_gone(
    client: TestClient, calls: list[str]
) -> None:
    session = new_session(client, profile="bhoos", seed=8, length="single")
    drive(session, deals_over(1))
    ident, token = session.ident, session.token
    lobby = lobby_of(client)
    lobby.sessions.pop(ident)
    r = analysis(client, ident, token, 0)
    assert r.status_code == 200, r.text
    assert r.json()["analysis"]["result"] in ("made", "failed", "cancelled")
    assert len(calls) == 1


def test_two_requests_at_once_share_one_analysis() -> None:
    import asyncio

    class SlowPool:
        def __init__(self) -> None:
            self.runs = 0

        async def analyse(self, record: dict[str, Any], index: int) -> dict[str, Any]:
            self.runs += 1
            await asyncio.sleep(0.05)
            return {"deal": index + 1, "record": json.dumps(record)}

    async def both() -> tuple[dict[str, Any], dict[str, Any], int]:
        pool = SlowPool()
        analyses = Analyses(pool, size=1)  # type: ignore[arg-type]
        a, b = await asyncio.gather(analyses.get("g", 0, {"x": 1}), analyses.get("g", 0, {"x": 1}))
        runs = pool.runs
        await analyses.get("g", 1, {"x": 2})  # pushes deal 0 out of a one-deal memory
        assert analyses.cached("g", 0) is None and analyses.cached("g", 1) is not None
        return a, b, runs

    a, b, runs = run_async(both())
    assert a == b and runs == 1
