"""The servers of ``twentynine bench load``: ``twentynine serve`` processes, and the
PostgreSQL and Redis they share.

``Server`` is one ``twentynine serve`` on a free port of 127.0.0.1, in a
process group of its own, with a database of its own (a temporary SQLite
file or ``:memory:``) or one it is given (a PostgreSQL URL), and optionally
a Redis URL (``--redis``). ``Fleet`` is N of them that share one database
and one Redis: each is started at once and waited for together, and the
figures (memory, CPU) are their sums. ``Shared`` holds the throw-away
PostgreSQL cluster of a run (``throwaway.start_cluster``, a new database for
each step) and starts a throw-away Redis for each step
(``throwaway.start_redis``), so no step sees the leases or the games of the
one before.

Every process started here stops at the end of its step, on errors, on
Ctrl-C and, on Linux, when the benchmark itself dies (``PR_SET_PDEATHSIG``).
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

from ..server.limits import NO_LIMITS_ENV
from .localhost import free_port, stop

HOST = "127.0.0.1"  # loopback only: the benchmark never talks to another host
SERVER_FDS = 64  # descriptors a server needs besides its clients' sockets (files, database)


# ------------------------------------------------------------------ processes


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


def proc_rss_mb(pid: int | str) -> float | None:
    """The resident memory of a process (``"self"``: this one), in MB; None if gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def proc_cpu_seconds(pid: int) -> float | None:
    """The CPU time (user and system) a process has used so far; None if gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def raise_fd_limit() -> tuple[int, int]:
    """Raise this process's soft limit of open files to its hard limit (the servers and
    client processes started from here inherit it); the (soft, hard) limits now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        want = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)


def server_env(rooms: int) -> dict[str, str]:
    """The settings of a server that holds ``rooms`` tables of people at once: no bot,
    no limit of a connection or an address, and games and rooms enough for them all
    (the games of finished matches included, until they are swept)."""
    return {
        **NO_LIMITS_ENV,
        "TWENTYNINE_MAX_GAMES": str(max(200, 2 * rooms + 100)),
        "TWENTYNINE_MAX_ROOMS": str(max(500, 2 * rooms + 100)),
    }


def server_room_cap() -> int | None:
    """The most rooms a server keeps whatever its environment says, or None when
    ``TWENTYNINE_MAX_ROOMS`` sets it (and so the benchmark can raise it)."""
    from ..server.config import ServerConfig

    probe = 123_457
    saved = os.environ.get("TWENTYNINE_MAX_ROOMS")
    os.environ["TWENTYNINE_MAX_ROOMS"] = str(probe)
    try:
        config = ServerConfig.from_env()
    except ValueError:
        return None  # a malformed variable of this environment: the server says so itself
    finally:
        if saved is None:
            del os.environ["TWENTYNINE_MAX_ROOMS"]
        else:
            os.environ["TWENTYNINE_MAX_ROOMS"] = saved
    return None if config.max_rooms == probe else config.max_rooms


class Server:
    """``twentynine serve`` on a free loopback port, in its own process group.

    ``db`` is where its games are kept (a URL: PostgreSQL), else a SQLite file of
    its own (``:memory:`` with ``memory_db``); ``redis`` the Redis URL of a server
    that is one of several (``--redis``). ``env`` replaces the default variables
    (no limits, ``NO_LIMITS_ENV``: ``bench abuse`` passes the limits it measures).
    """

    def __init__(
        self,
        memory_db: bool,
        trick_pause_ms: int,
        env: dict[str, str] | None = None,
        *,
        db: str | None = None,
        redis: str | None = None,
        name: str = "server",
    ) -> None:
        self.tmp = tempfile.TemporaryDirectory(prefix="twentynine-load-")
        # the players here act with no thought at all: no limit of a connection or an
        # address applies to them (``bench abuse`` passes the limits it measures instead)
        self.env = NO_LIMITS_ENV if env is None else env
        if db is None:
            db = ":memory:" if memory_db else str(Path(self.tmp.name) / "games.sqlite3")
        self.db = db
        self.redis = redis
        self.name = name
        self.log_path = Path(self.tmp.name) / "server.log"
        self.trick_pause_ms = trick_pause_ms
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"ws://{HOST}:{self.port}/ws"

    def launch(self) -> None:
        """Start the process on a free port (``wait_ready`` waits for it to answer)."""
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
        env.pop("TWENTYNINE_REDIS", None)  # one of many only when told (``redis``)
        self.port = free_port(HOST)
        cmd = [sys.executable, "-m", "twentynine.cli.main", "serve", "--host", HOST]
        cmd += ["--port", str(self.port), "--db", self.db]
        if self.redis is not None:
            cmd += ["--redis", self.redis]
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

    def wait_ready(self, deadline: float) -> bool:
        """Whether it answers ``/healthz`` before ``deadline`` (``time.monotonic``)."""
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        while self.alive() and time.monotonic() < deadline:
            try:
                with opener.open(f"http://{HOST}:{self.port}/healthz", timeout=1) as r:
                    if r.status == 200:
                        return True
            except OSError:
                time.sleep(0.05)
        return False

    def start(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        for attempt in range(3):  # a port taken between our probe and the server's bind
            self.launch()
            if self.wait_ready(deadline):
                return
            self.stop()
            if attempt == 2 or time.monotonic() >= deadline:
                break
        raise RuntimeError(f"the server did not start:\n{self.log_tail()}")

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def rss_mb(self) -> float | None:
        return proc_rss_mb(self.proc.pid) if self.proc is not None else None

    def cpu_seconds(self) -> float | None:
        return proc_cpu_seconds(self.proc.pid) if self.proc is not None else None

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
        """Lines of the server's log that report a failure (tracebacks, errors, a lease lost
        by one of several processes)."""
        bad = ("Traceback", "ERROR", "Exception", "error handling", "was lost")
        return [ln for ln in self.log_text().splitlines() if any(b in ln for b in bad)]

    def close(self) -> None:
        self.stop()
        self.tmp.cleanup()


class Servers(Protocol):
    """What a step asks of its servers: one (``Server``) or several (``Fleet``)."""

    @property
    def urls(self) -> list[str]: ...

    def alive(self) -> bool: ...

    def rss_mb(self) -> float | None: ...

    def peak_process_rss_mb(self) -> float: ...

    def cpu_seconds(self) -> float | None: ...

    def kill(self) -> None: ...


class Fleet:
    """``count`` servers that share one database and one Redis (or a single server with
    a database of its own, as ``Server``): started together, measured together."""

    def __init__(
        self,
        count: int,
        trick_pause_ms: int,
        env: dict[str, str] | None = None,
        *,
        memory_db: bool = False,
        db: str | None = None,
        redis: str | None = None,
    ) -> None:
        if count > 1 and (db is None or redis is None):
            raise ValueError("several servers need a shared database and a Redis")
        self.servers = [
            Server(memory_db, trick_pause_ms, env, db=db, redis=redis, name=f"server {i + 1}")
            for i in range(count)
        ]

    @property
    def urls(self) -> list[str]:
        return [s.url for s in self.servers]

    def start(self, timeout: float = 90.0) -> None:
        """Start them all at once (a server takes a second or two to import and bind)."""
        deadline = time.monotonic() + timeout
        pending = list(self.servers)
        for _ in range(3):  # a port taken between our probe and a server's bind
            for s in pending:
                s.launch()
            failed = [s for s in pending if not s.wait_ready(deadline)]
            for s in failed:
                s.stop()
            if not failed:
                return
            pending = failed
            if time.monotonic() >= deadline:
                break
        s = pending[0]
        raise RuntimeError(f"{s.name} did not start:\n{s.log_tail()}")

    def alive(self) -> bool:
        return all(s.alive() for s in self.servers)

    def rss_mb(self) -> float | None:
        """The resident memory of all of them together."""
        values = [s.rss_mb() for s in self.servers]
        return None if any(v is None for v in values) else sum(v or 0.0 for v in values)

    def peak_process_rss_mb(self) -> float:
        """The resident memory of the largest one (each has the cap of a process)."""
        return max((s.rss_mb() or 0.0 for s in self.servers), default=0.0)

    def cpu_seconds(self) -> float | None:
        """The CPU time all of them have used so far."""
        values = [s.cpu_seconds() for s in self.servers]
        return None if any(v is None for v in values) else sum(v or 0.0 for v in values)

    def kill(self) -> None:
        for s in self.servers:
            s.kill()

    def stop(self) -> None:
        for s in self.servers:
            s.stop()

    def log_text(self) -> str:
        if len(self.servers) == 1:
            return self.servers[0].log_text()
        return "".join(f"---- {s.name}\n{s.log_text()}" for s in self.servers)

    def log_errors(self) -> list[str]:
        if len(self.servers) == 1:
            return self.servers[0].log_errors()
        return [f"{s.name}: {line}" for s in self.servers for line in s.log_errors()]

    def close(self) -> None:
        for s in self.servers:
            s.close()


class StepTimeout(Exception):
    """A step ran past its hard time limit."""


class Killable(Protocol):
    def kill(self) -> None: ...


@contextlib.contextmanager
def hard_limit(seconds: float, server: Killable) -> Iterator[None]:
    """The last resort against a hang, whatever its cause: past ``seconds`` the server (or
    servers) are killed (every socket closes, every wait ends) and ``StepTimeout`` is
    raised."""
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


@contextlib.contextmanager
def running_fleet(
    count: int,
    trick_pause_ms: int,
    env: dict[str, str] | None = None,
    *,
    memory_db: bool = False,
    db: str | None = None,
    redis: str | None = None,
) -> Iterator[Fleet]:
    fleet = Fleet(count, trick_pause_ms, env, memory_db=memory_db, db=db, redis=redis)
    try:
        fleet.start()
        yield fleet
    finally:
        fleet.close()


# ------------------------------------------------------------------ PostgreSQL and Redis


class Unavailable(RuntimeError):
    """PostgreSQL or Redis cannot be started here; the message says why."""


def serve_has_redis() -> bool:
    """Whether this version of ``twentynine serve`` takes ``--redis`` (several processes)."""
    done = subprocess.run(
        [sys.executable, "-m", "twentynine.cli.main", "serve", "--help"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return "--redis" in done.stdout


class Shared:
    """The PostgreSQL cluster of a run (started on first use) and a Redis per step."""

    def __init__(self) -> None:
        self.cluster: Any = None
        self.redis: Any = None

    def _throwaway(self) -> Any:
        from . import throwaway

        return throwaway

    def new_database(self) -> str:
        """A new empty database of the run's cluster (started the first time); its URL."""
        if self.cluster is None:
            try:
                self.cluster = self._throwaway().start_cluster()
            except Exception as e:
                raise Unavailable(f"PostgreSQL could not be started: {e}") from e
        return str(self.cluster.new_database())

    @contextlib.contextmanager
    def step(self) -> Iterator[tuple[str, str]]:
        """A new database and a fresh Redis for one step: (database URL, Redis URL)."""
        db = self.new_database()
        try:
            redis = self._throwaway().start_redis()
        except Unavailable:
            raise
        except Exception as e:
            raise Unavailable(f"Redis could not be started: {e}") from e
        self.redis = redis
        try:
            yield db, str(redis.url)
        finally:
            self.redis = None
            with contextlib.suppress(Exception):
                redis.stop()
            drop = getattr(self.cluster, "drop_database", None)
            if drop is not None:
                with contextlib.suppress(Exception):
                    drop(db)

    def close(self) -> None:
        if self.redis is not None:
            with contextlib.suppress(Exception):
                self.redis.stop()
            self.redis = None
        if self.cluster is not None:
            with contextlib.suppress(Exception):
                self.cluster.stop()
            self.cluster = None


__all__ = [
    "HOST",
    "SERVER_FDS",
    "Fleet",
    "Server",
    "Servers",
    "Shared",
    "StepTimeout",
    "Unavailable",
    "hard_limit",
    "proc_cpu_seconds",
    "proc_rss_mb",
    "raise_fd_limit",
    "running_fleet",
    "running_server",
    "serve_has_redis",
    "server_env",
    "server_room_cap",
]
