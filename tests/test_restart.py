"""A real server killed with SIGKILL mid-deal and restarted on the same database.

``twentynine serve --db FILE`` runs as a subprocess on a loopback port; a
websocket client plays South. The server is killed twice in the middle of
the deal: once while it waits for South (nothing in flight), once right
after acknowledging South's card while the bots are thinking. After each
restart the client rejoins with its game id and token and gets back exactly
the game the stored log rebuilds, which holds everything the client was told;
then the deal is played to its end.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import ClientConnection, connect

from twentynine.benchmarks.localhost import free_port
from twentynine.server.game import Game
from twentynine.server.setup import parse_setup
from twentynine.server.store import SQLiteStore

BOTS = [{"bot": "tara"}, {"bot": "bablu"}, {"bot": "pip"}]
TIMEOUT = 10.0

pytestmark = pytest.mark.filterwarnings("ignore:connect\\(\\) must be used:DeprecationWarning")


class Server:
    """``twentynine serve`` in a subprocess; ``kill`` is SIGKILL."""

    def __init__(self, db: Path, log: Path) -> None:
        self.db, self.log, self.port = db, log, free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        exe = Path(sys.executable).parent / "twentynine"
        cmd = [str(exe), "serve", "--port", str(self.port), "--db", str(self.db)]
        env = {
            **os.environ,
            "TWENTYNINE_BOT_DELAY_MS": "15",
            "TWENTYNINE_BOT_WORKERS": "0",
            "PYTHONUNBUFFERED": "1",
        }
        env.pop("TWENTYNINE_DB", None)
        with open(self.log, "a") as out:
            self.proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while True:
            try:
                url = f"http://127.0.0.1:{self.port}/healthz"
                with urllib.request.urlopen(url, timeout=1) as r:
                    if r.status == 200:
                        return
            except OSError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the server did not start:\n{self.log.read_text()}")
            time.sleep(0.05)

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        assert self.proc.returncode == -signal.SIGKILL

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def socket(self) -> ClientConnection:
        ws = connect(f"ws://127.0.0.1:{self.port}/ws", open_timeout=TIMEOUT, proxy=None)
        assert recv(ws)["type"] == "welcome"
        return ws


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    s = Server(tmp_path / "games.sqlite3", tmp_path / "server.log")
    s.start()
    try:
        yield s
    finally:
        s.stop()


def recv(ws: ClientConnection) -> dict[str, Any]:
    msg: dict[str, Any] = json.loads(ws.recv(timeout=TIMEOUT))
    return msg


def send(ws: ClientConnection, **msg: Any) -> None:
    ws.send(json.dumps(msg))


def until(ws: ClientConnection, pred: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    for _ in range(500):
        msg = recv(ws)
        assert msg["type"] != "error", msg
        if pred(msg):
            return msg
    raise AssertionError("no such message")


def waiting(m: dict[str, Any]) -> bool:
    """South must do something: act, or let the bots go on after a trick."""
    if m["type"] not in ("state", "update"):
        return False
    view = m["views"]["0"]
    return bool(m["hold"]) or (view["to_act"] == 0 and bool(view["legal"]))


class South:
    """The client: plays the first legal action, remembers what was acknowledged."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.n = 0
        self.prefix = secrets.token_hex(4)  # a client never reuses an id, as a page does
        self.acked: list[dict[str, Any]] = []  # South's own actions, acknowledged
        self.last: dict[str, Any] = {}  # the newest state or update seen

    def step(self) -> dict[str, Any]:
        """Do the one thing South must do now; return the ack."""
        m = self.last
        self.n += 1
        if m["hold"] == "trick":
            send(self.ws, type="continue", id=f"{self.prefix}-go-{self.n}", at=m["hold_at"])
            action = None
        else:
            action = m["views"]["0"]["legal"][0]
            send(self.ws, type="act", id=f"{self.prefix}-act-{self.n}", action=action)
        while True:
            msg = recv(self.ws)
            assert msg["type"] != "error", msg
            if msg["type"] in ("state", "update"):
                self.last = msg
            if msg["type"] == "ack" and msg["id"].endswith(f"-{self.n}"):
                if action is not None:
                    self.acked.append(action)
                return msg

    def settle(self) -> dict[str, Any]:
        """Read until South must act again (the bots have nothing in flight)."""
        if not waiting(self.last):
            self.last = until(self.ws, waiting)
        return self.last

    def play(self, moves: int) -> None:
        for _ in range(moves):
            self.step()
            self.settle()


def stored(db: Path, ident: str) -> tuple[Game, list[dict[str, Any]]]:
    store = SQLiteStore(db)
    try:
        got = store.load(ident)
    finally:
        store.close()
    return Game(parse_setup(got.setup), got.log), got.log


def in_order(mine: list[dict[str, Any]], log: list[dict[str, Any]]) -> bool:
    """South's acknowledged actions appear in the log, in order."""
    south = iter(e for e in log if e.get("seat") == 0)
    return all(any(a == e for e in south) for a in mine)


def test_a_killed_server_resumes_every_game_with_nothing_lost(server: Server) -> None:
    ws = server.socket()
    setup = {"profile": "arcade", "seed": 29, "length": "single", "seats": [{"human": True}, *BOTS]}
    send(ws, type="create", id="create-1", setup=setup)
    state = until(ws, lambda m: m["type"] == "state")
    ident, token = state["game"], state["token"]
    # a second game, left untouched, must come back too
    other = server.socket()
    send(other, type="create", id="create-2", setup={**setup, "seed": 30})
    second = until(other, lambda m: m["type"] == "state")
    quiet = until(other, waiting)  # the bots of the other game played up to South
    south = South(ws)
    south.last = state
    south.settle()

    # 1. killed while it waits for South, a few tricks into the deal
    south.play(6)
    before = south.settle()
    while before["hold"]:
        south.play(1)
        before = south.last
    assert before["views"]["0"]["phase"] == "play" and not before["hold"]
    server.kill()
    game, log = stored(server.db, ident)
    assert game.view(0) == before["views"]["0"]
    assert in_order(south.acked, log) and south.acked[-1] in log

    server.start()
    ws = server.socket()
    send(ws, type="join", id="j1", game=ident, token=token)
    after = until(ws, lambda m: m["type"] == "state")
    assert after["views"] == before["views"] and after["hold"] == before["hold"]
    other = server.socket()
    send(other, type="join", id="j2", game=second["game"], token=second["token"])
    assert until(other, lambda m: m["type"] == "state")["views"] == quiet["views"]

    # 2. killed right after an ack, the bots thinking: the log holds all that was told
    south = South(ws)
    south.last = after
    south.play(2)
    south.step()
    seen = south.last
    server.kill()
    game, log = stored(server.db, ident)
    assert in_order(south.acked, log) and south.acked[-1] in log
    setup_ = game.setup
    assert any(Game(setup_, log[:k]).view(0) == seen["views"]["0"] for k in range(len(log) + 1))

    server.start()
    ws = server.socket()
    send(ws, type="join", id="j3", game=ident, token=token)
    back = until(ws, lambda m: m["type"] == "state")
    assert back["views"]["0"] == game.view(0), "the rejoined game is the stored log's game"

    # 3. the deal plays on to its end, and the store has every move of it
    south = South(ws)
    south.last = back
    south.settle()
    for _ in range(60):
        if south.last["hold"] == "deal":
            break
        south.step()
        south.settle()
    assert south.last["hold"] == "deal"
    game, log = stored(server.db, ident)
    assert game.deal_over and in_order(south.acked, log)
    assert game.view(0) == south.last["views"]["0"]
    ws.close()
    other.close()
