"""The analysis of a finished deal, for the replay viewer.

``GET /api/games/{id}/analysis?token=...&deal=N`` answers with the analysis of
deal ``N`` (its index in the game, from 0, as the replay numbers them): every
action valued with every hand known and from the acting seat's view (see
``twentynine.services.analysis``). The token must admit the game, as for the
replay, and only a finished deal is analysed: a deal still being played is
hidden information, so asking for it gets the same 404 as a deal that does not
exist.

The work takes seconds of solving, so it runs in the bots' worker pool, never
on the event loop, one analysis at a time (the tables keep the other workers);
the result is kept in memory per game and deal, and a second request for a
deal being analysed waits for the same answer.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from ..game.engine import OVER, Deal
from ..game.match import RECORD_FORMAT
from .botpool import BotPool
from .history import WORD, Forbidden, Found, NotFound, locate
from .lobby import Lobby
from .session import GameSession

log = logging.getLogger("twentynine.server")

NO_STORE = {"Cache-Control": "no-store"}
CACHED_DEALS = 256  # analyses kept in memory (a few tens of kB each)
MAX_DEAL_INDEX = 10_000


class Analyses:
    """Analyses of finished deals by (game id, deal index), the most recent kept.

    A deal's analysis never changes once the deal is over, so nothing here
    expires but by space. Work in progress is kept as a task, so two requests
    for the same deal share it.
    """

    def __init__(self, pool: BotPool, size: int = CACHED_DEALS) -> None:
        self.pool = pool
        self.size = size
        self._done: OrderedDict[tuple[str, int], dict[str, Any]] = OrderedDict()
        self._running: dict[tuple[str, int], asyncio.Task[dict[str, Any]]] = {}
        self._one_at_a_time = asyncio.Semaphore(1)
        self.computed = 0  # analyses worked out (for tests and logs)

    def cached(self, ident: str, index: int) -> dict[str, Any] | None:
        key = (ident, index)
        found = self._done.get(key)
        if found is not None:
            self._done.move_to_end(key)
        return found

    async def get(self, ident: str, index: int, record: dict[str, Any]) -> dict[str, Any]:
        key = (ident, index)
        found = self.cached(ident, index)
        if found is not None:
            return found
        task = self._running.get(key)
        if task is None:
            task = asyncio.ensure_future(self._work(key, record))
            self._running[key] = task
            task.add_done_callback(lambda _t: self._running.pop(key, None))
        return await asyncio.shield(task)

    async def _work(self, key: tuple[str, int], record: dict[str, Any]) -> dict[str, Any]:
        async with self._one_at_a_time:
            result = await self.pool.analyse(record, key[1])
        self.computed += 1
        self._done[key] = result
        while len(self._done) > self.size:
            self._done.popitem(last=False)
        return result


def analyses_of(lobby: Lobby) -> Analyses:
    """The lobby's analyses (made on first use, with the lobby's pool)."""
    found: Analyses | None = getattr(lobby, "analyses", None)
    if found is None:
        found = Analyses(lobby.pool)
        lobby.analyses = found  # type: ignore[attr-defined]
    return found


def deal_record(found: Found, index: int) -> dict[str, Any] | None:
    """A one-deal record of finished deal ``index`` of the game, or None."""
    deals = found.match.deals
    if not 0 <= index < len(deals) or deals[index].phase != OVER:
        return None
    deal: Deal = deals[index]
    return {
        "format": RECORD_FORMAT,
        "rules": found.match.rules.to_json(),
        "deals": [deal.to_record()],
    }


def _error(message: str, status: int) -> Response:
    return JSONResponse({"error": message}, status_code=status, headers=NO_STORE)


async def api_analysis(request: Request) -> Response:
    ident = request.path_params["game"]
    token = request.query_params.get("token", "")
    text = request.query_params.get("deal", "")
    if not WORD.fullmatch(ident):
        return _error("no such game", 404)
    if not text.isascii() or not text.isdigit() or int(text) > MAX_DEAL_INDEX:
        return _error("'deal' must be the index of a deal, a whole number from 0", 400)
    index = int(text)
    lobby: Lobby = request.app.state.lobby
    tokens = [token] if token else []

    def find(sessions: Mapping[str, GameSession]) -> Found | Response:
        try:
            return locate(sessions, lobby.store, ident, tokens)
        except NotFound:
            return _error("no such game", 404)
        except Forbidden:
            return _error("wrong token", 403)

    # A live game is read on the event loop (where it changes), a stored one on a thread.
    found = find(lobby.sessions) if ident in lobby.sessions else await run_in_threadpool(find, {})
    if isinstance(found, Response):
        return found
    record = deal_record(found, index)
    if record is None:
        return _error(f"no finished deal {index} in this game", 404)
    analyses = analyses_of(lobby)
    try:
        result = await analyses.get(ident, index, record)
    except Exception:
        log.exception("the analysis of game %s, deal %d failed", ident, index)
        return _error("the analysis failed", 500)
    return JSONResponse({"game": ident, "index": index, "analysis": result}, headers=NO_STORE)


def routes() -> list[BaseRoute]:
    return [Route("/api/games/{game}/analysis", api_analysis)]
