"""Throw-away PostgreSQL and Redis servers, for the tests and the benchmarks.

``start_cluster`` runs ``initdb`` in a new temporary folder, then ``pg_ctl
start`` on a free loopback port (its unix socket in that folder too), with
durability off (``fsync``, ``full_page_writes``, ``synchronous_commit``):
nothing outlives the run, and writes cost less than on a server that keeps
its data. Each test process (each xdist worker) starts its own, once, when
the first test asks for it (the ``pg_cluster`` fixture of ``tests/conftest``),
and stops it at the end (or a watchdog does, when the process is killed);
each test gets a new database in it (``new_database``). Starting one takes
about a second (initdb most of it), a new database some 30 ms.

PostgreSQL's programs are looked for in ``$TWENTYNINE_PG_BIN``, then PATH,
then Debian's ``/usr/lib/postgresql/*/bin`` (``scripts/ensure-postgres``
installs them). PostgreSQL will not run as root: as root, the cluster belongs
to the ``postgres`` user if there is one, else to ``nobody``, and every
command runs as that user (``runuser``, else ``setpriv``).

``start_redis`` runs ``redis-server`` in the foreground on a free loopback
port, keeping nothing on disk (no snapshots, no append-only file), in a
session of its own with the same kind of watchdog. ``redis-server`` is looked
for in ``$TWENTYNINE_REDIS_BIN``, then PATH (``scripts/ensure-redis`` installs
Debian's).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import pwd
import re
import shlex
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from .localhost import free_port

SUPERUSER = "postgres"


class Unavailable(RuntimeError):
    """No PostgreSQL server can be started here; the message says why."""


def find_bindir() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl``, or None."""

    def usable(folder: Path) -> bool:
        return all(os.access(folder / p, os.X_OK) for p in ("initdb", "pg_ctl", "postgres"))

    given = os.environ.get("TWENTYNINE_PG_BIN")
    if given:
        return Path(given) if usable(Path(given)) else None
    initdb = shutil.which("initdb")
    if initdb and shutil.which("pg_ctl"):
        # Debian links them into /usr/local/bin or elsewhere: use the real folder
        folder = Path(initdb).resolve().parent
        if usable(folder):
            return folder
    for folder in sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=_version, reverse=True):
        if usable(folder):
            return folder
    return None


def _version(folder: Path) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", folder.parent.name)) or (0,)


@dataclass
class Cluster:
    """A running server; ``stop`` ends it and removes its folder."""

    bindir: Path
    root: Path
    port: int
    runas: list[str]  # the command prefix that runs a program as the cluster's owner
    started_in: float = 0.0  # seconds initdb and start took
    watchdog: subprocess.Popen[bytes] | None = None
    _names: itertools.count[int] = field(default_factory=itertools.count)

    @property
    def data(self) -> Path:
        return self.root / "data"

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{dbname}"

    def _admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True, connect_timeout=10) as conn:
            conn.execute(sql)

    def new_database(self) -> str:
        """A new empty database; its URL."""
        name = f"t{os.getpid()}_{next(self._names)}"
        self._admin(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def drop_database(self, url: str) -> None:
        name = url.rsplit("/", 1)[1]
        self._admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def stop(self) -> None:
        if self.watchdog is not None:
            self.watchdog.kill()
            self.watchdog.wait()
        with contextlib.suppress(Unavailable):  # not running any more
            _run(self.runas, self.bindir / "pg_ctl", "-D", self.data, "-m", "immediate", "stop")
        shutil.rmtree(self.root, ignore_errors=True)

    def watch(self) -> None:
        """Stop the server when this process is gone, even if it never calls ``stop``.

        The server runs in a session of its own, so a test run killed by a
        signal (or a hung one, cut short) would leave it running: a small shell
        loop, in its own session too, waits for this process to end and then
        stops the server and removes its folder.
        """
        stop = " ".join(
            shlex.quote(str(a))
            for a in [*self.runas, self.bindir / "pg_ctl", "-D", self.data, "-m", "immediate"]
        )
        script = (
            f"while kill -0 {os.getpid()} 2>/dev/null; do sleep 1; done; {stop} stop;"
            f" rm -rf {shlex.quote(str(self.root))}"
        )
        self.watchdog = _watchdog(script)


def _watchdog(script: str) -> subprocess.Popen[bytes]:
    """A shell loop in a session of its own (so that a signal to the test run does not
    reach it) that runs ``script``: it waits for this process to end, then cleans up."""
    return subprocess.Popen(
        ["sh", "-c", script],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def _run(runas: list[str], *cmd: str | Path, log: Path | None = None) -> None:
    """Run a PostgreSQL program as the cluster's owner; ``Unavailable`` if it fails."""
    args = [*runas, *map(str, cmd)]
    with tempfile.TemporaryFile() as out:
        # Output to a file, not a pipe: pg_ctl's server keeps its inherited handles open.
        done = subprocess.run(
            args, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, timeout=60
        )
        if done.returncode != 0:
            out.seek(0)
            said = out.read().decode(errors="replace").strip()
            extra = log.read_text(errors="replace").strip() if log and log.exists() else ""
            raise Unavailable(f"{' '.join(args)} failed ({done.returncode}):\n{said}\n{extra}")


def _owner() -> tuple[list[str], int, int]:
    """Who runs the cluster: (command prefix, uid, gid); as root, an unprivileged user."""
    if os.geteuid() != 0:
        return [], os.getuid(), os.getgid()
    for name in ("postgres", "nobody"):
        try:
            user = pwd.getpwnam(name)
        except KeyError:
            continue
        if shutil.which("runuser"):
            return ["runuser", "-u", name, "--"], user.pw_uid, user.pw_gid
        if shutil.which("setpriv"):
            ids = [f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups"]
            return ["setpriv", *ids, "--"], user.pw_uid, user.pw_gid
        raise Unavailable("running as root, and neither runuser nor setpriv can drop privileges")
    raise Unavailable("running as root, and there is no postgres or nobody user to run as")


def start_cluster(attempts: int = 3) -> Cluster:
    """A new running cluster; ``Unavailable`` (with the reason) when none can be started."""
    bindir = find_bindir()
    if bindir is None:
        raise Unavailable(
            "PostgreSQL's initdb and pg_ctl were not found (PATH, /usr/lib/postgresql/*/bin,"
            " $TWENTYNINE_PG_BIN); run scripts/ensure-postgres"
        )
    runas, uid, gid = _owner()
    began = time.perf_counter()
    # /tmp, not pytest's folders: those are private to root, and the owner must get in.
    root = Path(tempfile.mkdtemp(prefix="twentynine-pg-", dir="/tmp" if runas else None))
    try:
        os.chown(root, uid, gid)
        data = root / "data"
        _run(
            runas,
            bindir / "initdb",
            "-D",
            data,
            "-U",
            SUPERUSER,
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
        )
        log = root / "server.log"
        for attempt in range(attempts):
            port = free_port()
            options = (
                f"-h 127.0.0.1 -p {port} -k {root} -F -c full_page_writes=off"
                " -c synchronous_commit=off -c max_connections=40 -c shared_buffers=16MB"
            )
            try:
                _run(
                    runas,
                    bindir / "pg_ctl",
                    "-D",
                    data,
                    "-l",
                    log,
                    "-w",
                    "-t",
                    "30",
                    "-o",
                    options,
                    "start",
                    log=log,
                )
            except Unavailable:
                if attempt == attempts - 1:
                    raise
                continue  # most likely another process took the port: another one
            cluster = Cluster(bindir, root, port, runas, time.perf_counter() - began)
            cluster.watch()
            return cluster
        raise AssertionError("unreachable")
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise


# ---------------------------------------------------------------------- Redis


def find_redis() -> Path | None:
    """The ``redis-server`` program, or None."""
    given = os.environ.get("TWENTYNINE_REDIS_BIN")
    if given:
        path = Path(given) / "redis-server" if Path(given).is_dir() else Path(given)
        return path if os.access(path, os.X_OK) else None
    found = shutil.which("redis-server")
    return Path(found) if found else None


@dataclass
class RedisServer:
    """A running ``redis-server``; ``stop`` ends it and removes its folder."""

    proc: subprocess.Popen[bytes]
    root: Path
    port: int
    started_in: float = 0.0
    watchdog: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> None:
        if self.watchdog is not None:
            self.watchdog.kill()
            self.watchdog.wait()
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        shutil.rmtree(self.root, ignore_errors=True)

    def watch(self) -> None:
        """Stop the server when this process is gone, even if it never calls ``stop``."""
        script = (
            f"while kill -0 {os.getpid()} 2>/dev/null; do sleep 1; done;"
            f" kill -9 {self.proc.pid} 2>/dev/null; rm -rf {shlex.quote(str(self.root))}"
        )
        self.watchdog = _watchdog(script)


def start_redis(attempts: int = 3, timeout: float = 15.0) -> RedisServer:
    """A new running Redis; ``Unavailable`` (with the reason) when none can be started."""
    program = find_redis()
    if program is None:
        raise Unavailable(
            "redis-server was not found (PATH, $TWENTYNINE_REDIS_BIN); run scripts/ensure-redis"
        )
    began = time.perf_counter()
    root = Path(tempfile.mkdtemp(prefix="twentynine-redis-"))
    try:
        for attempt in range(attempts):
            port = free_port()
            log = root / "redis.log"
            cmd = [str(program), "--port", str(port), "--bind", "127.0.0.1", "--save", ""]
            cmd += ["--appendonly", "no", "--dir", str(root), "--daemonize", "no"]
            cmd += ["--logfile", str(log), "--protected-mode", "yes"]
            proc = subprocess.Popen(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            server = RedisServer(proc, root, port)
            if _answers(server, timeout):
                server.started_in = time.perf_counter() - began
                server.watch()
                return server
            said = log.read_text(errors="replace").strip() if log.exists() else ""
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
            if attempt == attempts - 1:
                raise Unavailable(f"redis-server did not start on port {port}:\n{said}")
        raise AssertionError("unreachable")
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise


def _answers(server: RedisServer, timeout: float) -> bool:
    """Wait until the server answers PING (False if it ends or the time runs out)."""
    import socket

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.proc.poll() is not None:
            return False
        try:
            with socket.create_connection(("127.0.0.1", server.port), timeout=1) as s:
                s.sendall(b"PING\r\n")
                if s.recv(64).startswith(b"+PONG"):
                    return True
        except OSError:
            pass
        time.sleep(0.05)
    return False


__all__ = [
    "SUPERUSER",
    "Cluster",
    "RedisServer",
    "Unavailable",
    "find_bindir",
    "find_redis",
    "start_cluster",
    "start_redis",
]
