"""Games rebuilt from the store, and the server with a store. The lobby restores
each unfinished game exactly and skips a broken one; a move the store refuses
is not made. Every accepted action is in the store before the client hears of
it, an undo cuts the log, a second server on the same database resumes the
game, and a finished match keeps its record and is not restored (the restart
of a real process is in ``test_restart`` and ``test_restart_pg``). Tests that
take ``backend`` or ``store`` run against SQLite and PostgreSQL.
"""

from __future__ import annotations

import concurrent.futures
import json
import logging
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient, WebSocketTestSession

from helpers import played
from store_helpers import QUICK, QUICK_BOTS, Backend, put
from store_helpers import backend as backend
from store_helpers import store as store

from twentynine.bots.characters import BY_ID
from twentynine.game.engine import IllegalAction
from twentynine.server.game import GameError
from twentynine.server.lobby import Lobby
from twentynine.server.session import GameSession
from twentynine.server.setup import parse_setup
from twentynine.server.store import Change, SQLiteStore, SQLStore, StoreError
from twentynine.web.app import create_app

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

_pool = concurrent.futures.ThreadPoolExecutor(2)


# ---------------------------------------------------------------------- rebuilding games


@pytest.mark.parametrize(("seed", "steps"), [(1, 400), (2, 37), (3, 90)])
def test_a_restored_game_equals_the_original(store: SQLStore, seed: int, steps: int) -> None:
    game = played(seed, steps=steps)
    put(store, "g", game)
    session = Lobby(QUICK, store).restore("g")
    again = session.game
    assert again.log == game.log
    assert again.record() == game.record()
    assert again.match.score == game.match.score
    for seat in range(4):
        assert again.view(seat) == game.view(seat)
    assert session.admits("tok") and not session.admits("other")
    assert session.hold == ("deal" if game.deal_over else session.hold)


def test_restore_all_skips_a_broken_game_and_says_why(
    store: SQLStore, caplog: pytest.LogCaptureFixture
) -> None:
    put(store, "good", played(4, steps=20))
    bad = played(5, steps=20)
    put(store, "bad", bad)
    store.truncate("bad", 10)
    store.append("bad", 10, {"seat": (bad.log[10].get("seat", 0) + 1) % 4, "pass": True})
    lobby = Lobby(QUICK, store)
    with pytest.raises(IllegalAction):
        lobby.restore("bad")
    with caplog.at_level(logging.ERROR, "twentynine.server"):
        assert lobby.restore_all() == 1
    assert set(lobby.sessions) == {"good"}
    assert "game bad cannot be restored" in caplog.text


class FailingStore(SQLiteStore):
    """A store whose disk fills up after a while."""

    fail = False

    def append(self, ident: str, index: int, entry: Mapping[str, Any]) -> None:
        if self.fail:
            raise StoreError("disk full")
        super().append(ident, index, entry)

    def save(self, ident: str, change: Change) -> None:
        if self.fail:
            raise StoreError("disk full")
        super().save(ident, change)


def test_a_move_the_store_refuses_is_not_made(tmp_path: Path) -> None:
    s = FailingStore(tmp_path / "g.sqlite3")
    lobby = Lobby(QUICK, s)
    session = lobby.create(parse_setup({"seed": 3, "seats": [{"human": True}, *QUICK_BOTS]}))
    game = session.game
    bot = BY_ID["pip"]
    game.apply(bot.make(game.to_act).act(game.observation(game.to_act)))
    session._save()
    before = list(session.game.log)
    s.fail = True
    seat = session.game.to_act
    session.game.apply(bot.make(seat).act(session.game.observation(seat)))
    with pytest.raises(GameError, match="could not save"):
        session._save()
    assert session.game.log == before == s.load(session.ident).log
    s.close()


# ---------------------------------------------------------------------- the server with a store


def recv(ws: WebSocketTestSession, timeout: float = 10) -> dict[str, Any]:
    msg: dict[str, Any] = json.loads(_pool.submit(ws.receive_text).result(timeout=timeout))
    return msg


def until(ws: WebSocketTestSession, pred: Any) -> dict[str, Any]:
    for _ in range(500):
        msg = recv(ws)
        if pred(msg):
            return msg
    raise AssertionError("no such message")


def mine(m: dict[str, Any]) -> bool:
    view = m.get("views", {}).get("0")
    return bool(view and view["to_act"] == 0 and view["legal"] and not m.get("hold"))


def test_the_server_writes_each_move_before_telling_and_a_new_server_resumes(
    backend: Backend,
) -> None:
    s = backend.open()
    app = create_app(QUICK, s)
    with TestClient(app) as client, client.websocket_connect("/ws") as ws:
        recv(ws)
        ws.send_text(
            json.dumps(
                {
                    "type": "create",
                    "id": "c1",
                    "setup": {
                        "profile": "arcade",
                        "seed": 5,
                        "length": "single",
                        "seats": [{"human": True}, *QUICK_BOTS],
                    },
                }
            )
        )
        state = until(ws, lambda m: m["type"] == "state")
        ident, token = state["game"], state["token"]
        session: GameSession = app.state.lobby.sessions[ident]
        n = 0
        undone = False
        while True:
            msg = until(ws, lambda m: m["type"] in ("state", "update") and (mine(m) or m["hold"]))
            # whatever a client has seen is in the store already
            assert s.load(ident).log == session.game.log
            if msg["hold"] == "trick":
                ws.send_text(json.dumps({"type": "continue", "id": f"go{n}", "at": msg["hold_at"]}))
                n += 1
                continue
            if msg["can_undo"] and not undone:
                undone = True
                ws.send_text(json.dumps({"type": "undo", "id": "u", "seat": 0}))
                continue
            if len(session.game.log) > 20 and undone:
                break
            n += 1
            act = msg["views"]["0"]["legal"][0]
            ws.send_text(json.dumps({"type": "act", "id": f"a{n}", "action": act}))
        before = msg
        log_before = list(session.game.log)
    s.close()
    assert undone

    s2 = backend.open()
    assert s2.load(ident).log == log_before
    app2 = create_app(QUICK, s2)
    with TestClient(app2) as client, client.websocket_connect("/ws") as ws:
        recv(ws)
        assert ident in app2.state.lobby.sessions
        ws.send_text(json.dumps({"type": "join", "id": "j", "game": ident, "token": "bad"}))
        assert until(ws, lambda m: m["type"] == "error")["code"] == "forbidden"
        ws.send_text(json.dumps({"type": "join", "id": "j2", "game": ident, "token": token}))
        after = until(ws, lambda m: m["type"] == "state")
        assert after["views"] == before["views"]
        assert after["hold"] == before["hold"] and "token" not in after
        record = client.get(f"/api/games/{ident}/record", params={"token": token})
        assert record.status_code == 200
    s2.close()


def test_a_finished_match_keeps_its_record_and_is_not_restored(store: SQLStore) -> None:
    lobby = Lobby(QUICK, store)
    session = lobby.create(
        parse_setup(
            {
                "profile": "arcade",
                "length": "match",
                "target": 1,
                "seed": 9,
                "seats": [{"human": True}, *QUICK_BOTS],
            }
        )
    )
    game = session.game
    bot = BY_ID["pip"]
    while not game.match_over:
        if game.deal_over:
            game.next_deal()
        else:
            game.apply(bot.make(game.to_act).act(game.observation(game.to_act)))
        session._save()
    stored = store.load(session.ident)
    assert stored.finished and stored.record == game.record()
    assert stored.log == game.log
    assert store.unfinished() == []
    assert Lobby(QUICK, store).restore_all() == 0
