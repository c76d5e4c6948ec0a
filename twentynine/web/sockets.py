"""uvicorn's websocket protocol, with a way for the server to drop a connection at once.

A client that never reads fills the socket's buffers; after that even a close
frame cannot be written, and closing a transport waits for its buffer to
drain, which for such a client is never. The outbox (``server.outbox``)
then aborts the transport instead, through the function this protocol puts
in the ASGI scope under ``ABORT_EXTENSION``; and once a client is closed,
what it goes on sending is no longer read (``STOP_READING_EXTENSION``), so
a flood after the close costs nothing; and a client that comes back in a
loop while its address is refused is dropped before its handshake is read.
Everything else is uvicorn's ``websockets-sansio`` protocol as it is.
"""

from __future__ import annotations

import contextlib
import socket
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from ..server.limits import GUARD_STATE
from ..server.outbox import ABORT_EXTENSION, STOP_READING_EXTENSION

# The kernel's buffers of a client's socket, fixed (Linux would let each grow to megabytes
# for a client that does not read, or one that floods): a game's messages are a few
# kilobytes, a client's at most four. What is read at once is parsed at once (uvicorn
# parses every frame of a read before the app sees the first), so the receive buffer is
# also how long one flooding client can hold the event loop: 16 KB of tiny frames take
# about 3 ms to parse, 256 KB took 50.
SEND_BUFFER = 128 * 1024
RECEIVE_BUFFER = 16 * 1024


class AbortableSockets(WebSocketsSansIOProtocol):
    """``websockets-sansio``, plus ``scope["extensions"][ABORT_EXTENSION]`` (and
    ``STOP_READING_EXTENSION``), and kernel buffers of ``SEND_BUFFER`` and
    ``RECEIVE_BUFFER`` bytes."""

    refused = False  # dropped at once (``Guard.refuses_early``): nothing of it is read

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        guard = (self.app_state or {}).get(GUARD_STATE)
        if guard is not None and self.client is not None and guard.refuses_early(self.client[0]):
            self.refused = True
            transport.abort()
            return
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RECEIVE_BUFFER)

    def data_received(self, data: bytes) -> None:
        if not self.refused:
            super().data_received(data)

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)
        if scope is not None:  # (none when the handshake was refused)
            extensions = scope.setdefault("extensions", {})
            extensions[ABORT_EXTENSION] = self.abort
            extensions[STOP_READING_EXTENSION] = self.stop_reading

    def abort(self) -> None:
        """Drop the connection now, whatever its buffers hold."""
        if self.transport is not None:
            self.transport.abort()

    def stop_reading(self) -> None:
        """Read nothing more from this client (after the app closed it): what it sends
        stays in the kernel's buffers, and TCP holds the rest back."""
        self.read_paused = True  # (so that uvicorn does not resume it)
        if self.transport is not None and not self.transport.is_closing():
            self.transport.pause_reading()


__all__ = ["RECEIVE_BUFFER", "SEND_BUFFER", "AbortableSockets"]
