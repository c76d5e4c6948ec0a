"""What a store keeps of a game and the interface every store offers."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol


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


REPLIES_KEPT = 512  # replies a store keeps per game and seats (the newest)


@dataclass(frozen=True)
class StoredReply:
    """The reply to one client message: a resend of it, even after a restart, gets it again.

    ``seats``: the seats of the connection that sent it (a message id is the
    sender's, so two seats may use the same one); ``ident``: its id."""

    seats: tuple[int, ...]
    ident: str
    reply: dict[str, Any]


@dataclass(frozen=True)
class Change:
    """One change of a game, written in one transaction (``GameStore.save``): what was
    done, the answer to the message that did it, and the version clients may see.

    In this order: the log is cut to ``keep`` entries, ``entries`` (index,
    entry) follow it, then the settings are replaced, the version ceiling
    raised to ``version`` (never lowered), the replies kept (the newest
    ``REPLIES_KEPT`` of each seats), and the game finished with ``record``."""

    keep: int | None = None
    entries: tuple[tuple[int, Mapping[str, Any]], ...] = ()
    settings: Mapping[str, Any] | None = None
    version: int | None = None
    replies: tuple[StoredReply, ...] = ()
    record: Mapping[str, Any] | None = None

    @property
    def empty(self) -> bool:
        return (
            self.keep is None
            and not self.entries
            and self.settings is None
            and self.version is None
            and not self.replies
            and self.record is None
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
    # the highest version its clients may have seen (0: none kept, a game of schema 2)
    version: int = 0
    replies: tuple[StoredReply, ...] = ()  # the oldest first


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

    def save(self, ident: str, change: Change) -> None:
        """All of ``change`` or, with a ``StoreError``, none of it."""
        ...

    def truncate(self, ident: str, length: int) -> None: ...

    def settings(self, ident: str, settings: Mapping[str, Any]) -> None: ...

    def finish(self, ident: str, record: Mapping[str, Any]) -> None: ...

    def unfinished(self, limit: int | None = None) -> list[str]: ...

    def load(self, ident: str) -> StoredGame: ...

    def summaries(self, idents: Sequence[str]) -> list[StoredSummary]: ...

    def save_room(self, code: str, state: Mapping[str, Any], game: str | None = None) -> None: ...

    def rooms(self) -> list[tuple[str, dict[str, Any], str | None]]: ...

    def room(self, code: str) -> tuple[dict[str, Any], str | None] | None: ...

    def drop_room(self, code: str) -> None: ...

    def prune_rooms(self, before: float) -> int: ...

    def close(self) -> None: ...
