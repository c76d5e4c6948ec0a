"""The store in one SQLite file, through the standard library's ``sqlite3``."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path

from .base import StoreError
from .sql import SQLStore, T, Tx

MEMORY = ":memory:"


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
