"""What a game keeps in the store beside its log, so that a restart changes nothing a client saw.

Two things, both written in the same transaction as the change they go with
(``store.Change``):

- **The replies to recent messages**, per sender's seats (``Replies``). A
  client resends a message it got no answer to (after a reconnect, say); the
  answer kept for its id is sent again, marked ``duplicate``, and nothing is
  applied twice. The reply to a message that changed the game is written with
  the change itself, so a restart finds both or neither: a move applied and
  its reply lost would be applied again on a resend, as the next decision
  (a resent pass taken for the doubling that followed it).
- **The version ceiling.** Every message a client gets carries the game's
  version, and a client ignores one that does not go up. The store keeps a
  number no version sent so far exceeds: each write raises it to the version
  the change will show plus ``VERSION_LEASE``, and a change that would go
  past it (presence, spectators, clocks: changes with nothing else to write)
  raises it first. A restarted game starts above it, so versions never go
  down, at the cost of one write every ``VERSION_LEASE`` such changes.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from . import timers
from .game import Game, GameError
from .setup import GameSetup
from .store import REPLIES_KEPT, Change, GameStore, StoredReply, StoreError

log = logging.getLogger("twentynine.server")

VERSION_LEASE = 64

Seats = tuple[int, ...]


class Replies:
    """The replies to recent client messages of one game, newest last, per sender's seats."""

    def __init__(self, stored: Iterable[StoredReply] = (), kept: int = REPLIES_KEPT) -> None:
        self.kept = kept
        self._by: dict[Seats, OrderedDict[str, dict[str, Any]]] = {}
        for r in stored:
            self.add(r.seats, r.ident, r.reply)

    def get(self, seats: Seats, ident: str | None) -> dict[str, Any] | None:
        if ident is None:
            return None
        mine = self._by.get(seats)
        return None if mine is None else mine.get(ident)

    def add(self, seats: Seats, ident: str | None, reply: dict[str, Any]) -> None:
        if ident is None:
            return
        mine = self._by.setdefault(seats, OrderedDict())
        mine[ident] = reply
        mine.move_to_end(ident)
        while len(mine) > self.kept:
            mine.popitem(last=False)

    def __contains__(self, key: tuple[Seats, str]) -> bool:
        return self.get(*key) is not None

    def __len__(self) -> int:
        return sum(len(m) for m in self._by.values())


def ack(ident: str, version: int) -> dict[str, Any]:
    return {"type": "ack", "v": version, "id": ident}


class Keeping:
    """How a game session writes to its store: a part of ``GameSession``, which holds
    the attributes below."""

    ident: str
    store: GameStore | None
    version: int
    version_kept: int
    asking: tuple[Seats, str] | None
    game: Game
    saved: list[dict[str, Any]]  # the log as the store has it
    finished: bool
    forfeit: dict[str, Any] | None
    timers_written: tuple[Any, ...] | None

    if TYPE_CHECKING:  # the session's own

        @property
        def setup(self) -> GameSetup: ...

        @property
        def over(self) -> bool: ...

        def settings(self) -> dict[str, Any]: ...

        def clocks(self) -> timers.Clocks: ...

    def _save_settings(self, bump: int = 1) -> None:
        if self.store is not None:
            try:
                self._write(bump, settings=self.settings())
                self.timers_written = timers.shape(self.clocks())
            except StoreError as e:  # a table setting, not a move: play on
                log.error("game %s: settings not saved: %s", self.ident, e)

    def _save(self) -> None:
        """Write the game's log to the store, before any client hears of the change.

        In one transaction with the reply to the message that made the change.
        If the store fails, the game goes back to what the store holds and the
        change is refused (``GameError``): nothing is shown that a restart would lose.
        """
        if self.store is None:
            return
        entries, saved = self.game.log, self.saved
        keep = len(saved)
        if len(entries) < keep or (saved and entries[keep - 1] != saved[-1]):
            keep = 0  # an undo: find where the logs part
        while keep < min(len(entries), len(saved)) and entries[keep] == saved[keep]:
            keep += 1
        record = None
        if self.over and not self.finished:
            record = self.game.record()
            if self.forfeit is not None:
                record["meta"]["forfeit"] = self.forfeit
        try:
            self._write(
                1,
                keep=keep if keep < len(saved) else None,
                entries=tuple((i, entries[i]) for i in range(keep, len(entries))),
                record=record,
            )
        except StoreError as e:
            log.error("game %s could not be saved: %s", self.ident, e)
            self.game = Game(self.setup, list(saved))
            raise GameError("the server could not save this move; try again") from None
        del saved[keep:]
        saved.extend(entries[keep:])
        if record is not None:
            self.finished = True

    def _write(self, bump: int, **change: Any) -> None:
        """One change to the store, with what goes with every write: the reply to the
        message being handled (its version ``bump`` above the current one, the change
        then shown) and the version ceiling. ``StoreError`` if nothing was written."""
        assert self.store is not None
        replies: tuple[StoredReply, ...] = ()
        asking = self.asking
        if asking is not None:
            replies = (StoredReply(asking[0], asking[1], ack(asking[1], self.version + bump)),)
        ceiling = self.version + bump + VERSION_LEASE
        self.store.save(self.ident, Change(version=ceiling, replies=replies, **change))
        self.asking = None
        self.version_kept = max(self.version_kept, ceiling)

    def keep_version(self) -> None:
        """Raise the store's version ceiling above the current version (see ``durable``)."""
        if self.store is not None:
            try:
                self._write(0)
            except StoreError as e:  # the version only: play on
                log.error("game %s: version not saved: %s", self.ident, e)

    def _keep_reply(self, seats: tuple[int, ...], ident: str | None, reply: Any) -> None:
        """Store the reply to a message that changed nothing the store keeps (an error,
        a no-op), unless a write that went with a change stored it already."""
        if self.store is None or self.asking is None or ident is None or not seats:
            self.asking = None
            return
        try:
            self.store.save(
                self.ident,
                Change(
                    version=self.version + VERSION_LEASE,
                    replies=(StoredReply(seats, ident, reply),),
                ),
            )
            self.version_kept = max(self.version_kept, self.version + VERSION_LEASE)
        except StoreError as e:
            log.error("game %s: reply not saved: %s", self.ident, e)
        self.asking = None


__all__ = ["VERSION_LEASE", "Keeping", "Replies", "ack"]
