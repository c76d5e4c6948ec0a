"""A ``GameStore`` for the browser: games in memory, each change mirrored out.

The worker reads every stored game from the browser's storage (IndexedDB)
when it starts and gives them to ``BrowserStore``; after each change the
store hands the whole game, as JSON text, to ``persist(ident, text)`` (and
``persist(ident, None)`` to forget one), which the worker writes back. A
game in progress is a few kilobytes, so writing it whole keeps every write
atomic. The rules are those of ``SQLiteStore``: a finished game's log is
closed, entries follow each other, unknown games raise ``UnknownGame``.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..server.store import (
    REPLIES_KEPT,
    Change,
    GameStore,
    StoredGame,
    StoredReply,
    StoredSummary,
    StoreError,
    UnknownGame,
)

Persist = Callable[[str, str | None], None]

KEEP_FINISHED = 10  # finished games kept (their records), the most recent first
KEEP_UNFINISHED = 50


@dataclass
class _Game:
    ident: str
    setup: dict[str, Any]
    seed: int
    tokens: list[str]
    log: list[dict[str, Any]] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)
    finished: bool = False
    record: dict[str, Any] | None = None
    updated: float = 0.0
    version: int = 0
    replies: list[list[Any]] = field(default_factory=list)  # [seats, id, reply], oldest first

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.ident,
            "setup": self.setup,
            "seed": self.seed,
            "tokens": self.tokens,
            "log": self.log,
            "settings": self.settings,
            "finished": self.finished,
            "record": self.record,
            "updated": self.updated,
            "version": self.version,
            "replies": self.replies,
        }

    @classmethod
    def from_json(cls, obj: Any) -> _Game:
        if not isinstance(obj, dict):
            raise StoreError("a stored game must be a JSON object")
        try:
            game = cls(
                ident=str(obj["id"]),
                setup=dict(obj["setup"]),
                seed=obj["seed"],
                tokens=[str(t) for t in obj["tokens"]],
                log=[dict(e) for e in obj.get("log", [])],
                settings=dict(obj.get("settings") or {}),
                finished=bool(obj.get("finished", False)),
                record=obj.get("record"),
                updated=float(obj.get("updated", 0.0)),
                version=int(obj.get("version", 0)),
                replies=[[list(r[0]), str(r[1]), dict(r[2])] for r in obj.get("replies", [])],
            )
        except (KeyError, TypeError, ValueError) as e:
            raise StoreError(f"a stored game cannot be read: {e}") from None
        if isinstance(game.seed, bool) or not isinstance(game.seed, int):
            raise StoreError(f"game {game.ident!r}: the seed {game.seed!r} is not a whole number")
        return game


def _copy(obj: Any) -> Any:
    return json.loads(json.dumps(obj))


class BrowserStore:
    """Games in memory; every change is handed to ``persist`` as the game's JSON."""

    def __init__(self, persist: Persist | None = None, games: Iterable[str] = ()) -> None:
        self._persist = persist
        self._games: dict[str, _Game] = {}
        self.unreadable = 0
        for text in games:
            try:
                game = _Game.from_json(json.loads(text))
            except (ValueError, StoreError):
                self.unreadable += 1
                continue
            self._games[game.ident] = game
        self._clock = max((g.updated for g in self._games.values()), default=0.0)
        self.prune()

    # ---------------------------------------------------------------- helpers
    def _tick(self) -> float:
        """A time that grows with every change, even within one clock tick."""
        self._clock = max(time.time(), self._clock + 1e-6)
        return self._clock

    def _get(self, ident: str) -> _Game:
        game = self._games.get(ident)
        if game is None:
            raise UnknownGame(f"no game {ident!r} in the store")
        return game

    def _open(self, ident: str) -> _Game:
        game = self._get(ident)
        if game.finished:
            raise StoreError(f"game {ident!r} is finished; its log is closed")
        return game

    def _write(self, game: _Game, before: _Game | None = None) -> None:
        """Hand ``game`` out; if that fails, put back ``before`` (its state before the change)."""
        if self._persist is None:
            return
        try:
            self._persist(game.ident, json.dumps(game.to_json(), separators=(",", ":")))
        except Exception as e:  # the browser's storage is full or gone
            if before is not None:
                self._games[game.ident] = before
            raise StoreError(f"the browser could not keep game {game.ident!r}: {e}") from None

    @staticmethod
    def _snapshot(game: _Game) -> _Game:
        return _Game.from_json(_copy(game.to_json()))

    def prune(
        self, keep_finished: int = KEEP_FINISHED, keep_unfinished: int = KEEP_UNFINISHED
    ) -> None:
        """Forget the oldest games beyond the numbers kept."""
        for finished, keep in ((True, keep_finished), (False, keep_unfinished)):
            games = sorted(
                (g for g in self._games.values() if g.finished == finished),
                key=lambda g: g.updated,
                reverse=True,
            )
            for game in games[keep:]:
                del self._games[game.ident]
                if self._persist is not None:
                    with contextlib.suppress(Exception):  # forgetting may fail: no harm
                        self._persist(game.ident, None)

    # ---------------------------------------------------------------- writes
    def create(
        self,
        ident: str,
        setup: Mapping[str, Any],
        seed: int,
        token_hashes: Sequence[str],
        settings: Mapping[str, Any] | None = None,
    ) -> None:
        if ident in self._games:
            raise StoreError(f"game {ident!r} is already in the store")
        game = _Game(
            ident=ident,
            setup=_copy(dict(setup)),
            seed=seed,
            tokens=list(token_hashes),
            settings=_copy(dict(settings or {})),
            updated=self._tick(),
        )
        self._write(game)
        self._games[ident] = game
        self.prune()

    def append(self, ident: str, index: int, entry: Mapping[str, Any]) -> None:
        game = self._open(ident)
        if index != len(game.log):
            raise StoreError(f"game {ident!r}: entry {index} cannot follow {len(game.log)} entries")
        before = self._snapshot(game)
        game.log.append(_copy(dict(entry)))
        game.updated = self._tick()
        self._write(game, before)

    def save(self, ident: str, change: Change) -> None:
        """The whole change in one write of the game (all of it, or none)."""
        game = self._get(ident)
        if game.finished and (
            change.keep is not None or change.entries or change.record is not None
        ):
            raise StoreError(f"game {ident!r} is finished; its log is closed")
        before = self._snapshot(game)
        try:
            if change.keep is not None:
                if not 0 <= change.keep <= len(game.log):
                    raise StoreError(
                        f"game {ident!r}: cannot cut a log of {len(game.log)} to {change.keep}"
                    )
                del game.log[change.keep :]
            for index, entry in change.entries:
                if index != len(game.log):
                    raise StoreError(
                        f"game {ident!r}: entry {index} cannot follow {len(game.log)} entries"
                    )
                game.log.append(_copy(dict(entry)))
            if change.settings is not None:
                game.settings = _copy(dict(change.settings))
            if change.version is not None:
                game.version = max(game.version, change.version)
            for r in change.replies:
                seats = list(r.seats)
                game.replies = [x for x in game.replies if (x[0], x[1]) != (seats, r.ident)]
                game.replies.append([seats, r.ident, _copy(r.reply)])
                mine = [x for x in game.replies if x[0] == seats]
                if len(mine) > REPLIES_KEPT:
                    old = {id(x) for x in mine[: len(mine) - REPLIES_KEPT]}
                    game.replies = [x for x in game.replies if id(x) not in old]
            if change.record is not None:
                game.finished = True
                game.record = _copy(dict(change.record))
        except StoreError:
            self._games[ident] = before
            raise
        game.updated = self._tick()
        self._write(game, before)
        if change.record is not None:
            self.prune()

    def truncate(self, ident: str, length: int) -> None:
        game = self._open(ident)
        if not 0 <= length <= len(game.log):
            raise StoreError(f"game {ident!r}: cannot cut a log of {len(game.log)} to {length}")
        before = self._snapshot(game)
        del game.log[length:]
        game.updated = self._tick()
        self._write(game, before)

    def settings(self, ident: str, settings: Mapping[str, Any]) -> None:
        game = self._get(ident)
        before = self._snapshot(game)
        game.settings = _copy(dict(settings))
        self._write(game, before)

    def finish(self, ident: str, record: Mapping[str, Any]) -> None:
        game = self._get(ident)
        before = self._snapshot(game)
        game.finished = True
        game.record = _copy(dict(record))
        game.updated = self._tick()
        self._write(game, before)
        self.prune()

    # ---------------------------------------------------------------- reads
    def unfinished(self, limit: int | None = None) -> list[str]:
        games = sorted(
            (g for g in self._games.values() if not g.finished),
            key=lambda g: (-g.updated, g.ident),
        )
        return [g.ident for g in games[: limit if limit is not None else len(games)]]

    def load(self, ident: str) -> StoredGame:
        game = self._get(ident)
        return StoredGame(
            ident=game.ident,
            setup=_copy(game.setup),
            seed=game.seed,
            token_hashes=tuple(game.tokens),
            log=_copy(game.log),
            settings=_copy(game.settings),
            finished=game.finished,
            record=_copy(game.record) if game.record is not None else None,
            version=game.version,
            replies=tuple(StoredReply(tuple(r[0]), r[1], _copy(r[2])) for r in game.replies),
        )

    def summaries(self, idents: Sequence[str]) -> list[StoredSummary]:
        out = []
        for ident in idents:
            game = self._games.get(ident)
            if game is None:
                continue
            out.append(
                StoredSummary(
                    ident=game.ident,
                    setup=_copy(game.setup),
                    token_hashes=tuple(game.tokens),
                    finished=game.finished,
                    created=game.updated,
                    updated=game.updated,
                    record=_copy(game.record) if game.record is not None else None,
                )
            )
        return out

    # ---------------------------------------------------------------- rooms
    # A room gathers people on several devices: it needs a server, never this browser.
    def save_room(self, code: str, state: Mapping[str, Any], game: str | None = None) -> None:
        raise StoreError("rooms are played through the server, not in this browser")

    def rooms(self) -> list[tuple[str, dict[str, Any], str | None]]:
        return []

    def room(self, code: str) -> tuple[dict[str, Any], str | None] | None:
        return None

    def drop_room(self, code: str) -> None:
        pass

    def prune_rooms(self, before: float) -> int:
        return 0

    def close(self) -> None:
        pass


if TYPE_CHECKING:  # the server's lobby takes this store: mypy checks it is a whole GameStore
    _as_store: GameStore = BrowserStore()
