"""The game store in a PostgreSQL database (psycopg 3; ``pip install 'twentynine[postgres]'``).

Same schema, statements, checks and errors as the SQLite store: all of that
is ``SQLStore``'s, and this class only gives it a connection. The server
calls its store from the event loop, one call at a time, so one connection is
enough: autocommit off, one transaction per call, under a lock. A connection
that dropped (the database server restarted, an idle connection cut by the
network) is opened again, once per call; a call whose statements failed
because the connection dropped is run again on the new one, which is safe as
nothing of it was committed. A failure while committing is not retried (the
commit may have happened): the caller gets a ``StoreError``.

The database may be shared with nothing else in its schema (the first
schema of the ``search_path``, ``public`` by default): like a SQLite file
with other tables, a schema with other tables is refused. Put the games in a
database of their own, or in a schema of their own with
``?options=-csearch_path%3Dtwentynine``.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict

from .base import StoreError
from .sql import SQLStore, T, Tx

# The key of the advisory lock held while the schema is created or migrated,
# so that two servers starting on a new database do not both create it.
_SCHEMA_LOCK = 0x29_29_29


def describe(url: str) -> str:
    """The database a URL names, for messages: without its password or other parameters."""
    try:
        info = conninfo_to_dict(url)
    except psycopg.Error:
        return "the PostgreSQL database"
    user = f"{info['user']}@" if info.get("user") else ""
    port = f":{info['port']}" if info.get("port") else ""
    return f"postgresql://{user}{info.get('host', '')}{port}/{info.get('dbname', '')}"


class PostgresStore(SQLStore):
    """A ``GameStore`` in a PostgreSQL database, named by a libpq URL or conninfo string."""

    def __init__(self, url: str, connect_timeout: int = 10) -> None:
        self.url = url
        self.where = describe(url)
        try:
            self._params: dict[str, Any] = conninfo_to_dict(url)
        except psycopg.Error as e:
            raise StoreError(f"{self.where}: not a usable database URL: {e}") from None
        self._params.setdefault("connect_timeout", connect_timeout)
        self._params.setdefault("application_name", "twentynine")
        self._lock = threading.Lock()
        self._conn: psycopg.Connection[Any] | None = None
        self._closed = False
        with self._lock:
            self._connect()
        try:
            self._migrate()
        except StoreError:
            self.close()
            raise

    def _connect(self) -> psycopg.Connection[Any]:
        """A new connection (the lock held); ``StoreError`` if the server cannot be reached."""
        if self._conn is not None:
            with contextlib.suppress(psycopg.Error):
                self._conn.close()
            self._conn = None
        try:
            self._conn = psycopg.connect(autocommit=False, **self._params)
        except psycopg.Error as e:
            raise StoreError(f"cannot open the games database {self.where}: {e}") from None
        return self._conn

    def _connection(self) -> psycopg.Connection[Any]:
        """The open connection, opened again if it dropped (the lock held)."""
        if self._closed:
            raise StoreError(f"the games database {self.where} is closed")
        conn = self._conn
        if conn is None or conn.closed or conn.broken:
            conn = self._connect()
        return conn

    @staticmethod
    def _rollback(conn: psycopg.Connection[Any]) -> None:
        if conn.closed or conn.broken:
            return  # the server ended the transaction with the connection
        with contextlib.suppress(psycopg.Error):
            conn.rollback()

    def _transaction(self, work: Callable[[Tx], T]) -> T:
        """``work`` in one transaction, under the lock; driver errors become ``StoreError``."""
        with self._lock:
            for attempt in (1, 2):
                conn = self._connection()
                try:
                    # Pipeline mode: statements whose results are not read go out together,
                    # without a round trip each (a move's change is several statements; the
                    # event loop waits for every round trip).
                    with conn.pipeline():
                        result = work(Tx(conn, "%s"))
                except psycopg.Error as e:
                    dropped = conn.closed or conn.broken
                    self._rollback(conn)
                    if dropped and attempt == 1:
                        continue  # nothing was committed: once more on a new connection
                    raise StoreError(f"the games database failed: {e}") from None
                except BaseException:
                    self._rollback(conn)
                    raise
                try:
                    conn.commit()
                except psycopg.Error as e:
                    self._rollback(conn)
                    raise StoreError(f"the games database could not commit: {e}") from None
                return result
            raise AssertionError("unreachable")

    def _tables(self, tx: Tx) -> set[str]:
        rows = tx.all(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
        )
        return {str(r[0]) for r in rows}

    def _lock_schema(self, tx: Tx) -> None:
        tx.run("SELECT pg_advisory_xact_lock(?)", _SCHEMA_LOCK)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._conn is not None:
                with contextlib.suppress(psycopg.Error):
                    self._conn.close()
                self._conn = None
