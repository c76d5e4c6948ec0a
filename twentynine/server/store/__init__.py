"""Durable games: each game's setup, token hashes and action log, written as it is played.

A game is fully determined by its setup (rules, seats, seed, first dealer)
and its log (see ``game``), so that is all a store keeps of a game in
progress: the setup once, at creation, then one row per log entry, written
as each entry is applied and before any client hears of it. An undo cuts the
log back (``truncate``). A finished match keeps its ``29-record/1`` record
too. A restarted server rebuilds every unfinished game by replaying its log,
the very path an undo takes. Beside the games, the store keeps the rooms of
multiplayer games (``save_room``): a room waiting for its players, and a
started one until its game is over, as a JSON object the server defines.

``GameStore`` is the interface (``base``, with what a store returns). Two
implementations share their SQL, their checks and their errors through
``SQLStore`` (``sql``) and differ only in the driver:
``SQLiteStore`` (the standard library's ``sqlite3``, WAL journal) and
``PostgresStore`` (psycopg 3, in ``postgres``; the ``postgres`` extra).
``open_store`` picks one from a path or URL.

Schema (version 3; a version 1 or 2 database is brought up to date when opened)::

    schema_version (version)
    games   (id, setup, seed, tokens, settings, created, updated, finished, record,
             version)                        -- the highest version clients may have seen
    actions (game, idx, entry)               -- the log, one row per entry
    replies (game, seats, ident, seq, reply) -- the answers to recent client messages
    rooms   (code, state, game, created, updated)

A change a client makes (a move, the answer to its message, the version it
will see) is written in one transaction (``save``, a ``Change``), so a
restart finds either all of it or none: a resent message is then answered
from ``replies`` as a duplicate, never applied twice, and a version never
goes down.

JSON objects are kept as text, times as seconds since the epoch.

Seat tokens are never stored, only their SHA-256: a token is 144 random bits,
so a fast hash is enough to make a stolen database useless for joining games.
A game has either one token hash, the token of every human seat (a hot-seat
table, and every game of schema version 1), or four, one per seat, where ""
marks a seat nobody can take with a token (a bot's). ``StoredGame.seats_of``
says which seats a token controls.

Durability (SQLite): ``synchronous=NORMAL`` in WAL mode. A commit is in the
WAL file (the operating system's page cache) when ``append`` returns, so a
killed server process (even ``SIGKILL``) loses nothing that was
acknowledged; only a power cut or an OS crash can lose the last moves, and
never corrupts the file. ``FULL`` (an fsync per move) can be chosen with
``?synchronous=full``. PostgreSQL commits as its server is configured
(``synchronous_commit``, on by default: nothing acknowledged is lost).
"""

from __future__ import annotations

import os
from pathlib import Path

from .base import (
    REPLIES_KEPT,
    Change,
    GameStore,
    StoredGame,
    StoredReply,
    StoredSummary,
    StoreError,
    UnknownGame,
    hash_token,
)
from .sql import SCHEMA_VERSION, SQLStore, Tx
from .sqlite import MEMORY, SQLiteStore

POSTGRES_SCHEMES = ("postgresql", "postgres")


def default_path() -> Path:
    """``$XDG_DATA_HOME/twentynine/games.sqlite3`` (``~/.local/share`` without it)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "twentynine" / "games.sqlite3"


def open_store(where: str | os.PathLike[str] | None = None) -> GameStore:
    """A store from a path or URL.

    A file path, ``sqlite:///path`` (``?synchronous=full`` for an fsync per
    move) or ``:memory:`` is a SQLite store; ``postgresql://user@host:port/db``
    (or ``postgres://``, with any libpq parameter after ``?``) a PostgreSQL one.
    ``None`` means ``$TWENTYNINE_DB``, else the default file under the user's
    data directory.
    """
    if where is None:
        where = os.environ.get("TWENTYNINE_DB") or default_path()
    text = os.fspath(where)
    scheme = text.partition("://")[0].lower() if "://" in text else ""
    if scheme in POSTGRES_SCHEMES:
        try:
            from .postgres import PostgresStore
        except ImportError as e:
            raise StoreError(
                f"a PostgreSQL database needs psycopg 3 ({e}): pip install 'twentynine[postgres]'"
            ) from None
        return PostgresStore(text)
    synchronous = "NORMAL"
    if "?" in text and scheme:
        text, _, query = text.partition("?")
        for part in query.split("&"):
            key, _, value = part.partition("=")
            if key == "synchronous" and value.upper() in ("NORMAL", "FULL"):
                synchronous = value.upper()
            else:
                raise StoreError(f"unknown database option {part!r} (known: synchronous=full)")
    if scheme:
        if scheme != "sqlite":
            raise StoreError(
                f"unsupported database {scheme!r}: give a file path, sqlite:///PATH"
                " or postgresql://USER@HOST:PORT/DB"
            )
        text = text.partition("://")[2] or MEMORY
    return SQLiteStore(text, synchronous=synchronous)


__all__ = [
    "MEMORY",
    "REPLIES_KEPT",
    "SCHEMA_VERSION",
    "Change",
    "GameStore",
    "SQLStore",
    "SQLiteStore",
    "StoreError",
    "StoredGame",
    "StoredReply",
    "StoredSummary",
    "Tx",
    "UnknownGame",
    "default_path",
    "hash_token",
    "open_store",
]
