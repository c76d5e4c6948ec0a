"""The send path: every client has its own bounded queue of messages and one writer.

A game tells its clients of a change while it holds its lock, so sending
must never wait for a client: one that does not read (a slow network, a
stopped tab, someone who means harm) would stop the game for everyone at
its table. So ``Connection.send`` only puts the message, encoded, in the
client's ``Outbox`` and returns; the outbox's writer task (one per client)
takes them out in order and writes them to the socket, each within
``send_timeout`` seconds.

A client that falls behind is not waited for: once more than ``messages``
messages or ``max_bytes`` bytes wait for it, or one write takes longer than
``send_timeout``, what waits is dropped and the connection is closed with
``SLOW`` (4008). The page knows that code: it reconnects at once and asks
for the whole state again, which is all it missed. A close that cannot be
written within ``CLOSE_SECONDS`` (the socket does not drain) ends with the
transport aborted, where the server offers that (``ABORT_EXTENSION``), so
a client that never reads holds no memory of the server's for long.

Close codes the page understands (``web/static/js/net.js``): ``SLOW``
(reconnect now, resync), ``LIMITED`` (4029: over a rate limit, wait before
reconnecting) and ``GOING_AWAY`` (1001: the server stops).
"""

from __future__ import annotations

import asyncio
import collections
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from .protocol import dumps

log = logging.getLogger("twentynine.server")

SLOW = 4008  # the client did not read what was sent: reconnect and resync
LIMITED = 4029  # the client went on past a limit: wait, then reconnect
GOING_AWAY = 1001
CLOSE_SECONDS = 1.0  # to write the close frame; past it the transport is aborted
# The keys under the ASGI scope's "extensions" where the server puts a function that
# drops the connection at once, and one that stops reading from it (``web.sockets``:
# uvicorn offers neither itself).
ABORT_EXTENSION = "twentynine.abort"
STOP_READING_EXTENSION = "twentynine.stop_reading"

Write = Callable[[str], Awaitable[None]]
Close = Callable[[int, str], Awaitable[None]]


class Connection(Protocol):
    """What a session and the lobby need of a client: somewhere to put messages.

    ``send`` never waits and never fails: the message joins the client's
    outbox, or is dropped if the client is being closed.
    """

    def send(self, data: dict[str, Any]) -> None: ...


def deliver(conn: Connection, data: dict[str, Any]) -> None:
    """Send to a client that may be gone or misbehaving: nothing it does reaches the caller."""
    try:
        conn.send(data)
    except Exception:  # a connection of another kind, failing: its own handler notices
        log.debug("send failed", exc_info=True)


@dataclass(frozen=True, slots=True)
class OutboxLimits:
    """How far a client may fall behind before it is closed (``SLOW``)."""

    messages: int = 512  # messages waiting to be written
    max_bytes: int = 4 * 1024 * 1024  # their total length
    send_timeout: float = 5.0  # seconds one write may take (the socket not draining)


def encode(data: dict[str, Any]) -> str:
    """A message as the wire carries it. Text that UTF-8 cannot carry (a lone surrogate
    that got past every check) is escaped instead of failing every later message."""
    text = dumps(data)
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            log.error("a message held text that is not valid Unicode: sent escaped")
            text = dumps_escaped(data)
    return text


def dumps_escaped(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=True, separators=(",", ":"))


class Outbox:
    """One client's messages on their way out, and the task that writes them.

    ``put`` is for the game (never waits); ``run`` is the writer, to be run as
    a task of its own for as long as the connection lives; ``close`` ends it
    with a close code. ``limits`` None: no bound (a page's own engine, which
    posts to the page and cannot fall behind).
    """

    # how many connections of this process were closed, by close code (for /healthz)
    closes: ClassVar[collections.Counter[int]] = collections.Counter()

    def __init__(
        self,
        write: Write,
        close: Close | None = None,
        limits: OutboxLimits | None = None,
        abort: Callable[[], None] | None = None,
        stop_reading: Callable[[], None] | None = None,
    ) -> None:
        self._write = write
        self._close = close
        self._abort = abort
        self._stop_reading = stop_reading
        self.limits = limits
        self._queue: collections.deque[str] = collections.deque()
        self._bytes = 0
        self._wake = asyncio.Event()
        self._deadline: asyncio.Timeout | None = None
        self.closing: tuple[int, str] | None = None  # (code, reason) once closed or closing
        self.done = asyncio.Event()  # the writer has finished (the connection may go)
        self.sent = 0
        self.dropped = 0

    @property
    def waiting(self) -> int:
        return len(self._queue)

    @property
    def waiting_bytes(self) -> int:
        return self._bytes

    def put(self, data: dict[str, Any]) -> bool:
        """Queue a message; False if it is not going out (the client is being closed)."""
        if self.closing is not None:
            self.dropped += 1
            return False
        return self.put_text(encode(data))

    def put_text(self, text: str) -> bool:
        """Queue a message already encoded (one relayed from another server process)."""
        if self.closing is not None:
            self.dropped += 1
            return False
        limits = self.limits
        if limits is not None and (
            len(self._queue) >= limits.messages or self._bytes + len(text) > limits.max_bytes
        ):
            self.close(SLOW, "too far behind: reconnect to catch up")
            self.dropped += 1
            return False
        self._queue.append(text)
        self._bytes += len(text)
        self._wake.set()
        return True

    def close(self, code: int, reason: str, drop: bool = True) -> None:
        """Close the connection with ``code`` (the writer does it); nothing more is taken.

        ``drop``: what waits is dropped (a client too far behind); else it goes
        out first, the last words of a client closed for going past a limit.
        """
        if self.closing is not None:
            return
        self.closing = (code, reason)
        self._wake.set()
        if drop:
            self.dropped += len(self._queue)
            self._queue.clear()
            self._bytes = 0
            if self._deadline is not None:  # a write in progress: give up on it now
                self._deadline.reschedule(asyncio.get_running_loop().time())

    async def run(self) -> None:
        """Write the messages in order until the connection is closed or gone."""
        try:
            while True:
                if self._queue:
                    text = self._queue.popleft()
                    self._bytes -= len(text)
                    if not await self._write_one(text):
                        return
                elif self.closing is not None:
                    break
                else:
                    self._wake.clear()
                    await self._wake.wait()
            await self._say_goodbye()
        finally:
            self.done.set()

    async def _write_one(self, text: str) -> bool:
        timeout = self.limits.send_timeout if self.limits is not None else None
        try:
            async with asyncio.timeout(timeout) as deadline:
                self._deadline = deadline  # (``close`` ends it early)
                try:
                    await self._write(text)
                finally:
                    self._deadline = None
        except TimeoutError:
            if self.closing is None:
                self.close(SLOW, "not reading: reconnect to catch up")
            else:  # last words that do not go out: the rest would not either
                self.dropped += len(self._queue)
                self._queue.clear()
                self._bytes = 0
            return True  # the loop ends on ``closing``: the close frame comes next
        except Exception:  # the client is gone: its reader notices and detaches it
            log.debug("write failed", exc_info=True)
            self.closing = self.closing or (GOING_AWAY, "gone")
            return False
        self.sent += 1
        return True

    async def _say_goodbye(self) -> None:
        assert self.closing is not None
        code, reason = self.closing
        Outbox.closes[code] += 1
        if code == SLOW:
            log.info("closing a client that does not keep up (%s)", reason)
        if self._close is None:
            return
        try:
            async with asyncio.timeout(CLOSE_SECONDS):
                await self._close(code, reason)
        except TimeoutError:
            pass  # the socket does not drain: the close frame cannot go out either
        except Exception:
            log.debug("close failed", exc_info=True)
            return
        else:
            # Nothing it sends now is read (a flood would cost the server as much as
            # before); a client that answers the close is gone long before CLOSE_SECONDS,
            # one that does not read never will: drop it then.
            if self._stop_reading is not None:
                self._stop_reading()
            if self._abort is not None:
                asyncio.get_running_loop().call_later(CLOSE_SECONDS, self._abort)
            return
        if self._abort is not None:
            self._abort()


__all__ = [
    "ABORT_EXTENSION",
    "GOING_AWAY",
    "LIMITED",
    "SLOW",
    "STOP_READING_EXTENSION",
    "Connection",
    "Outbox",
    "OutboxLimits",
    "deliver",
    "encode",
]
