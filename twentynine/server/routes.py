"""The server's endpoints: the game websocket and a small JSON API."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from . import protocol as P
from .analysis import routes as analysis_routes
from .hint import routes as hint_routes
from .history import routes as history_routes
from .lobby import Lobby
from .meta import meta
from .protocol import dumps, welcome
from .session import GameSession

log = logging.getLogger("twentynine.server")


class SocketConnection:
    """A websocket as a session sees it: one sender at a time."""

    def __init__(self, ws: WebSocket) -> None:
        self.ws = ws
        self._lock = asyncio.Lock()

    async def send(self, data: dict[str, Any]) -> None:
        async with self._lock:
            await self.ws.send_text(dumps(data))


def _lobby(request: Request | WebSocket) -> Lobby:
    lobby: Lobby = request.app.state.lobby
    return lobby


async def game_socket(ws: WebSocket) -> None:
    await ws.accept()
    conn = SocketConnection(ws)
    lobby = _lobby(ws)
    session: GameSession | None = None
    await conn.send(welcome())
    try:
        while True:
            frame = await ws.receive()
            if frame["type"] == "websocket.disconnect":
                break
            ident: str | None = None
            try:
                text = frame.get("text")
                msg = P.parse_message(text if text is not None else frame.get("bytes"))
                ident = msg.id
                session = await lobby.dispatch(conn, session, msg)
            except P.ProtocolError as e:
                version = session.version if session is not None else 0
                await conn.send(
                    P.error(e.code, str(e), e.ident or ident, version, e.reason, e.params)
                )
            except Exception:  # a bug must not end the connection, nor the server
                log.exception("error handling a message")
                version = session.version if session is not None else 0
                await conn.send(
                    P.error("server_error", "the server failed on this message", ident, version)
                )
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        lobby.leave(conn, session)


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
    return JSONResponse({"ok": True, "games": len(_lobby(request).sessions)})


def routes() -> list[BaseRoute]:
    return [
        WebSocketRoute("/ws", game_socket),
        Route("/api/meta", api_meta),
        Route("/api/games/{game}/record", api_record),
        *history_routes(),
        *analysis_routes(),
        *hint_routes(),
        Route("/healthz", health),
    ]
