"""Durable games: each game's setup, token hash and action log, written as it is played.

A game is fully determined by its setup (rules, seats, seed, first dealer)
and its log (see ``game``), so that is all a store keeps of a game in
progress: the setup once, at creation, then one row per log entry, written
as each entry is applied and before any client hears of it. An undo cuts the
log back (``truncate``). A finished match keeps its ``29-record/1`` record
too. A restarted server rebuilds every unfinished game by replaying its log,
the very path an undo takes.

``GameStore`` is the interface; ``SQLiteStore`` the implementation (the
standard library's ``sqlite3``, WAL journal). ``open_store`` picks the store
from a path or URL, so another database can be added behind the same
interface (``postgresql://...``) without touching the server.

Seat tokens are never stored, only their SHA-256: a token is 144 random bits,
so a fast hash is enough to make a stolen database useless for joining games.

Durability: ``synchronous=NORMAL`` in WAL mode. A commit is in the WAL file
(the operating system's page cache) when ``append`` returns, so a killed
server process (even ``SIGKILL``) loses nothing that was acknowledged; only
a power cut or an OS crash can lose the last moves, and never corrupts the
file. ``FULL`` (an fsync per move) can be chosen with ``?synchronous=full``.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

SCHEMA_VERSION = 1
MEMORY = ":memory:"

SCHEMA = """
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
"""


class StoreError(RuntimeError):
    """The store cannot do what was asked; the message says which game and why."""


class UnknownGame(StoreError):
    """No game with this id in the store."""


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class StoredGame:
    """One game as the store has it."""

    ident: str
    setup: dict[str, Any]
    seed: int
    token_hashes: tuple[str, ...]
    log: list[dict[str, Any]]
    settings: dict[str, Any] = field(default_factory=dict)
    finished: bool = False
    record: dict[str, Any] | None = None

    def admits(self, token: str) -> bool:
        return hash_token(token) in self.token_hashes


class GameStore(Protocol):
    """Where games are kept. Every method raises ``StoreError`` (never a driver error)."""

    def create(
        self,
        ident: str,
        setup: Mapping[str, Any],
        seed: int,
        token_hashes: Sequence[str],
        settings: Mapping[str, Any] | None = None,
    ) -> None: ...

    def append(self, ident: str, index: int, entry: Mapping[str, Any]) -> None: ...

    def truncate(self, ident: str, length: int) -> None: ...

    def settings(self, ident: str, settings: Mapping[str, Any]) -> None: ...

    def finish(self, ident: str, record: Mapping[str, Any]) -> None: ...

    def unfinished(self, limit: int | None = None) -> list[str]: ...

    def load(self, ident: str) -> StoredGame: ...

    def close(self) -> None: ...


def default_path() -> Path:
    """``$XDG_DATA_HOME/twentynine/games.sqlite3`` (``~/.local/share`` without it)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "twentynine" / "games.sqlite3"


def open_store(where: str | os.PathLike[str] | None = None) -> GameStore:
    """A store from a path or URL: a file path, ``sqlite:///path``, or ``:memory:``.

    ``None`` means ``$TWENTYNINE_DB``, else the default file under the user's data
    directory. Other URL schemes (``postgresql://``) are for later versions.
    """
    if where is None:
        where = os.environ.get("TWENTYNINE_DB") or default_path()
    text = os.fspath(where)
    synchronous = "NORMAL"
    if "?" in text and "://" in text:
        text, _, query = text.partition("?")
        for part in query.split("&"):
            key, _, value = part.partition("=")
            if key == "synchronous" and value.upper() in ("NORMAL", "FULL"):
                synchronous = value.upper()
            else:
                raise StoreError(f"unknown database option {part!r} (known: synchronous=full)")
    if "://" in text:
        scheme, _, rest = text.partition("://")
        if scheme != "sqlite":
            raise StoreError(f"unsupported database {scheme!r}: give a file path or sqlite:///path")
        text = rest or MEMORY
    return SQLiteStore(text, synchronous=synchronous)


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def _object(text: Any, what: str) -> dict[str, Any]:
    try:
        obj = json.loads(text)
    except (TypeError, ValueError):
        raise StoreError(f"{what} is not valid JSON") from None
    if not isinstance(obj, dict):
        raise StoreError(f"{what} must be a JSON object, not {type(obj).__name__}")
    return obj


class SQLiteStore:
    """A ``GameStore`` in one SQLite file (WAL journal)."""

    def __init__(self, path: str | os.PathLike[str] = MEMORY, synchronous: str = "NORMAL") -> None:
        self.path = os.fspath(path)
        if synchronous not in ("NORMAL", "FULL"):
            raise StoreError("synchronous must be NORMAL or FULL")
        if self.path != MEMORY:
            try:
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise StoreError(f"cannot create the folder of {self.path}: {e}") from None
        self._lock = threading.Lock()
        try:
            # The server uses it from its event loop only; tests drive the app from a thread.
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        except sqlite3.Error as e:
            raise StoreError(f"cannot open the games database {self.path}: {e}") from None
        try:
            self._db.execute("PRAGMA busy_timeout = 5000")
            mode = self._db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if self.path != MEMORY and str(mode).lower() != "wal":
                raise StoreError(f"{self.path}: the database refused WAL mode ({mode})")
            self._db.execute(f"PRAGMA synchronous = {synchronous}")
            self._db.execute("PRAGMA foreign_keys = ON")
            self._migrate()
        except sqlite3.DatabaseError as e:
            self._db.close()
            raise StoreError(f"{self.path} is not a usable games database: {e}") from None
        except StoreError:
            self._db.close()
            raise

    def _migrate(self) -> None:
        with self._tx() as db:
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if "schema_version" not in tables:
                if tables - {"games", "actions"}:
                    raise StoreError(f"{self.path} holds other tables: not a games database")
                for statement in SCHEMA.split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute("INSERT INTO schema_version (version) VALUES (?)", (SCHEMA_VERSION,))
                return
            row = db.execute("SELECT MAX(version) FROM schema_version").fetchone()
            version = row[0] if row else None
            if version != SCHEMA_VERSION:
                raise StoreError(
                    f"{self.path} has schema version {version}; this twentynine reads "
                    f"version {SCHEMA_VERSION}"
                )

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """One transaction, under the lock; driver errors become ``StoreError``."""
        with self._lock:
            db = self._db
            try:
                db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as e:
                raise StoreError(f"the games database is not available: {e}") from None
            try:
                yield db
            except sqlite3.Error as e:
                db.execute("ROLLBACK")
                raise StoreError(f"the games database failed: {e}") from None
            except BaseException:
                db.execute("ROLLBACK")
                raise
            try:
                db.execute("COMMIT")
            except sqlite3.Error as e:
                raise StoreError(f"the games database could not commit: {e}") from None

    @staticmethod
    def _known(db: sqlite3.Connection, ident: str) -> tuple[int, int]:
        row = db.execute(
            "SELECT finished, (SELECT COALESCE(MAX(idx) + 1, 0) FROM actions WHERE game = ?)"
            " FROM games WHERE id = ?",
            (ident, ident),
        ).fetchone()
        if row is None:
            raise UnknownGame(f"no game {ident!r} in the store")
        return int(row[0]), int(row[1])

    # ---------------------------------------------------------------- writes
    def create(
        self,
        ident: str,
        setup: Mapping[str, Any],
        seed: int,
        token_hashes: Sequence[str],
        settings: Mapping[str, Any] | None = None,
    ) -> None:
        now = time.time()
        with self._tx() as db:
            if db.execute("SELECT 1 FROM games WHERE id = ?", (ident,)).fetchone():
                raise StoreError(f"game {ident!r} is already in the store")
            db.execute(
                "INSERT INTO games (id, setup, seed, tokens, settings, created, updated)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    ident,
                    _dumps(dict(setup)),
                    seed,
                    _dumps(list(token_hashes)),
                    _dumps(dict(settings or {})),
                    now,
                    now,
                ),
            )

    def append(self, ident: str, index: int, entry: Mapping[str, Any]) -> None:
        with self._tx() as db:
            finished, length = self._known(db, ident)
            if finished:
                raise StoreError(f"game {ident!r} is finished; its log is closed")
            if index != length:
                raise StoreError(f"game {ident!r}: entry {index} cannot follow {length} entries")
            db.execute(
                "INSERT INTO actions (game, idx, entry) VALUES (?, ?, ?)",
                (ident, index, _dumps(dict(entry))),
            )
            db.execute("UPDATE games SET updated = ? WHERE id = ?", (time.time(), ident))

    def truncate(self, ident: str, length: int) -> None:
        with self._tx() as db:
            finished, count = self._known(db, ident)
            if finished:
                raise StoreError(f"game {ident!r} is finished; its log is closed")
            if not 0 <= length <= count:
                raise StoreError(f"game {ident!r}: cannot cut a log of {count} to {length}")
            db.execute("DELETE FROM actions WHERE game = ? AND idx >= ?", (ident, length))
            db.execute("UPDATE games SET updated = ? WHERE id = ?", (time.time(), ident))

    def settings(self, ident: str, settings: Mapping[str, Any]) -> None:
        with self._tx() as db:
            self._known(db, ident)
            text = _dumps(dict(settings))
            db.execute("UPDATE games SET settings = ? WHERE id = ?", (text, ident))

    def finish(self, ident: str, record: Mapping[str, Any]) -> None:
        with self._tx() as db:
            self._known(db, ident)
            db.execute(
                "UPDATE games SET finished = 1, record = ?, updated = ? WHERE id = ?",
                (_dumps(dict(record)), time.time(), ident),
            )

    # ---------------------------------------------------------------- reads
    def unfinished(self, limit: int | None = None) -> list[str]:
        """The ids of the games in progress, the most recently played first."""
        with self._tx() as db:
            rows = db.execute(
                "SELECT id FROM games WHERE finished = 0 ORDER BY updated DESC, id LIMIT ?",
                (-1 if limit is None else limit,),
            ).fetchall()
        return [str(r[0]) for r in rows]

    def load(self, ident: str) -> StoredGame:
        with self._tx() as db:
            row = db.execute(
                "SELECT setup, seed, tokens, settings, finished, record FROM games WHERE id = ?",
                (ident,),
            ).fetchone()
            if row is None:
                raise UnknownGame(f"no game {ident!r} in the store")
            entries = db.execute(
                "SELECT idx, entry FROM actions WHERE game = ? ORDER BY idx", (ident,)
            ).fetchall()
        where = f"game {ident!r}"
        setup = _object(row[0], f"{where}: the setup")
        seed = row[1]
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise StoreError(f"{where}: the seed {seed!r} is not a whole number")
        try:
            tokens = json.loads(row[2])
        except (TypeError, ValueError):
            tokens = None
        if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
            raise StoreError(f"{where}: the token hashes are not a list of text")
        log: list[dict[str, Any]] = []
        for expected, (idx, text) in enumerate(entries):
            if idx != expected:
                raise StoreError(f"{where}: the log misses entry {expected}")
            log.append(_object(text, f"{where}: log entry {idx}"))
        return StoredGame(
            ident=ident,
            setup=setup,
            seed=seed,
            token_hashes=tuple(tokens),
            log=log,
            settings=_object(row[3], f"{where}: the settings"),
            finished=bool(row[4]),
            record=_object(row[5], f"{where}: the record") if row[5] is not None else None,
        )

    def close(self) -> None:
        with self._lock:
            self._db.close()
