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
import contextlib
import json
import logging
import os
import secrets
import time
import weakref
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from .. import __version__
from ..actions import PAIR, PLAY, REVEAL, Action, ActionError
from ..engine import IllegalAction
from ..protocols.fault import BotFault
from . import PROTOCOL_VERSION
from . import protocol as P
from .botpool import BotPool
from .game import SIGNAL, Game, GameError, is_marker, parse_action
from .room import STANDIN, Room, RoomError, TableRules, clean_name, make_room, normal_code
from .setup import SEAT_NAMES, GameSetup, SetupError, parse_setup
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
    max_rooms: int = 500
    idle_seconds: float = 6 * 3600
    warm_up: bool = True
    db: str | None = None  # where games are kept (path or URL); None: in memory only
    trick_pause: float = 1.5  # seconds a finished trick stays on a room's table
    url_bots: bool = True  # rooms and setups may seat contest bots by URL

    @classmethod
    def from_env(cls) -> ServerConfig:
        cpus = os.cpu_count() or 1
        return cls(
            bot_delay=max(0, _env_int("TWENTYNINE_BOT_DELAY_MS", 600)) / 1000,
            bot_workers=max(0, _env_int("TWENTYNINE_BOT_WORKERS", min(2, cpus))),
            max_games=max(1, _env_int("TWENTYNINE_MAX_GAMES", 200)),
            db=os.environ.get("TWENTYNINE_DB") or None,
            trick_pause=max(0, _env_int("TWENTYNINE_TRICK_PAUSE_MS", 1500)) / 1000,
            url_bots=os.environ.get("TWENTYNINE_URL_BOTS", "1") != "0",  # see web.app.serve
        )


class Connection(Protocol):
    """What a session needs of a client connection."""

    async def send(self, data: dict[str, Any]) -> None: ...


@dataclass(eq=False)
class Seating:
    """The seats one connection controls in one session (none: a spectator)."""

    seats: tuple[int, ...]

    @property
    def keys(self) -> list[tuple[str, int | None]]:
        """The views this connection gets: one per seat, or the public one."""
        if not self.seats:
            return [(PUBLIC, None)]
        return [(str(s), s) for s in self.seats]


PUBLIC = "public"
HERE, AWAY, STANDIN_PLAYS = "here", "away", "bot"


@dataclass(eq=False)
class GameSession:
    ident: str
    token: str  # a hot-seat game's one token ("" when rebuilt or in a room)
    game: Game
    pool: BotPool
    config: ServerConfig
    pace: float = 1.0
    version: int = 1
    hold: str | None = None
    hold_at: int = 0
    auto_pair: bool = False
    clients: dict[Connection, Seating] = field(default_factory=dict)
    # replies to recent messages, by (the sender's seats, message id): a resend from the
    # same seats (say after a reconnect) is answered again, never applied twice
    replies: OrderedDict[tuple[tuple[int, ...], str], dict[str, Any]] = field(
        default_factory=OrderedDict
    )
    last_active: float = field(default_factory=time.monotonic)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    driver: asyncio.Task[None] | None = None
    store: GameStore | None = None
    # One hash: that token controls every human seat (one device). Four: one per seat
    # ("" for a bot's seat), the seats of a room.
    token_hashes: tuple[str, ...] = ()
    saved: list[dict[str, Any]] = field(default_factory=list)  # the log as the store has it
    finished: bool = False
    released: int = -1  # the log's length when a player last let the bots go on after a trick
    table: TableRules | None = None  # a room's settings; None for a game of one device
    away: dict[int, float] = field(default_factory=dict)  # seat -> when its player left
    standin: set[int] = field(default_factory=set)  # away seats a bot now plays for
    forfeit: dict[str, Any] | None = None  # the fault that ended the game, if any
    turn: tuple[int, int] | None = None  # (seat, log length) of the decision on the clock
    turn_deadline: float | None = None
    turn_left: float | None = None  # the clock's time left, while its player is away
    timed_out: int | None = None  # a seat whose time ran out: a bot makes this one move
    timer: asyncio.Task[None] | None = None
    external: dict[int, Any] = field(default_factory=dict)  # seat -> its contest bot client

    def __post_init__(self) -> None:
        if not self.token_hashes:
            self.token_hashes = (hash_token(self.token),)

    def seats_for(self, token: str) -> tuple[int, ...] | None:
        """The seats a token controls, or None if it is not a token of this game."""
        digest = hash_token(token)
        if len(self.token_hashes) == 1:
            if secrets.compare_digest(self.token_hashes[0], digest):
                return self.human_seats
            return None
        for seat, known in enumerate(self.token_hashes):
            if known and secrets.compare_digest(known, digest):
                return (seat,)
        return None

    def admits(self, token: str) -> bool:
        return self.seats_for(token) is not None

    @property
    def setup(self) -> GameSetup:
        return self.game.setup

    @property
    def human_seats(self) -> tuple[int, ...]:
        return self.setup.human_seats

    @property
    def over(self) -> bool:
        return self.game.match_over or self.forfeit is not None

    def _now(self) -> float:
        return time.monotonic()

    # ------------------------------------------------------------ messages out
    def _can_undo(self, seats: Iterable[int]) -> bool:
        return self.forfeit is None and any(self.game.can_undo(s) for s in seats)

    def _table_view(self, seating: Seating) -> dict[str, Any] | None:
        """A room's table as this connection sees it: presence, the clock, spectators."""
        if self.table is None:
            return None
        now = self._now()
        presence: list[dict[str, Any]] = []
        for seat in range(4):
            if seat not in self.human_seats:
                presence.append({"state": "bot"})
            elif seat in self.standin:
                presence.append({"state": STANDIN_PLAYS})
            elif seat in self.away:
                left = max(0.0, self.away[seat] + self.table.grace - now)
                presence.append({"state": AWAY, "grace_left": round(left, 1)})
            else:
                presence.append({"state": HERE})
        clock = None
        if self.turn is not None and self.table.clock:
            seat = self.turn[0]
            # whose pair decision it is stays private (see ``observation``)
            if not self.game.pair_pending or seat in seating.seats:
                if self.turn_deadline is not None:
                    left, running = max(0.0, self.turn_deadline - now), True
                else:
                    left, running = self.turn_left or 0.0, False
                clock = {
                    "seat": seat,
                    "left": round(left, 1),
                    "total": self.table.clock,
                    "running": running,
                }
        spectators = sum(1 for s in self.clients.values() if not s.seats)
        return {
            **self.table.public(),
            "presence": presence,
            "clock": clock,
            "spectators": spectators,
        }

    def _common(self, seating: Seating) -> dict[str, Any]:
        return {
            "v": self.version,
            "hold": self.hold,
            "hold_at": self.hold_at if self.hold else None,
            "can_undo": self._can_undo(seating.seats),
            "over": self.over,
            "forfeit": self.forfeit,
            "table": self._table_view(seating),
            "views": {key: self.game.view(seat) for key, seat in seating.keys},
        }

    def state_message(self, seating: Seating, ident: str | None = None) -> dict[str, Any]:
        msg: dict[str, Any] = {
            "type": "state",
            "id": ident,
            "game": self.ident,
            "seats": list(seating.seats),
            "setup": self.setup.public(),
            "auto_pair": self.auto_pair,
            "events": {
                key: self.game.event_views(self.game.deal_events, seat)
                for key, seat in seating.keys
            },
        }
        msg.update(self._common(seating))
        return msg

    def _update_message(
        self, seating: Seating, events: list[dict[str, Any]], reset: bool
    ) -> dict[str, Any]:
        msg: dict[str, Any] = {
            "type": "update",
            "events": {key: self.game.event_views(events, seat) for key, seat in seating.keys},
            "reset": reset,
        }
        msg.update(self._common(seating))
        return msg

    async def _send(self, conn: Connection, data: dict[str, Any]) -> None:
        try:
            await conn.send(data)
        except Exception:  # a client gone mid-send is detached by its own handler
            log.debug("send failed", exc_info=True)

    async def _changed(
        self,
        events: list[dict[str, Any]],
        reset: bool = False,
        arrived: Mapping[Connection, tuple[str | None, str | None]] | None = None,
    ) -> None:
        """One visible change of the game: bump the version, tell every client.

        ``reset``: the events of the deal were rewritten (a new deal, an undo);
        the update then carries all of them, to replace what the client holds.
        ``arrived``: clients that get the whole state instead (answering their
        message id, with the token they were just given), having none yet.
        """
        self.version += 1
        self.last_active = time.monotonic()
        self._reschedule()
        if reset:
            events = self.game.deal_events
        arrived = arrived or {}
        for conn, seating in list(self.clients.items()):
            if conn in arrived:
                ident, token = arrived[conn]
                await self._send(conn, self._state_with_token(seating, ident, token))
            else:
                await self._send(conn, self._update_message(seating, events, reset))

    # ------------------------------------------------------------ storage
    def settings(self) -> dict[str, Any]:
        """What the store keeps beside the log: table settings, and the last hold let go."""
        out: dict[str, Any] = {
            "pace": self.pace,
            "auto_pair": self.auto_pair,
            "released": self.released,
        }
        if self.table is not None:
            out["table"] = self.table.to_json()
        if self.forfeit is not None:
            out["forfeit"] = self.forfeit
        return out

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
            if self.over and not self.finished:
                record = self.game.record()
                if self.forfeit is not None:
                    record["meta"]["forfeit"] = self.forfeit
                self.store.finish(self.ident, record)
                self.finished = True
        except StoreError as e:
            log.error("game %s could not be saved: %s", self.ident, e)
            self.game = Game(self.setup, list(saved))
            raise GameError("the server could not save this move; try again") from None

    # ------------------------------------------------------------ clients
    async def attach(
        self,
        conn: Connection,
        ident: str | None,
        seats: tuple[int, ...] | None = None,
        token: str | None = None,
    ) -> None:
        """A client joins: it controls ``seats`` (default: every human seat; () watches)."""
        seats = self.human_seats if seats is None else seats
        seating = Seating(seats)
        self.clients[conn] = seating
        self.last_active = time.monotonic()
        if self.table is None:
            await self._send(conn, self._state_with_token(seating, ident, token))
        else:
            async with self.lock:  # the others see the player (or a new spectator) arrive
                self._mark_presence()
                await self._changed([], arrived={conn: (ident, token)})
        self.kick()

    def _state_with_token(
        self, seating: Seating, ident: str | None, token: str | None
    ) -> dict[str, Any]:
        msg = self.state_message(seating, ident)
        if token:
            msg["token"] = token
        return msg

    def detach(self, conn: Connection) -> None:
        if self.clients.pop(conn, None) is not None and self.table is not None:
            with contextlib.suppress(RuntimeError):  # no loop: the server is stopping
                asyncio.get_running_loop().create_task(self._presence_changed())

    def _connected(self, seat: int) -> bool:
        return any(seat in s.seats for s in self.clients.values())

    def _mark_presence(self) -> bool:
        """Note the seats whose player left or came back; True if any did."""
        if self.table is None:
            return False
        now = self._now()
        changed = False
        for seat in self.human_seats:
            here = self._connected(seat)
            if here and seat in self.away:
                del self.away[seat]
                self.standin.discard(seat)
                changed = True
            elif not here and seat not in self.away:
                self.away[seat] = now
                changed = True
        return changed

    async def _presence_changed(self) -> None:
        """A connection left: its seat may be away now; everyone sees it at once."""
        if self.table is None:
            return
        async with self.lock:
            self._mark_presence()
            await self._changed([])
        self.kick()

    def _remember(
        self, seats: tuple[int, ...], ident: str | None, reply: dict[str, Any]
    ) -> dict[str, Any]:
        if ident is not None:
            self.replies[(seats, ident)] = reply
            while len(self.replies) > REPLIES_KEPT:
                self.replies.popitem(last=False)
        return reply

    async def handle(self, conn: Connection, msg: P.Message) -> None:
        """A message from a client attached to this session."""
        seating = self.clients.get(conn)
        if seating is None:
            raise P.ProtocolError(P.NO_GAME, "join the game first", msg.id)
        if msg.type == "sync":
            await self._send(conn, self.state_message(seating, msg.id))
            return
        if msg.id is not None and (seating.seats, msg.id) in self.replies:
            await self._send(conn, {**self.replies[(seating.seats, msg.id)], "duplicate": True})
            return
        async with self.lock:
            try:
                if not seating.seats and msg.type != "configure":
                    raise P.ProtocolError(
                        P.FORBIDDEN, "spectators watch: take a seat to play", msg.id
                    )
                await self._handle_change(seating, msg)
                reply = {"type": "ack", "v": self.version, "id": msg.id}
            except P.ProtocolError as e:
                reply = P.error(e.code, str(e), msg.id, self.version)
            except IllegalAction as e:
                reply = P.error(P.ILLEGAL, str(e), msg.id, self.version)
            except GameError as e:
                reply = P.error(P.UNAVAILABLE, str(e), msg.id, self.version)
            self._remember(seating.seats, msg.id, reply)
        await self._send(conn, reply)
        self.kick()

    async def _handle_change(self, seating: Seating, msg: P.Message) -> None:
        game = self.game
        if msg.type in ("act", "next_deal", "undo") and self.forfeit is not None:
            raise GameError("the game is over: it was forfeited")
        if msg.type == "act":
            action = _read_action(msg)
            if action.seat not in seating.seats:
                raise P.ProtocolError(
                    P.NOT_YOUR_SEAT, f"seat {action.seat} is not yours to play", msg.id
                )
            signal = msg.body.get(SIGNAL)
            if signal is not None and not self.setup.signals:
                raise GameError("signals are off at this table")
            await self._apply(action, by_player=True, signal=signal)
        elif msg.type == "continue":
            at = msg.body.get("at")
            if self.hold is not None and (at is None or at == self.hold_at):
                if self.hold == DEAL:
                    raise GameError("the deal is over: ask for the next deal")
                self._release()
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
            if seating.seats:
                self.auto_pair = bool(msg.body["auto_pair"])
                self._save_settings()
        else:  # pragma: no cover - the lobby handles every other type
            raise P.ProtocolError(P.UNKNOWN_TYPE, f"cannot handle {msg.type!r}", msg.id)

    def _release(self) -> None:
        self.hold = None
        self.released = len(self.game.log)
        self._save_settings()

    async def _apply(
        self, action: Action, by_player: bool = False, signal: str | None = None
    ) -> None:
        events = self.game.apply(action, signal)
        self._save()
        if by_player and self.timed_out == action.seat:
            self.timed_out = None
        kinds = {e["type"] for e in events}
        if "deal_end" in kinds:
            self.hold, self.hold_at = DEAL, self.version + 1
        elif "trick" in kinds:
            self.hold, self.hold_at = TRICK, self.version + 1
            if self.table is not None:  # a room's table goes on by itself
                self._release_later(self.hold_at)
        elif self.hold == TRICK and by_player and action.kind in (PLAY, REVEAL):
            self.hold = None  # a player who leads has seen the last trick
        await self._changed(events)

    def _release_later(self, at: int) -> None:
        async def release() -> None:
            await asyncio.sleep(self.config.trick_pause * self.pace)
            async with self.lock:
                if self.hold == TRICK and self.hold_at == at:
                    self._release()
                    await self._changed([])
            self.kick()

        asyncio.get_running_loop().create_task(release())

    # ------------------------------------------------------------ the clocks
    def _reschedule(self) -> None:
        """After any change: whose decision is on the clock, and when the next timer fires."""
        if self.table is None:
            return
        now = self._now()
        seat = self.game.to_act
        on_clock = (
            self.table.clock > 0
            and not self.over
            and self.hold is None
            and seat in self.human_seats
            and seat not in self.standin
        )
        key = (seat, len(self.game.log)) if on_clock else None
        if key != self.turn:
            self.turn = key
            self.turn_deadline = now + self.table.clock if key else None
            self.turn_left = None
            if self.timed_out is not None and self.timed_out != seat:
                self.timed_out = None
        if self.turn is not None:
            if seat in self.away and self.turn_deadline is not None:  # pause
                self.turn_left = max(0.0, self.turn_deadline - now)
                self.turn_deadline = None
            elif seat not in self.away and self.turn_deadline is None:  # resume
                self.turn_deadline = now + (self.turn_left or 0.0)
                self.turn_left = None
        if (
            self.timer is not None
            and not self.timer.done()
            and self.timer is not asyncio.current_task()
        ):
            self.timer.cancel()
        deadlines = [t + self.table.grace for s, t in self.away.items() if s not in self.standin]
        if self.turn_deadline is not None and self.timed_out is None:
            deadlines.append(self.turn_deadline)
        if deadlines and not self.over:
            self.timer = asyncio.get_running_loop().create_task(self._wake(min(deadlines)))

    async def _wake(self, when: float) -> None:
        await asyncio.sleep(max(0.0, when - self._now()) + 0.01)
        assert self.table is not None
        async with self.lock:
            now = self._now()
            changed = False
            for seat, since in list(self.away.items()):
                if seat not in self.standin and now >= since + self.table.grace:
                    self.standin.add(seat)
                    changed = True
            if (
                self.turn is not None
                and self.turn_deadline is not None
                and now >= self.turn_deadline
                and self.timed_out is None
            ):
                self.timed_out = self.turn[0]
                changed = True
            if changed:
                await self._changed([])
        self.kick()

    # ------------------------------------------------------------ bots
    def kick(self) -> None:
        """Let the bots (and the automatic pair) act if it is their turn."""
        if self.driver is None or self.driver.done():
            self.driver = asyncio.create_task(self._drive())

    def _auto_pair_due(self) -> bool:
        seat = self.game.to_act
        return self.auto_pair and self.game.pair_pending and seat in self.human_seats

    def bot_plays(self, seat: int) -> str | None:
        """The character that decides for ``seat`` now (None: its player does)."""
        seating = self.setup.seats[seat]
        if seating.url is not None:
            return "url"
        if not seating.human:
            return seating.character
        if seat in self.standin or seat == self.timed_out:
            return STANDIN
        return None

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
                if self.over:
                    return
                if self._auto_pair_due():
                    await self._apply(Action.flag(self.game.to_act, PAIR))
                    continue
                seat = self.game.to_act
                character = self.bot_plays(seat) if seat >= 0 else None
                if character is None or self.hold is not None:
                    return
                version = self.version
                position = list(self.game.log)  # the position the bot decides on
                obs = self.game.observation(seat)
                seed = self.game.bot_seed(seat)
            started = loop.time()
            signal: str | None = None
            if character == "url":
                try:
                    action = await self._ask_external(seat, obs)
                except BotFault as fault:
                    async with self.lock:
                        if not self.over:  # a fault ends the game, whatever happened meanwhile
                            await self._forfeit(seat, fault)
                    return
            else:
                action, signal = await self.pool.decide(character, seed, obs)
            wait = self.config.bot_delay * self.pace - (loop.time() - started)
            if wait > 0:
                await asyncio.sleep(wait)
            async with self.lock:
                # An undo or a new deal overtook the bot. A contest bot's answer stands unless
                # the position itself changed: it is never asked the same question twice.
                if character == "url" and self.game.log != position:
                    continue
                if character != "url" and self.version != version:
                    continue
                try:
                    await self._apply(action, signal=signal if self.setup.signals else None)
                except IllegalAction:  # cannot happen: the bot saw this very state
                    log.exception("bot action %s refused", action)
                    return
                if seat == self.timed_out:
                    self.timed_out = None

    async def _ask_external(self, seat: int, obs: Any) -> Action:
        """A contest bot's decision over HTTP; its faults are the game's end, not patched."""
        bot = self.external.get(seat)
        if bot is None:
            from ..protocols.bhoos.adapter import ProtocolBot

            url = self.setup.seats[seat].url
            assert url is not None
            bot = self.external[seat] = ProtocolBot(url, seed=self.game.bot_seed(seat))
        try:
            action: Action = await asyncio.to_thread(bot.act, obs)
        except BotFault:
            raise
        except Exception as e:  # anything else the adapter raised is the bot's fault too
            raise BotFault(str(e) or type(e).__name__, seat=seat, bot=bot.url) from None
        return action

    async def _forfeit(self, seat: int, fault: BotFault) -> None:
        """A contest bot failed: its team loses the game, and the fault is shown to all."""
        info = fault.to_json()
        info["seat"] = seat
        info["team"] = seat & 1
        info["request"] = _short_json(info.get("request"))
        answer = info.get("answer")
        if isinstance(answer, str) and len(answer) > 2000:  # kept, and sent to every client
            info["answer"] = answer[:2000] + "..."
        self.forfeit = info
        self.hold = None
        log.warning("game %s forfeited by %s: %s", self.ident, SEAT_NAMES[seat], fault)
        self._save_settings()
        with contextlib.suppress(GameError):  # the log is saved; the record may wait
            self._save()
        event = {"type": "forfeit", "seat": seat, "team": seat & 1, "message": fault.message}
        await self._changed([event])


async def _safe_send(conn: Connection, data: dict[str, Any]) -> None:
    """Send to a client that may have gone: its own handler notices and detaches it."""
    try:
        await conn.send(data)
    except Exception:
        log.debug("send failed", exc_info=True)


def _short_json(value: Any, limit: int = 2000) -> Any:
    text = json.dumps(value, ensure_ascii=False) if value is not None else None
    if text is not None and len(text) > limit:
        return text[:limit] + "..."
    return value


def _read_action(msg: P.Message) -> Action:
    try:
        return parse_action(msg.body["action"])
    except GameError as e:
        raise P.ProtocolError(P.BAD_ACTION, str(e), msg.id) from None


FAILED_CODES_ALLOWED = 20  # unknown room codes a connection may try


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
        self.failed_codes: weakref.WeakKeyDictionary[Connection, int] = weakref.WeakKeyDictionary()
        # connections a room's start moved into its game (their handlers learn it here)
        self.moved: weakref.WeakKeyDictionary[Connection, GameSession] = weakref.WeakKeyDictionary()

    def start(self) -> None:
        if self.config.warm_up and self.config.bot_workers > 0:
            self.pool.warm_up()
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
        forfeit = settings.get("forfeit")
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
            forfeit=forfeit if isinstance(forfeit, dict) else None,
        )
        if table is not None:
            # nobody is connected yet: every person is away from now, with the full grace
            now = session._now()
            session.away = {seat: now for seat in session.human_seats}
        kinds = {e["type"] for e in events}
        if game.deal_over:
            session.hold, session.hold_at = DEAL, session.version
        elif "trick" in kinds and settings.get("released") != len(entries):
            session.hold, session.hold_at = TRICK, session.version
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
        return session

    async def dispatch(
        self, conn: Connection, current: GameSession | None, msg: P.Message
    ) -> GameSession | None:
        """Handle one message; return the session the connection is attached to afterwards."""
        if current is None:
            current = self.moved.pop(conn, None)
        if msg.type == "ping":
            await _safe_send(conn, {"type": "pong", "v": current.version if current else 0})
            return current
        if msg.type in ("create", "join"):
            session, seats = self._open(conn, msg)
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
                    P.NO_GAME, "the game has not started: the host starts it", msg.id
                )
            raise P.ProtocolError(P.NO_GAME, "no game yet: send 'create' or 'join' first", msg.id)
        await current.handle(conn, msg)
        return current

    def _open(self, conn: Connection, msg: P.Message) -> tuple[GameSession, tuple[int, ...]]:
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
            if not self.config.url_bots and any(s.url for s in setup.seats):
                raise P.ProtocolError(P.BAD_SETUP, "this server does not seat bots by URL", msg.id)
            try:
                session = self.create(setup, PACES[pace_name])
            except GameError as e:
                raise P.ProtocolError(P.UNAVAILABLE, str(e), msg.id) from None
            mine[msg.id] = session.ident
            return session, session.human_seats
        found: GameSession | None = self.sessions.get(msg.body["game"])
        if found is None:
            found = self._recall(msg.body["game"])
        if found is None:
            raise P.ProtocolError(
                P.NOT_FOUND, "this game is no longer on the server; start a new one", msg.id
            )
        seats = found.seats_for(msg.body["token"])
        if seats is None:
            raise P.ProtocolError(P.FORBIDDEN, "wrong token for this game", msg.id)
        return found, seats

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
            try:
                await _safe_send(conn, room.snapshot(token_hash or None, present))
            except Exception:
                log.debug("send failed", exc_info=True)

    def _find_room(self, conn: Connection, raw: str, ident: str | None) -> Room:
        tries = self.failed_codes.get(conn, 0)
        if tries >= FAILED_CODES_ALLOWED:
            raise P.ProtocolError(
                P.FORBIDDEN, "too many unknown room codes from this connection", ident
            )
        code = normal_code(raw)
        room = self.rooms.get(code) if code else None
        if room is None:
            self.failed_codes[conn] = tries + 1
            raise P.ProtocolError(
                P.NOT_FOUND, "no room with this code: check the code or the link", ident
            )
        return room

    async def _room_message(
        self, conn: Connection, current: GameSession | None, msg: P.Message
    ) -> GameSession | None:
        body = msg.body
        if msg.type == "room_create":
            if len(self.rooms) >= self.config.max_rooms:
                self._sweep_rooms()
            if len(self.rooms) >= self.config.max_rooms:
                raise P.ProtocolError(P.UNAVAILABLE, "the server has too many rooms", msg.id)
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
                    raise P.ProtocolError(e.code, str(e), msg.id) from None
                while room.code in self.rooms:  # 40 bits: all but impossible
                    room = make_room(body["setup"], token, name)
                self._save_room_or_fail(room, msg.id)
                self.rooms[room.code] = room
                assert msg.id is not None
                mine[msg.id] = room.code
            return await self._enter_room(conn, current, room, room.table.host, msg, token)
        if msg.type == "room_join":
            room = self._find_room(conn, body["code"], msg.id)
            token = body.get("token")
            digest = hash_token(token) if token else ""
            if digest and room.seat_of(digest) is None and not room.is_host(digest):
                if room.game is None:
                    digest = ""  # a token from a seat since given away: enter as a visitor
                else:
                    started = self._room_session(room, msg.id)
                    if started.seats_for(token or "") is None:
                        digest = ""
            return await self._enter_room(conn, current, room, digest, msg, None)
        here = self._room_of(conn)
        if here is None:
            raise P.ProtocolError(P.NO_GAME, "enter a room first (its code or link)", msg.id)
        room = here
        clients = self.room_clients[room.code]
        digest = clients[conn]
        new_token: str | None = None
        try:
            if msg.type == "sit":
                if not digest:
                    new_token = secrets.token_urlsafe(18)
                    digest = hash_token(new_token)
                name = clean_name(body.get("name"), SEAT_NAMES[body["seat"] % 4])
                room.sit(digest, body["seat"], name)
                clients[conn] = digest
            elif msg.type == "stand":
                room.stand(digest)
            elif msg.type == "seat_bot":
                room.set_seat(digest, body["seat"], body["bot"], self.config.url_bots)
            elif msg.type == "swap":
                room.swap(digest, body["a"], body["b"])
            elif msg.type == "start":
                return await self._start_room(conn, room, digest, msg)
        except RoomError as e:
            raise P.ProtocolError(e.code, str(e), msg.id) from None
        self._save_room_or_fail(room, msg.id)
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
        await _safe_send(conn, reply)
        for other in list(clients):
            if other is not conn:
                await self._send_room(other, room, clients)

    async def _send_room(
        self, conn: Connection, room: Room, clients: dict[Connection, str]
    ) -> None:
        try:
            await _safe_send(conn, room.snapshot(clients[conn] or None, set(clients.values())))
        except Exception:
            log.debug("send failed", exc_info=True)

    def _save_room_or_fail(self, room: Room, ident: str | None) -> None:
        try:
            self._save_room(room)
        except GameError as e:
            raise P.ProtocolError(P.UNAVAILABLE, str(e), ident) from None

    def _room_session(self, room: Room, ident: str | None) -> GameSession:
        assert room.game is not None
        session = self.sessions.get(room.game) or self._recall(room.game)
        if session is None:
            raise P.ProtocolError(P.NOT_FOUND, "this room's game is over or gone", ident)
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
            session = self._room_session(room, msg.id)
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
            await session._send(other, state)
        async with session.lock:
            await session._changed([])
        session.kick()
        return session

    def _sweep_rooms(self) -> None:
        """Forget rooms nobody is in whose game never started or is gone."""
        for code in list(self.rooms):
            room = self.rooms[code]
            if self.room_clients.get(code):
                continue
            if room.game is None or room.game not in self.sessions:
                del self.rooms[code]
                self.room_clients.pop(code, None)
                if self.store is not None:
                    try:
                        self.store.drop_room(code)
                    except StoreError as e:
                        log.error("room %s could not be dropped: %s", code, e)
                if len(self.rooms) < self.config.max_rooms // 2:
                    return


ROOM_TYPES = ("room_create", "room_join", "sit", "stand", "seat_bot", "swap", "start")


def welcome() -> dict[str, Any]:
    return {
        "type": "welcome",
        "v": 0,
        "protocol": PROTOCOL_VERSION,
        "server": f"twentynine {__version__}",
    }


def dumps(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))
