"""The contest protocol over real sockets: our served bots against our adapter, broken bots.

Servers run on free loopback ports in background threads (uvicorn); the
``bot-serve`` command is started once as a subprocess. A broken external
bot is a small app whose path picks the way it misbehaves.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from test_bhoos import GOLDEN_BID, check_body

from twentynine.bots import make_bot
from twentynine.bots.base import Bot
from twentynine.cli.main import main
from twentynine.game.dealing import deal_hands
from twentynine.game.match import Match
from twentynine.game.observation import observe
from twentynine.game.record import replay_text
from twentynine.game.rules import PROFILES, Rules, resolve
from twentynine.services.arena import format_summary, play_board, play_until_fault, summarise
from twentynine.services.protocols.bhoos.adapter import ProtocolBot
from twentynine.services.protocols.bhoos.server import BotService, create_app

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

BHOOS = PROFILES["bhoos"]
ALL_CARDS = [rank + suit for suit in "SHDC" for rank in "J91TKQ87"]
Exchange = tuple[str, dict[str, Any], str]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def run_server(app: Starlette) -> Iterator[str]:
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.fixture(scope="module")
def casual_url() -> Iterator[str]:
    yield from run_server(create_app("casual", warm=False))


@pytest.fixture(scope="module")
def strong_url() -> Iterator[str]:
    yield from run_server(create_app("strong"))


# ------------------------------------------------------------- full matches


def play_match(rules: Rules, bots: list[Bot], seed: int) -> Match:
    match = Match(rules, seed=seed)
    while match.winner is None:
        seat = match.to_act
        match.apply(bots[seat].act(observe(match, seat)))
    return match


def shape(endpoint: str, answer: dict[str, Any]) -> str:
    if endpoint == "bid":
        return "pass" if answer["bid"] == 0 else "bid"
    if endpoint == "chooseTrump":
        return "suit"
    if answer.get("revealTrump"):
        return "reveal+card" if "card" in answer else "reveal"
    return "card"


def test_our_server_and_our_adapter_play_full_matches_with_every_answer_shape(casual_url: str):
    rules = resolve("bhoos", {"match_target": 2})
    exchanges: list[Exchange] = []

    def log(endpoint: str, request: dict[str, Any], answer: str) -> None:
        exchanges.append((endpoint, request, answer))

    shapes: set[str] = set()
    matches = 0
    while matches < 2 or (shapes < {"pass", "bid", "suit", "card", "reveal", "reveal+card"}):
        assert matches < 10, f"answer shapes seen: {shapes}"
        if matches % 2 == 0:  # all four seats are protocol bots
            bots: list[Bot] = [ProtocolBot(casual_url, on_exchange=log) for _ in range(4)]
        else:  # a protocol team against our own casual bots
            bots = [
                ProtocolBot(casual_url, on_exchange=log) if s % 2 else make_bot("casual", s)
                for s in range(4)
            ]
        match = play_match(rules, bots, seed=100 + matches)
        matches += 1
        assert match.winner is not None
        verdict = replay_text(json.dumps(match.to_record()))
        assert verdict.ok and verdict.data["winner"] == match.winner
        for endpoint, _request, text in exchanges:
            shapes.add(shape(endpoint, json.loads(text)))
    # Each body sent was a protocol body; a reveal-only answer is followed by a request to
    # the same player with trumps shown, and a reveal comes from a defender or the bidder.
    revealers = set()
    for i, (endpoint, request, text) in enumerate(exchanges):
        check_body(endpoint, request)
        answer = json.loads(text)
        if endpoint == "play" and answer.get("revealTrump"):
            mine = request["playerId"]
            if request["trumpSuit"] and not request["trumpRevealed"]:
                revealers.add("bidder")  # only the bidder knows trumps before the reveal
            elif any(t["bid"] and mine in t["players"] for t in request["teams"]):
                revealers.add("bidder's partner")
            else:
                revealers.add("defender")
            if "card" not in answer:
                follow = next(x for x in exchanges[i + 1 :] if x[0] == "play")
                assert follow[1]["playerId"] == request["playerId"]
                assert follow[1]["trumpRevealed"] == {
                    "hand": len(request["handsHistory"]) + 1,
                    "playerId": request["playerId"],
                }
                assert follow[1]["trumpSuit"] in ("S", "H", "D", "C")
    assert {"bidder", "defender"} <= revealers


def test_time_remaining_decreases_with_each_decision_of_a_game(casual_url: str):
    sent: dict[str, list[float]] = {}

    def log(endpoint: str, request: dict[str, Any], answer: str) -> None:
        sent.setdefault(request["playerId"], []).append(request["timeRemaining"])

    bots: list[Bot] = [ProtocolBot(casual_url, on_exchange=log, clock_ms=5000) for _ in range(4)]
    deal, _times, fault = play_until_fault(BHOOS, 2, deal_hands(7, 2, False), bots, ["A"] * 4)
    assert fault is None and deal.is_over()
    for times in sent.values():
        assert times[0] == 5000
        assert all(b < a for a, b in itertools.pairwise(times))


def test_a_strong_bot_served_within_its_clock(strong_url: str):
    board = play_board(BHOOS, "casual", strong_url + "#clock=3000&timeout=2000", 0, seed=3)
    for game in board.games:
        assert game.fault is None, game.fault
        assert game.result in ("made", "failed")


# -------------------------------------------------------------- broken bots


def broken_app() -> Starlette:
    """A bot that plays well (casual) until its path makes it misbehave."""
    service = BotService("casual")

    async def hi(request: Request) -> Response:
        if request.path_params["mode"] == "nohi":
            return JSONResponse({"error": "down"}, status_code=503)
        return JSONResponse({"value": "hello"})

    async def decide(request: Request) -> Response:
        mode, name = request.path_params["mode"], request.path_params["name"]
        body = json.loads(await request.body())
        good = await run_in_threadpool(service.answer, name, body)
        if mode == "clock":
            await asyncio.sleep(0.12)
            return JSONResponse(good)
        if mode == "badbid" and name == "bid":
            return JSONResponse({"bid": 15})
        if name != "play":
            return JSONResponse(good)
        if mode == "slow":
            await asyncio.sleep(1.0)
        elif mode == "illegal":  # a card it does not hold
            held = set(body["cards"]) | set(body["played"])
            for trick in body["handsHistory"]:
                held |= set(trick[1])
            return JSONResponse({"card": next(c for c in ALL_CARDS if c not in held)})
        elif mode == "garbage":
            return Response("{'card': JS", media_type="application/json")
        elif mode == "asks":  # asks for the reveal when it may not (it leads)
            if not body["played"]:
                return JSONResponse({"revealTrump": True})
        elif mode == "badreveal" and good.get("revealTrump"):
            played = [c for trick in body["handsHistory"] for c in trick[1]] + body["played"]
            return JSONResponse({"revealTrump": True, "card": played[0]})
        elif mode == "error":
            return JSONResponse({"error": "boom"}, status_code=500)
        return JSONResponse(good)

    return Starlette(
        routes=[
            Route("/{mode}/hi", hi, methods=["GET"]),
            Route("/{mode}/{name}", decide, methods=["POST"]),
        ]
    )


@pytest.fixture(scope="module")
def broken_url() -> Iterator[str]:
    yield from run_server(broken_app())


BROKEN = [
    ("slow", "#timeout=300", "no answer within 300 ms", "play", False),
    ("illegal", "", "which is not legal", "play", True),
    ("garbage", "", "not JSON", "play", True),
    ("badbid", "", "bid 15 is not allowed", "bid", True),
    ("asks", "", "asked for the reveal", "play", True),
    ("error", "", "HTTP 500", "play", True),
    ("nohi", "", "/hi answered HTTP 503", "hi", True),
    ("clock", "#clock=400", "over its clock", None, None),
]


@pytest.mark.parametrize(("mode", "limits", "words", "endpoint", "has_answer"), BROKEN)
def test_a_broken_external_bot_forfeits_with_a_report_never_a_crash(
    broken_url: str,
    mode: str,
    limits: str,
    words: str,
    endpoint: str | None,
    has_answer: bool | None,
):
    board = play_board(BHOOS, "casual", f"{broken_url}/{mode}{limits}", 0, seed=1)
    for game in board.games:
        fault = game.fault
        assert fault is not None and game.result == "forfeit"
        assert fault["label"] == "B" and fault["seat"] % 2 != game.a_team
        assert words in fault["message"], fault["message"]
        assert fault["bot"] == f"{broken_url}/{mode}"
        if endpoint is not None:
            assert fault["endpoint"] == endpoint
        if fault["endpoint"] != "hi":
            check_body(fault["endpoint"], fault["request"])
        if has_answer is not None:  # (over the clock: late, or cut off before it answered)
            assert (fault["answer"] is not None) == has_answer
        faulty = fault["seat"] % 2
        assert game.delta[faulty] == -1 and game.delta[1 - faulty] == 0
    assert board.a_minus_b() == 1
    summary = summarise("casual", "broken", [board])
    assert summary.forfeits == {"A": 0, "B": 2}
    data = json.loads(json.dumps(summary.to_json()))
    assert len(data["faults"]) == 2 and words in data["faults"][0]["message"]
    assert "forfeited 2 games" in format_summary(summary)


def test_an_unreachable_bot_forfeits(broken_url: str):
    url = f"http://127.0.0.1:{free_port()}"  # nobody listens there
    board = play_board(BHOOS, "casual", url, 0, seed=1)
    for game in board.games:
        assert game.fault is not None and game.result == "forfeit"
        assert "connection refused" in game.fault["message"]


def test_a_reveal_and_card_answer_is_checked_once_trumps_are_shown(broken_url: str):
    """The one-step answer's card must obey the reveal: here it is not even in the hand."""
    faults = []
    for deal_no in range(20):
        board = play_board(BHOOS, "casual", f"{broken_url}/badreveal", deal_no, seed=2)
        faults += [g.fault for g in board.games if g.fault is not None]
        if len(faults) >= 2:
            break
    assert faults
    for fault in faults:
        assert "revealed trumps and played" in fault["message"]
        assert "is not in its hand" in fault["message"]
        answer = json.loads(fault["answer"])
        assert answer["revealTrump"] is True and answer["card"] not in fault["request"]["cards"]


# ---------------------------------------------------------------- the commands


def test_arena_command_seats_an_external_bot(casual_url: str, tmp_path: Any, capsys: Any):
    out = tmp_path / "run"
    status = main(["arena", "casual", casual_url, "--profile", "bhoos", "--deals", "2",
                   "--quiet", "--out", str(out)])  # fmt: skip
    assert status == 0, capsys.readouterr().err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["faults"] == [] and summary["forfeits"] == {"A": 0, "B": 0}
    assert summary["deals"] == 2


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--profile", "pagat"], "can only play rules the protocol can express"),
        (["--profile", "bhoos", "--set", "doubling=yes"], "doubling=yes"),
    ],
)
def test_arena_command_refuses_rules_the_protocol_cannot_express(
    casual_url: str, capsys: Any, args: list[str], words: str
):
    assert main(["arena", "casual", casual_url, "--deals", "1", "--quiet", *args]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err and err.count("\n") == 1


def test_arena_command_reports_an_unreachable_bot_in_one_line(capsys: Any):
    url = f"http://127.0.0.1:{free_port()}"
    assert main(["arena", "casual", url, "--profile", "bhoos", "--deals", "1", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "does not answer /hi" in err and err.count("\n") == 1


def test_bot_serve_command_answers_the_protocol(capsys: Any):
    assert main(["bot-serve", "--level", "wizard"]) == 2
    assert "unknown bot level 'wizard'" in capsys.readouterr().err
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "twentynine.cli.main", "bot-serve", "--level", "casual",
         "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        url = f"http://127.0.0.1:{port}"
        answer = wait_for(lambda: httpx.get(f"{url}/hi").json(), seconds=60)
        assert answer == {"value": "hello"}
        r = httpx.post(f"{url}/bid", json=GOLDEN_BID)
        assert r.status_code == 200 and set(r.json()) == {"bid"}
        r = httpx.post(f"{url}/play", json={"playerId": "A1"})
        assert r.status_code == 400 and "missing field" in r.json()["error"]
    finally:
        proc.terminate()
        proc.wait(10)


def wait_for(probe: Callable[[], Any], seconds: float) -> Any:
    deadline = time.monotonic() + seconds
    while True:
        try:
            return probe()
        except httpx.HTTPError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
