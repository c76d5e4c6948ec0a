"""The people of ``twentynine bench load``: websocket clients who play at tables.

A ``Client`` is one websocket (a person at a seat, or a spectator); a
``Table`` is four people (and its spectators) who create, join, sit and start
a room through the protocol, then play a random legal action whenever their
seat has one, after a think time if there is one (``Settings.think``, on
average: each wait is drawn from half to one and a half times it). With
several servers, the people of one table connect to different ones, by seat
(seat ``s`` of table ``i`` to server ``(i + s) % N``): the host's server owns
the room and the others' messages are relayed to it (``Settings.together``:
all four on the host's). A step of the benchmark plays them: ``load_step``.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import inspect
import json
import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from websockets.exceptions import ConnectionClosed

try:  # websockets >= 13
    from websockets.asyncio.client import connect as ws_connect
except ImportError:  # pragma: no cover - older websockets
    from websockets.client import connect as ws_connect  # type: ignore[no-redef, attr-defined]

ACK_TIMEOUT = 10.0  # an act unanswered this long is lost (a stall)
STALL_SECONDS = 5.0  # a table with no change this long while it should move is stalled
DRAIN_SECONDS = 5.0
MOVING_TRIES = 20  # room_join answered "moving" (a room changing process): tries at most
SETUP_AT_ONCE = 32  # tables of one client process that connect and open their room at once
CLIENT_FDS = 64  # descriptors a client process needs besides its sockets

Msg = dict[str, Any]


# ------------------------------------------------------------------ figures


def percentile(sorted_values: list[float], q: float) -> float:
    """The nearest-rank percentile ``q`` (0..100) of values sorted ascending."""
    if not sorted_values:
        return math.nan
    rank = max(1, math.ceil(q / 100 * len(sorted_values)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


@dataclass
class StepStats:
    """What one step's clients saw."""

    rooms: int
    clients: int
    rtts: list[float] = field(default_factory=list)  # seconds, acts sent in the window
    acts: int = 0  # acts sent (all of the step)
    acked: int = 0
    errors: collections.Counter[str] = field(default_factory=collections.Counter)
    lost: int = 0  # acts never answered
    gaps: int = 0  # updates whose version skipped one
    deals: int = 0  # next_deal requests answered
    games: int = 0  # matches played to their end
    stalls: int = 0
    moving: int = 0  # room_join answered "moving", and tried again
    # what was sent in a pair window (a declaration or a pass) answered "illegal": another
    # seat acted first and closed the window, a race a person at a real table can lose too
    # (not an error of the server)
    late_pairs: int = 0
    setup_seconds: float = 0.0
    window: float = 0.0
    aborted: str | None = None

    @property
    def error_count(self) -> int:
        return sum(self.errors.values()) + self.lost

    def add(self, other: StepStats) -> None:
        """Count another client process's figures in with these."""
        self.rtts.extend(other.rtts)
        self.acts += other.acts
        self.acked += other.acked
        self.errors.update(other.errors)
        self.lost += other.lost
        self.gaps += other.gaps
        self.deals += other.deals
        self.games += other.games
        self.stalls += other.stalls
        self.moving += other.moving
        self.late_pairs += other.late_pairs
        self.setup_seconds = max(self.setup_seconds, other.setup_seconds)
        self.aborted = self.aborted or other.aborted

    def summary(self) -> dict[str, Any]:
        ts = sorted(self.rtts)
        ms = 1000.0

        def fig(x: float) -> float | None:
            return None if math.isnan(x) else round(x * ms, 2)

        return {
            "rooms": self.rooms,
            "clients": self.clients,
            "actions": len(ts),
            "actions_per_s": round(len(ts) / self.window, 1) if self.window > 0 else 0.0,
            "p50_ms": fig(percentile(ts, 50)),
            "p95_ms": fig(percentile(ts, 95)),
            "p99_ms": fig(percentile(ts, 99)),
            "max_ms": fig(ts[-1]) if ts else None,
            "errors": self.error_count,
            "error_codes": dict(self.errors) | ({"lost": self.lost} if self.lost else {}),
            "version_gaps": self.gaps,
            "stalls": self.stalls,
            "moving_retries": self.moving,
            "late_pairs": self.late_pairs,
            "deals": self.deals,
            "games": self.games,
            "setup_s": round(self.setup_seconds, 2),
            "window_s": round(self.window, 2),
            "aborted": self.aborted,
        }


# ------------------------------------------------------------------ the clients


@dataclass
class Settings:
    profile: str = "pagat"
    length: str = "match"
    target: int | None = None  # game points that end a match (None: the profile's)
    think: float = 0.0  # seconds, on average, before each action
    spectators: int = 0
    seconds: float = 20.0
    warmup: float = 2.0
    seed: int = 29
    together: bool = False  # every person of a table on its host's server (no relaying)


class Step:
    """The clock and the counters one step's clients share."""

    def __init__(self, rooms: int, clients: int) -> None:
        self.stats = StepStats(rooms, clients)
        self.window_start = math.inf
        self.window_end = math.inf
        self.stopping = False  # the players stop playing
        self.closing = False  # the probes stop too

    def in_window(self, t: float) -> bool:
        return self.window_start <= t < self.window_end


class Refused(RuntimeError):
    """A request answered with an error."""

    def __init__(self, kind: str, reply: Msg) -> None:
        super().__init__(f"{kind} refused: {reply.get('code')}: {reply.get('message')}")
        self.code = reply.get("code")
        self.reason = reply.get("reason")


class Client:
    """One websocket: a person at a seat (or a spectator, ``seat`` None)."""

    def __init__(self, step: Step, seat: int | None, rng: random.Random, think: float) -> None:
        self.step = step
        self.seat = seat
        self.rng = rng
        self.think = think
        self.prefix = f"{rng.getrandbits(40):010x}"  # ids are unique per game, not per socket
        self.counter = 0
        self.ws: Any = None
        self.reader: asyncio.Task[None] | None = None
        self.waiting: dict[str, asyncio.Future[Msg]] = {}
        self.pongs: collections.deque[asyncio.Future[Msg]] = collections.deque()
        self.sent_at: dict[str, float] = {}  # act id -> when it was sent
        self.pairs: set[str] = set()  # ids of the pair declarations in flight
        self.latest: Msg | None = None  # the last state or update
        self.version: int | None = None
        self.changed = asyncio.Event()
        self.last_change = time.monotonic()
        self.deal_asked_at: int | None = None  # the version at which we asked for a deal
        # between games: the old game's messages are ignored until the new one's state
        self.accepting = True
        self.acts: list[tuple[float, float]] = []  # (sent, round trip) of every act acked
        self.source: str | None = None  # the local address to connect from (None: any)

    def next_id(self) -> str:
        self.counter += 1
        return f"{self.prefix}-{self.counter}"

    async def open(self, url: str) -> None:
        kwargs: dict[str, Any] = {"open_timeout": 30}
        if "proxy" in inspect.signature(ws_connect).parameters:
            kwargs["proxy"] = None  # loopback: never through a proxy of the environment
        if self.source is not None:  # a loopback address of its own (127.x.y.z)
            kwargs["local_addr"] = (self.source, 0)
        self.ws = await ws_connect(url, **kwargs)
        welcome = json.loads(await asyncio.wait_for(self.ws.recv(), 30))
        if welcome.get("type") != "welcome":
            raise RuntimeError(f"expected a welcome, got {welcome}")
        self.reader = asyncio.create_task(self._read())

    async def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.ws.close(), 5)
        if self.reader is not None:
            self.reader.cancel()
            await asyncio.wait([self.reader], timeout=5)

    async def send(self, kind: str, **body: Any) -> str:
        ident = self.next_id()
        await self.ws.send(json.dumps({"type": kind, "id": ident, **body}))
        return ident

    async def request(self, kind: str, timeout: float = 30.0, **body: Any) -> Msg:
        """Send a message and wait for the reply that carries its id."""
        ident = self.next_id()
        fut: asyncio.Future[Msg] = asyncio.get_running_loop().create_future()
        self.waiting[ident] = fut
        try:
            await self.ws.send(json.dumps({"type": kind, "id": ident, **body}))
            reply = await asyncio.wait_for(fut, timeout)
        finally:
            self.waiting.pop(ident, None)
        if reply.get("type") == "error":
            raise Refused(kind, reply)
        return reply

    async def _read(self) -> None:
        try:
            await self._read_messages()
        except ConnectionClosed:
            pass  # the step is over (or the server went away: the step notices)
        except Exception as e:  # a message this client cannot read: an error of its own
            self.step.stats.errors[f"client: {type(e).__name__}"] += 1

    async def _read_messages(self) -> None:
        stats = self.step.stats
        async for text in self.ws:
            now = time.perf_counter()
            msg: Msg = json.loads(text)
            kind = msg.get("type")
            ident = msg.get("id")
            if kind == "ack" or kind == "error":
                sent = self.sent_at.pop(ident, None) if ident else None
                if kind == "ack" and sent is not None:
                    stats.acked += 1
                    self.acts.append((sent, now - sent))
                    if self.step.in_window(sent):
                        stats.rtts.append(now - sent)
                elif kind == "error" and (sent is not None or ident not in self.waiting):
                    if ident in self.pairs and msg.get("code") == "illegal":
                        stats.late_pairs += 1
                    else:
                        stats.errors[str(msg.get("code"))] += 1  # (a request's: its caller's)
                self.pairs.discard(ident)
            if kind == "pong" and self.pongs:
                pong = self.pongs.popleft()
                if not pong.done():
                    pong.set_result(msg)
            if kind == "state":
                self.accepting = True
            if kind in ("state", "update") and self.accepting:
                v = msg.get("v")
                if kind == "update" and self.version is not None and v != self.version + 1:
                    stats.gaps += 1
                self.version = v if isinstance(v, int) else None
                self.latest = msg
                self.last_change = time.monotonic()
            if ident and ident in self.waiting:
                fut = self.waiting.pop(ident)
                if not fut.done():
                    fut.set_result(msg)
            self.changed.set()

    def reset_game(self) -> None:
        """This socket has left its game (for a new room): forget the old one."""
        self.latest = None
        self.version = None
        self.deal_asked_at = None
        self.accepting = False

    def phase(self) -> str | None:
        """The phase of this seat's newest view."""
        if self.latest is None or self.seat is None:
            return None
        view = self.latest.get("views", {}).get(str(self.seat)) or {}
        phase = view.get("phase")
        return phase if isinstance(phase, str) else None

    def my_legal(self) -> list[Msg]:
        if self.latest is None or self.seat is None:
            return []
        view = self.latest.get("views", {}).get(str(self.seat)) or {}
        legal = view.get("legal") or []
        return list(legal)

    @property
    def game_over(self) -> bool:
        return bool(self.latest and self.latest.get("over"))

    async def play(self) -> None:
        """Act whenever this seat has legal actions, until the game or the step ends."""
        stats = self.step.stats
        while not self.step.stopping and not self.game_over:
            self.changed.clear()
            if self.sent_at:  # one act in flight at a time, as a person plays
                await self._wait_change()
                continue
            legal = self.my_legal()
            if legal:
                if self.think > 0:
                    await asyncio.sleep(self.think * self.rng.uniform(0.5, 1.5))
                    legal = self.my_legal()  # what holds now
                    if not legal or self.step.stopping:
                        continue
                action = legal[int(self.rng.random() * len(legal))]
                ident = self.next_id()
                if self.phase() == "pair":  # a declaration, or a pass, in the pair window
                    self.pairs.add(ident)
                self.sent_at[ident] = time.perf_counter()
                stats.acts += 1
                await self.ws.send(json.dumps({"type": "act", "id": ident, "action": action}))
                continue
            latest = self.latest
            if (
                self.seat == 0
                and latest is not None
                and latest.get("hold") == "deal"
                and self.deal_asked_at != latest.get("v")
            ):
                self.deal_asked_at = latest.get("v")
                try:
                    await self.request("next_deal", timeout=ACK_TIMEOUT)
                    stats.deals += 1
                except TimeoutError:
                    stats.lost += 1
                except RuntimeError as e:
                    if not self.step.stopping:
                        stats.errors[f"next_deal: {e}"[:60]] += 1
                continue
            await self._wait_change()

    async def _wait_change(self) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.changed.wait(), 1.0)
        now = time.perf_counter()
        for ident, sent in list(self.sent_at.items()):
            if now - sent > ACK_TIMEOUT:  # never answered: count it, and play on
                del self.sent_at[ident]
                self.step.stats.lost += 1
                self.acts.append((sent, now - sent))  # (a round trip at least this long)

    def unanswered(self, now: float) -> list[tuple[float, float]]:
        """The acts still waiting for their ack, as (sent, round trip so far)."""
        return [(sent, now - sent) for sent in self.sent_at.values()]


class Table:
    """Four people (and spectators) who play room after room until the step ends.

    ``url`` is the server's, or the servers' (a list): seat ``s`` then connects to
    ``url[(index + s) % len(url)]``, and the spectators to the servers after those.
    """

    def __init__(
        self, index: int, step: Step, settings: Settings, url: str | Sequence[str]
    ) -> None:
        self.index = index
        self.step = step
        self.settings = settings
        self.urls = [url] if isinstance(url, str) else list(url)
        rng = random.Random(f"{settings.seed}:{index}")
        self.people = [
            Client(step, seat, random.Random(rng.random()), settings.think) for seat in range(4)
        ]
        self.watchers = [
            Client(step, None, random.Random(rng.random()), 0) for _ in range(settings.spectators)
        ]

    @property
    def url(self) -> str:
        """The host's server: the one that owns the table's rooms."""
        return self.urls[self.index % len(self.urls)]

    @property
    def clients(self) -> list[Client]:
        return self.people + self.watchers

    def url_of(self, position: int) -> str:
        """The server of the person (0-3) or spectator (4 on) at this position."""
        if self.settings.together:
            return self.url
        return self.urls[(self.index + position) % len(self.urls)]

    async def connect(self) -> None:
        await asyncio.gather(*(c.open(self.url_of(i)) for i, c in enumerate(self.clients)))

    async def open_room(self) -> None:
        """Create, fill and start a room through the protocol."""
        host, guests = self.people[0], self.people[1:]
        setup: Msg = {"profile": self.settings.profile, "length": self.settings.length}
        if self.settings.target is not None and self.settings.length == "match":
            setup["target"] = self.settings.target
        room = await host.request("room_create", setup=setup, name=f"Host {self.index}")
        host.reset_game()  # each socket leaves its old game with its first room message
        code = room["code"]
        for guest in guests:
            await self._join(guest, code)
            guest.reset_game()
            await guest.request("sit", seat=guest.seat, name=f"P{self.index}.{guest.seat}")
        for watcher in self.watchers:
            await self._join(watcher, code)
            watcher.reset_game()
        started = await host.request("start")
        if started.get("type") != "state":
            raise RuntimeError(f"start answered {started}")

    async def _join(self, client: Client, code: str) -> None:
        """Join the room; on another process than its owner's, a room just made may be
        ``moving`` (its lease not yet seen there): try again in a moment, as told."""
        for attempt in range(MOVING_TRIES):
            try:
                await client.request("room_join", code=code)
                return
            except Refused as e:
                if e.reason != "moving" or attempt == MOVING_TRIES - 1:
                    raise
                self.step.stats.moving += 1
                await asyncio.sleep(0.02 * (attempt + 1))

    async def run(self) -> None:
        """Play games until the step stops; a finished match opens a new room."""
        while not self.step.stopping:
            await asyncio.gather(*(p.play() for p in self.people), self._watch())
            if self.step.stopping:
                return
            self.step.stats.games += 1
            await self.open_room()

    async def _watch(self) -> None:
        """A table that should move but has not for a while is stalled: count it, resync."""
        quiet = STALL_SECONDS + 3 * self.settings.think
        while not self.step.stopping and not self.people[0].game_over:
            await asyncio.sleep(1.0)
            last = max(c.last_change for c in self.people)
            if time.monotonic() - last > quiet and not any(p.sent_at for p in self.people):
                self.step.stats.stalls += 1
                for p in self.people:
                    with contextlib.suppress(Exception):
                        await p.send("sync")
                    p.last_change = time.monotonic()

    async def close(self) -> None:
        await asyncio.gather(*(c.close() for c in self.clients))


async def finish(
    tasks: list[asyncio.Task[Any]], timeout: float = 10.0, cancel: bool = True
) -> None:
    """Cancel tasks (or let them end by themselves) and wait for them, a bounded time."""
    if not tasks:
        return
    if cancel:
        for task in tasks:
            task.cancel()
    _, pending = await asyncio.wait(tasks, timeout=timeout)
    for task in pending:
        task.cancel()
    if pending:
        await asyncio.wait(pending, timeout=5)
    for task in tasks:  # retrieve the exceptions, so that asyncio does not report them
        if task.done() and not task.cancelled():
            task.exception()


async def pinger(step: Step, probe: Client, pings: list[float], every: float = 0.05) -> None:
    """Pings on a socket of its own: the server answers a ping without touching any game,
    so its round trip is the server's event loop (and the network), not a game's lock."""
    while not step.closing:
        await asyncio.sleep(every)
        sent = time.perf_counter()
        fut: asyncio.Future[Msg] = asyncio.get_running_loop().create_future()
        probe.pongs.append(fut)
        await probe.ws.send('{"type":"ping"}')
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(fut, ACK_TIMEOUT)
            if step.in_window(sent):
                pings.append(time.perf_counter() - sent)


async def loop_lag(step: Step, lags: list[float], tick: float = 0.01) -> None:
    """How late this process's event loop wakes up in the window: when the clients
    themselves are starved, the round trips they measure grow with it."""
    while not step.closing:
        t = time.perf_counter()
        await asyncio.sleep(tick)
        if step.in_window(t):
            lags.append(max(0.0, time.perf_counter() - t - tick))


__all__ = [
    "ACK_TIMEOUT",
    "CLIENT_FDS",
    "Client",
    "Refused",
    "Settings",
    "Step",
    "StepStats",
    "Table",
    "finish",
    "loop_lag",
    "percentile",
    "pinger",
    "ws_connect",
]
