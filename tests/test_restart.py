"""A real server killed with SIGKILL mid-deal and restarted on the same database.

``twentynine serve --db FILE`` runs as a subprocess on a loopback port; a
websocket client plays South. The server is killed twice in the middle of
the deal: once while it waits for South (nothing in flight), once right
after acknowledging South's card while the bots are thinking. After each
restart the client rejoins with its game id and token and gets back exactly
the game the stored log rebuilds, which holds everything the client was told;
then the deal is played to its end.

The second test kills a server again and again (``KILLS`` times) while
hot-seat games and rooms are played, each kill at a moment a room waits out
a trick: the rooms in their pause go on by themselves after the restart
(read in the database, nobody connected), every client comes back to a
version above all it saw, and every message it ever had an answer to is
sent again and answered ``duplicate``, with the same answer, changing nothing.
Just before each kill the hot-seat players send a move and do not wait for
its answer: resent after the restart, a move the store had is a duplicate,
one it had not is applied then, once.
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
from twentynine.game.actions import Action
from twentynine.server.game import Game
from twentynine.server.setup import parse_setup
from twentynine.server.store import SQLiteStore, StoredGame, open_store

BOTS = [{"bot": "tara"}, {"bot": "bablu"}, {"bot": "pip"}]
TIMEOUT = 10.0

pytestmark = pytest.mark.filterwarnings("ignore:connect\\(\\) must be used:DeprecationWarning")


def _listens(pid: int, port: int) -> bool:
    """Whether process ``pid`` holds the socket listening on ``port`` (Linux's /proc; true
    where /proc cannot say)."""
    try:
        lines = Path("/proc/net/tcp").read_text().splitlines()[1:]
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return True
    inodes = {
        cols[9]
        for cols in (line.split() for line in lines)
        if cols[3] == "0A" and int(cols[1].split(":")[1], 16) == port
    }
    for fd in fds:
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if link.startswith("socket:[") and link[8:-1] in inodes:
            return True
    return False


class Server:
    """``twentynine serve`` in a subprocess; ``kill`` is SIGKILL."""

    def __init__(self, db: Path, log: Path) -> None:
        self.db, self.log, self.port = db, log, free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.env: dict[str, str] = {}  # more settings for the server

    def start(self, tries: int = 3) -> None:
        """Start the server and wait for its health check; when another process answers
        on the port (taken between ``free_port`` and the bind), start again on another."""
        for _ in range(tries - 1):
            self._start()
            assert self.proc is not None
            if _listens(self.proc.pid, self.port):
                return
            self.stop()
            self.port = free_port()
        self._start()

    def _start(self) -> None:
        exe = Path(sys.executable).parent / "twentynine"
        cmd = [str(exe), "serve", "--port", str(self.port), "--db", str(self.db)]
        env = {
            **os.environ,
            "TWENTYNINE_BOT_DELAY_MS": "15",
            "TWENTYNINE_BOT_WORKERS": "0",
            "PYTHONUNBUFFERED": "1",
            **self.env,
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


# ---------------------------------------------------------------------- killed again and again

KILLS = 5
HOT_SEAT_GAMES = 3
ROOMS = 3
TRICK_PAUSE_MS = 700  # long enough for many kills to land in a room's pause


def load(db: Path | str, ident: str) -> StoredGame:
    """What the database holds of a game, read beside the running (or dead) server."""
    store = open_store(str(db))
    try:
        return store.load(ident)
    finally:
        store.close()


def paused(got: StoredGame) -> bool:
    """Whether a room's table was waiting out a finished trick (as a restart reads it)."""
    if not got.log or "next_deal" in got.log[-1] or got.settings.get("released") == len(got.log):
        return False
    game = Game(parse_setup(got.setup, allow_bot_south=True), got.log[:-1])
    last = dict(got.log[-1])
    signal = last.pop("signal", None)
    events = game.apply(Action.from_json(last), signal)
    return any(e["type"] == "trick" for e in events) and not game.deal_over


class Player:
    """One client of one game: sends a message, waits for its answer, remembers both."""

    def __init__(self, server: Server, room: bool) -> None:
        self.server, self.room = server, room
        self.prefix = secrets.token_hex(4)
        self.n = 0
        self.ws = server.socket()
        self.sent: list[dict[str, Any]] = []  # every message, in order
        self.answers: dict[str, dict[str, Any]] = {}  # id -> its first answer
        self.inbox: list[dict[str, Any]] = []  # every answer, in order
        self.waiting: str | None = None
        self.last: dict[str, Any] = {}
        self.top = 0  # the highest version this client has seen
        self.socket_top = 0  # the same, on this socket
        self.ident = self.token = self.code = ""

    def _id(self, kind: str) -> str:
        self.n += 1
        return f"{self.prefix}-{kind}-{self.n}"

    def take(self, msg: dict[str, Any]) -> None:
        if msg["type"] == "update":  # each change of the game is a new version
            assert msg["v"] > self.socket_top, (msg["v"], self.socket_top)
        if msg["type"] in ("state", "update"):
            assert msg["v"] >= self.socket_top, (msg["v"], self.socket_top)
            self.socket_top = self.top = max(self.top, msg["v"])
            self.last = msg
        if msg.get("id") is not None and msg["type"] in ("ack", "error", "state", "room"):
            self.answers.setdefault(msg["id"], msg)
            self.inbox.append(msg)
            if msg["id"] == self.waiting:
                self.waiting = None

    def pump(self, seconds: float = 0.0) -> None:
        end = time.monotonic() + seconds
        while True:
            try:
                text = self.ws.recv(timeout=max(0.0, end - time.monotonic()))
            except TimeoutError:
                return
            self.take(json.loads(text))

    def request(self, **msg: Any) -> dict[str, Any]:
        ident = self._id(msg["type"])
        send(self.ws, id=ident, **msg)
        end = time.monotonic() + TIMEOUT
        while ident not in self.answers:
            assert time.monotonic() < end, f"no answer to {msg}"
            self.pump(0.05)
        return self.answers[ident]

    def open(self) -> None:
        if self.room:
            room = self.request(type="room_create", setup={"profile": "pagat"}, name="Asha")
            self.code, self.token = room["code"], room["token"]
            for seat, bot in ((1, "pip"), (2, "tara"), (3, "bablu")):
                assert self.request(type="seat_bot", seat=seat, bot=bot)["type"] == "room"
            state = self.request(type="start")
        else:
            seats = [{"human": True}, *BOTS]
            setup = {"profile": "modern", "length": "match", "target": 12, "seats": seats}
            state = self.request(type="create", setup=setup)
            self.token = state["token"]
        assert state["type"] == "state", state
        self.ident = state["game"]

    def step(self) -> None:
        """Send what South must send now, if it waits for no answer (no waiting here)."""
        m = self.last
        if self.waiting is not None or not m or m.get("over"):
            return
        view = m["views"]["0"]
        if m["hold"] == "deal":
            msg: dict[str, Any] = {"type": "next_deal"}
        elif m["hold"] == "trick" and not self.room:
            msg = {"type": "continue", "at": m["hold_at"]}
        elif (
            view["to_act"] == 0 and view["legal"] and (m["hold"] is None or view["phase"] == "pair")
        ):
            msg = {"type": "act", "action": view["legal"][0]}
        else:
            return
        msg["id"] = self._id(msg["type"])
        self.waiting = msg["id"]
        self.sent.append(msg)
        send(self.ws, **msg)

    def rejoin(self) -> dict[str, Any]:
        """After a restart: a new socket, back into the game; its version above all seen."""
        self.ws = self.server.socket()
        self.waiting = None
        self.socket_top = 0
        before = self.top
        if self.room:
            state = self.request(type="room_join", code=self.code, token=self.token)
        else:
            state = self.request(type="join", game=self.ident, token=self.token)
        assert state["type"] == "state" and state["seats"] == [0], state
        assert state["v"] > before, f"version {state['v']} after {before}: it went down"
        return state


def test_killed_again_and_again_every_resend_is_a_duplicate_and_every_room_goes_on(
    tmp_path: Path,
) -> None:
    server = Server(tmp_path / "games.sqlite3", tmp_path / "server.log")
    server.env["TWENTYNINE_TRICK_PAUSE_MS"] = str(TRICK_PAUSE_MS)
    server.env["TWENTYNINE_PAIR_PAUSE_MS"] = str(TRICK_PAUSE_MS)
    server.start()
    figures = dict.fromkeys(
        (
            "kills",
            "games",
            "finished",
            "resends",
            "duplicates",
            "in_flight",
            "in_flight_applied",
            "in_flight_refused",
            "paused",
            "resumed",
        ),
        0,
    )
    try:
        players = [Player(server, room=i >= HOT_SEAT_GAMES) for i in range(HOT_SEAT_GAMES + ROOMS)]
        for p in players:
            p.open()
        figures["games"] = len(players)
        for _kill in range(KILLS):
            # play a while, then kill at a moment a room waits out a trick
            end = time.monotonic() + 1.5
            while True:
                for p in players:
                    p.step()
                    p.pump(0.01)
                rooms_paused = [p for p in players if p.room and p.last.get("hold") == "trick"]
                if time.monotonic() > end and (rooms_paused or time.monotonic() > end + 4):
                    break
            # and the kill comes right after some moves are sent, before their answers:
            # each may be applied (its reply stored with it) or not, never half
            flying: dict[str, tuple[dict[str, Any], int]] = {}
            for p in players:
                if not p.room and p.waiting is None:
                    length = len(load(server.db, p.ident).log)
                    p.step()
                    if p.waiting is not None and p.sent[-1]["type"] == "act":
                        flying[p.sent[-1]["id"]] = (p.sent[-1], length)
            server.kill()
            figures["kills"] += 1
            answered = {p.ident: dict(p.answers) for p in players}
            at_kill = {p.ident: load(server.db, p.ident) for p in players}
            waiting = [p for p in players if p.room and paused(at_kill[p.ident])]
            figures["paused"] += len(waiting)

            server.start()
            # every room that was in its pause goes on by itself, nobody connected
            deadline = time.monotonic() + 10
            for p in waiting:
                before = at_kill[p.ident]
                while True:
                    now = load(server.db, p.ident)
                    if now.settings.get("released") == len(before.log) or len(now.log) > len(
                        before.log
                    ):
                        figures["resumed"] += 1
                        break
                    assert time.monotonic() < deadline, f"room {p.code} stayed in its pause"
                    time.sleep(0.05)

            finished = [p for p in players if at_kill[p.ident].finished]
            figures["finished"] += len(finished)
            players = [p for p in players if p not in finished]  # over: nothing to rejoin
            for p in players:
                state = p.rejoin()
                log = list(load(server.db, p.ident).log)
                # every message sent so far, again: what had an answer is a duplicate
                for msg in p.sent:
                    earlier = answered[p.ident].get(msg["id"])
                    start = len(p.inbox)
                    send(p.ws, **msg)
                    end = time.monotonic() + TIMEOUT
                    while not [m for m in p.inbox[start:] if m["id"] == msg["id"]]:
                        assert time.monotonic() < end, f"no answer to the resend of {msg}"
                        p.pump(0.02)
                    reply = next(m for m in p.inbox[start:] if m["id"] == msg["id"])
                    figures["resends"] += 1
                    if earlier is None:  # in flight at the kill: applied then, or now
                        figures["in_flight"] += 1
                        if msg["id"] not in flying:  # a continue: applied or not, either is right
                            continue
                        sent, length = flying[msg["id"]]
                        kept = at_kill[p.ident].log
                        if len(kept) > length and kept[length] == sent["action"]:
                            assert reply.get("duplicate") is True, (msg, reply)  # applied once
                            figures["in_flight_applied"] += 1
                        elif reply.get("duplicate"):
                            # refused before the kill (a move chosen from a view a bot's
                            # move had already passed): the refusal was kept, not the move
                            assert reply["type"] == "error", (msg, reply)
                            figures["in_flight_refused"] += 1
                        # else not kept at the kill: answered now, as if sent now
                        continue
                    assert reply.get("duplicate") is True, (msg, earlier, reply)
                    same = {k: v for k, v in earlier.items() if k != "duplicate"}
                    assert {k: v for k, v in reply.items() if k != "duplicate"} == same
                    figures["duplicates"] += 1
                assert load(server.db, p.ident).log[: len(log)] == log
                p.last = state
    finally:
        server.stop()
    print("restart figures:", figures)
    assert figures["kills"] == KILLS and figures["paused"] > 0
    assert figures["resumed"] == figures["paused"] and figures["duplicates"] > 100
    assert figures["in_flight"] > 0
