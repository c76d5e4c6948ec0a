"""The lobby's rooms: where people gather before a game.

A room is made with a setup and a code, people join it by the code, take
seats or watch, seat bots and swap places, and its start turns it into a
``GameSession`` (``room`` holds a room itself). This is a part of ``Lobby``
(``lobby``), which holds the attributes below: the rooms of this process and
their clients, kept in the store and, with many processes, claimed by
lease; rooms nobody uses are forgotten.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
import weakref
from typing import TYPE_CHECKING, Any

from . import protocol as P
from .cluster.leases import ROOM
from .config import ServerConfig
from .game import GameError
from .limits import Guard
from .outbox import Connection, deliver
from .room import Room, RoomError, TableRules, clean_name, make_room, normal_code
from .session import GameSession, Seating
from .setup import SEAT_NAMES, GameSetup, SetupError
from .store import GameStore, StoreError, hash_token

log = logging.getLogger("twentynine.server")

ROOM_PRUNE_EVERY = 3600.0  # seconds between two prunings of the stored rooms (shared)

ROOM_TYPES = ("room_create", "room_join", "sit", "stand", "seat_bot", "swap", "start")


class Rooms:
    """The rooms of a ``Lobby``: a part of it, which holds these attributes."""

    config: ServerConfig
    store: GameStore | None
    sessions: dict[str, GameSession]
    rooms: dict[str, Room]
    # the clients in each room before its start: connection -> token hash ("" watches)
    room_clients: dict[str, dict[Connection, str]]
    created: weakref.WeakKeyDictionary[Connection, dict[str, str]]
    guard: Guard
    moved: weakref.WeakKeyDictionary[Connection, GameSession]
    leases: Any
    cluster: Any
    _rooms_pruned: float

    if TYPE_CHECKING:  # the lobby's own, which a room's start needs

        @property
        def shared(self) -> bool: ...

        def create(
            self,
            setup: GameSetup,
            pace: float = 1.0,
            token_hashes: tuple[str, ...] = (),
            table: TableRules | None = None,
        ) -> GameSession: ...

        async def _recall(self, ident: str, msg_id: str | None = None) -> GameSession | None: ...

    def _restore_rooms(self) -> None:
        assert self.store is not None
        try:
            rows = self.store.rooms()
        except StoreError as e:
            log.error("cannot list the stored rooms: %s", e)
            return
        for code, state, game in rows:
            try:
                self.rooms[code] = Room.from_json(code, state, game)
            except (KeyError, TypeError, ValueError) as e:
                log.error("room %s cannot be restored: %s", code, e)

    def _room_of(self, conn: Connection) -> Room | None:
        for code, clients in self.room_clients.items():
            if conn in clients:
                return self.rooms.get(code)
        return None

    def _leave_rooms(self, conn: Connection) -> None:
        for code, clients in list(self.room_clients.items()):
            if clients.pop(conn, None) is not None:
                room = self.rooms.get(code)
                if room is not None:
                    asyncio.get_running_loop().create_task(self._room_changed(room))

    def leave(self, conn: Connection, current: GameSession | None) -> None:
        """A connection closed."""
        moved = self.moved.pop(conn, None)
        for session in (current, moved):
            if session is not None:
                session.detach(conn)
        self._leave_rooms(conn)

    def _save_room(self, room: Room) -> None:
        if self.store is None:
            return
        try:
            self.store.save_room(room.code, room.to_json(), room.game)
        except StoreError as e:
            log.error("room %s could not be saved: %s", room.code, e)
            raise GameError("the server cannot save rooms now; try again later") from None

    async def _room_changed(self, room: Room, bump: bool = False) -> None:
        """Send the room to everyone in it (after a change of its seats)."""
        if bump:
            room.version += 1
        clients = self.room_clients.get(room.code, {})
        present = set(clients.values())
        for conn, token_hash in list(clients.items()):
            deliver(conn, room.snapshot(token_hash or None, present))

    async def _find_room(self, conn: Connection, raw: str, ident: str | None) -> Room:
        address = getattr(conn, "address", "")
        shared = self.cluster.shared if self.cluster is not None else None
        key = self.guard.key(address)
        if not self.guard.may_guess(address) or (
            shared is not None and not await shared.may_guess(key)
        ):
            raise P.ProtocolError(
                P.RATE_LIMITED,
                "too many unknown room codes from this address: wait a few minutes",
                ident,
                "room_codes",
            )
        code = normal_code(raw)
        room = self.rooms.get(code) if code else None
        if room is None and code and self.shared:
            room = await self._claim_room(code, ident)
        if room is None:
            self.guard.missed(address)
            if shared is not None:
                await shared.missed(key)
            raise P.ProtocolError(
                P.NOT_FOUND,
                "no room with this code: check the code or the link",
                ident,
                "room_unknown",
            )
        return room

    async def _claim_room(self, code: str, ident: str | None) -> Room | None:
        """A room no process serves now, from the store (one of many processes)."""
        assert self.store is not None
        if not await self.leases.claim(ROOM, code):
            raise P.ProtocolError(
                P.UNAVAILABLE,
                "this room is moving to another server: try again in a moment",
                ident,
                "moving",
            )
        try:
            kept = self.store.room(code)
            room = Room.from_json(code, kept[0], kept[1]) if kept is not None else None
        except (StoreError, KeyError, TypeError, ValueError) as e:
            log.error("room %s cannot be restored: %s", code, e)
            room = None
        if room is None:
            self.leases.drop(ROOM, code)
            return None
        return self.rooms.setdefault(code, room)

    async def _room_message(
        self, conn: Connection, current: GameSession | None, msg: P.Message
    ) -> GameSession | None:
        body = msg.body
        if msg.type == "room_create":
            self._prune_rooms_if_due()
            if len(self.rooms) >= self.config.max_rooms:
                self._sweep_rooms()
            if len(self.rooms) >= self.config.max_rooms:
                raise P.ProtocolError(
                    P.UNAVAILABLE, "the server has too many rooms", msg.id, "rooms_full"
                )
            mine = self.created.setdefault(conn, {})
            if msg.id in mine and mine[msg.id] in self.rooms:
                room = self.rooms[mine[msg.id]]
                token = None
            else:
                token = secrets.token_urlsafe(18)
                try:
                    name = clean_name(body.get("name"), "Host")
                    room = make_room(body["setup"], token, name)
                except SetupError as e:
                    raise P.ProtocolError(P.BAD_SETUP, str(e), msg.id) from None
                except RoomError as e:
                    raise P.ProtocolError(e.code, str(e), msg.id, e.reason, e.params) from None
                while room.code in self.rooms:  # 40 bits: all but impossible
                    room = make_room(body["setup"], token, name)
                self._save_room_or_fail(room, msg.id)
                self.rooms[room.code] = room
                self.leases.hold(ROOM, room.code)
                assert msg.id is not None
                mine[msg.id] = room.code
            await self.leases.settled()  # (the new room's lease, before its code is told)
            return await self._enter_room(conn, current, room, room.table.host, msg, token)
        if msg.type == "room_join":
            room = await self._find_room(conn, body["code"], msg.id)
            token = body.get("token")
            digest = hash_token(token) if token else ""
            if digest and room.seat_of(digest) is None and not room.is_host(digest):
                if room.game is None:
                    digest = ""  # a token from a seat since given away: enter as a visitor
                else:
                    started = await self._room_session(room, msg.id)
                    if started.seats_for(token or "") is None:
                        digest = ""
            return await self._enter_room(conn, current, room, digest, msg, None)
        here = self._room_of(conn)
        if here is None:
            raise P.ProtocolError(
                P.NO_GAME, "enter a room first (its code or link)", msg.id, "room_first"
            )
        room = here
        clients = self.room_clients[room.code]
        digest = clients[conn]
        new_token: str | None = None
        if msg.type == "start":
            try:
                return await self._start_room(conn, room, digest, msg)
            except RoomError as e:
                raise P.ProtocolError(e.code, str(e), msg.id, e.reason, e.params) from None
        # the change is made, then written; if either fails the room is as it was
        point = room.checkpoint()
        try:
            if msg.type == "sit":
                if not digest:
                    new_token = secrets.token_urlsafe(18)
                    digest = hash_token(new_token)
                name = clean_name(body.get("name"), SEAT_NAMES[body["seat"] % 4])
                room.sit(digest, body["seat"], name)
            elif msg.type == "stand":
                room.stand(digest)
            elif msg.type == "seat_bot":
                room.set_seat(digest, body["seat"], body["bot"], self.config.bot_hosts)
            elif msg.type == "swap":
                room.swap(digest, body["a"], body["b"])
            self._save_room_or_fail(room, msg.id)
        except RoomError as e:
            room.rollback(point)
            raise P.ProtocolError(e.code, str(e), msg.id, e.reason, e.params) from None
        except BaseException:
            room.rollback(point)
            raise
        clients[conn] = digest
        await self._room_reply(conn, room, digest, msg.id, new_token)
        return current

    async def _room_reply(
        self, conn: Connection, room: Room, digest: str, ident: str | None, token: str | None
    ) -> None:
        """The room to the one who asked (with the token it was just given), then to the rest."""
        clients = self.room_clients.get(room.code, {})
        reply = room.snapshot(digest or None, set(clients.values()))
        reply["id"] = ident
        if token:
            reply["token"] = token
        deliver(conn, reply)
        for other in list(clients):
            if other is not conn:
                deliver(other, room.snapshot(clients[other] or None, set(clients.values())))

    def _save_room_or_fail(self, room: Room, ident: str | None) -> None:
        try:
            self._save_room(room)
        except GameError as e:
            raise P.ProtocolError(P.UNAVAILABLE, str(e), ident) from None

    async def _room_session(self, room: Room, ident: str | None) -> GameSession:
        assert room.game is not None
        session = self.sessions.get(room.game) or await self._recall(room.game, ident)
        if session is None:
            raise P.ProtocolError(
                P.NOT_FOUND, "this room's game is over or gone", ident, "room_gone"
            )
        return session

    async def _enter_room(
        self,
        conn: Connection,
        current: GameSession | None,
        room: Room,
        digest: str,
        msg: P.Message,
        token: str | None,
    ) -> GameSession | None:
        """A connection enters a room: its lobby before the start, its game after."""
        if room.game is not None:
            session = await self._room_session(room, msg.id)
            seats: tuple[int, ...] = ()
            if digest:
                for seat, known in enumerate(session.token_hashes):
                    if known and secrets.compare_digest(known, digest):
                        seats = (seat,)
            self._leave_rooms(conn)
            if current is not None and current is not session:
                current.detach(conn)
            await session.attach(conn, msg.id, seats, token=token)
            return session
        if current is not None:
            current.detach(conn)
        self._leave_rooms(conn)
        self.room_clients.setdefault(room.code, {})[conn] = digest
        await self._room_reply(conn, room, digest, msg.id, token)
        return None

    async def _start_room(
        self, conn: Connection, room: Room, digest: str, msg: P.Message
    ) -> GameSession:
        setup, hashes = room.game_setup(digest)
        try:
            session = self.create(setup, 1.0, token_hashes=hashes, table=room.table)
        except GameError as e:
            raise P.ProtocolError(P.UNAVAILABLE, str(e), msg.id) from None
        room.game = session.ident
        room.version += 1
        await self.leases.settled()  # (the game's lease, before its id is told)
        with contextlib.suppress(GameError):  # the game is saved; the code leads to it here
            self._save_room(room)
        clients = self.room_clients.pop(room.code, {})
        # every person starts away, until their connection is attached below
        now = session._now()
        session.away = {seat: now for seat in session.human_seats}
        for other, token_hash in clients.items():
            seats: tuple[int, ...] = ()
            seat = room.seat_of(token_hash) if token_hash else None
            if seat is not None:
                seats = (seat,)
            session.clients[other] = Seating(seats)
            if other is not conn:
                self.moved[other] = session
        for seat in session.human_seats:
            if session._connected(seat):
                session.away.pop(seat, None)
        for other, seating in list(session.clients.items()):
            state = session.state_message(seating, msg.id if other is conn else None)
            session._send(other, state)
        async with session.lock:
            await session._changed([])
        session.kick()
        return session

    def _prune_rooms_if_due(self) -> None:
        if self.shared and time.monotonic() - self._rooms_pruned > ROOM_PRUNE_EVERY:
            self._prune_rooms()

    def _prune_rooms(self) -> None:
        """Forget the stored rooms nobody has touched for ``room_keep_seconds`` whose game
        is not being played. Alone, at start (the rooms are then restored); one of many
        processes, every ``ROOM_PRUNE_EVERY`` seconds at most, when a room is made (the
        store is then the only list of rooms, and nobody else would ever drop one)."""
        self._rooms_pruned = time.monotonic()
        if self.store is None:
            return
        try:
            gone = self.store.prune_rooms(time.time() - self.config.room_keep_seconds)
        except StoreError as e:
            log.error("old rooms could not be pruned: %s", e)
            return
        if gone:
            log.info(
                "forgot %d rooms untouched for %.0f hours",
                gone,
                self.config.room_keep_seconds / 3600,
            )

    def _sweep_rooms(self) -> None:
        """Forget rooms nobody is in whose game never started or is gone. (One of many
        processes forgets them here only: the store keeps them for whoever comes back.)"""
        for code in list(self.rooms):
            room = self.rooms[code]
            if self.room_clients.get(code):
                continue
            if room.game is None or room.game not in self.sessions:
                del self.rooms[code]
                self.room_clients.pop(code, None)
                self.leases.drop(ROOM, code)
                if self.store is not None and not self.shared:
                    try:
                        self.store.drop_room(code)
                    except StoreError as e:
                        log.error("room %s could not be dropped: %s", code, e)
                if len(self.rooms) < self.config.max_rooms // 2:
                    return


__all__ = ["ROOM_PRUNE_EVERY", "ROOM_TYPES", "Rooms"]
