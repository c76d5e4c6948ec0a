"""The game store: logs written as games are played, and games rebuilt from them.

Unit tests of ``SQLiteStore`` (append, truncate, finish, load; clear errors
for corrupt or unknown rows), then the server with a store: every accepted
action is in the store before the client hears of it, an undo cuts the log,
a finished match keeps its record, and a second server on the same file
rebuilds each unfinished game exactly (the restart of a real process is in
``test_restart``).
"""

from __future__ import annotations

import concurrent.futures
import json
import logging
import sqlite3
import warnings
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient, WebSocketTestSession

from helpers import played

from twentynine.bots.characters import BY_ID
from twentynine.engine import IllegalAction
from twentynine.server.game import Game, GameError
from twentynine.server.session import GameSession, Lobby, ServerConfig
from twentynine.server.setup import parse_setup
from twentynine.server.store import (
    SQLiteStore,
    StoreError,
    UnknownGame,
    default_path,
    hash_token,
    open_store,
)
from twentynine.web.app import create_app

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

QUICK = ServerConfig(bot_delay=0, bot_workers=0, warm_up=False)
QUICK_BOTS = [{"bot": "tara"}, {"bot": "bablu"}, {"bot": "pip"}]
_pool = concurrent.futures.ThreadPoolExecutor(2)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SQLiteStore]:
    s = SQLiteStore(tmp_path / "games.sqlite3")
    yield s
    s.close()


def put(store: SQLiteStore, ident: str, game: Game, token: str = "tok") -> None:
    store.create(ident, game.setup.to_json(), game.seed, [hash_token(token)], {"pace": 1.0})
    for i, entry in enumerate(game.log):
        store.append(ident, i, entry)


# ---------------------------------------------------------------------- the store alone


def test_append_load_truncate_finish(store: SQLiteStore) -> None:
    setup = parse_setup({"seed": 7})
    store.create("g1", setup.to_json(), 7, [hash_token("secret")], {"pace": 0.4})
    store.append("g1", 0, {"seat": 1, "bid": 16})
    store.append("g1", 1, {"seat": 2, "pass": True})
    got = store.load("g1")
    assert got.log == [{"seat": 1, "bid": 16}, {"seat": 2, "pass": True}]
    assert got.seed == 7 and got.setup == setup.to_json() and got.settings == {"pace": 0.4}
    assert got.admits("secret") and not got.admits("secreT")
    assert store.unfinished() == ["g1"]

    store.truncate("g1", 1)
    assert store.load("g1").log == [{"seat": 1, "bid": 16}]
    store.append("g1", 1, {"next_deal": True})
    assert store.load("g1").log[-1] == {"next_deal": True}

    store.settings("g1", {"pace": 1.8, "auto_pair": True})
    assert store.load("g1").settings == {"pace": 1.8, "auto_pair": True}

    store.finish("g1", {"format": "29-record/1", "deals": []})
    done = store.load("g1")
    assert done.finished and done.record == {"format": "29-record/1", "deals": []}
    assert store.unfinished() == []
    with pytest.raises(StoreError, match="finished"):
        store.append("g1", 2, {"seat": 0, "pass": True})


def test_the_file_is_in_wal_mode_with_a_schema_version(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "dir" / "games.sqlite3"
    SQLiteStore(path).close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("SELECT version FROM schema_version").fetchall() == [(1,)]
    db.close()


def test_only_a_hash_of_the_token_is_stored(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    s = SQLiteStore(path)
    s.create("g", parse_setup({"seed": 1}).to_json(), 1, [hash_token("the-very-token")])
    s.close()
    raw = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert b"the-very-token" not in raw
    assert hash_token("the-very-token").encode() in raw


def test_the_log_stays_in_order(store: SQLiteStore) -> None:
    store.create("g", parse_setup({"seed": 1}).to_json(), 1, [hash_token("t")])
    store.append("g", 0, {"seat": 1, "pass": True})
    with pytest.raises(StoreError, match="entry 2 cannot follow 1 entries"):
        store.append("g", 2, {"seat": 2, "pass": True})
    with pytest.raises(StoreError, match="entry 0 cannot follow 1 entries"):
        store.append("g", 0, {"seat": 2, "pass": True})
    with pytest.raises(StoreError, match="cannot cut"):
        store.truncate("g", 5)
    with pytest.raises(StoreError, match="already in the store"):
        store.create("g", {}, 1, [])
    assert store.load("g").log == [{"seat": 1, "pass": True}]


def test_unknown_games_and_corrupt_rows_give_clear_errors(
    store: SQLiteStore, tmp_path: Path
) -> None:
    for call in (
        lambda: store.load("nope"),
        lambda: store.append("nope", 0, {}),
        lambda: store.truncate("nope", 0),
        lambda: store.finish("nope", {}),
    ):
        with pytest.raises(UnknownGame, match="no game 'nope'"):
            call()
    put(store, "g", played(3, steps=12))
    db = sqlite3.connect(tmp_path / "games.sqlite3")
    db.execute("UPDATE actions SET entry = '{not json' WHERE game = 'g' AND idx = 4")
    db.commit()
    with pytest.raises(StoreError, match="game 'g': log entry 4 is not valid JSON"):
        store.load("g")
    db.execute("UPDATE actions SET entry = '[1, 2]' WHERE game = 'g' AND idx = 4")
    db.commit()
    with pytest.raises(StoreError, match="log entry 4 must be a JSON object"):
        store.load("g")
    db.execute("DELETE FROM actions WHERE game = 'g' AND idx = 4")
    db.commit()
    with pytest.raises(StoreError, match="misses entry 4"):
        store.load("g")
    db.execute("UPDATE games SET setup = 'oops', seed = 'x' WHERE id = 'g'")
    db.commit()
    with pytest.raises(StoreError, match="the setup is not valid JSON"):
        store.load("g")
    db.close()


def test_a_file_that_is_not_a_games_database_is_refused(tmp_path: Path) -> None:
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(StoreError, match="not a usable games database"):
        SQLiteStore(junk)
    other = tmp_path / "other.sqlite3"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE people (name TEXT)")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="other tables"):
        SQLiteStore(other)
    newer = tmp_path / "newer.sqlite3"
    SQLiteStore(newer).close()
    db = sqlite3.connect(newer)
    db.execute("UPDATE schema_version SET version = 99")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="schema version 99"):
        SQLiteStore(newer)


def test_open_store_paths_and_urls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_path() == tmp_path / "xdg" / "twentynine" / "games.sqlite3"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert default_path() == Path.home() / ".local" / "share" / "twentynine" / "games.sqlite3"
    monkeypatch.setenv("TWENTYNINE_DB", str(tmp_path / "env.sqlite3"))
    open_store().close()
    assert (tmp_path / "env.sqlite3").exists()
    open_store(f"sqlite:///{tmp_path}/url.sqlite3?synchronous=full").close()
    assert (tmp_path / "url.sqlite3").exists()
    open_store(":memory:").close()
    with pytest.raises(StoreError, match="unsupported database 'postgresql'"):
        open_store("postgresql://localhost/games")
    with pytest.raises(StoreError, match="unknown database option"):
        open_store("sqlite:///x.sqlite3?fast=yes")


# ---------------------------------------------------------------------- rebuilding games


@pytest.mark.parametrize(("seed", "steps"), [(1, 400), (2, 37), (3, 90)])
def test_a_restored_game_equals_the_original(store: SQLiteStore, seed: int, steps: int) -> None:
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
    store: SQLiteStore, caplog: pytest.LogCaptureFixture
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
    tmp_path: Path,
) -> None:
    path = tmp_path / "games.sqlite3"
    s = SQLiteStore(path)
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

    s2 = SQLiteStore(path)
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


def test_a_finished_match_keeps_its_record_and_is_not_restored(store: SQLiteStore) -> None:
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
