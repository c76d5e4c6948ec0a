"""The restart test of ``test_restart``, with the games kept in PostgreSQL.

``twentynine serve --db postgresql://...`` runs against a new database of the
tests' own PostgreSQL server (``pg_url``); it is killed with SIGKILL twice in
the middle of a deal, restarted, and must give back every game as its stored
log rebuilds it. The scenario is ``test_restart``'s own, run here with the
database URL in place of the file.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import test_restart
from test_restart import Server

from twentynine.server.game import Game
from twentynine.server.setup import parse_setup
from twentynine.server.store import open_store

pytestmark = test_restart.pytestmark


def stored(db: str, ident: str) -> tuple[Game, list[dict[str, Any]]]:
    """What the database holds of a game (the server is dead: a new connection reads it)."""
    store = open_store(db)
    try:
        got = store.load(ident)
    finally:
        store.close()
    return Game(parse_setup(got.setup), got.log), got.log


@pytest.fixture
def pg_server(pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Server]:
    monkeypatch.setattr(test_restart, "stored", stored)
    s = Server(pg_url, tmp_path / "server.log")  # type: ignore[arg-type]  # --db takes a URL too
    s.start()
    try:
        yield s
    finally:
        s.stop()


def test_a_killed_server_resumes_every_game_from_postgresql(pg_server: Server) -> None:
    assert str(pg_server.db).startswith("postgresql://")
    test_restart.test_a_killed_server_resumes_every_game_with_nothing_lost(pg_server)


def test_killed_again_and_again_with_postgresql(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The repeated kills of ``test_restart``, the games in PostgreSQL."""
    monkeypatch.setattr(test_restart, "KILLS", 3)

    class PgServer(Server):
        def __init__(self, db: Path, log: Path) -> None:
            super().__init__(pg_url, log)  # type: ignore[arg-type]  # --db takes a URL too

    monkeypatch.setattr(test_restart, "Server", PgServer)
    test_restart.test_killed_again_and_again_every_resend_is_a_duplicate_and_every_room_goes_on(
        tmp_path
    )
