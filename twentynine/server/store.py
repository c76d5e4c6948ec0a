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

``GameStore`` is the interface. Two implementations share their SQL, their
checks and their errors through ``SQLStore`` and differ only in the driver:
``SQLiteStore`` (the standard library's ``sqlite3``, WAL journal) and
``PostgresStore`` (psycopg 3, in ``store_pg``; the ``postgres`` extra).
``open_store`` picks one from a path or URL.

Schema (version 2; a version 1 database is brought up to date when opened)::

    schema_version (version)
    games   (id, setup, seed, tokens, settings, created, updated, finished, record)
    actions (game, idx, entry)               -- the log, one row per entry
    rooms   (code, state, game, created, updated)

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

import contextlib
import hashlib
import json
import os
import re
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

SCHEMA_VERSION = 2
MEMORY = ":memory:"
POSTGRES_SCHEMES = ("postgresql", "postgres")

# Version 1, the first schema. Both databases read these type names: SQLite
# gives BIGINT integer and DOUBLE PRECISION real affinity, as INTEGER and REAL.
_SCHEMA_V1 = (
    "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)",
    """CREATE TABLE IF NOT EXISTS games (
        id TEXT PRIMARY KEY,
        setup TEXT NOT NULL,
        seed BIGINT NOT NULL,
        tokens TEXT NOT NULL,
        settings TEXT NOT NULL DEFAULT '{}',
        created DOUBLE PRECISION NOT NULL,
        updated DOUBLE PRECISION NOT NULL,
        finished INTEGER NOT NULL DEFAULT 0,
        record TEXT
    )""",
    """CREATE TABLE IF NOT EXISTS actions (
        game TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,
        entry TEXT NOT NULL,
        PRIMARY KEY (game, idx)
    )""",
    "CREATE INDEX IF NOT EXISTS games_unfinished ON games (finished, updated)",
)

# What each later version adds to the one before it. A new database runs the
# first schema and then every step, so a migrated one cannot differ from it.
_STEPS: dict[int, tuple[str, ...]] = {
    2: (
        """CREATE TABLE IF NOT EXISTS rooms (
            code TEXT PRIMARY KEY,
            state TEXT NOT NULL,
            game TEXT,
            created DOUBLE PRECISION NOT NULL,
            updated DOUBLE PRECISION NOT NULL
        )""",
        "CREATE INDEX IF NOT EXISTS rooms_created ON rooms (created)",
    ),
}
assert sorted(_STEPS) == list(range(2, SCHEMA_VERSION + 1))

# The most ids ``summaries`` puts in one statement (SQLite allows 32766 parameters).
_SUMMARY_BATCH = 500

_HASH = re.compile(r"[0-9a-f]{64}")

T = TypeVar("T")


class StoreError(RuntimeError):
    """The store cannot do what was asked; the message says which game and why."""


class UnknownGame(StoreError):
    """No game with this id in the store."""


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _same(stored: str, digest: str) -> bool:
    return bool(stored) and secrets.compare_digest(stored, digest)


class _Tokens:
    """Who may play a stored game: its token hashes (one for all seats, or one per seat)."""

    token_hashes: tuple[str, ...]

    def admits(self, token: str) -> bool:
        """Whether ``token`` controls at least one seat of the game."""
        digest = hash_token(token)
        return any(_same(h, digest) for h in self.token_hashes)

    def seats_of(self, token: str, humans: Iterable[int]) -> tuple[int, ...]:
        """The seats ``token`` controls among ``humans``, the human seats of the game.

        With one hash, its token controls every human seat; with four, seat
        ``i`` answers to hash ``i`` (a seat whose hash is "" to no token). The
        store does not know which seats are human (the setup does, see
        ``GameSetup.human_seats``), so the caller says.
        """
        digest = hash_token(token)
        seats = sorted(set(humans))
        if len(self.token_hashes) == 1:
            return tuple(seats) if _same(self.token_hashes[0], digest) else ()
        return tuple(
            s
            for s in seats
            if 0 <= s < len(self.token_hashes) and _same(self.token_hashes[s], digest)
        )


@dataclass(frozen=True)
class StoredGame(_Tokens):
    """One game as the store has it."""

    ident: str
    setup: dict[str, Any]
    seed: int
    token_hashes: tuple[str, ...]
    log: list[dict[str, Any]]
    settings: dict[str, Any] = field(default_factory=dict)
    finished: bool = False
    record: dict[str, Any] | None = None


@dataclass(frozen=True)
class StoredSummary(_Tokens):
    """What a list of games shows of one game, without its log (see ``summaries``)."""

    ident: str
    setup: dict[str, Any]
    token_hashes: tuple[str, ...]
    finished: bool
    created: float
    updated: float
    record: dict[str, Any] | None = None  # a finished game's record


class GameStore(Protocol):
    """Where games are kept. Every method raises ``StoreError`` (never a driver error)."""

    def create(
        self,
        ident: str,
        setup: Mapping[str, Any],
        seed: int,
        token_hashes: Sequence[str],
        settings: Mapping[str, Any] | None = None,
    ) -> None:
        """A new game. ``token_hashes``: one hash for every human seat, or one per seat
        ("" for a seat without a token); see ``StoredGame.seats_of``."""
        ...

    def append(self, ident: str, index: int, entry: Mapping[str, Any]) -> None: ...

    def truncate(self, ident: str, length: int) -> None: ...

    def settings(self, ident: str, settings: Mapping[str, Any]) -> None: ...

    def finish(self, ident: str, record: Mapping[str, Any]) -> None: ...

    def unfinished(self, limit: int | None = None) -> list[str]: ...

    def load(self, ident: str) -> StoredGame: ...

    def summaries(self, idents: Sequence[str]) -> list[StoredSummary]: ...

    def save_room(self, code: str, state: Mapping[str, Any], game: str | None = None) -> None: ...

    def rooms(self) -> list[tuple[str, dict[str, Any], str | None]]: ...

    def drop_room(self, code: str) -> None: ...

    def close(self) -> None: ...


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
            from .store_pg import PostgresStore
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


def _valid_tokens(hashes: Any) -> bool:
    """One SHA-256 hash (hex), or four of which any may be "" but not all."""
    if not isinstance(hashes, (list, tuple)) or not all(isinstance(h, str) for h in hashes):
        return False
    if len(hashes) == 1:
        return bool(_HASH.fullmatch(hashes[0]))
    return (
        len(hashes) == 4
        and any(hashes)
        and all(h == "" or _HASH.fullmatch(h) is not None for h in hashes)
    )


def _token_hashes(text: Any, what: str) -> tuple[str, ...]:
    try:
        hashes = json.loads(text)
    except (TypeError, ValueError):
        hashes = None
    if not _valid_tokens(hashes):
        raise StoreError(f"{what}: the token hashes are not a list of one or four SHA-256 hashes")
    return tuple(hashes)


class Tx:
    """One transaction's statements. SQL is written with ``?`` placeholders."""

    def __init__(self, connection: Any, placeholder: str = "?") -> None:
        self._connection = connection
        self._placeholder = placeholder

    def run(self, sql: str, *params: Any) -> Any:
        if self._placeholder != "?":
            sql = sql.replace("?", self._placeholder)
        return self._connection.execute(sql, params)

    def one(self, sql: str, *params: Any) -> Any:
        return self.run(sql, *params).fetchone()

    def all(self, sql: str, *params: Any) -> list[Any]:
        return list(self.run(sql, *params).fetchall())


class SQLStore:
    """A ``GameStore`` over SQL: the statements and checks both databases share.

    A backend gives ``_transaction`` (run a function in one transaction,
    turning the driver's errors into ``StoreError``), ``_tables`` (the names
    of the tables of the database) and ``close``; ``where`` names the
    database in messages.
    """

    where: str = "the games database"

    def _transaction(self, work: Callable[[Tx], T]) -> T:
        raise NotImplementedError

    def _tables(self, tx: Tx) -> set[str]:
        raise NotImplementedError

    def _lock_schema(self, tx: Tx) -> None:
        """Keep other processes from changing the schema until this transaction ends."""

    def close(self) -> None:
        raise NotImplementedError

    # ---------------------------------------------------------------- schema
    def _migrate(self) -> None:
        """Create the schema in an empty database, or bring an older one up to date."""

        def work(tx: Tx) -> None:
            self._lock_schema(tx)
            tables = self._tables(tx)
            if "schema_version" not in tables:
                if tables - {"games", "actions"}:
                    raise StoreError(f"{self.where} holds other tables: not a games database")
                for statement in _SCHEMA_V1:
                    tx.run(statement)
                version = 1
            else:
                row = tx.one("SELECT MAX(version) FROM schema_version")
                found = row[0] if row else None
                if not isinstance(found, int) or not 1 <= found <= SCHEMA_VERSION:
                    raise StoreError(
                        f"{self.where} has schema version {found}; this twentynine reads "
                        f"versions 1 to {SCHEMA_VERSION}"
                    )
                if found == SCHEMA_VERSION:
                    return
                version = found
            for step in range(version + 1, SCHEMA_VERSION + 1):
                for statement in _STEPS[step]:
                    tx.run(statement)
            tx.run("DELETE FROM schema_version")
            tx.run("INSERT INTO schema_version (version) VALUES (?)", SCHEMA_VERSION)

        self._transaction(work)

    @staticmethod
    def _known(tx: Tx, ident: str) -> tuple[int, int]:
        """The game's finished flag and log length; ``UnknownGame`` if there is no such game."""
        row = tx.one(
            "SELECT finished, (SELECT COALESCE(MAX(idx) + 1, 0) FROM actions WHERE game = ?)"
            " FROM games WHERE id = ?",
            ident,
            ident,
        )
        if row is None:
            raise UnknownGame(f"no game {ident!r} in the store")
        return int(row[0]), int(row[1])

    # ---------------------------------------------------------------- games
    def create(
        self,
        ident: str,
        setup: Mapping[str, Any],
        seed: int,
        token_hashes: Sequence[str],
        settings: Mapping[str, Any] | None = None,
    ) -> None:
        hashes = list(token_hashes)
        if not _valid_tokens(hashes):
            raise StoreError(
                f"game {ident!r}: give one token hash (SHA-256, hex), or four (one per seat,"
                " '' for a seat without a token)"
            )
        if isinstance(seed, bool) or not isinstance(seed, int) or not -(2**63) <= seed < 2**63:
            raise StoreError(f"game {ident!r}: the seed must be a whole number of 64 bits")
        row = (_dumps(dict(setup)), seed, _dumps(hashes), _dumps(dict(settings or {})))

        def work(tx: Tx) -> None:
            if tx.one("SELECT 1 FROM games WHERE id = ?", ident):
                raise StoreError(f"game {ident!r} is already in the store")
            now = time.time()
            tx.run(
                "INSERT INTO games (id, setup, seed, tokens, settings, created, updated)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                ident,
                *row,
                now,
                now,
            )

        self._transaction(work)

    def append(self, ident: str, index: int, entry: Mapping[str, Any]) -> None:
        text = _dumps(dict(entry))

        def work(tx: Tx) -> None:
            finished, length = self._known(tx, ident)
            if finished:
                raise StoreError(f"game {ident!r} is finished; its log is closed")
            if index != length:
                raise StoreError(f"game {ident!r}: entry {index} cannot follow {length} entries")
            tx.run("INSERT INTO actions (game, idx, entry) VALUES (?, ?, ?)", ident, index, text)
            tx.run("UPDATE games SET updated = ? WHERE id = ?", time.time(), ident)

        self._transaction(work)

    def truncate(self, ident: str, length: int) -> None:
        def work(tx: Tx) -> None:
            finished, count = self._known(tx, ident)
            if finished:
                raise StoreError(f"game {ident!r} is finished; its log is closed")
            if not 0 <= length <= count:
                raise StoreError(f"game {ident!r}: cannot cut a log of {count} to {length}")
            tx.run("DELETE FROM actions WHERE game = ? AND idx >= ?", ident, length)
            tx.run("UPDATE games SET updated = ? WHERE id = ?", time.time(), ident)

        self._transaction(work)

    def settings(self, ident: str, settings: Mapping[str, Any]) -> None:
        text = _dumps(dict(settings))

        def work(tx: Tx) -> None:
            self._known(tx, ident)
            tx.run("UPDATE games SET settings = ? WHERE id = ?", text, ident)

        self._transaction(work)

    def finish(self, ident: str, record: Mapping[str, Any]) -> None:
        text = _dumps(dict(record))

        def work(tx: Tx) -> None:
            self._known(tx, ident)
            tx.run(
                "UPDATE games SET finished = 1, record = ?, updated = ? WHERE id = ?",
                text,
                time.time(),
                ident,
            )

        self._transaction(work)

    def unfinished(self, limit: int | None = None) -> list[str]:
        """The ids of the games in progress, the most recently played first."""
        sql = "SELECT id FROM games WHERE finished = 0 ORDER BY updated DESC, id"
        params: tuple[int, ...] = ()
        if limit is not None:
            sql += " LIMIT ?"
            params = (max(0, limit),)
        rows = self._transaction(lambda tx: tx.all(sql, *params))
        return [str(r[0]) for r in rows]

    def load(self, ident: str) -> StoredGame:
        def work(tx: Tx) -> tuple[Any, list[Any]]:
            row = tx.one(
                "SELECT setup, seed, tokens, settings, finished, record FROM games WHERE id = ?",
                ident,
            )
            if row is None:
                raise UnknownGame(f"no game {ident!r} in the store")
            entries = tx.all("SELECT idx, entry FROM actions WHERE game = ? ORDER BY idx", ident)
            return row, entries

        row, entries = self._transaction(work)
        where = f"game {ident!r}"
        setup = _object(row[0], f"{where}: the setup")
        seed = row[1]
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise StoreError(f"{where}: the seed {seed!r} is not a whole number")
        tokens = _token_hashes(row[2], where)
        log: list[dict[str, Any]] = []
        for expected, (idx, text) in enumerate(entries):
            if idx != expected:
                raise StoreError(f"{where}: the log misses entry {expected}")
            log.append(_object(text, f"{where}: log entry {idx}"))
        return StoredGame(
            ident=ident,
            setup=setup,
            seed=seed,
            token_hashes=tokens,
            log=log,
            settings=_object(row[3], f"{where}: the settings"),
            finished=bool(row[4]),
            record=_object(row[5], f"{where}: the record") if row[5] is not None else None,
        )

    def summaries(self, idents: Sequence[str]) -> list[StoredSummary]:
        """The games of ``idents`` the store knows, in that order, without their logs.

        One query for a page of games (``_SUMMARY_BATCH`` ids at a time); an
        unknown id is left out, a repeated one given once.
        """
        wanted = list(dict.fromkeys(idents))
        if not wanted:
            return []

        def work(tx: Tx) -> list[Any]:
            rows: list[Any] = []
            for at in range(0, len(wanted), _SUMMARY_BATCH):
                batch = wanted[at : at + _SUMMARY_BATCH]
                rows += tx.all(
                    "SELECT id, setup, tokens, finished, created, updated, record FROM games"
                    f" WHERE id IN ({', '.join('?' * len(batch))})",
                    *batch,
                )
            return rows

        found: dict[str, StoredSummary] = {}
        for ident, setup, tokens, finished, created, updated, record in self._transaction(work):
            where = f"game {ident!r}"
            done = bool(finished)
            found[ident] = StoredSummary(
                ident=ident,
                setup=_object(setup, f"{where}: the setup"),
                token_hashes=_token_hashes(tokens, where),
                finished=done,
                created=float(created),
                updated=float(updated),
                record=_object(record, f"{where}: the record")
                if done and record is not None
                else None,
            )
        return [found[i] for i in wanted if i in found]

    # ---------------------------------------------------------------- rooms
    def save_room(self, code: str, state: Mapping[str, Any], game: str | None = None) -> None:
        """Keep a room (a new one, or a new state of one): its state and its game, once started."""
        if not isinstance(code, str) or not code:
            raise StoreError("a room needs a code")
        if not isinstance(state, Mapping):
            raise StoreError(f"room {code!r}: its state must be a JSON object")
        if game is not None and not isinstance(game, str):
            raise StoreError(f"room {code!r}: its game must be a game id")
        text = _dumps(dict(state))

        def work(tx: Tx) -> None:
            now = time.time()
            tx.run(
                "INSERT INTO rooms (code, state, game, created, updated) VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT (code) DO UPDATE"
                " SET state = excluded.state, game = excluded.game, updated = excluded.updated",
                code,
                text,
                game,
                now,
                now,
            )

        self._transaction(work)

    def rooms(self) -> list[tuple[str, dict[str, Any], str | None]]:
        """Every room kept: (code, state, game id or None), the oldest first."""
        rows = self._transaction(
            lambda tx: tx.all("SELECT code, state, game FROM rooms ORDER BY created, code")
        )
        return [
            (str(code), _object(state, f"room {code!r}: the state"), game)
            for code, state, game in rows
        ]

    def drop_room(self, code: str) -> None:
        """Forget a room; a room that is not kept is no error."""
        self._transaction(lambda tx: tx.run("DELETE FROM rooms WHERE code = ?", code))


class SQLiteStore(SQLStore):
    """A ``GameStore`` in one SQLite file (WAL journal)."""

    def __init__(self, path: str | os.PathLike[str] = MEMORY, synchronous: str = "NORMAL") -> None:
        self.path = self.where = os.fspath(path)
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

    def _tables(self, tx: Tx) -> set[str]:
        return {r[0] for r in tx.all("SELECT name FROM sqlite_master WHERE type = 'table'")}

    def _rollback(self) -> None:
        # a failure may have ended the transaction already: nothing to roll back then
        with contextlib.suppress(sqlite3.Error):
            self._db.execute("ROLLBACK")

    def _transaction(self, work: Callable[[Tx], T]) -> T:
        """``work`` in one transaction, under the lock; driver errors become ``StoreError``."""
        with self._lock:
            db = self._db
            try:
                db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as e:
                raise StoreError(f"the games database is not available: {e}") from None
            try:
                result = work(Tx(db))
            except sqlite3.Error as e:
                self._rollback()
                raise StoreError(f"the games database failed: {e}") from None
            except BaseException:
                self._rollback()
                raise
            try:
                db.execute("COMMIT")
            except sqlite3.Error as e:
                self._rollback()
                raise StoreError(f"the games database could not commit: {e}") from None
            return result

    def close(self) -> None:
        with self._lock:
            self._db.close()


__all__ = [
    "MEMORY",
    "SCHEMA_VERSION",
    "GameStore",
    "SQLStore",
    "SQLiteStore",
    "StoreError",
    "StoredGame",
    "StoredSummary",
    "UnknownGame",
    "default_path",
    "hash_token",
    "open_store",
]
