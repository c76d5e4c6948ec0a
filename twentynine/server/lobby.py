"""The lobby: every game and room of one server, by id and by code.

The ``Lobby`` is the registry of sessions: it creates them, finds them by
id and forgets the ones nobody has touched for a long time. It rebuilds the
unfinished games of the store when it starts (or when a client joins one it
has forgotten), by replaying their logs. It also keeps the rooms where
people gather before a game (``room``): their seats, their clients, and the
start that turns a full room into a ``GameSession``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
import weakref
from typing import Any

from ..game.actions import Action, ActionError
from ..game.engine import IllegalAction
from . import protocol as P
from .botpool import BotPool
from .cluster.leases import GAME, ROOM, NoLeases
from .config import PACES, ServerConfig
from .durable import Replies
from .forfeit import stored_forfeit
from .game import SIGNAL, Game, GameError, is_marker
from .limits import Guard
from .outbox import Connection, deliver
from .room import Room, RoomError, TableRules, clean_name, make_room, normal_code
from .session import DEAL, TRICK, GameSession, Seating
from .setup import SEAT_NAMES, GameSetup, SetupError, parse_setup, refused_url
from .store import GameStore, StoreError, UnknownGame, hash_token, open_store

log = logging.getLogger("twentynine.server")


class Lobby:
    """Every game and room of this server, by id and by code."""

    def __init__(self, config: ServerConfig | None = None, store: GameStore | None = None) -> None:
        self.config = config or ServerConfig.from_env()
        # a store given here is the caller's to close; one opened from config.db is ours
        self._owns_store = store is None and self.config.db is not None
        if store is None and self.config.db is not None:
            store = open_store(self.config.db)
        self.store = store
        self.pool = BotPool(self.config.bot_workers)
        self.sessions: dict[str, GameSession] = {}
        self.rooms: dict[str, Room] = {}
        # the clients in each room before its start: connection -> token hash ("" watches)
        self.room_clients: dict[str, dict[Connection, str]] = {}
        # per connection, the game each of its 'create' messages made (a resend joins it)
        self.created: weakref.WeakKeyDictionary[Connection, dict[str, str]] = (
            weakref.WeakKeyDictionary()
        )
        # the limits of every address (messages, connections, room codes tried)
        self.guard = Guard(self.config.limits)
        # connections a room's start moved into its game (their handlers learn it here)
        self.moved: weakref.WeakKeyDictionary[Connection, GameSession] = weakref.WeakKeyDictionary()
        # which games and rooms are this process's (``cluster``: many processes share the
        # store; alone, everything is)
        self.leases: Any = NoLeases()
        self.cluster: Any = None

    @property
    def shared(self) -> bool:
        """One of many processes on one store: tables are claimed, not all restored at start."""
        return self.cluster is not None

    def start(self) -> None:
        if self.config.warm_up and self.config.bot_workers > 0:
            self.pool.warm_up()
        if not self.shared:  # (shared: each table is rebuilt by the process first asked for it)
            self.restore_all()

    def close(self) -> None:
        for s in self.sessions.values():
            for task in (s.driver, s.timer):
                if task is not None:
                    task.cancel()
        self.pool.close()
        if self.store is not None and self._owns_store:
            self.store.close()

    # ------------------------------------------------------------ restarts
    def restore_all(self) -> int:
        """Rebuild the store's rooms and unfinished games (the most recent first)."""
        if self.store is None:
            return 0
        self._restore_rooms()
        try:
            idents = self.store.unfinished(limit=self.config.max_games)
        except StoreError as e:
            log.error("cannot list the stored games: %s", e)
            return 0
        done = 0
        for ident in idents:
            if ident in self.sessions:
                continue
            try:
                self.sessions[ident] = self.restore(ident)
                done += 1
            except (StoreError, SetupError, GameError, IllegalAction, ActionError) as e:
                log.error("game %s cannot be restored: %s", ident, e)
        if idents:
            log.info("restored %d of %d unfinished games", done, len(idents))
        return done

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

    def restore(self, ident: str) -> GameSession:
        """One stored game rebuilt from its setup and log, as it was before the restart.

        Raises ``StoreError`` (also for a finished game), ``SetupError``, or the
        error of the first log entry that does not replay (``IllegalAction``...).
        """
        assert self.store is not None
        stored = self.store.load(ident)
        if stored.finished:
            raise StoreError(f"game {ident!r} is finished")
        if len(stored.token_hashes) not in (1, 4):
            raise StoreError(f"game {ident!r} must have one token hash, or one per seat")
        settings = stored.settings
        setup = parse_setup(stored.setup, allow_bot_south="table" in settings)
        if setup.seed != stored.seed:
            raise StoreError(f"game {ident!r}: the seed of its setup is not its seed")
        entries = stored.log
        events: list[dict[str, Any]] = []
        if entries and not is_marker(entries[-1]):
            # replay the last action on its own: its events say whether play was held
            game = Game(setup, entries[:-1])
            last = dict(entries[-1])
            signal = last.pop(SIGNAL, None)
            events = game.apply(Action.from_json(last), signal)
        else:
            game = Game(setup, entries)
        pace = settings.get("pace", 1.0)
        table = None
        if isinstance(settings.get("table"), dict):
            try:
                table = TableRules.from_json(settings["table"])
            except (KeyError, TypeError, ValueError) as e:
                raise StoreError(f"game {ident!r}: its table settings are broken: {e}") from None
        forfeit = settings.get("forfeit")  # None unless a dict with a seat
        session = GameSession(
            ident=ident,
            token="",
            token_hashes=tuple(stored.token_hashes),
            game=game,
            pool=self.pool,
            config=self.config,
            pace=float(pace) if isinstance(pace, (int, float)) else 1.0,
            auto_pair=settings.get("auto_pair") is True,
            store=self.store,
            saved=list(game.log),
            released=settings.get("released", -1),
            table=table,
            forfeit=stored_forfeit(forfeit),
            # above every version a client saw, and every stored reply answers its resend
            version=stored.version + 1,
            version_kept=stored.version,
            replies=Replies(stored.replies),
        )
        session.keep_version()
        kinds = {e["type"] for e in events}
        if game.deal_over:
            session.hold, session.hold_at = DEAL, session.version
        elif "trick" in kinds and settings.get("released") != len(entries):
            session.hold, session.hold_at = TRICK, session.version
        session.restore_pause(settings.get("pair_choice"))
        if table is not None:  # nobody is connected yet: see ``timers`` for who keeps what
            session.restore_clocks(settings.get("timers"))
        session.resume()
        return session

    def _sweep(self) -> None:
        """Forget long-idle games, then make room for one more (``max_games``).

        Only a game nobody is connected to is forgotten to make room (it stays in
        the store and comes back when someone joins it): a game being played is
        never dropped from under its players. If every game has players, a new
        one is refused (``GameError``).
        """
        now = time.monotonic()
        for s in list(self.sessions.values()):
            if not s.clients and now - s.last_active > self.config.idle_seconds:
                self._forget(s)
        while len(self.sessions) >= self.config.max_games:
            idle = [s for s in self.sessions.values() if not s.clients]
            if not idle:
                raise GameError(
                    f"the server is full ({len(self.sessions)} games being played); try again later"
                )
            self._forget(min(idle, key=lambda s: s.last_active))

    def _forget(self, session: GameSession) -> None:
        for task in (session.driver, session.timer):
            if task is not None:
                task.cancel()
        del self.sessions[session.ident]
        self.leases.drop(GAME, session.ident)

    def lost(self, kind: str, key: str) -> None:
        """Another process serves this game or room now (this one's lease ran out): stop
        serving it, and send its clients to reconnect (they find it there)."""
        if kind == GAME:
            session = self.sessions.get(key)
            if session is None:
                return
            clients = list(session.clients)
            self._forget(session)  # (its lease is no longer held: nothing to give up)
        else:
            clients = list(self.room_clients.pop(key, {}))
            self.rooms.pop(key, None)
        for conn in clients:
            drop = getattr(conn, "drop", None)
            if drop is not None:
                drop("the game moved to another server: reconnect")

    def create(
        self,
        setup: GameSetup,
        pace: float = 1.0,
        token_hashes: tuple[str, ...] = (),
        table: TableRules | None = None,
    ) -> GameSession:
        self._sweep()
        ident = secrets.token_urlsafe(9)
        session = GameSession(
            ident=ident,
            token="" if token_hashes else secrets.token_urlsafe(18),
            token_hashes=token_hashes,
            game=Game(setup),
            pool=self.pool,
            config=self.config,
            pace=pace,
            auto_pair=setup.auto_pair,
            store=self.store,
            table=table,
        )
        if self.store is not None:
            try:
                self.store.create(
                    ident, setup.to_json(), setup.seed, session.token_hashes, session.settings()
                )
            except StoreError as e:
                log.error("game %s could not be saved: %s", ident, e)
                raise GameError("the server cannot save games now; try again later") from None
        self.sessions[ident] = session
        self.leases.hold(GAME, ident)
        return session

    async def answer(
        self, conn: Connection, current: GameSession | None, msg: P.Message
    ) -> GameSession | None:
        """``dispatch``, with what goes wrong told to the client (by the message's id)."""
        version = current.version if current is not None else 0
        try:
            return await self.dispatch(conn, current, msg)
        except P.ProtocolError as e:
            deliver(conn, P.error(e.code, str(e), e.ident or msg.id, version, e.reason, e.params))
        except Exception:  # a bug must not end the connection, nor the server
            log.exception("error handling a message")
            deliver(
                conn, P.error("server_error", "the server failed on this message", msg.id, version)
            )
        return current

    async def dispatch(
        self, conn: Connection, current: GameSession | None, msg: P.Message
    ) -> GameSession | None:
        """Handle one message; return the session the connection is attached to afterwards."""
        if current is None:
            current = self.moved.pop(conn, None)
        if msg.type == "ping":
            deliver(conn, {"type": "pong", "v": current.version if current else 0})
            return current
        if msg.type in ("create", "join"):
            session, seats = await self._open(conn, msg)
            await self.leases.settled()  # (a new game's lease is written before its id is told)
            self._leave_rooms(conn)
            if current is not None and current is not session:
                current.detach(conn)
            token = session.token if msg.type == "create" and session.token else None
            await session.attach(conn, msg.id, seats, token=token)
            return session
        if msg.type in ROOM_TYPES:
            return await self._room_message(conn, current, msg)
        if current is None:
            if self._room_of(conn) is not None:
                raise P.ProtocolError(
                    P.NO_GAME,
                    "the game has not started: the host starts it",
                    msg.id,
                    "not_started",
                )
            raise P.ProtocolError(P.NO_GAME, "no game yet: send 'create' or 'join' first", msg.id)
        await current.handle(conn, msg)
        return current

    async def _open(self, conn: Connection, msg: P.Message) -> tuple[GameSession, tuple[int, ...]]:
        if msg.type == "create":
            assert msg.id is not None
            mine = self.created.setdefault(conn, {})
            known = mine.get(msg.id)
            if known is not None and known in self.sessions:
                again = self.sessions[known]
                return again, again.human_seats
            raw = dict(msg.body["setup"])
            pace_name = raw.pop("pace", "normal")
            if pace_name not in PACES:
                raise P.ProtocolError(
                    P.BAD_SETUP, f"'pace' must be one of {', '.join(PACES)}", msg.id
                )
            try:
                setup = parse_setup(raw)
            except SetupError as e:
                raise P.ProtocolError(P.BAD_SETUP, str(e), msg.id) from None
            refused = refused_url(self.config.bot_hosts, setup)
            if refused is not None:
                reason = "no_url_bots" if not self.config.bot_hosts else None
                raise P.ProtocolError(P.BAD_SETUP, refused, msg.id, reason)
            try:
                session = self.create(setup, PACES[pace_name])
            except GameError as e:
                raise P.ProtocolError(P.UNAVAILABLE, str(e), msg.id) from None
            mine[msg.id] = session.ident
            return session, session.human_seats
        found: GameSession | None = self.sessions.get(msg.body["game"])
        if found is None:
            found = await self._recall(msg.body["game"], msg.id)
        if found is None:
            raise P.ProtocolError(
                P.NOT_FOUND, "this game is no longer on the server; start a new one", msg.id
            )
        seats = found.seats_for(msg.body["token"])
        if seats is None:
            raise P.ProtocolError(P.FORBIDDEN, "wrong token for this game", msg.id)
        return found, seats

    async def _recall(self, ident: str, msg_id: str | None = None) -> GameSession | None:
        """A stored game this lobby forgot (idle, or beyond ``max_games`` at start), or,
        one of many processes, one that no process serves now."""
        if self.store is None:
            return None
        if not await self.leases.claim(GAME, ident):
            raise P.ProtocolError(
                P.UNAVAILABLE,
                "this game is moving to another server: try again in a moment",
                msg_id,
                "moving",
            )
        if ident in self.sessions:  # rebuilt by another client's join while we claimed it
            return self.sessions[ident]
        try:
            session = self.restore(ident)
        except UnknownGame:
            self.leases.drop(GAME, ident)
            return None
        except (StoreError, SetupError, GameError, IllegalAction, ActionError) as e:
            log.info("game %s cannot be restored: %s", ident, e)
            self.leases.drop(GAME, ident)
            return None
        with contextlib.suppress(GameError):  # a player coming back is never refused
            self._sweep()
        self.sessions[ident] = session
        return session

    # ------------------------------------------------------------ rooms
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


ROOM_TYPES = ("room_create", "room_join", "sit", "stand", "seat_bot", "swap", "start")


__all__ = ["ROOM_TYPES", "Lobby"]
