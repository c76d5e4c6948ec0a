"""The server inside the browser: the ``Lobby`` of ``twentynine serve``, without a network.

The worker gives ``LocalHost`` the page's messages as text, exactly as they
would come over the websocket, and ``LocalHost`` answers through ``post``:
``post(connection, text)`` with the same JSON the server sends. Each page
connection reads its messages one at a time, in order, as the websocket
endpoint does (``server.routes.game_socket``), and its messages out go
through an outbox and its writer, as the server's do (``server.outbox``).
Before a message leaves, the store's pending writes are flushed (``flush``),
so the page never sees a move that a reload would lose.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from ..server import protocol as P
from ..server.botpool import INLINE
from ..server.config import ServerConfig
from ..server.lobby import Lobby
from ..server.outbox import Outbox
from ..server.protocol import welcome
from ..server.session import GameSession
from ..server.store import GameStore

log = logging.getLogger("twentynine.offline")

Post = Callable[[str, str], None]
Flush = Callable[[], Awaitable[Any]]


def local_config(bot_delay: float = 0.6) -> ServerConfig:
    """A server's settings for one browser: bots on the event loop, a few games."""
    return ServerConfig(
        bot_delay=max(0.0, bot_delay), bot_workers=INLINE, max_games=20, warm_up=True, db=None
    )


class PageConnection:
    """One page's connection, as a session sees it.

    Its outbox has no bound: posting to the page never blocks, and the page is
    the only client of this engine.
    """

    address = "page"

    def __init__(self, host: LocalHost, ident: str) -> None:
        self.host = host
        self.ident = ident
        self.session: GameSession | None = None
        self.inbox: asyncio.Queue[str] = asyncio.Queue()
        self.reader: asyncio.Task[None] | None = None
        self.outbox = Outbox(self._post)
        self.writer: asyncio.Task[None] | None = None

    def send(self, data: dict[str, Any]) -> None:
        self.outbox.put(data)

    async def _post(self, text: str) -> None:
        if self.host.flush is not None:
            await self.host.flush()
        self.host.post(self.ident, text)


class LocalHost:
    """Every game of this browser, and the pages that talk to them."""

    def __init__(
        self,
        post: Post,
        store: GameStore | None = None,
        config: ServerConfig | None = None,
        flush: Flush | None = None,
    ) -> None:
        self.post = post
        self.flush = flush
        self.lobby = Lobby(config or local_config(), store)
        self.connections: dict[str, PageConnection] = {}
        self.started = False

    def start(self) -> int:
        """Import the bots and rebuild the stored unfinished games; return how many."""
        self.lobby.start()
        self.started = True
        return len(self.lobby.sessions)

    def connect(self, ident: str) -> None:
        """A page opens a connection: it is welcomed, as by the websocket endpoint."""
        self.disconnect(ident)
        conn = PageConnection(self, ident)
        self.connections[ident] = conn
        conn.writer = asyncio.ensure_future(conn.outbox.run())
        conn.reader = asyncio.ensure_future(self._read(conn))

    def receive(self, ident: str, text: str) -> None:
        """A message from a page (ignored if that connection is closed)."""
        conn = self.connections.get(ident)
        if conn is not None:
            conn.inbox.put_nowait(text)

    def disconnect(self, ident: str) -> None:
        conn = self.connections.pop(ident, None)
        if conn is None:
            return
        for task in (conn.reader, conn.writer):
            if task is not None:
                task.cancel()
        if conn.session is not None:
            conn.session.detach(conn)

    async def _read(self, conn: PageConnection) -> None:
        conn.send(welcome())
        while True:
            text = await conn.inbox.get()
            await self.handle(conn, text)

    async def handle(self, conn: PageConnection, text: str) -> None:
        ident: str | None = None
        try:
            msg = P.parse_message(text)
            ident = msg.id
            conn.session = await self.lobby.dispatch(conn, conn.session, msg)
        except P.ProtocolError as e:
            version = conn.session.version if conn.session is not None else 0
            conn.send(P.error(e.code, str(e), e.ident or ident, version, e.reason, e.params))
        except Exception:  # a bug must not end the connection
            log.exception("error handling a message")
            version = conn.session.version if conn.session is not None else 0
            conn.send(P.error("server_error", "the engine failed on this message", ident, version))

    def close(self) -> None:
        for ident in list(self.connections):
            self.disconnect(ident)
        self.lobby.close()
