"""The hint and the bidding advisor at the table, on request.

- ``GET /api/games/{id}/hint?token=...[&seat=N]``: what the expert would do in
  the seat's decision, and why (``services.analysis.hint_for``), as
  ``{"game", "seat", "at", "hint"}``.
- ``GET /api/games/{id}/advice?token=...[&seat=N]``: during the auction, the
  chance to make each bid with each trump for the seat's first four cards.

Both answer only for a game in play on this server, for a seat the token
controls (``seat`` picks one when a token holds several; without it, the seat
whose turn it is), only when it is that seat's turn, and only in a game whose
setup allows the hint: like undo, it is practice against our bots, one person at
the table and no contest bot, and it is off unless the setup asks for it (so it
is off in a match that counts). Each refusal says why, with a 4xx status.

Only the seat's own ``Observation`` leaves the event loop: the work runs in the
bots' worker pool (a hint solves sampled deals; it can take a second), one at
a time, and each answer is kept in memory by game, seat and everything the
seat knows, so asking twice costs nothing. ``at`` is the game log's length the
hint was worked out for: a client ignores a hint that arrives after the game
moved on.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from ..bots.base import fingerprint
from ..game.observation import Observation
from .history import WORD
from .lobby import Lobby
from .session import GameSession

log = logging.getLogger("twentynine.server")

NO_STORE = {"Cache-Control": "no-store"}
CACHED = 512  # hints and tables kept (a few hundred bytes each)
HINT, ADVICE = "hint", "advice"


class Refused(Exception):
    """A request the table cannot answer; ``status`` and a message for people."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class Hints:
    """Hints and advisor tables by (what, game, seat, the seat's knowledge)."""

    def __init__(self, size: int = CACHED) -> None:
        self.size = size
        self._done: OrderedDict[tuple[str, str, int, int], dict[str, Any]] = OrderedDict()
        self._running: dict[tuple[str, str, int, int], asyncio.Task[dict[str, Any]]] = {}
        self._one_at_a_time = asyncio.Semaphore(1)
        self.computed = 0  # answers worked out (for tests)

    async def get(
        self,
        key: tuple[str, str, int, int],
        work: Callable[[], Awaitable[dict[str, Any]]],
    ) -> dict[str, Any]:
        found = self._done.get(key)
        if found is not None:
            self._done.move_to_end(key)
            return found
        task = self._running.get(key)
        if task is None:
            task = asyncio.ensure_future(self._work(key, work))
            self._running[key] = task
            task.add_done_callback(lambda _t: self._running.pop(key, None))
        return await asyncio.shield(task)

    async def _work(
        self, key: tuple[str, str, int, int], work: Callable[[], Awaitable[dict[str, Any]]]
    ) -> dict[str, Any]:
        async with self._one_at_a_time:
            result = await work()
        self.computed += 1
        self._done[key] = result
        while len(self._done) > self.size:
            self._done.popitem(last=False)
        return result


def hints_of(lobby: Lobby) -> Hints:
    """The lobby's hints (made on first use)."""
    found: Hints | None = getattr(lobby, "hints", None)
    if found is None:
        found = Hints()
        lobby.hints = found  # type: ignore[attr-defined]
    return found


def _error(message: str, status: int) -> Response:
    return JSONResponse({"error": message}, status_code=status, headers=NO_STORE)


def seat_to_advise(session: GameSession, token: str, asked: str | None) -> int:
    """The seat a request speaks for, checked; raises ``Refused`` saying what is wrong."""
    seats = session.seats_for(token) if token and WORD.fullmatch(token) else None
    if seats is None:
        raise Refused(403, "wrong token: it holds no seat of this game")
    if not session.setup.hint_allowed:
        raise Refused(
            403,
            "the hint is off in this game: it is for practice against bots, one person at "
            "the table, and is turned on in the new game's settings",
        )
    if asked is not None:
        if not asked.isascii() or not asked.isdigit() or int(asked) > 3:
            raise Refused(400, "'seat' must be a seat number from 0 to 3")
        seat = int(asked)
        if seat not in seats:
            raise Refused(403, f"this token does not hold seat {seat}")
    else:
        to_act = session.game.to_act
        seat = to_act if to_act in seats else seats[0]
    if session.over:
        raise Refused(409, "the game is over: there is nothing left to decide")
    if session.game.deal_over:
        raise Refused(409, "the deal is over: there is nothing left to decide in it")
    return seat


def observation_for(session: GameSession, seat: int) -> Observation:
    obs = session.game.observation(seat)
    if not obs.legal:
        raise Refused(409, "it is not your turn: a hint is for your own decision")
    return obs


async def _answer(request: Request, what: str) -> Response:
    ident = request.path_params["game"]
    lobby: Lobby = request.app.state.lobby
    session = lobby.sessions.get(ident) if WORD.fullmatch(ident) else None
    if session is None:
        return _error("no game in play with this id", 404)
    try:
        seat = seat_to_advise(
            session, request.query_params.get("token", ""), request.query_params.get("seat")
        )
        obs = observation_for(session, seat)
        if what == ADVICE and obs.phase != "auction":
            raise Refused(409, "the bidding advisor is for the auction, and the auction is over")
    except Refused as e:
        return _error(e.message, e.status)
    at = len(session.game.log)
    key = (what, ident, seat, fingerprint(0, obs))
    pool = lobby.pool
    work = (lambda: pool.hint(obs)) if what == HINT else (lambda: pool.advise(obs))
    try:
        result = await hints_of(lobby).get(key, work)
    except Exception:
        log.exception("the %s for game %s, seat %d failed", what, ident, seat)
        return _error(f"the {what} could not be worked out; try again", 503)
    return JSONResponse({"game": ident, "seat": seat, "at": at, what: result}, headers=NO_STORE)


async def api_hint(request: Request) -> Response:
    return await _answer(request, HINT)


async def api_advice(request: Request) -> Response:
    return await _answer(request, ADVICE)


def routes() -> list[BaseRoute]:
    return [
        Route("/api/games/{game}/hint", api_hint),
        Route("/api/games/{game}/advice", api_advice),
    ]
