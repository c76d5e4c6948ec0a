"""Statistics of a browser's games, counted by the server from the games' own moves.

``POST /api/stats`` takes the body of ``POST /api/history`` (the (game id,
token) pairs a browser holds, at most ``MAX_GAMES``) and answers with the
figures the browser's Statistics page keeps for itself (``js/stats.js``):
deals and matches played and won, contracts made as bidder and beaten as
defender, deals won by rules profile and against each bot. The browser
notes a deal as it sees it end; the server counts what the games say, so its
figures hold every finished deal of those games, played on this device or
another with the same link, and a cleared or damaged browser record changes
nothing here.

Each game is counted from the side of the first seat its token controls
(the person at the table); a deal cancelled, or redealt with no contract, is
no contest. Only finished deals count: a deal being played says nothing yet.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from ..game.engine import CANCELLED, MADE, SINGLE_MADE
from .history import (
    NO_STORE,
    Forbidden,
    Found,
    HistoryError,
    NotFound,
    Wanted,
    locate,
    parse_request,
    read_body,
)
from .lobby import Lobby
from .session import GameSession
from .store import GameStore


def _tally() -> dict[str, int]:
    return {"played": 0, "won": 0}


def empty() -> dict[str, Any]:
    """The figures of no game at all."""
    return {
        "games": 0,
        "deals": _tally(),
        "matches": _tally(),
        "bidder": {"played": 0, "made": 0},
        "defender": {"played": 0, "beaten": 0},
        "byProfile": {},
        "byBot": {},
        "names": {},
    }


def count(figures: dict[str, Any], found: Found) -> None:
    """Add one game's finished deals (and its match, if won) to ``figures``."""
    if not found.seats:
        return
    mine = found.seats[0] & 1
    figures["games"] += 1
    profile = found.setup.rules.profile
    bots: list[str] = []
    for seat in found.setup.seats:
        public = seat.public()
        if public["kind"] != "bot" or seat.seat & 1 == mine:
            continue
        key = public["character"] or public["name"]
        bots.append(key)
        figures["names"][key] = public["name"]
    for deal in found.finished_deals:
        declarer = deal.single if deal.single >= 0 else deal.bidder
        if declarer < 0 or deal.result == CANCELLED:
            continue
        bidding = declarer & 1 == mine
        made = deal.result in (MADE, SINGLE_MADE)
        won = int(bidding == made)
        figures["deals"]["played"] += 1
        figures["deals"]["won"] += won
        if bidding:
            figures["bidder"]["played"] += 1
            figures["bidder"]["made"] += int(made)
        else:
            figures["defender"]["played"] += 1
            figures["defender"]["beaten"] += int(not made)
        for group, key in [("byProfile", profile)] + [("byBot", b) for b in bots]:
            tally = figures[group].setdefault(key, _tally())
            tally["played"] += 1
            tally["won"] += won
    winner = found.match.winner
    if found.setup.is_match and winner is not None:
        figures["matches"]["played"] += 1
        figures["matches"]["won"] += int(winner == mine)


def gather(
    sessions: Mapping[str, GameSession], store: GameStore | None, wanted: Sequence[Wanted]
) -> tuple[list[Found], list[str]]:
    """The games of ``wanted`` that their tokens admit, and the ids that are not found."""
    found: list[Found] = []
    missing: list[str] = []
    for ident, tokens in wanted:
        try:
            found.append(locate(sessions, store, ident, tokens))
        except (NotFound, Forbidden):
            missing.append(ident)
    return found, missing


def _lobby(request: Request) -> Lobby:
    lobby: Lobby = request.app.state.lobby
    return lobby


async def api_stats(request: Request) -> Response:
    try:
        wanted = parse_request(await read_body(request))
    except HistoryError as e:
        return JSONResponse({"error": str(e)}, status_code=400, headers=NO_STORE)
    lobby = _lobby(request)
    # live games are read on the event loop, where they change; stored ones are
    # loaded and rebuilt on a worker thread
    live = [w for w in wanted if w[0] in lobby.sessions]
    rest = [w for w in wanted if w[0] not in lobby.sessions]
    found, missing = gather(lobby.sessions, None, live)
    more, gone = await run_in_threadpool(gather, {}, lobby.store, rest)
    figures = empty()
    for game in found + more:
        count(figures, game)
    order = {ident: n for n, (ident, _) in enumerate(wanted)}
    figures["missing"] = sorted(missing + gone, key=lambda i: order[i])
    return JSONResponse(figures, headers=NO_STORE)


def routes() -> list[BaseRoute]:
    return [Route("/api/stats", api_stats, methods=["POST"])]
