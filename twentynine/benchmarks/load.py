"""``twentynine bench load``: online rooms under load, over loopback.

The real server (``twentynine serve``, uvicorn, one process) runs as a
subprocess on a free port of 127.0.0.1 with its own database (a temporary
SQLite file, or ``:memory:``), no bot delay, no bot workers (the tables hold
people only) and a short trick pause. This process plays the clients,
with asyncio and the ``websockets`` client: M rooms of four people each, who
create, join, sit and start the room through the protocol, then play a random
legal action whenever their seat has one (after an optional think time). The
host asks for the next deal when a deal ends; when a match is over the four
open a new room on the same connections and play on.

The figure measured is an action's round trip: from sending ``act`` to
receiving its ``ack``. For each M it reports p50, p95, p99 and the worst,
actions per second, every error, skipped versions and stalled tables, the
server's memory and CPU, and two figures that say where the time goes: the
p99 of a ping on a socket of its own (the server's event loop, outside any
game) and how late the clients' own event loop wakes up. M grows step by
step (1, 2, 4, ...) while p99 stays under the target (100 ms), and a few
steps between the last M under the target and the first over it narrow the
answer down. Each step has a fresh server, so no step pays for the games of
the one before.

Bounds: at most 128 rooms (a server keeps 200 games and 500 rooms by
default, and a finished match's game stays until it is swept), at most 300
seconds per step and ``--budget`` seconds (up to an hour) for the whole run; a
step stops early if the server or this process uses more memory than
``--max-rss-mb``. The server is stopped at the end of every step, on errors
and on Ctrl-C (and, on Linux, if this process dies).

Both processes share the machine, so the figures are the server's and the
clients' together: with zero think time every room keeps one action in
flight, which makes M a measure of saturation, not of people at tables.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import inspect
import json
import math
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.exceptions import ConnectionClosed

from ..game.rules import PROFILES
from ..server.limits import NO_LIMITS_ENV
from .localhost import free_port, stop

try:  # websockets >= 13
    from websockets.asyncio.client import connect as ws_connect
except ImportError:  # pragma: no cover - older websockets
    from websockets.client import connect as ws_connect  # type: ignore[no-redef, attr-defined]

HOST = "127.0.0.1"  # loopback only: the benchmark never talks to another host
MAX_ROOMS = 128  # the server keeps 200 games and 500 rooms at most; stay well below
MAX_SPECTATORS = 4
MAX_STEP_SECONDS = 300.0
MAX_BUDGET = 3600.0
ACK_TIMEOUT = 10.0  # an act unanswered this long is lost (a stall)
STALL_SECONDS = 5.0  # a table with no change this long while it should move is stalled
DRAIN_SECONDS = 5.0

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
    setup_seconds: float = 0.0
    window: float = 0.0
    aborted: str | None = None

    @property
    def error_count(self) -> int:
        return sum(self.errors.values()) + self.lost

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
            "deals": self.deals,
            "games": self.games,
            "setup_s": round(self.setup_seconds, 2),
            "window_s": round(self.window, 2),
            "aborted": self.aborted,
        }


# ------------------------------------------------------------------ the server


def _prctl() -> Any:
    """libc's ``prctl``, looked up here: the child between fork and exec only calls it."""
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (ImportError, OSError, AttributeError):
        return None


_PRCTL = _prctl() if sys.platform == "linux" else None
PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:  # pragma: no cover - runs in the child
    """The server gets SIGTERM if the benchmark dies, even by SIGKILL (Linux)."""
    if _PRCTL is not None:
        _PRCTL(PR_SET_PDEATHSIG, signal.SIGTERM)
    os.setsid()  # a Ctrl-C in the terminal is ours to handle: we stop the server


def _proc_rss_mb(pid: int | str) -> float | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def _proc_cpu_seconds(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


class Server:
    """``twentynine serve`` on a free loopback port, in its own process group."""

    def __init__(
        self, memory_db: bool, trick_pause_ms: int, env: dict[str, str] | None = None
    ) -> None:
        self.tmp = tempfile.TemporaryDirectory(prefix="twentynine-load-")
        # the players here act with no thought at all: no limit of a connection or an
        # address applies to them (``bench abuse`` passes the limits it measures instead)
        self.env = NO_LIMITS_ENV if env is None else env
        self.db = ":memory:" if memory_db else str(Path(self.tmp.name) / "games.sqlite3")
        self.log_path = Path(self.tmp.name) / "server.log"
        self.trick_pause_ms = trick_pause_ms
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"ws://{HOST}:{self.port}/ws"

    def start(self, timeout: float = 60.0) -> None:
        env = {
            **os.environ,
            "TWENTYNINE_BOT_DELAY_MS": "0",
            "TWENTYNINE_TRICK_PAUSE_MS": str(self.trick_pause_ms),
            "TWENTYNINE_PAIR_PAUSE_MS": str(self.trick_pause_ms),  # the same wait after each
            "TWENTYNINE_BOT_WORKERS": "0",  # the tables hold people only: no worker processes
            "PYTHONUNBUFFERED": "1",
            **self.env,
        }
        env.pop("TWENTYNINE_DB", None)
        for attempt in range(3):  # a port taken between our probe and the server's bind
            self.port = free_port(HOST)
            cmd = [sys.executable, "-m", "twentynine.cli.main", "serve", "--host", HOST]
            cmd += ["--port", str(self.port), "--db", self.db]
            with open(self.log_path, "ab") as out:
                self.proc = subprocess.Popen(
                    cmd,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    preexec_fn=_die_with_parent if sys.platform == "linux" else None,
                    start_new_session=sys.platform != "linux",
                )
            deadline = time.monotonic() + timeout
            while self.proc.poll() is None and time.monotonic() < deadline:
                try:
                    url = f"http://{HOST}:{self.port}/healthz"
                    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
                    with opener.open(url, timeout=1) as r:
                        if r.status == 200:
                            return
                except OSError:
                    time.sleep(0.05)
            self.stop()
            if attempt == 2 or time.monotonic() >= deadline:
                break
        raise RuntimeError(f"the server did not start:\n{self.log_tail()}")

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def rss_mb(self) -> float | None:
        return _proc_rss_mb(self.proc.pid) if self.proc is not None else None

    def cpu_seconds(self) -> float | None:
        return _proc_cpu_seconds(self.proc.pid) if self.proc is not None else None

    def kill(self) -> None:
        """At once, without waiting (``stop`` reaps it later)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None:
            stop(proc, wait=5)

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def log_tail(self, lines: int = 30) -> str:
        return "\n".join(self.log_text().splitlines()[-lines:])

    def log_errors(self) -> list[str]:
        """Lines of the server's log that report a failure (tracebacks, errors)."""
        bad = ("Traceback", "ERROR", "Exception", "error handling")
        return [ln for ln in self.log_text().splitlines() if any(b in ln for b in bad)]

    def close(self) -> None:
        self.stop()
        self.tmp.cleanup()


class StepTimeout(Exception):
    """A step ran past its hard time limit."""


@contextlib.contextmanager
def hard_limit(seconds: float, server: Server) -> Iterator[None]:
    """The last resort against a hang, whatever its cause: past ``seconds`` the server is
    killed (every socket closes, every wait ends) and ``StepTimeout`` is raised."""
    if (
        not hasattr(signal, "setitimer")
        or threading.current_thread() is not threading.main_thread()
    ):
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        server.kill()
        raise StepTimeout(f"past {seconds:.0f} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def running_server(
    memory_db: bool, trick_pause_ms: int, env: dict[str, str] | None = None
) -> Iterator[Server]:
    server = Server(memory_db, trick_pause_ms, env)
    try:
        server.start()
        yield server
    finally:
        server.close()


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
            raise RuntimeError(f"{kind} refused: {reply.get('code')}: {reply.get('message')}")
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
                    stats.errors[str(msg.get("code"))] += 1  # (a request's: its caller's)
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
    """Four people (and spectators) who play room after room until the step ends."""

    def __init__(self, index: int, step: Step, settings: Settings, url: str) -> None:
        self.index = index
        self.step = step
        self.settings = settings
        self.url = url
        rng = random.Random(f"{settings.seed}:{index}")
        self.people = [
            Client(step, seat, random.Random(rng.random()), settings.think) for seat in range(4)
        ]
        self.watchers = [
            Client(step, None, random.Random(rng.random()), 0) for _ in range(settings.spectators)
        ]

    @property
    def clients(self) -> list[Client]:
        return self.people + self.watchers

    async def connect(self) -> None:
        await asyncio.gather(*(c.open(self.url) for c in self.clients))

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
            await guest.request("room_join", code=code)
            guest.reset_game()
            await guest.request("sit", seat=guest.seat, name=f"P{self.index}.{guest.seat}")
        for watcher in self.watchers:
            await watcher.request("room_join", code=code)
            watcher.reset_game()
        started = await host.request("start")
        if started.get("type") != "state":
            raise RuntimeError(f"start answered {started}")

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


def _self_rss_mb() -> float | None:
    return _proc_rss_mb("self")


async def run_step(server: Server, rooms: int, settings: Settings, max_rss_mb: float) -> Msg:
    """One step: ``rooms`` tables on a fresh server, measured for ``settings.seconds``."""
    step = Step(rooms, rooms * (4 + settings.spectators))
    stats = step.stats
    tables = [Table(i, step, settings, server.url) for i in range(rooms)]
    peak_rss = start_rss = server.rss_mb() or 0.0
    runners: list[asyncio.Task[None]] = []
    lags: list[float] = []
    pings: list[float] = []
    lag_task = asyncio.create_task(_loop_lag(step, lags))
    probe = Client(step, None, random.Random(0), 0)
    ping_task: asyncio.Task[None] | None = None
    cpu0 = cpu1 = t_cpu0 = t_cpu1 = None
    own0 = own1 = 0.0
    try:
        t0 = time.monotonic()
        setup_timeout = 30 + 0.5 * rooms
        await asyncio.wait_for(asyncio.gather(*(t.connect() for t in tables)), setup_timeout)
        await asyncio.wait_for(asyncio.gather(*(t.open_room() for t in tables)), setup_timeout)
        stats.setup_seconds = time.monotonic() - t0
        await probe.open(server.url)
        ping_task = asyncio.create_task(_pinger(step, probe, pings))
        start = time.perf_counter()
        step.window_start = start + settings.warmup
        step.window_end = step.window_start + settings.seconds
        runners = [asyncio.create_task(t.run()) for t in tables]
        await asyncio.sleep(max(0.0, step.window_start - time.perf_counter()))
        cpu0, own0, t_cpu0 = server.cpu_seconds(), time.process_time(), time.perf_counter()
        peak_rss = start_rss = server.rss_mb() or 0.0
        while time.perf_counter() < step.window_end:
            await asyncio.sleep(min(0.5, max(0.0, step.window_end - time.perf_counter())))
            failed = [r for r in runners if r.done() and r.exception() is not None]
            if failed:
                raise RuntimeError(f"a table failed: {failed[0].exception()!r}")
            rss = server.rss_mb() or 0.0
            peak_rss = max(peak_rss, rss)
            if rss > max_rss_mb or (_self_rss_mb() or 0.0) > max_rss_mb:
                stats.aborted = f"memory over {max_rss_mb:.0f} MB"
                break
            if not server.alive():
                stats.aborted = "the server exited"
                break
        stats.window = max(0.0, min(time.perf_counter(), step.window_end) - step.window_start)
        cpu1, own1, t_cpu1 = server.cpu_seconds(), time.process_time(), time.perf_counter()
        # let the acts in flight come back before anyone hangs up
        drain_end = time.perf_counter() + DRAIN_SECONDS
        step.stopping = True
        while any(c.sent_at for t in tables for c in t.people) and time.perf_counter() < drain_end:
            await asyncio.sleep(0.05)
        stats.lost += sum(len(c.sent_at) for t in tables for c in t.people)
    except (TimeoutError, RuntimeError, OSError) as e:
        stats.aborted = f"{type(e).__name__}: {e}"[:200]
    finally:
        step.stopping = True
        for t in tables:
            for c in t.clients:
                c.changed.set()
        # Every loop here ends on the flags, not only on a cancellation: in Python 3.11
        # ``wait_for`` loses a cancellation that comes as its future completes.
        await _finish(runners)
        await _finish([asyncio.ensure_future(t.close()) for t in tables], 15, cancel=False)
        step.closing = True
        await _finish([t for t in (lag_task, ping_task) if t is not None])
        quiet = time.perf_counter() + 2  # hang up after the last pong, not during it
        while probe.pongs and time.perf_counter() < quiet:
            await asyncio.sleep(0.02)
        await probe.close()
    out = stats.summary()
    out["server_rss_mb"] = round(peak_rss, 1)  # the most, in the window
    out["server_rss_start_mb"] = round(start_rss, 1)  # at its start: the growth is the rest
    out["server_cpu_pct"] = out["clients_cpu_pct"] = None
    if t_cpu0 is not None and t_cpu1 is not None and t_cpu1 > t_cpu0:
        span = t_cpu1 - t_cpu0
        if cpu0 is not None and cpu1 is not None:
            out["server_cpu_pct"] = round(100 * (cpu1 - cpu0) / span, 1)
        out["clients_cpu_pct"] = round(100 * (own1 - own0) / span, 1)
    lags.sort()
    out["client_lag_p99_ms"] = round(percentile(lags, 99) * 1000, 1) if lags else None
    pings.sort()
    out["ping_p99_ms"] = round(percentile(pings, 99) * 1000, 1) if pings else None
    out["loadavg_1min"] = round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None
    return out


async def _finish(
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


async def _pinger(step: Step, probe: Client, pings: list[float], every: float = 0.05) -> None:
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


async def _loop_lag(step: Step, lags: list[float], tick: float = 0.01) -> None:
    """How late this process's event loop wakes up in the window: when the clients
    themselves are starved, the round trips they measure grow with it."""
    while not step.closing:
        t = time.perf_counter()
        await asyncio.sleep(tick)
        if step.in_window(t):
            lags.append(max(0.0, time.perf_counter() - t - tick))


# ------------------------------------------------------------------ the command


def doubling(start: int, stop: int) -> list[int]:
    out, m = [], max(1, start)
    while m <= stop:
        out.append(m)
        m *= 2
    if out and out[-1] != stop and stop > out[-1]:
        out.append(stop)
    return out


def _parse_rooms(text: str) -> list[int]:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError("--rooms is a comma-separated list of counts") from None
    if not values or any(v < 1 for v in values):
        raise argparse.ArgumentTypeError("--rooms counts must be at least 1")
    return values


def _passes(result: Msg, target_ms: float) -> bool:
    p99 = result["p99_ms"]
    return (
        p99 is not None
        and p99 < target_ms
        and result["errors"] == 0
        and not result["aborted"]
        and result["actions"] > 0
    )


def _fmt(x: float | None, width: int, digits: int = 1) -> str:
    return f"{'-':>{width}}" if x is None else f"{x:>{width}.{digits}f}"


def _row(r: Msg) -> str:
    line = (
        f"{r['rooms']:>5} {r['clients']:>7} {r['actions']:>8} {_fmt(r['actions_per_s'], 7)} "
        f"{_fmt(r['p50_ms'], 7)} {_fmt(r['p95_ms'], 7)} {_fmt(r['p99_ms'], 7)} "
        f"{_fmt(r['max_ms'], 7)} {r['errors']:>6} {_fmt(r['server_rss_mb'], 7, 0)} "
        f"{_fmt(r['server_cpu_pct'], 6, 0)} {_fmt(r['clients_cpu_pct'], 6, 0)} "
        f"{_fmt(r['ping_p99_ms'], 7)} {_fmt(r['client_lag_p99_ms'], 7)} "
        f"{_fmt(r['loadavg_1min'], 5)}"
    )
    if r["aborted"]:
        line += f"  stopped: {r['aborted']}"
    elif r["error_codes"]:
        line += "  " + ", ".join(f"{k} x{v}" for k, v in r["error_codes"].items())
    return line


HEADER = (
    "rooms clients  actions   act/s  p50 ms  p95 ms  p99 ms  max ms errors  srv MB  srv %"
    "  cli % ping99  lag99  load"
)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="twentynine bench load",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--rooms",
        type=_parse_rooms,
        help="the room counts to measure, e.g. 1,4,16 (default: 1, 2, 4, ... up to --max-rooms,"
        " then a few steps between the last under the target and the first over)",
    )
    p.add_argument(
        "--max-rooms", type=int, default=MAX_ROOMS, help=f"at most {MAX_ROOMS} (the default)"
    )
    p.add_argument("--seconds", type=float, default=20.0, help="measured seconds per step")
    p.add_argument("--warmup", type=float, default=2.0, help="unmeasured seconds first")
    p.add_argument("--budget", type=float, default=900.0, help="seconds for the whole run")
    p.add_argument("--think-ms", type=float, default=0.0, help="mean think time per action")
    p.add_argument("--spectators", type=int, default=0, help="spectators per room (default 0)")
    p.add_argument("--target-ms", type=float, default=100.0, help="the p99 to stay under")
    p.add_argument("--refine", type=int, default=3, help="extra steps to narrow the largest M")
    p.add_argument("--profile", default="pagat", choices=sorted(PROFILES))
    p.add_argument(
        "--length",
        choices=["match", "single"],
        default="match",
        help="match (default): a finished match opens a new room; single: deals without end",
    )
    p.add_argument("--target", type=int, help="game points that end a match (default: profile)")
    p.add_argument("--trick-pause-ms", type=int, default=50, help="server's trick pause")
    p.add_argument("--memory-db", action="store_true", help="--db :memory: (default: temp file)")
    p.add_argument("--max-rss-mb", type=float, default=2048.0, help="memory cap per process")
    p.add_argument("--seed", type=int, default=29)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--server-log", metavar="FILE", help="append each step's server log here")
    args = p.parse_args(argv)
    if not 1 <= args.max_rooms <= MAX_ROOMS:
        p.error(f"--max-rooms must be from 1 to {MAX_ROOMS}")
    if args.rooms and max(args.rooms) > MAX_ROOMS:
        p.error(f"at most {MAX_ROOMS} rooms")
    if not 0 < args.seconds <= MAX_STEP_SECONDS or args.warmup < 0:
        p.error(f"--seconds must be above 0 and at most {MAX_STEP_SECONDS:.0f}")
    if not 0 < args.budget <= MAX_BUDGET:
        p.error(f"--budget must be above 0 and at most {MAX_BUDGET:.0f} seconds")
    if not 0 <= args.spectators <= MAX_SPECTATORS:
        p.error(f"--spectators must be from 0 to {MAX_SPECTATORS}")
    if args.think_ms < 0 or args.trick_pause_ms < 0 or args.max_rss_mb <= 0:
        p.error("--think-ms, --trick-pause-ms and --max-rss-mb cannot be negative")
    if args.target is not None and args.target < 1:
        p.error("--target must be at least 1")

    settings = Settings(
        profile=args.profile,
        length=args.length,
        target=args.target,
        think=args.think_ms / 1000,
        spectators=args.spectators,
        seconds=args.seconds,
        warmup=args.warmup,
        seed=args.seed,
    )
    explicit = args.rooms is not None
    plan: list[int] = list(args.rooms) if explicit else doubling(1, args.max_rooms)
    cpus = os.cpu_count() or 1
    length = settings.length + (
        f" to {settings.target}" if settings.target and settings.length == "match" else ""
    )
    head = [
        f"load benchmark: {settings.profile} {length}, rooms of 4 people"
        + (f" + {settings.spectators} spectators" if settings.spectators else "")
        + f", think {args.think_ms:g} ms, {settings.seconds:g} s measured per step"
        f" after {settings.warmup:g} s",
        f"  server: one process (twentynine serve, uvicorn) on {HOST}, fresh per step, "
        + ("SQLite :memory:" if args.memory_db else "SQLite temp file"),
        "  clients: this process (asyncio + websockets)",
        f"  both share this machine's {cpus} cores: the figures are theirs together",
        "  round trip: from sending an act to its ack; srv/cli %: CPU of server / clients",
        "  ping99: p99 of a ping on a socket of its own (the server's loop, outside any game)",
        "  lag99: p99 of how late the clients' loop wakes; load: the machine's 1-min load",
    ]
    out = sys.stdout
    if not args.json:
        print("\n".join(head), file=out)
        print(HEADER, file=out, flush=True)

    results: list[Msg] = []
    server_errors: list[str] = []
    deadline = time.monotonic() + args.budget
    stopped: str | None = None
    done: set[int] = set()

    def measure(rooms: int) -> Msg | None:
        nonlocal stopped
        need = settings.seconds + settings.warmup + 10
        if time.monotonic() + need > deadline:
            stopped = f"the budget of {args.budget:g} s ran out before {rooms} rooms"
            return None
        limit = 2 * (30 + 0.5 * rooms) + settings.warmup + settings.seconds + 90
        with running_server(args.memory_db, args.trick_pause_ms) as server:
            try:
                with hard_limit(limit, server):
                    result = asyncio.run(run_step(server, rooms, settings, args.max_rss_mb))
            except StepTimeout:
                stopped = f"the step of {rooms} rooms passed its hard limit of {limit:.0f} s"
                return None
            server.stop()
            errors = server.log_errors()
            if args.server_log:
                with open(args.server_log, "a", encoding="utf-8") as f:
                    f.write(f"==== {rooms} rooms\n{server.log_text()}")
        result["server_log_errors"] = len(errors)
        server_errors.extend(errors[:5])
        results.append(result)
        done.add(rooms)
        if not args.json:
            print(_row(result), file=out, flush=True)
            for line in errors[:3]:
                print(f"      server log: {line[:160]}", file=out)
        return result

    try:
        last_ok: int | None = None
        first_bad: int | None = None
        for rooms in plan:
            r = measure(rooms)
            if r is None:
                break
            if _passes(r, args.target_ms):
                last_ok = rooms if last_ok is None else max(last_ok, rooms)
            else:
                first_bad = rooms if first_bad is None else min(first_bad, rooms)
                if not explicit:
                    break
        if not explicit and last_ok is not None and first_bad is not None:
            lo, hi = last_ok, first_bad
            for _ in range(max(0, args.refine)):
                mid = (lo + hi) // 2
                if mid <= lo or mid in done:
                    break
                r = measure(mid)
                if r is None:
                    break
                if _passes(r, args.target_ms):
                    lo = mid
                else:
                    hi = mid
    except KeyboardInterrupt:
        stopped = "interrupted"

    # "sustains M": M and every smaller M measured stayed under the target
    limit = min((r["rooms"] for r in results if not _passes(r, args.target_ms)), default=math.inf)
    best = max((r for r in results if r["rooms"] < limit), key=lambda r: r["rooms"], default=None)
    limit_seen = max((r["rooms"] for r in results), default=0)
    report = {
        "benchmark": "load",
        "host": HOST,
        "cpus": cpus,
        "loadavg": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "settings": {
            "profile": settings.profile,
            "length": settings.length,
            "target": settings.target,
            "think_ms": args.think_ms,
            "spectators": settings.spectators,
            "seconds": settings.seconds,
            "warmup": settings.warmup,
            "trick_pause_ms": args.trick_pause_ms,
            "db": ":memory:" if args.memory_db else "temp file",
            "target_ms": args.target_ms,
        },
        "steps": sorted(results, key=lambda r: r["rooms"]),
        "largest_rooms_under_target": best["rooms"] if best else None,
        "most_rooms_measured": limit_seen,
        "server_log_errors": server_errors,
        "stopped": stopped,
    }
    if args.json:
        print(json.dumps(report, indent=2), file=out)
    else:
        total = {k: sum(r[k] for r in results) for k in ("deals", "games", "version_gaps")}
        print(
            f"  all steps: {total['deals']} next deals, {total['games']} games played to the end"
            f" (each then opens a new room), {total['version_gaps']} skipped versions,"
            f" {sum(r['stalls'] for r in results)} stalls,"
            f" {len(server_errors)} failures in the server's log",
            file=out,
        )
        if stopped:
            print(f"  stopped: {stopped}", file=out)
        if best is not None:
            print(
                f"largest M with p99 < {args.target_ms:g} ms: {best['rooms']} rooms "
                f"({best['clients']} clients, p99 {best['p99_ms']:.1f} ms, "
                f"{best['actions_per_s']:.0f} actions/s), server and clients on {cpus} cores"
                + (" (the most measured: more might pass)" if best["rooms"] >= limit_seen else ""),
                file=out,
            )
        else:
            print(f"no step had p99 < {args.target_ms:g} ms without errors", file=out)
    return 1 if stopped == "interrupted" or not results else 0
