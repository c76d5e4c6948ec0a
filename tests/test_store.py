"""The game store: logs written as games are played, and games rebuilt from them.

Every test of the store runs against both backends (``backend`` is
parametrized): ``SQLiteStore`` in a temporary file, and ``PostgresStore`` in a
new database of a real PostgreSQL server that the tests start (``pg_url``,
see ``tests/pg.py``). Unit tests first (append, truncate, finish, load, the
rooms and summaries of schema 2; clear errors for corrupt or unknown rows;
the migration of a schema 1 database), then the server with a store: every
accepted action is in the store before the client hears of it, an undo cuts
the log, a finished match keeps its record, and a second server on the same
database rebuilds each unfinished game exactly (the restart of a real
process is in ``test_restart`` and ``test_restart_pg``).
"""

from __future__ import annotations

import concurrent.futures
import json
import logging
import sqlite3
import threading
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
from twentynine.game.engine import IllegalAction
from twentynine.server.config import ServerConfig
from twentynine.server.game import Game, GameError
from twentynine.server.lobby import Lobby
from twentynine.server.rooms import ROOM_PRUNE_EVERY
from twentynine.server.session import GameSession
from twentynine.server.setup import parse_setup
from twentynine.server.store import (
    REPLIES_KEPT,
    Change,
    GameStore,
    SQLiteStore,
    SQLStore,
    StoredGame,
    StoredReply,
    StoredSummary,
    StoreError,
    UnknownGame,
    default_path,
    hash_token,
    open_store,
)
from twentynine.server.store import sql as store_module
from twentynine.web.app import create_app

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

QUICK = ServerConfig(bot_delay=0, bot_workers=0, warm_up=False)
TABLES = {"schema_version", "games", "actions", "rooms", "replies"}
QUICK_BOTS = [{"bot": "tara"}, {"bot": "bablu"}, {"bot": "pip"}]
_pool = concurrent.futures.ThreadPoolExecutor(2)


class Backend:
    """One database behind the store, and a second connection to it for the tests' own SQL."""

    def __init__(self, name: str, where: str) -> None:
        self.name, self.where = name, where

    def open(self) -> SQLStore:
        s = open_store(self.where)
        assert isinstance(s, SQLStore)
        return s

    def _connect(self) -> Any:
        if self.name == "sqlite":
            return sqlite3.connect(self.where)
        import psycopg

        return psycopg.connect(self.where)

    def raw(self, *statements: str) -> None:
        """Run SQL behind the store's back (each statement committed)."""
        db = self._connect()
        try:
            for sql in statements:
                db.execute(sql)
                db.commit()
        finally:
            db.close()

    def rows(self, sql: str) -> list[tuple[Any, ...]]:
        db = self._connect()
        try:
            return [tuple(r) for r in db.execute(sql).fetchall()]
        finally:
            db.close()

    def tables(self) -> set[str]:
        if self.name == "sqlite":
            found = self.rows("SELECT name FROM sqlite_master WHERE type = 'table'")
        else:
            found = self.rows(
                "SELECT table_name FROM information_schema.tables"
                " WHERE table_schema = current_schema()"
            )
        return {r[0] for r in found}


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    if request.param == "sqlite":
        return Backend("sqlite", str(tmp_path / "games.sqlite3"))
    return Backend("postgres", request.getfixturevalue("pg_url"))


@pytest.fixture
def store(backend: Backend) -> Iterator[SQLStore]:
    s = backend.open()
    yield s
    s.close()


def put(store: GameStore, ident: str, game: Game, token: str = "tok") -> None:
    store.create(ident, game.setup.to_json(), game.seed, [hash_token(token)], {"pace": 1.0})
    for i, entry in enumerate(game.log):
        store.append(ident, i, entry)


# ---------------------------------------------------------------------- the store alone


def test_append_load_truncate_finish(store: SQLStore) -> None:
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


def test_big_seeds_text_and_the_order_of_unfinished_games(store: SQLStore) -> None:
    seed = 2**63 - 1  # the largest seed a setup allows
    setup = parse_setup({"seed": seed}).to_json()
    for ident in ("a", "b", "c"):
        store.create(ident, setup, seed, [hash_token(ident)])
    store.append("b", 0, {"note": "Ünïcode ♠ and a \x00 and 'quotes' and ? and %s"})
    store.append("a", 0, {"seat": 1, "pass": True})
    got = store.load("b")
    assert got.seed == seed
    assert got.log == [{"note": "Ünïcode ♠ and a \x00 and 'quotes' and ? and %s"}]
    assert store.unfinished() == ["a", "b", "c"]
    assert store.unfinished(limit=2) == ["a", "b"]
    assert store.unfinished(limit=0) == []
    with pytest.raises(StoreError, match="64 bits"):
        store.create("d", setup, 2**63, [hash_token("d")])


def test_a_new_database_has_the_current_schema(backend: Backend) -> None:
    backend.open().close()
    assert backend.tables() == TABLES
    assert backend.rows("SELECT version FROM schema_version") == [(3,)]
    backend.open().close()  # opening it again changes nothing
    assert backend.rows("SELECT version FROM schema_version") == [(3,)]


def test_the_file_is_in_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "dir" / "games.sqlite3"
    SQLiteStore(path).close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()


def test_only_a_hash_of_the_token_is_stored(backend: Backend, tmp_path: Path) -> None:
    s = backend.open()
    s.create("g", parse_setup({"seed": 1}).to_json(), 1, [hash_token("the-very-token")])
    s.save_room("ROOM", {"players": ["ann"]}, "g")
    s.close()
    if backend.name == "sqlite":
        raw = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    else:
        rows = backend.rows("SELECT g::text FROM games g") + backend.rows(
            "SELECT r::text FROM rooms r"
        )
        raw = repr(rows).encode()
    assert b"the-very-token" not in raw
    assert hash_token("the-very-token").encode() in raw


def test_the_log_stays_in_order(store: SQLStore) -> None:
    store.create("g", parse_setup({"seed": 1}).to_json(), 1, [hash_token("t")])
    store.append("g", 0, {"seat": 1, "pass": True})
    with pytest.raises(StoreError, match="entry 2 cannot follow 1 entries"):
        store.append("g", 2, {"seat": 2, "pass": True})
    with pytest.raises(StoreError, match="entry 0 cannot follow 1 entries"):
        store.append("g", 0, {"seat": 2, "pass": True})
    with pytest.raises(StoreError, match="cannot cut"):
        store.truncate("g", 5)
    with pytest.raises(StoreError, match="already in the store"):
        store.create("g", {}, 1, [hash_token("u")])
    assert store.load("g").log == [{"seat": 1, "pass": True}]


def test_unknown_games_and_corrupt_rows_give_clear_errors(
    store: SQLStore, backend: Backend
) -> None:
    for call in (
        lambda: store.load("nope"),
        lambda: store.append("nope", 0, {}),
        lambda: store.truncate("nope", 0),
        lambda: store.finish("nope", {}),
        lambda: store.settings("nope", {}),
    ):
        with pytest.raises(UnknownGame, match="no game 'nope'"):
            call()
    put(store, "g", played(3, steps=12))
    backend.raw("UPDATE actions SET entry = '{not json' WHERE game = 'g' AND idx = 4")
    with pytest.raises(StoreError, match="game 'g': log entry 4 is not valid JSON"):
        store.load("g")
    backend.raw("UPDATE actions SET entry = '[1, 2]' WHERE game = 'g' AND idx = 4")
    with pytest.raises(StoreError, match="log entry 4 must be a JSON object"):
        store.load("g")
    backend.raw("DELETE FROM actions WHERE game = 'g' AND idx = 4")
    with pytest.raises(StoreError, match="misses entry 4"):
        store.load("g")
    backend.raw("UPDATE games SET tokens = '[\"not a hash\"]' WHERE id = 'g'")
    with pytest.raises(StoreError, match="token hashes are not a list of one or four"):
        store.load("g")
    with pytest.raises(StoreError, match="token hashes"):
        store.summaries(["g"])
    backend.raw("UPDATE games SET setup = 'oops' WHERE id = 'g'")
    with pytest.raises(StoreError, match="the setup is not valid JSON"):
        store.load("g")
    if backend.name == "sqlite":  # PostgreSQL's columns have types
        backend.raw("UPDATE games SET setup = '{}', seed = 'x' WHERE id = 'g'")
        with pytest.raises(StoreError, match="the seed 'x' is not a whole number"):
            store.load("g")


def test_driver_errors_never_leak(store: SQLStore, backend: Backend) -> None:
    put(store, "g", played(3, steps=3))
    backend.raw("DROP TABLE actions")
    with pytest.raises(StoreError, match="the games database failed") as failed:
        store.append("g", 3, {"seat": 0, "pass": True})
    assert type(failed.value) is StoreError
    with pytest.raises(StoreError, match="the games database failed"):
        store.load("g")
    assert store.unfinished() == ["g"]  # the store still works for what is left
    store.close()
    with pytest.raises(StoreError):
        store.unfinished()


def test_a_file_that_is_not_a_games_database_is_refused(tmp_path: Path) -> None:
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(StoreError, match="not a usable games database"):
        SQLiteStore(junk)


def test_a_database_with_other_tables_or_a_newer_schema_is_refused(backend: Backend) -> None:
    backend.raw("CREATE TABLE people (name TEXT)")
    with pytest.raises(StoreError, match="other tables"):
        backend.open()
    backend.raw("DROP TABLE people")
    backend.open().close()
    backend.raw("UPDATE schema_version SET version = 99")
    with pytest.raises(StoreError, match="schema version 99"):
        backend.open()


# The first schema, as version 1 of twentynine wrote it into its SQLite files.
SCHEMA_V1_SQLITE = """
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    setup TEXT NOT NULL,
    seed INTEGER NOT NULL,
    tokens TEXT NOT NULL,
    settings TEXT NOT NULL DEFAULT '{}',
    created REAL NOT NULL,
    updated REAL NOT NULL,
    finished INTEGER NOT NULL DEFAULT 0,
    record TEXT
);
CREATE TABLE IF NOT EXISTS actions (
    game TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    entry TEXT NOT NULL,
    PRIMARY KEY (game, idx)
);
CREATE INDEX IF NOT EXISTS games_unfinished ON games (finished, updated);
INSERT INTO schema_version (version) VALUES (1);
"""


def _v1_rows(backend: Backend, game: Game) -> None:
    """Two games as version 1 kept them: one in progress, one finished."""
    setup = json.dumps(game.setup.to_json()).replace("'", "''")
    tokens = json.dumps([hash_token("old-token")])
    statements = [
        f"INSERT INTO games (id, setup, seed, tokens, settings, created, updated)"
        f" VALUES ('old', '{setup}', {game.seed}, '{tokens}', '{{\"pace\": 0.4}}', 10.5, 20.25)",
        f"INSERT INTO games (id, setup, seed, tokens, created, updated, finished, record)"
        f" VALUES ('done', '{setup}', {game.seed}, '{tokens}', 1, 2, 1, '{{\"deals\": []}}')",
    ]
    for i, entry in enumerate(game.log):
        text = json.dumps(entry).replace("'", "''")
        statements.append(f"INSERT INTO actions (game, idx, entry) VALUES ('old', {i}, '{text}')")
    backend.raw(*statements)


def _check_migrated(backend: Backend, game: Game) -> None:
    s = backend.open()
    try:
        assert backend.rows("SELECT version FROM schema_version") == [(3,)]
        assert backend.tables() == TABLES
        old = s.load("old")
        assert old.log == game.log and old.settings == {"pace": 0.4}
        assert old.admits("old-token") and old.seats_of("old-token", [0, 2]) == (0, 2)
        assert s.unfinished() == ["old"]
        summary, done = s.summaries(["old", "done"])
        assert (summary.created, summary.updated, summary.record) == (10.5, 20.25, None)
        assert done.finished and done.record == {"deals": []}
        # the new tables work, and the old games go on
        assert s.rooms() == []
        s.save_room("R1", {"seats": [None] * 4})
        s.append("old", len(game.log), {"next_deal": True})
    finally:
        s.close()
    again = backend.open()
    assert again.rooms() == [("R1", {"seats": [None] * 4}, None)]
    assert again.load("old").log[-1] == {"next_deal": True}
    again.close()


def test_a_version_1_file_is_migrated_to_version_3(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(SCHEMA_V1_SQLITE)
    db.close()
    backend = Backend("sqlite", str(path))
    game = played(6, steps=30)
    _v1_rows(backend, game)
    _check_migrated(backend, game)


def test_a_version_1_database_is_migrated_to_version_3(backend: Backend) -> None:
    backend.raw(*store_module._SCHEMA_V1, "INSERT INTO schema_version (version) VALUES (1)")
    game = played(7, steps=25)
    _v1_rows(backend, game)
    _check_migrated(backend, game)


def test_a_version_2_database_is_migrated_to_version_3(backend: Backend) -> None:
    backend.raw(
        *store_module._SCHEMA_V1,
        *store_module._STEPS[2],
        "INSERT INTO schema_version (version) VALUES (2)",
    )
    game = played(8, steps=20)
    _v1_rows(backend, game)
    _check_migrated(backend, game)
    s = backend.open()
    try:
        old = s.load("old")
        assert old.version == 0 and old.replies == ()  # nothing was kept of them before
        s.save("old", Change(version=40, replies=(StoredReply((0,), "m1", {"type": "ack"}),)))
        again = s.load("old")
        assert again.version == 40 and again.replies[0].ident == "m1"
    finally:
        s.close()


# ---------------------------------------------------------------------- one change, one transaction


def ack(ident: str, v: int) -> dict[str, Any]:
    return {"type": "ack", "v": v, "id": ident}


def test_a_change_is_written_whole_with_its_reply_and_version(store: SQLStore) -> None:
    game = played(4, steps=12)
    store.create("g", game.setup.to_json(), game.seed, [hash_token("t")])
    entries = tuple(enumerate(game.log[:10]))
    store.save(
        "g",
        Change(
            entries=entries,
            settings={"pace": 0.4},
            version=70,
            replies=(StoredReply((0,), "a1", ack("a1", 7)),),
        ),
    )
    got = store.load("g")
    assert got.log == game.log[:10] and got.settings == {"pace": 0.4} and got.version == 70
    assert got.replies == (StoredReply((0,), "a1", ack("a1", 7)),)
    # an undo and a new move, with the reply to the undo, at once
    store.save(
        "g",
        Change(
            keep=8,
            entries=((8, game.log[8]),),
            version=71,
            replies=(StoredReply((0,), "u1", ack("u1", 9)),),
        ),
    )
    got = store.load("g")
    assert got.log == game.log[:9] and [r.ident for r in got.replies] == ["a1", "u1"]


def test_a_change_that_fails_writes_nothing_at_all(store: SQLStore) -> None:
    game = played(4, steps=12)
    store.create("g", game.setup.to_json(), game.seed, [hash_token("t")], {"pace": 1.0})
    store.save("g", Change(entries=tuple(enumerate(game.log[:3])), version=10))
    before = store.load("g")
    bad = [
        Change(entries=((3, game.log[3]), (5, game.log[5])), version=99),  # a gap in the log
        Change(keep=7, replies=(StoredReply((0,), "x", ack("x", 1)),)),  # cut beyond the end
        Change(settings={"pace": 2}, replies=(StoredReply((9,), "x", ack("x", 1)),)),  # seat 9
    ]
    for change in bad:
        with pytest.raises(StoreError):
            store.save("g", change)
        assert store.load("g") == before
    with pytest.raises(UnknownGame):
        store.save("nope", Change(version=3))


def test_the_version_ceiling_never_goes_down(store: SQLStore) -> None:
    store.create("g", {}, 1, [hash_token("t")])
    for version, expected in ((5, 5), (3, 5), (5, 5), (80, 80), (0, 80)):
        store.save("g", Change(version=version))
        assert store.load("g").version == expected


def test_replies_are_kept_per_seats_the_newest_first_to_stay(store: SQLStore) -> None:
    store.create("g", {}, 1, [hash_token(str(s)) if s != 1 else "" for s in range(4)])
    extra = 20
    for n in range(REPLIES_KEPT + extra):
        store.save("g", Change(replies=(StoredReply((0,), f"m{n}", ack(f"m{n}", n)),)))
    # the same id from another seat is another message, and a resent id is kept once
    store.save("g", Change(replies=(StoredReply((2,), "m5", ack("m5", 1)),)))
    store.save("g", Change(replies=(StoredReply((2,), "m5", ack("m5", 2)),)))
    got = store.load("g").replies
    south = [r.ident for r in got if r.seats == (0,)]
    assert south == [f"m{n}" for n in range(extra, REPLIES_KEPT + extra)]
    assert [r.reply["v"] for r in got if r.seats == (2,)] == [2]
    hot = Change(replies=(StoredReply((0, 2), "h", ack("h", 1)),))  # one device, two seats
    store.save("g", hot)
    assert store.load("g").replies[-1].seats == (0, 2)


def test_a_finished_game_takes_replies_but_no_more_moves(store: SQLStore) -> None:
    store.create("g", {}, 1, [hash_token("t")])
    store.save("g", Change(record={"deals": []}))
    store.save("g", Change(version=9, replies=(StoredReply((0,), "late", ack("late", 9)),)))
    with pytest.raises(StoreError, match="finished"):
        store.save("g", Change(entries=((0, {"seat": 0, "pass": True}),)))
    got = store.load("g")
    assert got.finished and got.version == 9 and got.replies[0].ident == "late"


# ---------------------------------------------------------------------- rooms, summaries, seats


def test_rooms_are_saved_replaced_listed_and_dropped(store: SQLStore) -> None:
    assert store.rooms() == []
    store.save_room("BBB", {"host": "ann", "seats": ["ann", None, None, None]})
    store.save_room("AAA", {"host": "bob"})
    store.save_room("CCC", {"host": "cy"}, game=None)
    # a new state keeps the room's place (its creation time)
    store.save_room("BBB", {"host": "ann", "seats": ["ann", "dee", None, None]}, game="g1")
    assert store.rooms() == [
        ("BBB", {"host": "ann", "seats": ["ann", "dee", None, None]}, "g1"),
        ("AAA", {"host": "bob"}, None),
        ("CCC", {"host": "cy"}, None),
    ]
    store.drop_room("AAA")
    store.drop_room("AAA")  # not there: no error
    store.drop_room("never")
    assert [code for code, _, _ in store.rooms()] == ["BBB", "CCC"]
    with pytest.raises(StoreError, match="code"):
        store.save_room("", {})
    with pytest.raises(StoreError, match="JSON object"):
        store.save_room("X", ["not", "an", "object"])  # type: ignore[arg-type]


def test_old_rooms_are_pruned_unless_their_game_is_being_played(
    store: SQLStore, backend: Backend
) -> None:
    setup = parse_setup({"seed": 1}).to_json()
    for ident in ("live", "done", "stale"):
        store.create(ident, setup, 1, [hash_token(ident)])
    store.finish("done", {"format": "29-record/1", "deals": []})
    rooms = {
        "EMPTY": None,  # never started
        "LIVE": "live",  # its game moves on: kept, however old the room
        "DONE": "done",  # its game is over
        "STALE": "stale",  # its game stopped long ago
        "GONE": "nowhere",  # its game is not kept
        "FRESH": None,  # touched lately: kept
    }
    for code, game in rooms.items():
        store.save_room(code, {"host": code.lower()}, game=game)
    now = 1_000_000_000.0
    day = 86_400.0
    backend.raw(
        f"UPDATE rooms SET updated = {now - 10 * day}",
        f"UPDATE rooms SET updated = {now - day} WHERE code = 'FRESH'",
        f"UPDATE games SET updated = {now - 10 * day}",
        f"UPDATE games SET updated = {now - day} WHERE id = 'live'",
    )
    assert store.prune_rooms(now - 7 * day) == 4
    assert sorted(code for code, _, _ in store.rooms()) == ["FRESH", "LIVE"]
    assert store.prune_rooms(now - 7 * day) == 0  # nothing more: no error either


def test_one_of_many_processes_prunes_the_stored_rooms_when_a_room_is_made(
    store: SQLStore, backend: Backend
) -> None:
    store.save_room("OLD", {"host": "x"})
    backend.raw("UPDATE rooms SET updated = 0")
    lobby = Lobby(QUICK, store=store)
    lobby.cluster = object()  # one of many processes: nothing is restored at start
    assert lobby.shared
    lobby._prune_rooms_if_due()
    assert store.rooms() == []
    # at most once an hour: a room left since waits for the next time
    store.save_room("OLD2", {"host": "y"})
    backend.raw("UPDATE rooms SET updated = 0")
    lobby._prune_rooms_if_due()
    assert [code for code, _, _ in store.rooms()] == ["OLD2"]
    lobby._rooms_pruned -= ROOM_PRUNE_EVERY + 1
    lobby._prune_rooms_if_due()
    assert store.rooms() == []
    lobby.close()


def test_a_lone_server_prunes_the_stored_rooms_before_it_restores_them(
    store: SQLStore, backend: Backend
) -> None:
    store.save_room("OLD", {"host": "x"})
    store.save_room("NEW", {"host": "y"})
    backend.raw("UPDATE rooms SET updated = 0 WHERE code = 'OLD'")
    lobby = Lobby(QUICK, store=store)
    lobby.start()
    assert [code for code, _, _ in store.rooms()] == ["NEW"]
    lobby.close()


def test_a_corrupt_room_gives_a_clear_error(store: SQLStore, backend: Backend) -> None:
    store.save_room("R", {"ok": True})
    backend.raw("UPDATE rooms SET state = '[1]' WHERE code = 'R'")
    with pytest.raises(StoreError, match="room 'R': the state must be a JSON object"):
        store.rooms()


def test_summaries_one_row_per_known_game_in_one_query(
    store: SQLStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    one = parse_setup({"seed": 1}).to_json()
    two = parse_setup({"seed": 2, "seats": [{"human": True}, *QUICK_BOTS]}).to_json()
    store.create("a", one, 1, [hash_token("ta")])
    store.create("b", two, 2, [hash_token("tb"), "", "", ""])
    store.append("b", 0, {"seat": 1, "pass": True})
    store.finish("b", {"format": "29-record/1", "deals": [1]})
    store.create("c", one, 1, [hash_token("tc")])

    statements: list[str] = []
    real_run = store_module.Tx.run

    def counted(tx: store_module.Tx, sql: str, *params: Any) -> Any:
        statements.append(sql)
        return real_run(tx, sql, *params)

    monkeypatch.setattr(store_module.Tx, "run", counted)
    got = store.summaries(["b", "nope", "a", "b"])
    assert len(statements) == 1
    monkeypatch.undo()

    assert [g.ident for g in got] == ["b", "a"]
    b, a = got
    assert isinstance(b, StoredSummary)
    assert b.setup == two and b.finished and b.record == {"format": "29-record/1", "deals": [1]}
    assert b.token_hashes == (hash_token("tb"), "", "", "")
    assert b.seats_of("tb", [0]) == (0,) and b.admits("tb") and not b.admits("")
    assert a.setup == one and not a.finished and a.record is None
    assert a.created <= a.updated < b.updated
    assert b.updated >= b.created
    assert store.summaries([]) == []
    assert store.summaries(["nope"]) == []


def test_summaries_of_a_long_list(store: SQLStore) -> None:
    setup = parse_setup({"seed": 1}).to_json()
    for i in range(0, 1300, 100):
        store.create(f"g{i}", setup, 1, [hash_token("t")])
    idents = [f"g{i}" for i in range(1300)]
    got = store.summaries(idents)
    assert [s.ident for s in got] == [f"g{i}" for i in range(0, 1300, 100)]


def test_token_hashes_one_for_all_human_seats_or_one_per_seat(store: SQLStore) -> None:
    setup = parse_setup({"seed": 1}).to_json()
    shared = StoredGame("h", setup, 1, (hash_token("all"),), [])
    assert shared.seats_of("all", [2, 0]) == (0, 2)
    assert shared.seats_of("other", [0, 2]) == ()
    assert shared.admits("all") and not shared.admits("")

    per_seat = (hash_token("s0"), "", hash_token("s2"), hash_token("s2"))
    store.create("p", setup, 1, per_seat)
    got = store.load("p")
    assert got.token_hashes == per_seat
    assert got.seats_of("s0", range(4)) == (0,)
    assert got.seats_of("s2", range(4)) == (2, 3)
    assert got.seats_of("s2", [0, 2]) == (2,)  # only among the human seats given
    assert got.seats_of("", range(4)) == ()  # an empty hash is no seat's token
    assert got.admits("s0") and got.admits("s2") and not got.admits("s1")

    for bad in (
        [],
        ["the-raw-token"],
        [hash_token("a"), hash_token("b")],
        ["", "", "", ""],
        [hash_token("a"), "", "", "x"],
        [""],
    ):
        with pytest.raises(StoreError, match="one token hash"):
            store.create("bad", setup, 1, bad)
    assert store.summaries(["bad"]) == []


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
    with pytest.raises(StoreError, match="unsupported database 'mysql'"):
        open_store("mysql://localhost/games")
    with pytest.raises(StoreError, match="unknown database option"):
        open_store("sqlite:///x.sqlite3?fast=yes")


# ---------------------------------------------------------------------- PostgreSQL alone


def test_open_store_picks_postgresql_by_url(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from twentynine.server.store.postgres import PostgresStore

    for url in (pg_url, pg_url.replace("postgresql://", "postgres://", 1)):
        s = open_store(url)
        assert isinstance(s, PostgresStore)
        s.close()
    monkeypatch.setenv("TWENTYNINE_DB", pg_url)
    s = open_store()
    assert isinstance(s, PostgresStore) and s.unfinished() == []
    s.close()
    with pytest.raises(StoreError):
        s.unfinished()  # closed, not reopened


def test_an_unreachable_server_is_a_store_error_without_the_password() -> None:
    from twentynine.benchmarks.localhost import free_port

    url = f"postgresql://ann:s3cret@127.0.0.1:{free_port()}/games?connect_timeout=2"
    with pytest.raises(StoreError, match="cannot open the games database") as failed:
        open_store(url)
    assert "s3cret" not in str(failed.value)
    assert f"postgresql://ann@127.0.0.1:{url.split(':')[3].split('/')[0]}/games" in str(
        failed.value
    )
    with pytest.raises(StoreError, match="not a usable database URL"):
        open_store("postgresql://host/db?no_such_parameter=1")


def test_a_dropped_connection_is_opened_again(pg_url: str) -> None:
    s = open_store(pg_url)
    s.create("g", parse_setup({"seed": 1}).to_json(), 1, [hash_token("t")])
    backend = Backend("postgres", pg_url)
    for n in range(3):
        # the server ends the store's connection (as a restart of the server would)
        backend.raw(
            "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity"
            " WHERE application_name = 'twentynine'"
        )
        s.append("g", n, {"seat": n, "pass": True})  # reconnected, and written once
    assert s.load("g").log == [{"seat": n, "pass": True} for n in range(3)]
    s.close()


def test_two_servers_starting_on_a_new_database_create_one_schema(pg_url: str) -> None:
    barrier = threading.Barrier(4)

    def start(_: int) -> None:
        barrier.wait()
        open_store(pg_url).close()

    with concurrent.futures.ThreadPoolExecutor(4) as ex:
        list(ex.map(start, range(4)))
    assert Backend("postgres", pg_url).rows("SELECT version FROM schema_version") == [(3,)]


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
