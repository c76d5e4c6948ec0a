"""Opening the games database: a new database gets the current schema (a SQLite
file in WAL mode), a file or database that is not a games database or has a
newer schema is refused, ``open_store`` picks the store by path or URL, and
databases of schema 1 and 2 are migrated to schema 3. Each test that takes
``backend`` runs against SQLite and PostgreSQL (see ``store_helpers``); then
PostgreSQL alone: its URLs, an unreachable server, a dropped connection, and
servers starting on a new database at once.
"""

from __future__ import annotations

import concurrent.futures
import json
import sqlite3
import threading
from pathlib import Path

import pytest
from helpers import played
from store_helpers import Backend
from store_helpers import backend as backend

from twentynine.server.game import Game
from twentynine.server.setup import parse_setup
from twentynine.server.store import (
    Change,
    SQLiteStore,
    StoredReply,
    StoreError,
    default_path,
    hash_token,
    open_store,
)
from twentynine.server.store import sql as store_module

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

TABLES = {"schema_version", "games", "actions", "rooms", "replies"}


# ---------------------------------------------------------------------- new and refused databases


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


# ---------------------------------------------------------------------- migrations


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
