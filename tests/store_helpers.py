"""What the store tests share: the two backends (``backend`` is parametrized over
SQLite in a temporary file and a new PostgreSQL database, see ``tests/pg.py``),
a store opened on each, and a played game put into a store.

A test module imports the fixtures by name, ``from store_helpers import store as
store`` (the ``as`` tells ruff the import is meant).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from twentynine.server.config import ServerConfig
from twentynine.server.game import Game
from twentynine.server.store import GameStore, SQLStore, hash_token, open_store

QUICK = ServerConfig(bot_delay=0, bot_workers=0, warm_up=False)
QUICK_BOTS = [{"bot": "tara"}, {"bot": "bablu"}, {"bot": "pip"}]


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
