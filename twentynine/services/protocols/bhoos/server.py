"""``twentynine bot-serve``: one of our bots behind the contest's HTTP protocol.

Each request is turned into the asking player's ``Observation`` (see
``observation.py``), the bot decides, and the answer goes back in the
protocol's notation. A bidder that asks for the reveal answers in one step
(``{"revealTrump": true, "card": ...}``: it knows trumps, so it can choose
its card at once); any other player answers ``{"revealTrump": true}`` and is
asked again with trumps shown.

The bot's thinking time comes from ``timeRemaining``, the player's clock for
the whole game: each decision gets at most ``SAFE_SHARE`` of an even share of
what is left (after a reserve for the network), and never more than the
level's own budget. The share is small because a searching bot may run past
its budget (it finishes its minimum number of sampled deals, and its wall
guard is a multiple of the budget).

Requests are answered one at a time: the solver behind the strong bots
keeps per-process state. A malformed or inconsistent request gets a 400
with a message; a bot failure a 500; the server itself never goes down.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request as HttpRequest
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ....bots import LEVELS, make_bot
from ....bots.base import Bot
from ....game.actions import BID, PLAY, REVEAL, TRUMP, Action
from ....game.dealing import deal_hands
from ....game.engine import PLAYING, Deal, IllegalAction
from ....game.observation import observe_deal
from ....game.rules import RulesError
from .notation import ENDPOINTS, PASS_BID, ProtocolError, card_out, protocol_rules, suit_out
from .observation import Request, parse_request

log = logging.getLogger("twentynine.bhoos")

SAFE_SHARE = 0.25  # of an even share of the clock left, per decision
RESERVE_SECONDS = 0.05  # kept back for the network and the request's own handling
MIN_BUDGET = 0.001
DECISIONS_AFTER_BID = 10  # a few more bids, perhaps the trump, eight cards
DECISIONS_AFTER_TRUMP = 8
DEFAULT_PORT = 8001


def budget_for(time_remaining_ms: float, decisions: int, cap: float | None) -> float:
    """Seconds of thinking for one decision out of ``decisions`` still to come."""
    usable = max(0.0, time_remaining_ms / 1000.0 - RESERVE_SECONDS)
    share = SAFE_SHARE * usable / max(1, decisions)
    if cap is not None:
        share = min(cap, share)
    return max(MIN_BUDGET, share)


def decisions_left(req: Request) -> int:
    obs = req.observation
    if req.endpoint == "bid":
        return 1 + DECISIONS_AFTER_BID
    if req.endpoint == "chooseTrump":
        return 1 + DECISIONS_AFTER_TRUMP
    asks = any(a.kind == REVEAL for a in obs.legal)
    return len(obs.hand) + (1 if asks else 0)


class BotService:
    """One bot answering protocol requests, one at a time."""

    def __init__(self, level: str, seed: int = 0, budget: float | None = None) -> None:
        if level not in LEVELS:
            raise RulesError(f"unknown bot level {level!r}; levels are: {', '.join(LEVELS)}")
        self.level = level
        self.bot: Bot = make_bot(level, seed=seed, budget=budget)
        self.cap = self.bot.budget  # the level's own budget (None: it does not search)
        self.lock = threading.Lock()

    def answer(self, endpoint: str, body: Any) -> dict[str, Any]:
        """The answer to one request; ``ProtocolError`` for a bad request."""
        req = parse_request(endpoint, body)
        budget = budget_for(req.time_remaining_ms, decisions_left(req), self.cap)
        with self.lock:
            return self._decide(req, budget)

    def _decide(self, req: Request, budget: float) -> dict[str, Any]:
        obs = req.observation
        action = self.bot.act(obs, budget=budget)
        if req.endpoint == "bid":
            return {"bid": action.value if action.kind == BID else PASS_BID}
        if req.endpoint == "chooseTrump":
            assert action.kind == TRUMP and action.value is not None
            return {"suit": suit_out(action.value)}
        if action.kind == REVEAL:
            if obs.trump is None:
                return {"revealTrump": True}
            # The bidder knows trumps: reveal and play in one answer.
            deal = req.deal
            try:
                deal.apply(action)
            except IllegalAction as e:  # the bot chose from obs.legal: a bug if it happens
                raise RuntimeError(f"the reveal was refused: {e}") from None
            card = self.bot.act(observe_deal(deal, req.seat), budget=budget)
            return {"revealTrump": True, "card": _card(card)}
        return {"card": _card(action)}

    def warm_up(self) -> None:
        """Load the solver now (its first use compiles or loads compiled code)."""
        if self.cap is None:
            return
        rules = protocol_rules()
        deal = Deal(rules, 0, deal_hands(1, 0, rules.clockwise))
        helper = make_bot("casual")
        while deal.phase != PLAYING:
            deal.apply(helper.act(observe_deal(deal, deal.to_act)))
        with self.lock:
            self.bot.act(observe_deal(deal, deal.to_act), budget=0.01)


def _card(action: Action) -> str:
    assert action.kind == PLAY and action.value is not None
    return card_out(action.value)


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def create_app(
    level: str = "expert", seed: int = 0, budget: float | None = None, warm: bool = True
) -> Starlette:
    service = BotService(level, seed=seed, budget=budget)

    async def hi(request: HttpRequest) -> Response:
        return JSONResponse({"value": "hello"})

    def endpoint(name: str) -> Any:
        async def handle(request: HttpRequest) -> Response:
            raw = await request.body()
            try:
                body = json.loads(raw)
            except (ValueError, RecursionError) as e:
                return _error(400, f"/{name}: the body is not JSON: {e}")
            try:
                answer = await run_in_threadpool(service.answer, name, body)
            except ProtocolError as e:
                return _error(400, f"/{name}: {e}")
            except Exception as e:  # a bot bug must not take the server down
                log.exception("the %s bot failed on /%s", service.level, name)
                return _error(500, f"/{name}: the bot failed: {type(e).__name__}: {e}")
            return JSONResponse(answer)

        return handle

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if warm:
            await run_in_threadpool(service.warm_up)
        yield

    app = Starlette(
        routes=[
            Route("/hi", hi, methods=["GET"]),
            *(Route(f"/{name}", endpoint(name), methods=["POST"]) for name in ENDPOINTS),
        ],
        lifespan=lifespan,
    )
    app.state.service = service
    return app


def serve(level: str, host: str = "127.0.0.1", port: int = DEFAULT_PORT, seed: int = 0) -> int:
    import uvicorn

    app = create_app(level, seed=seed)
    print(f"twentynine: {level} bot speaking the contest protocol on http://{host}:{port}/")
    uvicorn.run(app, host=host, port=port, log_level="warning")
    return 0
