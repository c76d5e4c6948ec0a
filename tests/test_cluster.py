"""Many server processes on one PostgreSQL database and one Redis.

Real ``twentynine serve --db postgresql://... --redis redis://...`` processes
on loopback ports (the tests' own throw-away PostgreSQL and Redis servers):

- a room whose host is on one process and whose other player is on another:
  both play one deal through their own process, and see the same game;
- a client that moves between processes (leaves one, joins on the other, and
  back) goes on with every version above the last it saw and nothing lost;
- a process killed with SIGKILL mid-deal: its clients, those connected to it
  and those relayed to it from another process, are back at the table within
  5 seconds on the process that took the game over from PostgreSQL, with no
  move lost and none applied twice (a resent move is a duplicate).
"""

from __future__ import annotations

import contextlib
import json
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import test_restart
from test_restart import Server
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from twentynine.server.store import open_store

pytestmark = test_restart.pytestmark

TIMEOUT = 10.0
TAKEOVER = 5.0  # seconds from a kill to the client back at its table


class Node(Server):
    """``twentynine serve`` as one of many: the shared database and Redis."""

    def __init__(self, db: str, redis: str, log: Path) -> None:
        super().__init__(db, log)  # type: ignore[arg-type]  # --db takes a URL too
        self.env = {
            "TWENTYNINE_REDIS": redis,
            "TWENTYNINE_LEASE_MS": "1500",
            "TWENTYNINE_TRICK_PAUSE_MS": "100",
        }

    def health(self) -> dict[str, Any]:
        import urllib.request

        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=5) as r:
            got: dict[str, Any] = json.load(r)
        return got

    def process(self) -> str:
        return str(self.health()["cluster"]["process"])


@contextlib.contextmanager
def running(pg_url: str, redis_url: str, tmp_path: Path, **env: str) -> Iterator[list[Node]]:
    started = [Node(pg_url, redis_url, tmp_path / f"server{i}.log") for i in range(2)]
    try:
        for n in started:
            n.env.update(env)
            n.start()
        yield started
    finally:
        for n in started:
            n.stop()


@pytest.fixture
def nodes(pg_url: str, redis_url: str, tmp_path: Path) -> Iterator[list[Node]]:
    with running(pg_url, redis_url, tmp_path) as started:
        yield started


class Player:
    """One person at a table, on the socket of one process: sends a message and waits for
    its answer; keeps the newest view and checks that versions never go down."""

    def __init__(self, node: Node, seat: int) -> None:
        self.seat = seat
        self.prefix = secrets.token_hex(4)
        self.n = 0
        self.top = 0
        self.last: dict[str, Any] = {}
        self.answers: dict[str, dict[str, Any]] = {}
        self.acked: list[dict[str, Any]] = []
        self.ws: ClientConnection = node.socket()
        self.ident = self.token = self.code = ""
        self.seats: list[int] | None = None
        self.got: list[tuple[Any, Any, Any]] = []

    def take(self, msg: dict[str, Any]) -> None:
        self.got.append((msg.get("type"), msg.get("v"), msg.get("id")))
        if msg["type"] == "state":
            self.ident = msg.get("game") or self.ident
            self.seats = msg.get("seats")
        if msg["type"] in ("state", "update"):
            assert msg["v"] >= self.top or msg["type"] == "state", (msg["v"], self.top)
            self.top = max(self.top, msg["v"])
            self.last = msg
        if msg.get("id") is not None and msg["type"] in ("ack", "error", "state", "room"):
            self.answers.setdefault(msg["id"], msg)

    def pump(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while True:
            try:
                text = self.ws.recv(timeout=max(0.0, end - time.monotonic()))
            except TimeoutError:
                return
            self.take(json.loads(text))

    def request(self, ident: str | None = None, **msg: Any) -> dict[str, Any]:
        if ident is None:
            self.n += 1
            ident = f"{self.prefix}-{msg['type']}-{self.n}"
        self.ws.send(json.dumps({"id": ident, **msg}))
        end = time.monotonic() + TIMEOUT
        while ident not in self.answers:
            assert time.monotonic() < end, f"no answer to {msg}"
            self.pump(0.05)
        return self.answers.pop(ident)

    def view(self) -> dict[str, Any]:
        views: dict[str, Any] = self.last["views"]
        return dict(views[str(self.seat)])

    def my_turn(self) -> bool:
        m = self.last
        if not m or m.get("over") or m["hold"] == "deal":
            return False
        v = self.view()
        return bool(v["to_act"] == self.seat and v["legal"]) and (
            m["hold"] is None or v["phase"] == "pair"
        )

    def act(self) -> dict[str, Any]:
        action = self.view()["legal"][0]
        got = self.request(type="act", action=action)
        assert got["type"] == "ack", got
        self.acked.append(action)
        return got

    def rejoin(self, node: Node) -> dict[str, Any]:
        with_ws = self.ws
        with_ws.close()
        self.ws = node.socket()
        before = self.top
        if self.code:
            state = self.request(type="room_join", code=self.code, token=self.token)
        else:
            state = self.request(type="join", game=self.ident, token=self.token)
        assert state["type"] == "state" and state["seats"] == [self.seat], state
        assert state["v"] >= before, f"version {state['v']} after {before}: it went down"
        return state


def hot_seat(node: Node) -> Player:
    south = Player(node, 0)
    seats = [{"human": True}, *test_restart.BOTS]
    state = south.request(
        type="create", setup={"profile": "arcade", "seed": 29, "length": "single", "seats": seats}
    )
    assert state["type"] == "state", state
    south.ident, south.token = state["game"], state["token"]
    return south


def settle(*players: Player, seconds: float = TIMEOUT) -> None:
    """Read until one of the players must act (the bots have played)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for p in players:
            p.pump(0.02)
            if p.last and p.last["hold"] == "trick" and p.seat == 0 and not p.code:
                got = p.request(type="continue", at=p.last["hold_at"])
                assert got["type"] == "ack", got
        if any(p.my_turn() or p.last.get("over") or p.last.get("hold") == "deal" for p in players):
            return
    seen = [(p.seat, p.last.get("v"), p.last.get("hold"), p.view()["to_act"]) for p in players]
    raise AssertionError(
        f"nobody's turn came: (seat, version, hold, to act) {seen} {[p.got[-6:] for p in players]}"
    )


def in_order(mine: list[dict[str, Any]], log: list[dict[str, Any]], seat: int) -> bool:
    """A player's acknowledged actions are the log's actions of its seat, in order, once."""
    return mine == [e for e in log if e.get("seat") == seat]


def stored_log(db: str, ident: str) -> list[dict[str, Any]]:
    store = open_store(db)
    try:
        return list(store.load(ident).log)
    finally:
        store.close()


def test_a_room_plays_across_two_processes(nodes: list[Node]) -> None:
    a, b = nodes
    assert a.process() != b.process()
    host = Player(a, 0)
    room = host.request(type="room_create", setup={"profile": "pagat"}, name="Asha")
    assert room["type"] == "room", room
    host.code, host.token = room["code"], room["token"]
    for seat, bot in ((1, "pip"), (3, "bablu")):
        assert host.request(type="seat_bot", seat=seat, bot=bot)["type"] == "room"
    friend = Player(b, 2)  # on the other process: relayed to the room's owner
    friend.code = host.code
    seen = friend.request(type="room_join", code=host.code)
    assert seen["type"] == "room" and seen["code"] == host.code, seen
    sat = friend.request(type="sit", seat=2, name="Bina")
    assert sat["type"] == "room", sat
    friend.token = sat["token"]
    host.pump(0.3)  # the host hears of the friend through the relay
    state = host.request(type="start")
    assert state["type"] == "state", state
    friend.pump(1.0)
    assert friend.ident == state["game"] and friend.seats == [2]
    ident = state["game"]
    # a whole deal, each player through its own process
    moves = 0
    while not (host.last.get("over") or host.last.get("hold") == "deal"):
        settle(host, friend)
        for p in (host, friend):
            if p.my_turn():
                p.act()
                moves += 1
        if host.last.get("hold") == "deal" or host.last.get("over"):
            break
    friend.pump(0.5)
    assert moves >= 8
    assert friend.top == host.top, "both see the same game"
    log = stored_log(a.db, ident)  # type: ignore[arg-type]
    for p in (host, friend):
        assert in_order(p.acked, log, p.seat)


def test_a_client_moves_between_processes(nodes: list[Node]) -> None:
    a, b = nodes
    south = hot_seat(a)
    settle(south)
    for node in (b, a, b):
        south.act()
        settle(south)
        south.rejoin(node)  # on the other process now: the game stays where it is
        settle(south)
    south.act()
    settle(south)
    log = stored_log(a.db, south.ident)  # type: ignore[arg-type]
    assert in_order(south.acked, log, 0)


def test_a_killed_process_is_taken_over(nodes: list[Node]) -> None:
    a, b = nodes
    # one client on the process that will die, one relayed to it from the other
    near = hot_seat(a)
    far = hot_seat(a)
    far.rejoin(b)
    for p in (near, far):
        settle(p)
        p.act()
        settle(p)
    # a move sent just before the kill, its answer never read
    pending = far.view()["legal"][0]
    far.n += 1
    resent = f"{far.prefix}-act-{far.n}"
    far.ws.send(json.dumps({"id": resent, "type": "act", "action": pending}))
    time.sleep(0.2)
    a.kill()
    killed = time.monotonic()
    # the relayed client is told to reconnect (4008) by its own process
    with pytest.raises(ConnectionClosed) as closed:
        far.pump(TAKEOVER)
        far.ws.recv(timeout=TAKEOVER)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4008
    for p in (near, far):
        p.rejoin(b)
        took = time.monotonic() - killed
        print(f"seat back at its table {took:.2f} s after the kill")
        assert took <= TAKEOVER, f"taken over in {took:.2f} s"
    # the move sent before the kill, sent again: applied once, or answered duplicate now
    again = far.request(ident=resent, type="act", action=pending)
    assert again["type"] == "ack", again
    far.acked.append(pending)
    for p in (near, far):
        settle(p)
        p.act()
        settle(p)
        log = stored_log(b.db, p.ident)  # type: ignore[arg-type]
        assert in_order(p.acked, log, 0)


def test_an_address_has_the_same_limits_on_every_process(
    pg_url: str, redis_url: str, tmp_path: Path
) -> None:
    limits = {"TWENTYNINE_CONNECTIONS_PER_ADDRESS": "3", "TWENTYNINE_ROOM_CODE_GUESSES": "3"}
    with running(pg_url, redis_url, tmp_path, **limits) as (a, b):
        # three connections from 127.0.0.1, on two processes: a fourth is turned away
        held = [a.socket(), a.socket(), b.socket()]
        ws = connect(f"ws://127.0.0.1:{b.port}/ws", open_timeout=TIMEOUT, proxy=None)
        told = json.loads(ws.recv(timeout=TIMEOUT))  # told why, then closed with 4029
        assert told["type"] == "error" and "too many connections" in told["message"], told
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=TIMEOUT)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4029
        held.pop().close()
        time.sleep(0.3)
        held.append(b.socket())  # one closed: room for one again
        for ws in held:
            ws.close()
        time.sleep(0.3)
        # three unknown room codes tried, on either process: a fourth is refused unread
        guesser_a, guesser_b = Player(a, 0), Player(b, 0)
        for p, code in ((guesser_a, "ZZZZ-ZZZZ"), (guesser_b, "YYYY-YYYY"), (guesser_a, "XXXX")):
            got = p.request(type="room_join", code=code)
            assert got["type"] == "error" and got["reason"] == "room_unknown", got
        got = guesser_b.request(type="room_join", code="WWWW-WWWW")
        assert got["type"] == "error" and got["reason"] == "room_codes", got


def test_the_clients_of_a_killed_front_are_let_go(nodes: list[Node]) -> None:
    """A process that dies with clients relayed to another: the owner lets them go."""
    a, b = nodes
    south = hot_seat(a)
    south.rejoin(b)  # relayed from b to a
    settle(south)
    assert a.health()["cluster"]["relayed_in"] == 1
    b.kill()
    end = time.monotonic() + TAKEOVER
    while a.health()["cluster"]["relayed_in"] and time.monotonic() < end:
        time.sleep(0.1)
    assert a.health()["cluster"]["relayed_in"] == 0


def test_serve_says_what_is_wrong_with_its_cluster_settings(tmp_path: Path) -> None:
    import subprocess
    import sys

    from twentynine.benchmarks.localhost import free_port

    exe = Path(sys.executable).parent / "twentynine"
    nowhere = f"redis://127.0.0.1:{free_port()}/0"
    cases = [
        (["--db", str(tmp_path / "g.sqlite3"), "--redis", nowhere], "must be kept in PostgreSQL"),
        (["--db", "postgresql://u@127.0.0.1:1/x", "--redis", "localhost:6379"], "a URL such as"),
        (["--db", "postgresql://u@127.0.0.1:1/x", "--redis", nowhere], "cannot be reached"),
    ]
    for args, words in cases:
        done = subprocess.run(
            [str(exe), "serve", "--port", str(free_port()), *args],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert words in done.stderr and "Traceback" not in done.stderr, done.stderr
