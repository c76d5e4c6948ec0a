"""A browser's finished games: summaries, replays and exports.

The server keeps no list of a person's games: a browser knows its games by
the (game id, token) pairs it has held, and asks about them here. Three
endpoints, each answering only for the games a token admits:

- ``POST /api/history`` with ``{"games": [{"game": id, "token": tok}, ...]}``
  (at most ``MAX_GAMES``): a summary of each game the server knows and the
  token admits, and the ids it cannot answer for (``missing``).
- ``GET /api/games/{id}/replay?token=...``: every *finished* deal of the game
  replayed by the engine, action by action, with the four hands shown. A deal
  still being played is never included: its hands are hidden information.
- ``GET /api/games/{id}/export?token=...``: the ``29-record/1`` record of the
  finished deals, as a file to download.

A game is found in the lobby's live sessions first, then in the store (a
finished match, or one this server has not reopened since a restart). Nothing
here changes a game or wakes one up: a stored game is rebuilt on the side.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from ..game.actions import ActionError
from ..game.cards import SUITS, card_text
from ..game.engine import MULTIPLIER, OVER, Deal, IllegalAction
from ..game.match import Match
from ..game.record import RecordError, replay_record
from .game import Game, GameError
from .lobby import Lobby
from .session import GameSession
from .setup import GameSetup, SetupError, parse_setup
from .store import GameStore, StoredGame, StoredSummary, StoreError, UnknownGame

log = logging.getLogger("twentynine.server")

MAX_GAMES = 200
MAX_BODY = 64 * 1024
# Game ids and tokens are URL-safe random text; anything else is refused outright.
WORD = re.compile(r"[A-Za-z0-9_\-.~]{1,128}")
NO_STORE = {"Cache-Control": "no-store"}
IN_PROGRESS = "in-progress"
FINISHED = "finished"


Wanted = tuple[str, list[str]]  # a game id and the tokens a browser holds for it


class HistoryError(ValueError):
    """A history request that cannot be read; the message says what is wrong."""


class NotFound(LookupError):
    """No such game here (or it cannot be read back)."""


class Forbidden(PermissionError):
    """The game exists but no token given admits it."""


# ---------------------------------------------------------------------- reading requests


def parse_request(body: bytes) -> list[Wanted]:
    """The games of a ``POST /api/history`` body: (id, tokens) in the order first given.

    A game listed twice (a browser may hold several seats' tokens) is asked about once,
    with all its tokens. Raises ``HistoryError`` with a message for people.
    """
    try:
        obj = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise HistoryError(
            'the body must be JSON: {"games": [{"game": id, "token": token}]}'
        ) from None
    except RecursionError:
        raise HistoryError("the body is nested too deeply") from None
    if not isinstance(obj, dict):
        raise HistoryError(f"the body must be a JSON object, not {type(obj).__name__}")
    unknown = set(obj) - {"games"}
    if unknown:
        raise HistoryError(f"unknown key {sorted(unknown)[0]!r} (the only key is 'games')")
    games = obj.get("games")
    if not isinstance(games, list):
        raise HistoryError('\'games\' must be a list of {"game": id, "token": token}')
    if len(games) > MAX_GAMES:
        raise HistoryError(f"at most {MAX_GAMES} games at a time, not {len(games)}")
    wanted: dict[str, list[str]] = {}
    for i, item in enumerate(games):
        if not isinstance(item, dict):
            raise HistoryError(f'games[{i}] must be an object like {{"game": id, "token": t}}')
        extra = set(item) - {"game", "token"}
        if extra:
            raise HistoryError(f"games[{i}]: unknown key {sorted(extra)[0]!r}")
        for key in ("game", "token"):
            value = item.get(key)
            if not isinstance(value, str) or not WORD.fullmatch(value):
                raise HistoryError(
                    f"games[{i}]: '{key}' must be text of 1 to 128 letters, digits or - _ . ~"
                )
        tokens = wanted.setdefault(item["game"], [])
        if item["token"] not in tokens:
            tokens.append(item["token"])
    return list(wanted.items())


async def read_body(request: Request, limit: int = MAX_BODY) -> bytes:
    """The request's body, refusing (``HistoryError``) one longer than ``limit`` bytes."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise HistoryError(f"the request is too large (at most {limit} bytes)")
        chunks.append(chunk)
    return b"".join(chunks)


# ---------------------------------------------------------------------- finding games


@dataclass
class Found:
    """One game as the history sees it: its setup and the match as far as it went."""

    ident: str
    setup: GameSetup
    match: Match
    record: dict[str, Any]  # the record of the finished deals only
    live: bool  # a session of this server holds it now
    seats: tuple[int, ...] = ()  # the seats the tokens given control

    @property
    def finished_deals(self) -> list[Deal]:
        return [d for d in self.match.deals if d.phase == OVER]

    @property
    def deal_in_play(self) -> bool:
        return bool(self.match.deals) and self.match.deals[-1].phase != OVER

    @property
    def finished(self) -> bool:
        """A match that was won, or a game of single deals with no deal being played."""
        if self.match.winner is not None:
            return True
        return not self.setup.is_match and not self.deal_in_play and bool(self.match.deals)


def _admits(check: Any, tokens: Sequence[str]) -> bool:
    return any(check(t) for t in tokens)


def locate(
    sessions: Mapping[str, GameSession],
    store: GameStore | None,
    ident: str,
    tokens: Sequence[str],
    row: StoredSummary | None = None,
) -> Found:
    """The game ``ident`` if one of ``tokens`` admits it; ``NotFound`` or ``Forbidden``.

    ``row``: the store's summary of the game, when the caller has it already.
    """
    session = sessions.get(ident)
    if session is not None:
        if not _admits(session.admits, tokens):
            raise Forbidden(ident)
        game = session.game
        seats = sorted({s for t in tokens for s in session.seats_for(t) or ()})
        return Found(ident, game.setup, game.match, game.record(), True, tuple(seats))
    if store is None:
        raise NotFound(ident)
    return from_store(store, ident, tokens, row)


def from_store(
    store: GameStore, ident: str, tokens: Sequence[str], row: StoredSummary | None = None
) -> Found:
    """A stored game rebuilt on the side (the lobby does not reopen it).

    A finished match is rebuilt from its record (with ``row``, without reading
    its log); a game in progress from its setup and log.
    """
    try:
        if row is not None:
            if not _admits(row.admits, tokens):
                raise Forbidden(ident)
            if row.finished and row.record is not None:
                return _rebuilt(ident, row.setup, row.record, [], _seats(row, tokens))
        stored = store.load(ident)
    except UnknownGame:
        raise NotFound(ident) from None
    except StoreError as e:
        log.error("history: game %s cannot be read: %s", ident, e)
        raise NotFound(ident) from None
    if not _admits(stored.admits, tokens):
        raise Forbidden(ident)
    record = stored.record if stored.finished else None
    return _rebuilt(ident, stored.setup, record, stored.log, _seats(stored, tokens))


def _seats(
    stored: StoredGame | StoredSummary, tokens: Sequence[str]
) -> Callable[[GameSetup], tuple[int, ...]]:
    """The seats ``tokens`` control in a stored game, once its setup says which are human."""
    return lambda setup: tuple(
        sorted({s for t in tokens for s in stored.seats_of(t, setup.human_seats)})
    )


def _rebuilt(
    ident: str,
    setup_json: dict[str, Any],
    record: dict[str, Any] | None,
    entries: list[Any],
    seats: Callable[[GameSetup], tuple[int, ...]] = lambda _setup: (),
) -> Found:
    try:
        setup = parse_setup(setup_json)
        if record is not None:
            match, fault = replay_record(record)
            if fault is not None:
                raise fault
            return Found(ident, setup, match, record, False, seats(setup))
        game = Game(setup, entries)
    except (SetupError, RecordError, GameError, IllegalAction, ActionError) as e:
        log.error("history: game %s cannot be rebuilt: %s", ident, e)
        raise NotFound(ident) from None
    return Found(ident, setup, game.match, game.record(), False, seats(setup))


# ---------------------------------------------------------------------- summaries


def _deal_brief(deal: Deal) -> dict[str, Any]:
    verdict = deal.verdict()
    verdict.pop("tricks")
    return verdict


def summary(found: Found) -> dict[str, Any]:
    """What the history list shows of one game (finished deals only)."""
    setup = found.setup
    rules = setup.rules
    deals = found.finished_deals
    public = setup.public()
    return {
        "game": found.ident,
        "status": FINISHED if found.finished else IN_PROGRESS,
        "live": found.live,
        "resumable": found.match.winner is None,
        "profile": rules.profile,
        "options": rules.overrides(),
        "match_target": rules.match_target,
        "seats": public["seats"],
        "deals": len(deals),
        "deal_in_play": found.deal_in_play,
        "score": list(found.match.score),
        "winner": found.match.winner,
        "last_deal": _deal_brief(deals[-1]) if deals else None,
        "created": None,
        "updated": None,
        "ended": None,
    }


def stored_rows(store: GameStore | None, idents: Sequence[str]) -> dict[str, StoredSummary]:
    """The store's summaries of ``idents`` (one batch), by id; none without a store."""
    if store is None or not idents:
        return {}
    try:
        return {row.ident: row for row in store.summaries(idents)}
    except StoreError as e:
        log.error("history: the store cannot list games: %s", e)
        return {}


def stamp(game: dict[str, Any], row: StoredSummary | None) -> dict[str, Any]:
    """Add the store's times to a summary: created, last move, and when it ended."""
    if row is not None:
        game["created"] = row.created
        game["updated"] = row.updated
        game["ended"] = row.updated if game["status"] == FINISHED else None
    return game


def summaries(
    sessions: Mapping[str, GameSession],
    store: GameStore | None,
    wanted: list[Wanted],
    rows: Mapping[str, StoredSummary] | None = None,
) -> dict[str, Any]:
    """The answer to ``POST /api/history``: the games found, and the ids that were not.

    ``rows``: the store's summaries of these games, when the caller has them already.
    """
    if rows is None:
        rows = stored_rows(store, [ident for ident, _ in wanted])
    games: list[dict[str, Any]] = []
    missing: list[str] = []
    for ident, tokens in wanted:
        row = rows.get(ident)
        try:
            found = locate(sessions, store, ident, tokens, row)
        except (NotFound, Forbidden):
            missing.append(ident)
            continue
        games.append(stamp(summary(found), row))
    return {"games": games, "missing": missing}


# ---------------------------------------------------------------------- replays


def _event(event: dict[str, Any], deal: Deal) -> dict[str, Any] | None:
    """An engine event with everything shown (the deal is over), cards as text."""
    kind = event["type"]
    if kind == "second_batch":
        return {"type": kind}
    out = {k: v for k, v in event.items() if not k.startswith("_")}
    if kind == "trump_chosen":
        out["trump"] = SUITS[deal.trump]
    if isinstance(out.get("card"), int):
        out["card"] = card_text(out["card"])
    if out.get("cards") and isinstance(out["cards"][0], int):
        out["cards"] = [card_text(c) for c in out["cards"]]
    return out


def deal_steps(deal: Deal) -> list[dict[str, Any]]:
    """A finished deal replayed by the engine, one step per action.

    Each step says who did what, the events it caused, the cards on the table
    after it (a trick just completed stays there with its winner), the number
    of the trick, both teams' card points, the trump suit once chosen (the
    whole deal is public now), whether trumps are active, and the target.
    """
    if deal.phase != OVER:
        raise ValueError("only a finished deal may be shown")
    replay = Deal(deal.rules, deal.dealer, deal.hands)
    steps: list[dict[str, Any]] = []
    for action in deal.log:
        stage = replay.phase
        events = replay.apply(action)
        table = [
            {"seat": s, "card": card_text(c)}
            for s, c in zip(replay.trick_seats, replay.trick_cards, strict=True)
        ]
        number = len(replay.tricks) + (1 if replay.trick_cards else 0)
        winner = None
        won = None
        done = [e for e in events if e["type"] == "trick"]
        if done:
            _leader, cards, seats, winner, won = replay.tricks[-1]
            table = [{"seat": s, "card": card_text(c)} for s, c in zip(seats, cards, strict=True)]
            number = len(replay.tricks)
        has_contract = replay.bidder >= 0
        steps.append(
            {
                "seat": action.seat,
                "action": action.to_json(),
                "stage": stage,
                "phase": replay.phase,
                "events": [v for v in (_event(e, replay) for e in events) if v is not None],
                "table": table,
                "trick": number,
                "winner": winner,
                "trick_points": won,
                "points": list(replay.points),
                "trump": SUITS[replay.trump] if replay.trump >= 0 else None,
                "trumps_active": replay.revealed_in_trick > 0 and replay.single < 0,
                "second_batch": replay.second_batch,
                "single": replay.single if replay.single >= 0 else None,
                "doubling": MULTIPLIER[replay.doubling],
                "bidder": replay.bidder if has_contract else None,
                "bid": replay.bid if has_contract else None,
                "target": replay.target if has_contract and replay.single < 0 else None,
            }
        )
    return steps


def replay(found: Found) -> dict[str, Any]:
    """Every finished deal of a game, ready for the replay viewer."""
    setup = found.setup
    rules = setup.rules
    deals: list[dict[str, Any]] = []
    score = [0, 0]
    for index, deal in enumerate(found.match.deals):
        if deal.phase != OVER:
            break  # the deal being played stays hidden
        before = score[:]
        score = [score[0] + deal.delta[0], score[1] + deal.delta[1]]
        deals.append(
            {
                "index": index,
                "dealer": deal.dealer,
                "hands": [[card_text(c) for c in h] for h in deal.hands],
                "auction": [{"seat": s, "bid": b} for s, b in deal.auction],
                "forced": deal.forced,
                "verdict": deal.verdict(),
                "score_before": before,
                "score_after": score[:],
                "steps": deal_steps(deal),
            }
        )
    return {
        "game": found.ident,
        "status": FINISHED if found.finished else IN_PROGRESS,
        "profile": rules.profile,
        "rules": rules.to_json(),
        "options": rules.options(),
        "match_target": rules.match_target,
        "seats": setup.public()["seats"],
        "deals": deals,
        "deal_in_play": found.deal_in_play,
        "score": score,
        "winner": found.match.winner,
    }


# ---------------------------------------------------------------------- endpoints


def _lobby(request: Request) -> Lobby:
    lobby: Lobby = request.app.state.lobby
    return lobby


def _error(message: str, status: int) -> Response:
    return JSONResponse({"error": message}, status_code=status, headers=NO_STORE)


async def _answer(request: Request, build: Callable[[Found], Response]) -> Response:
    """Find the game of a ``/api/games/{game}/...`` request and answer with ``build``.

    A live game is read on the event loop (where it changes); a stored one is
    loaded and rebuilt on a worker thread.
    """
    ident = request.path_params["game"]
    token = request.query_params.get("token", "")
    tokens = [token] if token else []
    lobby = _lobby(request)

    def work(sessions: Mapping[str, GameSession]) -> Response:
        try:
            found = locate(sessions, lobby.store, ident, tokens)
        except NotFound:
            return _error("no such game", 404)
        except Forbidden:
            return _error("wrong token", 403)
        return build(found)

    if not WORD.fullmatch(ident):
        return _error("no such game", 404)
    if ident in lobby.sessions:
        return work(lobby.sessions)
    return await run_in_threadpool(work, {})


async def api_history(request: Request) -> Response:
    try:
        wanted = parse_request(await read_body(request))
    except HistoryError as e:
        return _error(str(e), 400)
    lobby = _lobby(request)
    store = lobby.store
    # Live games are read on the event loop, where they change; the store is
    # read, and its games rebuilt, on a worker thread.
    live = [w for w in wanted if w[0] in lobby.sessions]
    rest = [w for w in wanted if w[0] not in lobby.sessions]
    answer = summaries(lobby.sessions, None, live, rows={})

    def from_the_store() -> tuple[dict[str, StoredSummary], dict[str, Any]]:
        rows = stored_rows(store, [ident for ident, _ in wanted])
        return rows, summaries({}, store, rest, rows)

    rows, more = await run_in_threadpool(from_the_store)
    for g in answer["games"]:
        stamp(g, rows.get(g["game"]))
    answer["games"] += more["games"]
    answer["missing"] += more["missing"]
    order = {ident: n for n, (ident, _) in enumerate(wanted)}
    answer["games"].sort(key=lambda g: order[g["game"]])
    answer["missing"].sort(key=lambda i: order[i])
    return JSONResponse(answer, headers=NO_STORE)


def _replay_response(found: Found) -> Response:
    return JSONResponse(replay(found), headers=NO_STORE)


def _export_response(found: Found) -> Response:
    body = json.dumps(found.record, ensure_ascii=False, indent=1)
    return Response(
        body + "\n",
        media_type="application/json",
        headers={
            "Content-Disposition": f'attachment; filename="29-{found.ident}.json"',
            **NO_STORE,
        },
    )


async def api_replay(request: Request) -> Response:
    return await _answer(request, _replay_response)


async def api_export(request: Request) -> Response:
    return await _answer(request, _export_response)


def routes() -> list[BaseRoute]:
    return [
        Route("/api/history", api_history, methods=["POST"]),
        Route("/api/games/{game}/replay", api_replay),
        Route("/api/games/{game}/export", api_export),
    ]
