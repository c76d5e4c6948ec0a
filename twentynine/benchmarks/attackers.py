"""The misbehaving clients of ``twentynine bench abuse``, in a process of their own.

The attacker must not slow the clients that measure (the people at the
tables, in the benchmark's own process and event loop), only the server, as
a client on another machine would; so ``Attack`` runs these loops in a
spawned process, in the windows it is given, and reports what they did.

- ``never_reader``: a spectator with a receive buffer of a few kilobytes
  that never reads a byte (``SilentSocket``), sending ``sync`` flat out or at
  a rate, back again whenever it is closed.
- ``flooder``: one frame again and again as fast as it can (reading what
  comes back), a new connection the moment one is closed.
- ``idle_sockets``: as many idle connections from one address as it takes.

Every one of them connects from a loopback address of its own (127.66.0.N),
so that the limits of an address fall on the attacker alone.
"""

from __future__ import annotations

import asyncio
import base64
import collections
import contextlib
import json
import multiprocessing
import os
import socket
import struct
import time
from typing import Any

from websockets.exceptions import ConnectionClosed

from .load_people import ws_connect
from .load_servers import HOST, Server

SMALL_BUFFER = 4096  # the never-readers' receive buffer
# Every attacker's send buffer: on loopback a client could otherwise pile megabytes into
# its own kernel buffers for a server that no longer reads it, burning this machine's CPU
# (shared with the server) where a remote attacker would wait on its network.
SEND_BUFFER = 32 * 1024
IDLE_SOCKETS = 200  # idle connections the flooder tries to hold open
Msg = dict[str, Any]


def attacker(n: int) -> str:
    """The loopback address of attacker ``n``."""
    return f"127.66.0.{n}"


def percent(used: float, span: float) -> float | None:
    return round(100 * used / span, 1) if span > 0 else None


class Attack:
    """The attacker, in a process of its own: its loops must not slow the people's clients
    (which measure), only the server, as a client on another machine would."""

    def __init__(self, part: str, server: Server, paced: float) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.pipe, child = ctx.Pipe()
        args = (part, server.url, server.port, paced)
        self.proc = ctx.Process(target=_attacker_main, args=(*args, child), daemon=True)
        self.proc.start()

    def go(self, code: str, windows: list[tuple[float, float]]) -> None:
        """Attack in these windows (``time.monotonic``, the same clock in every process)."""
        self.pipe.send({"code": code, "windows": windows})

    async def result(self, timeout: float) -> Msg:
        if not await asyncio.to_thread(self.pipe.poll, timeout):
            return {"error": "the attacker did not report"}
        result: Msg = self.pipe.recv()
        return result

    def stop(self) -> None:
        if self.proc.is_alive():
            self.proc.terminate()
        self.proc.join(5)


def _attacker_main(part: str, url: str, port: int, paced: float, pipe: Any) -> None:
    """The attacker process: wait for the word, attack, report the counts."""
    order = pipe.recv()
    result = asyncio.run(_attack(part, url, port, paced, order))
    pipe.send(result)


async def _attack(part: str, url: str, port: int, paced: float, order: Msg) -> Msg:
    total: collections.Counter[str] = collections.Counter()
    cpu, seconds = 0.0, 0.0
    for start, end in order["windows"]:
        await asyncio.sleep(max(0.0, start - time.monotonic()))
        cpu0, t0 = time.process_time(), time.monotonic()
        counts = await _attack_counts(part, url, port, paced, order["code"], end)
        cpu += time.process_time() - cpu0
        seconds += time.monotonic() - t0
        total.update({k: v for k, v in counts.items() if isinstance(v, int)})
    out: Msg = dict(sorted(total.items()))
    out["cpu_pct"] = percent(cpu, seconds)
    return out


async def _attack_counts(
    part: str, url: str, port: int, paced: float, code: str, until: float
) -> Msg:
    counts: Msg = collections.Counter()
    if part == "slow":
        fast: Msg = collections.Counter()
        quiet: Msg = collections.Counter()
        await asyncio.gather(
            never_reader(url, port, code, until, attacker(3), None, fast),
            never_reader(url, port, code, until, attacker(4), paced, quiet),
        )
        counts.update({f"flooding_reader_{k}": v for k, v in fast.items()})
        counts.update({f"quiet_reader_{k}": v for k, v in quiet.items()})
        return counts

    async def hold_idle() -> None:
        held = await idle_sockets(url, port, counts)
        await asyncio.sleep(max(0.0, until - time.monotonic()))
        for ws in held:
            ws.transport.abort()

    await asyncio.gather(hold_idle(), flooder(url, port, until, counts))
    return counts


# ------------------------------------------------------------------ the attackers


async def connected_from(port: int, source: str, rcvbuf: int | None) -> socket.socket:
    """A TCP socket from the address ``source`` to the server's ``port``, connected;
    with ``rcvbuf``, a receive buffer of that many bytes."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        if rcvbuf is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
        sock.bind((source, 0))
        sock.setblocking(False)
        await asyncio.get_running_loop().sock_connect(sock, (HOST, port))
    except OSError:
        sock.close()
        raise
    return sock


async def open_raw(url: str, port: int, source: str, rcvbuf: int | None = None) -> Any:
    """A websocket from ``source``; with ``rcvbuf``, a tiny receive buffer, and a client
    that stops reading after two messages (it never asks for one)."""
    sock = await connected_from(port, source, rcvbuf)
    return await ws_connect(
        url,
        sock=sock,
        open_timeout=10,
        ping_interval=None,
        max_queue=2 if rcvbuf is not None else None,
        compression=None,
    )


class SilentSocket:
    """A websocket client that, after the handshake, never reads a byte: its frames go
    out, what the server sends piles up in a receive buffer of ``SMALL_BUFFER`` bytes and
    then in the server's own buffers. (A websocket library reads in the background: this
    is written by hand, as the protocol is simple for a client that only sends.)"""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    @classmethod
    async def open(cls, port: int, source: str) -> SilentSocket:
        sock = await connected_from(port, source, SMALL_BUFFER)
        reader, writer = await asyncio.open_connection(sock=sock)
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write(
            (
                f"GET /ws HTTP/1.1\r\nHost: {HOST}:{port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        if not head.startswith(b"HTTP/1.1 101"):
            writer.transport.abort()
            raise ConnectionError(head.split(b"\r\n", 1)[0].decode(errors="replace"))
        return cls(reader, writer)

    async def send(self, text: str) -> None:
        """One masked text frame (as every client frame must be)."""
        data = text.encode()
        mask = os.urandom(4)
        if len(data) < 126:
            head = struct.pack("!BB", 0x81, 0x80 | len(data))
        else:
            head = struct.pack("!BBH", 0x81, 0x80 | 126, len(data))
        body = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        self.writer.write(head + mask + body)
        await self.writer.drain()  # waits once the server stops reading us

    def abort(self) -> None:
        self.writer.transport.abort()


async def never_reader(
    url: str, port: int, code: str, until: float, source: str, rate: float | None, counts: Msg
) -> None:
    """A spectator that never reads: ``sync`` as fast as it can (rate None) or ``rate`` a
    second; back again whenever it is closed (or its sends have been stuck for 5 s)."""
    n = 0
    while time.monotonic() < until:
        try:
            ws = await SilentSocket.open(port, source)
        except Exception:  # refused at the door, or no answer
            counts["refused"] += 1
            await asyncio.sleep(0.2)
            continue
        counts["connections"] += 1
        try:
            await ws.send(json.dumps({"type": "room_join", "id": "j", "code": code}))
            while time.monotonic() < until:
                n += 1
                await asyncio.wait_for(ws.send(f'{{"type":"sync","id":"s{n}"}}'), 5)
                counts["sent"] += 1
                await asyncio.sleep(1 / rate if rate else 0)
        except TimeoutError:
            counts["stuck"] += 1  # the server does not read it any more
        except OSError:
            counts["closed"] += 1
        finally:
            ws.abort()


FLOOD_FRAMES = {
    "ping": '{"type":"ping"}',
    "bad_json": '{"type": "ping"',
    "sync": '{"type":"sync","id":"s"}',
}


async def flooder(url: str, port: int, until: float, counts: Msg) -> None:
    """As fast as it can: a frame, again and again, reading what comes back (so that the
    server never has to wait for it); a new connection the moment one is closed."""
    kinds = list(FLOOD_FRAMES)
    n = 0
    while time.monotonic() < until:
        kind = kinds[n % len(kinds)]
        n += 1
        try:
            ws = await open_raw(url, port, attacker(1))
        except Exception:
            counts["refused"] += 1
            await asyncio.sleep(0)
            continue
        counts["connections"] += 1

        async def drain(ws: Any = ws) -> None:
            with contextlib.suppress(Exception):
                async for _ in ws:
                    counts["answers"] += 1

        reader = asyncio.create_task(drain())
        frame = FLOOD_FRAMES[kind]
        sent = 0
        try:
            while time.monotonic() < until:
                await ws.send(frame)
                sent += 1
                if sent % 64 == 0:
                    await asyncio.sleep(0)  # let the answers in
        except (ConnectionClosed, OSError):
            counts["closed"] += 1
        finally:
            counts[f"sent_{kind}"] += sent
            ws.transport.abort()
            reader.cancel()


async def idle_sockets(url: str, port: int, counts: Msg) -> list[Any]:
    """As many idle connections from one address as it will take (up to IDLE_SOCKETS)."""
    kept = []
    for _ in range(IDLE_SOCKETS):
        try:
            ws = await open_raw(url, port, attacker(2))
            first = json.loads(await asyncio.wait_for(ws.recv(), 5))
        except Exception:
            counts["idle_refused"] += 1
            continue
        if first.get("type") == "welcome":
            kept.append(ws)
        else:
            ws.transport.abort()
            counts["idle_refused"] += 1
    counts["idle_held"] = len(kept)
    return kept


__all__ = [
    "IDLE_SOCKETS",
    "Attack",
    "attacker",
    "flooder",
    "idle_sockets",
    "never_reader",
    "open_raw",
]
