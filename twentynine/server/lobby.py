"""The lobby: every game and room of one server, by id and by code.

The ``Lobby`` is the registry of sessions: it creates them, finds them by
id and forgets the ones nobody has touched for a long time. It rebuilds the
unfinished games of the store when it starts (or when a client joins one it
has forgotten), by replaying their logs. It also keeps the rooms where
people gather before a game: that part is ``rooms.Rooms``.
"""

from __future__ import annotations

import contextlib
import logging
import math
import secrets
import time
import weakref
from typing import Any

from ..game.actions import Action, ActionError
from ..game.engine import IllegalAction
from . import protocol as P
from .botpool import BotPool
from .cluster.leases import GAME, NoLeases
from .config import PACES, ServerConfig
from .durable import Replies
from .forfeit import stored_forfeit
from .game import SIGNAL, Game, GameError, is_marker
from .limits import Guard
from .outbox import Connection, deliver
from .room import Room, TableRules
from .rooms import ROOM_TYPES, Rooms
from .session import DEAL, TRICK, GameSession
from .setup import GameSetup, SetupError, parse_setup, refused_url
from .store import GameStore, StoreError, UnknownGame, open_store

log = logging.getLogger("twentynine.server")


class Lobby(Rooms):
    """Every game and room of this server, by id and by code (the rooms: ``rooms``)."""

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
        self._rooms_pruned = -math.inf  # when the stored rooms were last pruned (monotonic)

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
        self._prune_rooms()
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


__all__ = ["ROOM_TYPES", "Lobby"]
