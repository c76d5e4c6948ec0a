"""The server's endpoints: the game websocket and a small JSON API."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.types import Message
from starlette.websockets import WebSocket, WebSocketDisconnect

from . import protocol as P
from .analysis import routes as analysis_routes
from .cluster.relay import Route as Relayed
from .hint import routes as hint_routes
from .history import routes as history_routes
from .limits import CLOSE, OK, Ticket
from .lobby import Lobby
from .meta import meta
from .outbox import (
    ABORT_EXTENSION,
    CLOSE_SECONDS,
    LIMITED,
    SLOW,
    STOP_READING_EXTENSION,
    Outbox,
    OutboxLimits,
)
from .protocol import dumps, welcome
from .session import GameSession
from .stats import routes as stats_routes

log = logging.getLogger("twentynine.server")


class SocketConnection:
    """A websocket as the lobby and the sessions see it: its outbox takes every message,
    and the outbox's writer is the only one who writes to the socket."""

    def __init__(self, ws: WebSocket, address: str, limits: OutboxLimits) -> None:
        self.ws = ws
        self.address = address  # what its limits count against (``limits.Guard.key``)
        extensions = ws.scope.get("extensions") or {}
        self.outbox = Outbox(
            self._write,
            self._close,
            limits,
            abort=extensions.get(ABORT_EXTENSION),
            stop_reading=extensions.get(STOP_READING_EXTENSION),
        )

    def send(self, data: dict[str, Any]) -> None:
        self.outbox.put(data)

    def drop(self, reason: str) -> None:
        """Close it with ``SLOW``: the page reconnects at once and joins again."""
        self.outbox.close(SLOW, reason)

    async def _write(self, text: str) -> None:
        await self.ws.send_text(text)

    async def _close(self, code: int, reason: str) -> None:
        await self.ws.close(code, reason)


def _lobby(request: Request | WebSocket) -> Lobby:
    lobby: Lobby = request.app.state.lobby
    return lobby


class Reader:
    """The messages of one connection, handled one at a time, in order, within its limits."""

    def __init__(self, ws: WebSocket, conn: SocketConnection, lobby: Lobby, ticket: Ticket):
        self.ws = ws
        self.conn = conn
        self.lobby = lobby
        self.ticket = ticket
        # one of many processes: where this client's messages are served (``cluster``)
        self.route: Relayed | None = (
            Relayed(lobby.cluster.relay, conn.outbox, conn.address) if lobby.cluster else None
        )
        self.session: GameSession | None = None
        self.handling = False  # a message is being handled: it finishes before we stop

    async def run(self) -> None:
        with contextlib.suppress(WebSocketDisconnect, RuntimeError):
            while self.conn.outbox.closing is None:
                frame = await self.ws.receive()
                if frame["type"] == "websocket.disconnect":
                    return
                self.handling = True
                try:
                    await self.handle(frame)
                finally:
                    self.handling = False
                # Frames that came in one read are all waiting already, and taking the
                # next does not yield: let the writers (this client's too) and the other
                # clients go first, so that no client's burst holds the loop.
                await asyncio.sleep(0)

    def _version(self) -> int:
        return self.session.version if self.session is not None else 0

    async def handle(self, frame: Message) -> None:
        """Read the message, see that it is within the limits, then let the lobby have it."""
        conn, session = self.conn, self.session
        raw = _text(frame)
        try:
            msg = P.parse_message(raw)
        except P.ProtocolError as e:
            if self.admitted(None, e.ident):
                conn.send(P.error(e.code, str(e), e.ident, self._version(), e.reason, e.params))
            return
        if not self.admitted(msg.type, msg.id):
            return
        if self.route is not None:
            text = raw if isinstance(raw, str) else bytes(raw or b"").decode("utf-8", "replace")
            try:
                if await self.route.forwards(msg, text):
                    if session is not None:  # its table is served by another process now
                        self.lobby.leave(conn, session)
                        self.session = None
                    return
            except Exception:  # Redis away: said, and nothing changed
                log.exception("cannot reach the other servers")
                conn.send(
                    P.error(
                        P.UNAVAILABLE,
                        "the server cannot reach its peers now; try again",
                        msg.id,
                        self._version(),
                    )
                )
                return
        self.session = await self.lobby.answer(conn, session, msg)

    def admitted(self, kind: str | None, ident: str | None) -> bool:
        """Is this message within the limits? If not, its sender hears why (by the message's
        id); one that goes on being refused is closed (``outbox.LIMITED``) after that."""
        verdict = self.ticket.admit(kind)
        if verdict == OK:
            return True
        close = verdict == CLOSE
        why = "too many messages: slow down" + (" (closing this connection)" if close else "")
        self.conn.send(P.error(P.RATE_LIMITED, why, ident, self._version()))
        if close:
            log.info("closing a connection from %s: too many messages", self.conn.address)
            self.conn.outbox.close(LIMITED, "too many messages", drop=False)
        return False


def _text(frame: Message) -> str | bytes | None:
    text = frame.get("text")
    return text if text is not None else frame.get("bytes")


async def _turn_away(ws: WebSocket, why: str) -> None:
    """A connection over its address's limits: told why, then closed (``LIMITED``), and
    dropped soon after if it does not answer the close."""
    with contextlib.suppress(Exception):
        async with asyncio.timeout(CLOSE_SECONDS):
            await ws.accept()
            await ws.send_text(dumps(P.error(P.RATE_LIMITED, why, None, 0)))
            await ws.close(LIMITED, "over a limit")
    extensions = ws.scope.get("extensions") or {}
    if STOP_READING_EXTENSION in extensions:
        extensions[STOP_READING_EXTENSION]()
    if ABORT_EXTENSION in extensions:
        asyncio.get_running_loop().call_later(CLOSE_SECONDS, extensions[ABORT_EXTENSION])


async def game_socket(ws: WebSocket) -> None:
    """One client: a reader that handles its messages and a writer that sends it ours.

    Whichever ends first ends the other: a client gone stops the writer; a
    client closed by its outbox (``outbox.SLOW``) or for going past a limit
    stops being read, once the message in hand is handled.
    """
    lobby = _lobby(ws)
    guard = lobby.guard
    peer = ws.client.host if ws.client is not None else None
    address = guard.client_address(peer, ws.headers.getlist("x-forwarded-for"))
    ticket = guard.open(address)
    if isinstance(ticket, str):
        if guard.explain(address):
            await _turn_away(ws, ticket)
        else:  # told a moment ago: refused at the handshake (HTTP 403), nothing read
            with contextlib.suppress(Exception):
                await ws.close(LIMITED)
        return
    shared = lobby.cluster.shared if lobby.cluster is not None else None
    counted = False
    if shared is not None:  # the address's connections on every process
        try:
            why = await shared.open(guard.key(address))
        except Exception as e:  # Redis away: this process's own limits still hold
            log.error("cannot count the connections of all servers: %s", e)
        else:
            if why is not None:
                ticket.close()
                await _turn_away(ws, why)
                return
            counted = True
    try:
        await ws.accept()
        conn = SocketConnection(ws, address, lobby.config.limits.outbox)
        reader = Reader(ws, conn, lobby, ticket)
        conn.send(welcome())
        writing = asyncio.create_task(conn.outbox.run())
        reading = asyncio.create_task(reader.run())
        try:
            await asyncio.wait({writing, reading}, return_when=asyncio.FIRST_COMPLETED)
            if not writing.done():
                if conn.outbox.closing is None:
                    writing.cancel()  # the client is gone: nothing more to write
                # else the writer says its last words, within its own time limits
            elif not reader.handling:
                reading.cancel()  # (a message being handled is finished first; then it stops)
            await asyncio.wait({writing, reading})
        finally:
            for task in (writing, reading):
                task.cancel()
            lobby.leave(conn, reader.session)
            if reader.route is not None:
                reader.route.close()
    finally:
        ticket.close()
        if counted and shared is not None:
            with contextlib.suppress(Exception):
                await shared.close(guard.key(address))


async def api_meta(request: Request) -> Response:
    return JSONResponse(meta())


async def api_record(request: Request) -> Response:
    """The record of a game's finished deals, for the players who hold its token."""
    session = _lobby(request).sessions.get(request.path_params["game"])
    token = request.query_params.get("token", "")
    if session is None:
        return JSONResponse({"error": "no such game"}, status_code=404)
    if not session.admits(token):
        return JSONResponse({"error": "wrong token"}, status_code=403)
    return JSONResponse(
        session.game.record(),
        headers={"Content-Disposition": f'inline; filename="29-{session.ident}.json"'},
    )


async def health(request: Request) -> Response:
    lobby = _lobby(request)
    closes = {str(code): n for code, n in sorted(Outbox.closes.items())}
    body = {"ok": True, "games": len(lobby.sessions), "limits": lobby.guard.counts()}
    if lobby.cluster is not None:
        body["cluster"] = lobby.cluster.counts()
    return JSONResponse({**body, "closes": closes})


def routes() -> list[BaseRoute]:
    return [
        WebSocketRoute("/ws", game_socket),
        Route("/api/meta", api_meta),
        Route("/api/games/{game}/record", api_record),
        *history_routes(),
        *stats_routes(),
        *analysis_routes(),
        *hint_routes(),
        Route("/healthz", health),
    ]
