"""The schema, statements and checks that both SQL databases share."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from .base import (
    REPLIES_KEPT,
    Change,
    StoredGame,
    StoredReply,
    StoredSummary,
    StoreError,
    UnknownGame,
)

SCHEMA_VERSION = 3

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
    # what makes a resend idempotent across restarts: the replies to recent messages,
    # and the highest version clients may have seen (a restart goes on above it)
    3: (
        "ALTER TABLE games ADD COLUMN version BIGINT NOT NULL DEFAULT 0",
        """CREATE TABLE IF NOT EXISTS replies (
            game TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
            seats TEXT NOT NULL,
            ident TEXT NOT NULL,
            seq BIGINT NOT NULL,
            reply TEXT NOT NULL,
            PRIMARY KEY (game, seats, ident)
        )""",
        "CREATE INDEX IF NOT EXISTS replies_order ON replies (game, seats, seq)",
    ),
}
assert sorted(_STEPS) == list(range(2, SCHEMA_VERSION + 1))

# The most ids ``summaries`` puts in one statement (SQLite allows 32766 parameters).
_SUMMARY_BATCH = 500

_HASH = re.compile(r"[0-9a-f]{64}")

T = TypeVar("T")


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


def _seats_key(seats: Sequence[int]) -> str:
    """The seats of a reply as the store keys them: "0", "0,2", "" (a spectator)."""
    if not all(isinstance(s, int) and not isinstance(s, bool) and 0 <= s <= 3 for s in seats):
        raise StoreError(f"the seats of a reply must be seat numbers 0..3, not {seats!r}")
    return ",".join(str(s) for s in seats)


def _read_seats(text: Any, where: str) -> tuple[int, ...]:
    try:
        return tuple(int(s) for s in str(text).split(",") if s)
    except ValueError:
        raise StoreError(f"{where}: the seats of a reply are not seat numbers") from None


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

    def save(self, ident: str, change: Change) -> None:
        """Everything of one change of a game in one transaction (see ``Change``)."""
        entries = [(index, _dumps(dict(entry))) for index, entry in change.entries]
        settings = _dumps(dict(change.settings)) if change.settings is not None else None
        record = _dumps(dict(change.record)) if change.record is not None else None
        replies = [(_seats_key(r.seats), r.ident, _dumps(r.reply)) for r in change.replies]
        version = change.version
        if version is not None and (isinstance(version, bool) or not isinstance(version, int)):
            raise StoreError(f"game {ident!r}: a version is a whole number")

        def work(tx: Tx) -> None:
            finished, length = self._known(tx, ident)
            if finished and (change.keep is not None or entries or record is not None):
                raise StoreError(f"game {ident!r} is finished; its log is closed")
            if change.keep is not None:
                if not 0 <= change.keep <= length:
                    raise StoreError(
                        f"game {ident!r}: cannot cut a log of {length} to {change.keep}"
                    )
                tx.run("DELETE FROM actions WHERE game = ? AND idx >= ?", ident, change.keep)
                length = change.keep
            for index, text in entries:
                if index != length:
                    raise StoreError(
                        f"game {ident!r}: entry {index} cannot follow {length} entries"
                    )
                tx.run(
                    "INSERT INTO actions (game, idx, entry) VALUES (?, ?, ?)", ident, index, text
                )
                length += 1
            if settings is not None:
                tx.run("UPDATE games SET settings = ? WHERE id = ?", settings, ident)
            if version is not None:
                tx.run(
                    "UPDATE games SET version = CASE WHEN version < ? THEN ? ELSE version END"
                    " WHERE id = ?",
                    version,
                    version,
                    ident,
                )
            if replies:
                for seats, reply_id, text in replies:
                    # (its number computed by the database: no round trip to read it first)
                    tx.run(
                        "INSERT INTO replies (game, seats, ident, seq, reply) VALUES (?, ?, ?,"
                        " (SELECT COALESCE(MAX(seq), 0) + 1 FROM replies WHERE game = ?), ?)"
                        " ON CONFLICT (game, seats, ident) DO UPDATE"
                        " SET seq = excluded.seq, reply = excluded.reply",
                        ident,
                        seats,
                        reply_id,
                        ident,
                        text,
                    )
                for seats in {r[0] for r in replies}:
                    tx.run(
                        "DELETE FROM replies WHERE game = ? AND seats = ? AND seq <= ("
                        " SELECT seq FROM replies WHERE game = ? AND seats = ?"
                        " ORDER BY seq DESC LIMIT 1 OFFSET ?)",
                        ident,
                        seats,
                        ident,
                        seats,
                        REPLIES_KEPT,
                    )
            if record is not None:
                tx.run("UPDATE games SET finished = 1, record = ? WHERE id = ?", record, ident)
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
        def work(tx: Tx) -> tuple[Any, list[Any], list[Any]]:
            row = tx.one(
                "SELECT setup, seed, tokens, settings, finished, record, version"
                " FROM games WHERE id = ?",
                ident,
            )
            if row is None:
                raise UnknownGame(f"no game {ident!r} in the store")
            entries = tx.all("SELECT idx, entry FROM actions WHERE game = ? ORDER BY idx", ident)
            replies = tx.all(
                "SELECT seats, ident, reply FROM replies WHERE game = ? ORDER BY seq", ident
            )
            return row, entries, replies

        row, entries, reply_rows = self._transaction(work)
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
            version=int(row[6] or 0),
            replies=tuple(
                StoredReply(_read_seats(seats, where), str(reply_id), _object(text, where))
                for seats, reply_id, text in reply_rows
            ),
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

    def room(self, code: str) -> tuple[dict[str, Any], str | None] | None:
        """One room kept: (state, game id or None), or None when no room has this code."""
        rows = self._transaction(
            lambda tx: tx.all("SELECT state, game FROM rooms WHERE code = ?", code)
        )
        if not rows:
            return None
        state, game = rows[0]
        return _object(state, f"room {code!r}: the state"), game

    def drop_room(self, code: str) -> None:
        """Forget a room; a room that is not kept is no error."""
        self._transaction(lambda tx: tx.run("DELETE FROM rooms WHERE code = ?", code))

    def prune_rooms(self, before: float) -> int:
        """Forget the rooms untouched since ``before`` (a ``time.time()``) whose game
        never started, is finished, or has not moved since then either; say how many.
        A room whose game is still being played stays, however old the room."""

        def work(tx: Tx) -> int:
            gone = tx.all(
                "DELETE FROM rooms WHERE updated < ? AND NOT EXISTS ("
                " SELECT 1 FROM games WHERE games.id = rooms.game"
                " AND games.finished = 0 AND games.updated >= ?) RETURNING code",
                before,
                before,
            )
            return len(gone)

        return self._transaction(work)
