"""Games on the event loop: clients, bot turns, pauses and replies.

A ``GameSession`` wraps one ``Game`` for the server. It keeps the game's
*version* (one more with every change a client can see), the clients that
control its seats, the replies to recent client messages (so a resent
message is answered again but applied once), and a *hold*: after a trick or
a deal ends the bots wait until a player has looked at the table and says
``continue`` (or asks for the next deal). The bots of a session play one at
a time, through the ``BotPool``, at a human pace.

With a ``GameStore`` (see ``store``), every change of a game's log is
written before any client hears of it. A client hears of it through its
outbox (``outbox``): a session puts messages there, under its lock, and
never waits for a client's socket. The sessions of a server, and its rooms,
are the ``Lobby``'s (``lobby``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..game.actions import PAIR, PLAY, REVEAL, Action
from ..game.engine import IllegalAction
from ..services.protocols.fault import BotFault
from . import protocol as P
from . import timers
from .botpool import BotPool
from .config import ServerConfig
from .durable import Keeping, Replies
from .forfeit import public_fault
from .game import SIGNAL, Game, GameError, parse_action
from .outbox import Connection, deliver
from .pair import PairPause, PairTable
from .room import STANDIN, TableRules
from .setup import SEAT_NAMES, GameSetup
from .store import GameStore, hash_token
from .timers import TableClocks

log = logging.getLogger("twentynine.server")

TRICK, DEAL = P.TRICK, P.DEAL


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
class GameSession(PairTable, Keeping, TableClocks):
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
    # replies to recent messages, by the sender's seats and message id: a resend from the
    # same seats (say after a reconnect, or a restart: they are stored) is answered again,
    # never applied twice (see ``durable``)
    replies: Replies = field(default_factory=Replies)
    version_kept: int = 0  # the store's version ceiling: no version sent is above it
    asking: tuple[tuple[int, ...], str] | None = None  # the message whose reply is not stored
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
    timers_written: tuple[Any, ...] | None = None  # the timers the store has (their shape)
    pairing: PairPause = field(default_factory=PairPause)  # see ``pair``

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
            "views": {key: self._view(seat) for key, seat in seating.keys},
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

    def _send(self, conn: Connection, data: dict[str, Any]) -> None:
        """Into the client's outbox (``outbox``): a session never waits for a client."""
        deliver(conn, data)

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
        if self.version > self.version_kept:
            self.keep_version()
        self.last_active = time.monotonic()
        self._reschedule()
        if self.table is not None and timers.shape(self.clocks()) != self.timers_written:
            self._save_settings(bump=0)  # a timer started or stopped: a restart goes on with it
        if reset:
            events = self.game.deal_events
        arrived = arrived or {}
        for conn, seating in list(self.clients.items()):
            if conn in arrived:
                ident, token = arrived[conn]
                self._send(conn, self._state_with_token(seating, ident, token))
            else:
                self._send(conn, self._update_message(seating, events, reset))

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
            out["timers"] = timers.to_json(self.clocks(), self.table.grace, self._now())
        if self.forfeit is not None:
            out["forfeit"] = self.forfeit
        if self.pairing.choice is not None:
            out["pair_choice"] = self.pairing.to_json()
        return out

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
            self._send(conn, self._state_with_token(seating, ident, token))
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

    async def handle(self, conn: Connection, msg: P.Message) -> None:
        """A message from a client attached to this session."""
        seating = self.clients.get(conn)
        if seating is None:
            raise P.ProtocolError(P.NO_GAME, "join the game first", msg.id)
        if msg.type == "sync":
            self._send(conn, self.state_message(seating, msg.id))
            return
        known = self.replies.get(seating.seats, msg.id)
        if known is not None:
            self._send(conn, {**known, "duplicate": True})
            return
        async with self.lock:
            known = self.replies.get(seating.seats, msg.id)  # the same id, sent twice at once
            if known is not None:
                self._send(conn, {**known, "duplicate": True})
                return
            if msg.id is not None and seating.seats:
                self.asking = (seating.seats, msg.id)
            try:
                if not seating.seats and msg.type != "configure":
                    raise P.ProtocolError(
                        P.FORBIDDEN,
                        "spectators watch: take a seat to play",
                        msg.id,
                        "spectator",
                    )
                await self._handle_change(seating, msg)
                reply = {"type": "ack", "v": self.version, "id": msg.id}
            except P.ProtocolError as e:
                reply = P.error(e.code, str(e), msg.id, self.version, e.reason, e.params)
            except IllegalAction as e:
                reply = P.error(P.ILLEGAL, str(e), msg.id, self.version)
            except GameError as e:
                reply = P.error(P.UNAVAILABLE, str(e), msg.id, self.version)
            self._keep_reply(seating.seats, msg.id, reply)
            self.replies.add(seating.seats, msg.id, reply)
        self._send(conn, reply)
        self.kick()

    async def _handle_change(self, seating: Seating, msg: P.Message) -> None:
        game = self.game
        if msg.type in ("act", "next_deal", "undo") and self.forfeit is not None:
            raise P.ProtocolError(
                P.UNAVAILABLE, "the game is over: it was forfeited", msg.id, "forfeited"
            )
        if msg.type == "act":
            action = _read_action(msg)
            if action.seat not in seating.seats:
                raise P.ProtocolError(
                    P.NOT_YOUR_SEAT, f"seat {action.seat} is not yours to play", msg.id
                )
            signal = msg.body.get(SIGNAL)
            if signal is not None and not self.setup.signals:
                raise GameError("signals are off at this table")
            if not await self._note_pair_choice(action):
                await self._apply(action, by_player=True, signal=signal)
        elif msg.type == "continue":
            at = msg.body.get("at")
            if self.hold is not None and (at is None or at == self.hold_at):
                if self.hold == DEAL:
                    raise GameError("the deal is over: ask for the next deal")
                if self.table is None or not self.pairing.on:  # a pair pause runs its length
                    await self._end_pause()
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
                self._save_settings(bump=0)
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
            self._start_pause()
            if self.table is not None:  # a room's table goes on by itself
                self._release_later(self.hold_at)
        elif self.hold == TRICK and by_player and action.kind in (PLAY, REVEAL):
            self.hold = None  # a player who leads has seen the last trick
        await self._changed(events)

    def _release_later(self, at: int) -> None:
        pause = self.config.trick_pause
        if self.pairing.on:
            pause = max(pause, self.config.pair_pause)

        async def release() -> None:
            await asyncio.sleep(pause * self.pace)
            async with self.lock:
                if self.hold == TRICK and self.hold_at == at:
                    await self._end_pause()
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
        if self.hold == TRICK and self.pairing.on:  # decided as the pair pause ends
            return False
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
            from ..services.protocols.bhoos.adapter import ProtocolBot

            url = self.setup.seats[seat].url
            assert url is not None
            bot = self.external[seat] = ProtocolBot(
                url, seed=self.game.bot_seed(seat), hosts=self.config.bot_hosts
            )
        try:
            action: Action = await asyncio.to_thread(bot.act, obs)
        except BotFault:
            raise
        except Exception:  # anything else the adapter raised is the bot's fault too
            log.exception("game %s: the contest bot of seat %d failed", self.ident, seat)
            raise BotFault(
                "its answer could not be used", seat=seat, bot=bot.url, kind="bad_answer"
            ) from None
        return action

    async def _forfeit(self, seat: int, fault: BotFault) -> None:
        """A contest bot failed: its team loses the game, and the fault is shown to all.

        What every player sees (and the store keeps) is ``public_fault``: the
        kind and a short reason, never the request or what came back. The
        operator finds the answer's first bytes in the log.
        """
        info = public_fault(fault, seat)
        self.forfeit = info
        self.hold = None
        log.warning(
            "game %s forfeited by %s: %s (%s; answer %s)",
            self.ident,
            SEAT_NAMES[seat],
            fault,
            fault.kind,
            "none" if fault.answer is None else repr(fault.answer[:300]),
        )
        self._save_settings()
        with contextlib.suppress(GameError):  # the log is saved; the record may wait
            self._save()
        event = {"type": "forfeit", "seat": seat, "team": seat & 1, "message": info["message"]}
        await self._changed([event])


def _read_action(msg: P.Message) -> Action:
    try:
        return parse_action(msg.body["action"])
    except GameError as e:
        raise P.ProtocolError(P.BAD_ACTION, str(e), msg.id) from None


__all__ = ["Connection", "GameSession", "Seating"]
