"""One step of ``twentynine bench load``: its tables played, measured, merged.

``run_step`` plays ``rooms`` tables (``load_people``) against the servers,
measured for ``Settings.seconds`` after ``Settings.warmup``. Its tables are
played by this process's event loop, or shared out among
``client_processes`` worker processes (each an event loop of its own), so
that thousands of sockets do not make the clients the bottleneck that is
measured. This process then only keeps the clock, pings each server on a
socket of its own and samples the servers' memory and CPU; each worker
reports what its clients saw, and how late its own event loop woke up, and
the figures are merged.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import multiprocessing
import os
import random
import signal
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from .load_people import (
    DRAIN_SECONDS,
    SETUP_AT_ONCE,
    Client,
    Msg,
    Settings,
    Step,
    StepStats,
    Table,
    finish,
    loop_lag,
    percentile,
    pinger,
)
from .load_servers import Servers, proc_rss_mb

# ------------------------------------------------------------------ a share of the tables


@dataclass
class Share:
    """The tables one client process plays, and what it needs to know of the step."""

    indices: list[int]
    urls: list[str]
    settings: Settings
    rooms: int  # of the whole step (the setup's time grows with it)

    @property
    def setup_timeout(self) -> float:
        return 30 + 0.5 * self.rooms


@dataclass
class Played:
    """What the clients of one share saw, for the step to merge."""

    stats: StepStats
    lags: list[float]  # how late this process's loop woke up, in the window (seconds)
    cpu_seconds: float | None  # this process's CPU time in the window


# (wall-clock start, end) of the measured window, or None: stop without playing
Ready = Callable[[float], Awaitable[tuple[float, float] | None]]


async def play_share(share: Share, ready: Ready, stop_asked: Callable[[], bool]) -> Played:
    """Connect the share's tables and open their rooms, report ``ready`` (which answers
    with the window), play until the window ends (or ``stop_asked``), then hang up."""
    spectators = share.settings.spectators
    step = Step(len(share.indices), len(share.indices) * (4 + spectators))
    stats = step.stats
    tables = [Table(i, step, share.settings, share.urls) for i in share.indices]
    runners: list[asyncio.Task[None]] = []
    lags: list[float] = []
    lag_task = asyncio.create_task(loop_lag(step, lags))
    own0 = own1 = None
    gate = asyncio.Semaphore(SETUP_AT_ONCE)  # thousands of connects at once overflow backlogs

    async def set_up(table: Table) -> None:
        async with gate:
            await table.connect()
            await table.open_room()

    try:
        t0 = time.monotonic()
        await asyncio.wait_for(asyncio.gather(*(set_up(t) for t in tables)), share.setup_timeout)
        stats.setup_seconds = time.monotonic() - t0
        window = await ready(stats.setup_seconds)
        if window is not None:
            offset = time.perf_counter() - time.time()
            step.window_start, step.window_end = window[0] + offset, window[1] + offset
            runners = [asyncio.create_task(t.run()) for t in tables]
            await asyncio.sleep(max(0.0, step.window_start - time.perf_counter()))
            own0 = time.process_time()
            while time.perf_counter() < step.window_end and not stop_asked():
                await asyncio.sleep(min(0.25, max(0.0, step.window_end - time.perf_counter())))
                failed = [r for r in runners if r.done() and r.exception() is not None]
                if failed:
                    raise RuntimeError(f"a table failed: {failed[0].exception()!r}")
            own1 = time.process_time()
            # let the acts in flight come back before anyone hangs up
            drain_end = time.perf_counter() + DRAIN_SECONDS
            step.stopping = True
            while (
                any(c.sent_at for t in tables for c in t.people) and time.perf_counter() < drain_end
            ):
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
        await finish(runners)
        await finish([asyncio.ensure_future(t.close()) for t in tables], 15, cancel=False)
        step.closing = True
        await finish([lag_task])
    cpu = own1 - own0 if own0 is not None and own1 is not None else None
    return Played(stats, lags, cpu)


# Messages between a step and its players: ("ready", setup seconds), ("done", Played),
# ("failed", text) from the players; ("go", start, end) or ("stop",) to them.


class LocalPlayers:
    """A share played by this process's own event loop (one client process in all)."""

    pid: int | None = None

    def __init__(self, share: Share) -> None:
        self.share = share
        self.inbox: asyncio.Queue[tuple[Any, ...]] = asyncio.Queue()
        self.window: asyncio.Future[tuple[float, float] | None] | None = None
        self.stop_flag = False
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.window = asyncio.get_running_loop().create_future()
        self.task = asyncio.create_task(self._run())

    async def _ready(self, setup_seconds: float) -> tuple[float, float] | None:
        assert self.window is not None
        await self.inbox.put(("ready", setup_seconds))
        return await self.window

    async def _run(self) -> None:
        try:
            played = await play_share(self.share, self._ready, lambda: self.stop_flag)
            await self.inbox.put(("done", played))
        except Exception as e:
            await self.inbox.put(("failed", f"{type(e).__name__}: {e}"[:200]))

    async def receive(self, timeout: float) -> tuple[Any, ...]:
        return await asyncio.wait_for(self.inbox.get(), timeout)

    def alive(self) -> bool:
        return self.task is not None and not self.task.done()

    def go(self, window: tuple[float, float] | None) -> None:
        if self.window is not None and not self.window.done():
            self.window.set_result(window)

    def stop(self) -> None:
        self.stop_flag = True
        self.go(None)

    async def close(self) -> None:
        self.stop()
        if self.task is not None:
            await finish([self.task], 60, cancel=False)


def _worker(share: Share, conn: Connection, stop_event: Any) -> None:  # pragma: no cover
    """A client process: plays its share, talking to the step over ``conn``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C is the benchmark's to handle
    from .load_servers import _PRCTL, PR_SET_PDEATHSIG

    if _PRCTL is not None:
        _PRCTL(PR_SET_PDEATHSIG, signal.SIGKILL)  # never outlive the benchmark

    async def ready(setup_seconds: float) -> tuple[float, float] | None:
        conn.send(("ready", setup_seconds))
        msg = await receive(conn, math.inf)
        return (msg[1], msg[2]) if msg[0] == "go" else None

    try:
        played = asyncio.run(play_share(share, ready, stop_event.is_set))
        conn.send(("done", played))
    except BaseException as e:
        with contextlib.suppress(OSError):
            conn.send(("failed", f"{type(e).__name__}: {e}"[:200]))
        raise
    finally:
        conn.close()


async def receive(conn: Connection, timeout: float) -> Any:
    """The next message on ``conn``, waited for without blocking the event loop."""
    loop = asyncio.get_running_loop()
    fut: asyncio.Future[Any] = loop.create_future()

    def readable() -> None:
        if fut.done():
            return
        try:
            fut.set_result(conn.recv())
        except (EOFError, OSError) as e:
            fut.set_exception(ConnectionError(f"a client process went away ({e!r})"))

    loop.add_reader(conn.fileno(), readable)
    try:
        return await asyncio.wait_for(fut, None if math.isinf(timeout) else timeout)
    finally:
        loop.remove_reader(conn.fileno())


class ProcessPlayers:
    """A share played by a worker process of its own."""

    def __init__(self, share: Share) -> None:
        self.share = share
        ctx = multiprocessing.get_context("spawn")  # no fork of a running event loop
        self.conn, child = ctx.Pipe()
        self.stop_event = ctx.Event()
        self.proc = ctx.Process(target=_worker, args=(share, child, self.stop_event), daemon=True)
        self.child = child

    @property
    def pid(self) -> int | None:
        return self.proc.pid

    def start(self) -> None:
        self.proc.start()
        self.child.close()

    async def receive(self, timeout: float) -> tuple[Any, ...]:
        msg: tuple[Any, ...] = await receive(self.conn, timeout)
        return msg

    def alive(self) -> bool:
        return self.proc.is_alive()

    def go(self, window: tuple[float, float] | None) -> None:
        with contextlib.suppress(OSError):
            self.conn.send(("go", *window) if window is not None else ("stop",))

    def stop(self) -> None:
        self.stop_event.set()

    async def close(self) -> None:
        if self.proc.pid is None:  # never started
            self.conn.close()
            return
        self.stop()
        with contextlib.suppress(OSError):
            self.conn.send(("stop",))  # (ignored unless it waits for the window)
        deadline = time.monotonic() + 30
        while self.proc.is_alive() and time.monotonic() < deadline:
            # read what it still sends: a full pipe would keep it from ending
            with contextlib.suppress(TimeoutError, ConnectionError, OSError):
                await receive(self.conn, 0.2)
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(5)
        self.conn.close()


Players = LocalPlayers | ProcessPlayers


def shares(rooms: int, urls: list[str], settings: Settings, processes: int) -> list[Share]:
    """The tables of a step dealt out among ``processes`` client processes."""
    count = max(1, min(processes, rooms))
    return [
        Share([i for i in range(rooms) if i % count == k], urls, settings, rooms)
        for k in range(count)
    ]


# ------------------------------------------------------------------ a step


async def run_step(
    servers: Servers,
    rooms: int,
    settings: Settings,
    max_rss_mb: float,
    client_processes: int = 1,
) -> Msg:
    """One step: ``rooms`` tables on fresh servers, measured for ``settings.seconds``."""
    urls = servers.urls
    step = Step(rooms, rooms * (4 + settings.spectators))
    stats = step.stats
    parts = shares(rooms, urls, settings, client_processes)
    local = len(parts) == 1
    players: list[Players] = (
        [LocalPlayers(parts[0])] if local else [ProcessPlayers(p) for p in parts]
    )
    idle_rss = servers.rss_mb()
    peak_rss = start_rss = idle_rss or 0.0
    pings: list[float] = []
    probes = [Client(step, None, random.Random(i), 0) for i in range(len(urls))]
    ping_tasks: list[asyncio.Task[None]] = []
    played: list[Played] = []
    cpu0 = cpu1 = t_cpu0 = t_cpu1 = None
    own0 = own1 = 0.0
    ended_early = False

    async def collect(timeout: float) -> None:
        """Wait for every player's ``done`` (or failure)."""
        end = time.monotonic() + timeout
        for p in players:
            msg = await p.receive(max(0.1, end - time.monotonic()))
            if msg[0] == "done":
                played.append(msg[1])
            else:
                stats.aborted = stats.aborted or f"a client process failed: {msg[1]}"

    everyone = list(players)
    try:
        for p in players:
            p.start()
        setup_end = time.monotonic() + 2 * parts[0].setup_timeout + 30
        waiting = list(players)
        for p in players:  # each reports ready, or that it could not set up
            msg = await p.receive(max(0.1, setup_end - time.monotonic()))
            if msg[0] == "ready":
                stats.setup_seconds = max(stats.setup_seconds, msg[1])
                continue
            waiting.remove(p)
            if msg[0] == "done":
                played.append(msg[1])
                stats.aborted = stats.aborted or msg[1].stats.aborted or "no setup"
            else:
                stats.aborted = stats.aborted or f"a client process failed: {msg[1]}"
        if stats.aborted:
            players = waiting  # (the others answer ``go(None)`` with their figures)
            for p in players:
                p.go(None)
            await collect(60)
            raise RuntimeError(stats.aborted)
        for probe, url in zip(probes, urls, strict=True):
            await probe.open(url)
        ping_tasks = [asyncio.create_task(pinger(step, p, pings)) for p in probes]
        now = time.time() + 0.05  # the players start at once, measure after the warm-up
        window = (now + settings.warmup, now + settings.warmup + settings.seconds)
        offset = time.perf_counter() - time.time()
        step.window_start, step.window_end = window[0] + offset, window[1] + offset
        for p in players:
            p.go(window)
        await asyncio.sleep(max(0.0, step.window_start - time.perf_counter()))
        cpu0, own0, t_cpu0 = servers.cpu_seconds(), time.process_time(), time.perf_counter()
        peak_rss = start_rss = servers.rss_mb() or 0.0
        ending = step.window_end - 0.5  # (the players may finish a moment before this)
        while time.perf_counter() < step.window_end:
            await asyncio.sleep(min(0.5, max(0.0, step.window_end - time.perf_counter())))
            peak_rss = max(peak_rss, servers.rss_mb() or 0.0)
            clients_rss = [proc_rss_mb(p.pid) or 0.0 for p in players if p.pid is not None]
            if (
                servers.peak_process_rss_mb() > max_rss_mb
                or max([proc_rss_mb("self") or 0.0, *clients_rss]) > max_rss_mb
            ):
                stats.aborted = f"memory over {max_rss_mb:.0f} MB"
                break
            if not servers.alive():
                stats.aborted = "the server exited" if len(urls) == 1 else "a server exited"
                break
            if not all(p.alive() for p in players) and time.perf_counter() < ending:
                ended_early = True  # (what stopped them comes with their figures)
                break
        stats.window = max(0.0, min(time.perf_counter(), step.window_end) - step.window_start)
        cpu1, own1, t_cpu1 = servers.cpu_seconds(), time.process_time(), time.perf_counter()
        for p in players:
            p.stop()
        await collect(DRAIN_SECONDS + 60)
    except (TimeoutError, RuntimeError, OSError) as e:
        stats.aborted = stats.aborted or f"{type(e).__name__}: {e}"[:200]
    finally:
        await asyncio.gather(*(p.close() for p in everyone))
        step.closing = True
        await finish(ping_tasks)
        quiet = time.perf_counter() + 2  # hang up after the last pong, not during it
        while any(p.pongs for p in probes) and time.perf_counter() < quiet:
            await asyncio.sleep(0.02)
        await asyncio.gather(*(p.close() for p in probes))
    for part in played:
        stats.add(part.stats)
    if ended_early and not stats.aborted:
        stats.aborted = "the clients stopped before the end"
    out = stats.summary()
    out["client_processes"] = len(parts)
    out["server_rss_mb"] = round(peak_rss, 1)  # the most, in the window (all servers)
    out["server_rss_start_mb"] = round(start_rss, 1)  # at its start: the growth is the rest
    out["server_rss_idle_mb"] = None if idle_rss is None else round(idle_rss, 1)
    out["server_kb_per_room"] = (
        round((peak_rss - idle_rss) * 1024 / rooms, 1) if idle_rss and peak_rss else None
    )
    out["server_cpu_pct"] = out["clients_cpu_pct"] = out["server_cpu_ms_per_action"] = None
    if t_cpu0 is not None and t_cpu1 is not None and t_cpu1 > t_cpu0:
        span = t_cpu1 - t_cpu0
        if cpu0 is not None and cpu1 is not None:
            out["server_cpu_pct"] = round(100 * (cpu1 - cpu0) / span, 1)
            if out["actions"]:
                out["server_cpu_ms_per_action"] = round(1000 * (cpu1 - cpu0) / out["actions"], 3)
        own = [own1 - own0] if local else [p.cpu_seconds for p in played]
        if len(own) == len(parts) and all(c is not None for c in own):
            out["clients_cpu_pct"] = round(100 * sum(c or 0.0 for c in own) / span, 1)
    # how late the clients' loops woke up: the worst client process's p99
    lag99 = [percentile(sorted(p.lags), 99) for p in played if p.lags]
    out["client_lag_p99_ms"] = round(max(lag99) * 1000, 1) if lag99 else None
    pings.sort()
    out["ping_p99_ms"] = round(percentile(pings, 99) * 1000, 1) if pings else None
    out["loadavg_1min"] = round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None
    return out


__all__ = ["Played", "Share", "play_share", "run_step", "shares"]
