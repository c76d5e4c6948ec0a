"""Games on the event loop: clients, bot turns, pauses and replies.

A ``GameSession`` wraps one ``Game`` for the server. It keeps the game's
*version* (one more with every change a client can see), the clients that
control its seats, the replies to recent client messages (so a resent
message is answered again but applied once), and a *hold*: after a trick or
a deal ends the bots wait until a player has looked at the table and says
``continue`` (or asks for the next deal). The bots of a session play one at
a time, through the ``BotPool``, at a human pace.

The ``Lobby`` is the registry of sessions: it creates them, finds them by
id and forgets the ones nobody has touched for a long time.

With a ``GameStore`` (see ``store``), every change of a game's log is
written before any client hears of it, and the lobby rebuilds the unfinished
games of the store when it starts (or when a client joins one it has
forgotten), by replaying their logs.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import secrets
import time
import weakref
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from .. import __version__
from ..actions import PAIR, PLAY, REVEAL, Action, ActionError
from ..engine import IllegalAction
from . import PROTOCOL_VERSION
from . import protocol as P
from .botpool import BotPool
from .game import Game, GameError, is_marker, parse_action
from .setup import GameSetup, SetupError, parse_setup
from .store import GameStore, StoreError, UnknownGame, hash_token, open_store

log = logging.getLogger("twentynine.server")

TRICK = "trick"
DEAL = "deal"
REPLIES_KEPT = 512
PACES = {"slow": 1.8, "normal": 1.0, "fast": 0.4}


def _env_int(name: str, default: int) -> int:
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


@dataclass
class ServerConfig:
    """Settings of a server; ``from_env`` reads the ``TWENTYNINE_*`` variables."""

    bot_delay: float = 0.6  # seconds a bot takes at least, so people can follow
    bot_workers: int = 2  # worker processes; 0 runs bots on one thread
    max_games: int = 200
    idle_seconds: float = 6 * 3600
    warm_up: bool = True
    db: str | None = None  # where games are kept (path or URL); None: in memory only

    @classmethod
    def from_env(cls) -> ServerConfig:
        cpus = os.cpu_count() or 1
        return cls(
            bot_delay=max(0, _env_int("TWENTYNINE_BOT_DELAY_MS", 600)) / 1000,
            bot_workers=max(0, _env_int("TWENTYNINE_BOT_WORKERS", min(2, cpus))),
            max_games=max(1, _env_int("TWENTYNINE_MAX_GAMES", 200)),
            db=os.environ.get("TWENTYNINE_DB") or None,
        )


class Connection(Protocol):
    """What a session needs of a client connection."""

    async def send(self, data: dict[str, Any]) -> None: ...


@dataclass(eq=False)
class Seating:
    """The seats one connection controls in one session."""

    seats: tuple[int, ...]


@dataclass(eq=False)
class GameSession:
    ident: str
    token: str
    game: Game
    pool: BotPool
    config: ServerConfig
    pace: float = 1.0
    version: int = 1
    hold: str | None = None
    hold_at: int = 0
    auto_pair: bool = False
    clients: dict[Connection, Seating] = field(default_factory=dict)
    replies: OrderedDict[str, dict[str, Any]] = field(default_factory=OrderedDict)
    last_active: float = field(default_factory=time.monotonic)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    driver: asyncio.Task[None] | None = None
    store: GameStore | None = None
    token_hash: str = ""
    saved: list[dict[str, Any]] = field(default_factory=list)  # the log as the store has it
    finished: bool = False
    released: int = -1  # the log's length when a player last let the bots go on after a trick

    def __post_init__(self) -> None:
        if not self.token_hash:
            self.token_hash = hash_token(self.token)

    def admits(self, token: str) -> bool:
        return secrets.compare_digest(self.token_hash, hash_token(token))

    @property
    def setup(self) -> GameSetup:
        return self.game.setup

    @property
    def human_seats(self) -> tuple[int, ...]:
        return self.setup.human_seats

    # ------------------------------------------------------------ messages out
    def _can_undo(self, seats: Iterable[int]) -> bool:
        return any(self.game.can_undo(s) for s in seats)

    def _common(self, seats: tuple[int, ...]) -> dict[str, Any]:
        return {
            "v": self.version,
            "hold": self.hold,
            "hold_at": self.hold_at if self.hold else None,
            "can_undo": self._can_undo(seats),
            "over": self.game.match_over,
            "views": {str(s): self.game.view(s) for s in seats},
        }

    def state_message(self, seats: tuple[int, ...], ident: str | None = None) -> dict[str, Any]:
        msg: dict[str, Any] = {
            "type": "state",
            "id": ident,
            "game": self.ident,
            "seats": list(seats),
            "setup": self.setup.public(),
            "auto_pair": self.auto_pair,
            "events": {str(s): self.game.event_views(self.game.deal_events, s) for s in seats},
        }
        msg.update(self._common(seats))
        return msg

    def _update_message(
        self, seats: tuple[int, ...], events: list[dict[str, Any]], reset: bool
    ) -> dict[str, Any]:
        msg: dict[str, Any] = {
            "type": "update",
            "events": {str(s): self.game.event_views(events, s) for s in seats},
            "reset": reset,
        }
        msg.update(self._common(seats))
        return msg

    async def _send(self, conn: Connection, data: dict[str, Any]) -> None:
        try:
            await conn.send(data)
        except Exception:  # a client gone mid-send is detached by its own handler
            log.debug("send failed", exc_info=True)

    async def _changed(self, events: list[dict[str, Any]], reset: bool = False) -> None:
        """One visible change of the game: bump the version, tell every client.

        ``reset``: the events of the deal were rewritten (a new deal, an undo);
        the update then carries all of them, to replace what the client holds.
        """
        self.version += 1
        self.last_active = time.monotonic()
        if reset:
            events = self.game.deal_events
        for conn, seating in list(self.clients.items()):
            await self._send(conn, self._update_message(seating.seats, events, reset))

    # ------------------------------------------------------------ storage
    def settings(self) -> dict[str, Any]:
        """What the store keeps beside the log: table settings, and the last hold let go."""
        return {"pace": self.pace, "auto_pair": self.auto_pair, "released": self.released}

    def _save_settings(self) -> None:
        if self.store is not None:
            try:
                self.store.settings(self.ident, self.settings())
            except StoreError as e:  # a table setting, not a move: play on
                log.error("game %s: settings not saved: %s", self.ident, e)

    def _save(self) -> None:
        """Write the game's log to the store, before any client hears of the change.

        If the store fails, the game goes back to what the store holds and the
        change is refused (``GameError``): nothing is shown that a restart would lose.
        """
        if self.store is None:
            return
        entries, saved = self.game.log, self.saved
        try:
            keep = len(saved)
            if len(entries) < keep or (saved and entries[keep - 1] != saved[-1]):
                keep = 0  # an undo: find where the logs part
            while keep < min(len(entries), len(saved)) and entries[keep] == saved[keep]:
                keep += 1
            if keep < len(saved):
                self.store.truncate(self.ident, keep)
                del saved[keep:]
            for i in range(keep, len(entries)):
                self.store.append(self.ident, i, entries[i])
                saved.append(entries[i])
            if self.game.match_over and not self.finished:
                self.store.finish(self.ident, self.game.record())
                self.finished = True
        except StoreError as e:
            log.error("game %s could not be saved: %s", self.ident, e)
            self.game = Game(self.setup, list(saved))
            raise GameError("the server could not save this move; try again") from None

    # ------------------------------------------------------------ clients
    async def attach(self, conn: Connection, ident: str | None, token: bool) -> None:
        seats = self.human_seats
        self.clients[conn] = Seating(seats)
        self.last_active = time.monotonic()
        msg = self.state_message(seats, ident)
        if token:
            msg["token"] = self.token
        await self._send(conn, msg)
        self.kick()

    def detach(self, conn: Connection) -> None:
        self.clients.pop(conn, None)

    def _remember(self, ident: str | None, reply: dict[str, Any]) -> dict[str, Any]:
        if ident is not None:
            self.replies[ident] = reply
            while len(self.replies) > REPLIES_KEPT:
                self.replies.popitem(last=False)
        return reply

    async def handle(self, conn: Connection, msg: P.Message) -> None:
        """A message from a client attached to this session."""
        seating = self.clients.get(conn)
        if seating is None:
            raise P.ProtocolError(P.NO_GAME, "join the game first", msg.id)
        if msg.type == "sync":
            await self._send(conn, self.state_message(seating.seats, msg.id))
            return
        if msg.id is not None and msg.id in self.replies:
            await self._send(conn, {**self.replies[msg.id], "duplicate": True})
            return
        async with self.lock:
            try:
                await self._handle_change(seating, msg)
                reply = {"type": "ack", "v": self.version, "id": msg.id}
            except P.ProtocolError as e:
                reply = P.error(e.code, str(e), msg.id, self.version)
            except IllegalAction as e:
                reply = P.error(P.ILLEGAL, str(e), msg.id, self.version)
            except GameError as e:
                reply = P.error(P.UNAVAILABLE, str(e), msg.id, self.version)
            self._remember(msg.id, reply)
        await self._send(conn, reply)
        self.kick()

    async def _handle_change(self, seating: Seating, msg: P.Message) -> None:
        game = self.game
        if msg.type == "act":
            action = _read_action(msg)
            if action.seat not in seating.seats:
                raise P.ProtocolError(
                    P.NOT_YOUR_SEAT, f"seat {action.seat} is not yours to play", msg.id
                )
            await self._apply(action, by_player=True)
        elif msg.type == "continue":
            at = msg.body.get("at")
            if self.hold is not None and (at is None or at == self.hold_at):
                if self.hold == DEAL:
                    raise GameError("the deal is over: ask for the next deal")
                self.hold = None
                self.released = len(game.log)
                self._save_settings()
                await self._changed([])
        elif msg.type == "next_deal":
            game.next_deal()
            self._save()
            self.hold = None
            await self._changed([], reset=True)
        elif msg.type == "undo":
            seat = msg.body.get("seat", seating.seats[0])
            if seat not in seating.seats:
                raise P.ProtocolError(P.NOT_YOUR_SEAT, f"seat {seat} is not yours", msg.id)
            game.undo_last_card(seat)
            self._save()
            self.hold = None
            await self._changed([], reset=True)
        elif msg.type == "configure":
            self.auto_pair = bool(msg.body["auto_pair"])
            self._save_settings()
        else:  # pragma: no cover - parse_message knows every type
            raise P.ProtocolError(P.UNKNOWN_TYPE, f"cannot handle {msg.type!r}", msg.id)

    async def _apply(self, action: Action, by_player: bool = False) -> None:
        events = self.game.apply(action)
        self._save()
        kinds = {e["type"] for e in events}
        if "deal_end" in kinds:
            self.hold, self.hold_at = DEAL, self.version + 1
        elif "trick" in kinds:
            self.hold, self.hold_at = TRICK, self.version + 1
        elif self.hold == TRICK and by_player and action.kind in (PLAY, REVEAL):
            self.hold = None  # a player who leads has seen the last trick
        await self._changed(events)

    # ------------------------------------------------------------ bots
    def kick(self) -> None:
        """Let the bots (and the automatic pair) act if it is their turn."""
        if self.driver is None or self.driver.done():
            self.driver = asyncio.create_task(self._drive())

    def _auto_pair_due(self) -> bool:
        seat = self.game.to_act
        return self.auto_pair and self.game.pair_pending and seat in self.human_seats

    async def _drive(self) -> None:
        try:
            await self._drive_bots()
        except asyncio.CancelledError:
            raise
        except Exception:  # a bug here must not go unnoticed, nor take the server down
            log.exception("the bots of game %s stopped", self.ident)

    async def _drive_bots(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            async with self.lock:
                if self._auto_pair_due():
                    await self._apply(Action.flag(self.game.to_act, PAIR))
                    continue
                seat = self.game.to_act
                seating = self.setup.seats[seat] if seat >= 0 else None
                if seating is None or seating.human or self.hold is not None:
                    return
                assert seating.character is not None
                version = self.version
                obs = self.game.observation(seat)
                seed = self.game.bot_seed(seat)
            started = loop.time()
            action = await self.pool.act(seating.character, seed, obs)
            wait = self.config.bot_delay * self.pace - (loop.time() - started)
            if wait > 0:
                await asyncio.sleep(wait)
            async with self.lock:
                if self.version != version:  # an undo or a new deal overtook the bot
                    continue
                try:
                    await self._apply(action)
                except IllegalAction:  # cannot happen: the bot saw this very state
                    log.exception("bot action %s refused", action)
                    return


def _read_action(msg: P.Message) -> Action:
    try:
        return parse_action(msg.body["action"])
    except GameError as e:
        raise P.ProtocolError(P.BAD_ACTION, str(e), msg.id) from None


class Lobby:
    """Every game of this server, by id."""

    def __init__(self, config: ServerConfig | None = None, store: GameStore | None = None) -> None:
        self.config = config or ServerConfig.from_env()
        # a store given here is the caller's to close; one opened from config.db is ours
        self._owns_store = store is None and self.config.db is not None
        if store is None and self.config.db is not None:
            store = open_store(self.config.db)
        self.store = store
        self.pool = BotPool(self.config.bot_workers)
        self.sessions: dict[str, GameSession] = {}
        # per connection, the game each of its 'create' messages made (a resend joins it)
        self.created: weakref.WeakKeyDictionary[Connection, dict[str, str]] = (
            weakref.WeakKeyDictionary()
        )

    def start(self) -> None:
        if self.config.warm_up and self.config.bot_workers > 0:
            self.pool.warm_up()
        self.restore_all()

    def close(self) -> None:
        for s in self.sessions.values():
            if s.driver is not None:
                s.driver.cancel()
        self.pool.close()
        if self.store is not None and self._owns_store:
            self.store.close()

    # ------------------------------------------------------------ restarts
    def restore_all(self) -> int:
        """Rebuild the store's unfinished games (the most recent first); return how many."""
        if self.store is None:
            return 0
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
        if len(stored.token_hashes) != 1:
            raise StoreError(f"game {ident!r} must have one token hash")
        setup = parse_setup(stored.setup)
        if setup.seed != stored.seed:
            raise StoreError(f"game {ident!r}: the seed of its setup is not its seed")
        entries = stored.log
        events: list[dict[str, Any]] = []
        if entries and not is_marker(entries[-1]):
            # replay the last action on its own: its events say whether play was held
            game = Game(setup, entries[:-1])
            events = game.apply(Action.from_json(entries[-1]))
        else:
            game = Game(setup, entries)
        settings = stored.settings
        pace = settings.get("pace", 1.0)
        session = GameSession(
            ident=ident,
            token="",
            token_hash=stored.token_hashes[0],
            game=game,
            pool=self.pool,
            config=self.config,
            pace=float(pace) if isinstance(pace, (int, float)) else 1.0,
            auto_pair=settings.get("auto_pair") is True,
            store=self.store,
            saved=list(game.log),
            released=settings.get("released", -1),
        )
        kinds = {e["type"] for e in events}
        if game.deal_over:
            session.hold, session.hold_at = DEAL, session.version
        elif "trick" in kinds and settings.get("released") != len(entries):
            session.hold, session.hold_at = TRICK, session.version
        return session

    def _sweep(self) -> None:
        now = time.monotonic()
        for ident, s in list(self.sessions.items()):
            if not s.clients and now - s.last_active > self.config.idle_seconds:
                del self.sessions[ident]
        while len(self.sessions) >= self.config.max_games:
            idle = [s for s in self.sessions.values() if not s.clients] or list(
                self.sessions.values()
            )
            oldest = min(idle, key=lambda s: s.last_active)
            if oldest.driver is not None:
                oldest.driver.cancel()
            del self.sessions[oldest.ident]

    def create(self, setup: GameSetup, pace: float = 1.0) -> GameSession:
        self._sweep()
        ident = secrets.token_urlsafe(9)
        session = GameSession(
            ident=ident,
            token=secrets.token_urlsafe(18),
            game=Game(setup),
            pool=self.pool,
            config=self.config,
            pace=pace,
            auto_pair=setup.auto_pair,
            store=self.store,
        )
        if self.store is not None:
            try:
                self.store.create(
                    ident, setup.to_json(), setup.seed, [session.token_hash], session.settings()
                )
            except StoreError as e:
                log.error("game %s could not be saved: %s", ident, e)
                raise GameError("the server cannot save games now; try again later") from None
        self.sessions[ident] = session
        return session

    async def dispatch(
        self, conn: Connection, current: GameSession | None, msg: P.Message
    ) -> GameSession | None:
        """Handle one message; return the session the connection is attached to afterwards."""
        if msg.type == "ping":
            await conn.send({"type": "pong", "v": current.version if current else 0})
            return current
        if msg.type in ("create", "join"):
            session = self._open(conn, msg)
            if current is not None and current is not session:
                current.detach(conn)
            await session.attach(conn, msg.id, token=msg.type == "create")
            return session
        if current is None:
            raise P.ProtocolError(P.NO_GAME, "no game yet: send 'create' or 'join' first", msg.id)
        await current.handle(conn, msg)
        return current

    def _open(self, conn: Connection, msg: P.Message) -> GameSession:
        if msg.type == "create":
            assert msg.id is not None
            mine = self.created.setdefault(conn, {})
            known = mine.get(msg.id)
            if known is not None and known in self.sessions:
                return self.sessions[known]
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
            try:
                session = self.create(setup, PACES[pace_name])
            except GameError as e:
                raise P.ProtocolError(P.UNAVAILABLE, str(e), msg.id) from None
            mine[msg.id] = session.ident
            return session
        found = self.sessions.get(msg.body["game"])
        if found is None:
            found = self._recall(msg.body["game"])
        if found is None:
            raise P.ProtocolError(
                P.NOT_FOUND, "this game is no longer on the server; start a new one", msg.id
            )
        if not found.admits(msg.body["token"]):
            raise P.ProtocolError(P.FORBIDDEN, "wrong token for this game", msg.id)
        return found

    def _recall(self, ident: str) -> GameSession | None:
        """A stored game this lobby forgot (idle, or beyond ``max_games`` at start)."""
        if self.store is None:
            return None
        try:
            session = self.restore(ident)
        except UnknownGame:
            return None
        except (StoreError, SetupError, GameError, IllegalAction, ActionError) as e:
            log.info("game %s cannot be restored: %s", ident, e)
            return None
        self._sweep()
        self.sessions[ident] = session
        return session


def welcome() -> dict[str, Any]:
    return {
        "type": "welcome",
        "v": 0,
        "protocol": PROTOCOL_VERSION,
        "server": f"twentynine {__version__}",
    }


def dumps(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))
