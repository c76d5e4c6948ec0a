"""Limits per connection and per address: refused with ``rate_limited``, closed if it goes on.

The token buckets are checked with a clock of our own; the websocket's
behaviour (the error, its id, the close code 4029, the limits shared by the
connections of one address, the room codes an address may try, a trusted
proxy's ``X-Forwarded-For``) through Starlette's TestClient with small
limits. A pace no person exceeds, and a page that reconnects, never meet the
default limits.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import json
import time
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient, WebSocketTestSession
    from starlette.websockets import WebSocketDisconnect

from twentynine.server import limits as L
from twentynine.server import protocol as P
from twentynine.server.config import ServerConfig
from twentynine.server.limits import CLOSE, OK, REFUSE, Bucket, Guard, Limits
from twentynine.server.outbox import LIMITED
from twentynine.web.app import create_app

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

_pool = concurrent.futures.ThreadPoolExecutor(4)
Msg = dict[str, Any]


class Clock:
    """``time.monotonic`` for the limits, moved by hand."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.now = 1000.0
        monkeypatch.setattr(L, "clock", lambda: self.now)


def recv(ws: WebSocketTestSession, timeout: float = 10) -> Msg:
    text: str = _pool.submit(ws.receive_text).result(timeout=timeout)
    msg: Msg = json.loads(text)
    return msg


def send(ws: WebSocketTestSession, **msg: Any) -> None:
    ws.send_text(json.dumps(msg))


_open: list[WebSocketTestSession] = []


@contextlib.contextmanager
def server(peer: str = "203.0.113.7", **limits: Any) -> Iterator[TestClient]:
    config = ServerConfig(bot_delay=0, bot_workers=0, warm_up=False, limits=Limits(**limits))
    with TestClient(create_app(config), client=(peer, 40000)) as client:
        try:
            yield client
        finally:
            while _open:  # every session ends before the app does
                with contextlib.suppress(Exception):
                    _open.pop().__exit__(None, None, None)


def opened(client: TestClient, **headers: str) -> WebSocketTestSession:
    """A connection, whatever the server answers first."""
    ws = client.websocket_connect("/ws", headers=headers).__enter__()
    _open.append(ws)
    return ws


def connect(client: TestClient, **headers: str) -> WebSocketTestSession:
    ws = opened(client, **headers)
    welcome = recv(ws)
    assert welcome["type"] == "welcome", welcome
    return ws


def closed_with(ws: WebSocketTestSession) -> int:
    """Read until the server closes; the close code."""
    with pytest.raises(WebSocketDisconnect) as gone:
        for _ in range(100):
            _pool.submit(ws.receive_text).result(timeout=10)
    return gone.value.code


# ---------------------------------------------------------------------- buckets


def test_a_bucket_allows_its_burst_then_its_rate() -> None:
    b = Bucket(rate=2, burst=5, now=0)
    assert all(b.take(0) for _ in range(5)) and not b.take(0)
    assert not b.take(0.4) and b.take(0.5)  # one token every half second
    assert b.take(100) and b.available(100) == 4  # never more than the burst
    off = Bucket(rate=0, burst=1, now=0)
    assert all(off.take(0) for _ in range(10_000))  # rate 0: no limit


def test_a_fast_person_and_a_reconnecting_page_never_meet_the_defaults(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = Clock(monkeypatch)
    guard = Guard(Limits())
    for _reconnect in range(12):  # a page that loses its network every five seconds
        ticket = guard.open("198.51.100.1")
        assert isinstance(ticket, L.Ticket)
        # a join, six pending messages resent, a ping, and the whole state it missed: at once
        at_once = ["room_join", *["act"] * 6, "ping", "sync"]
        assert [ticket.admit(kind) for kind in at_once] == [OK] * len(at_once)
        for _ in range(25):  # then five messages a second: far faster than anyone plays
            clock.now += 0.2
            assert ticket.admit("act") == OK
        ticket.close()
    # four people at one table behind one address, each as fast as that, for a minute
    people = [guard.open("198.51.100.2") for _ in range(4)]
    for _ in range(300):
        clock.now += 0.2
        for person in people:
            assert isinstance(person, L.Ticket) and person.admit() == OK
    assert guard.refused == 0 and guard.turned_away == 0


def test_refusals_then_a_close_for_one_who_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    Clock(monkeypatch)
    guard = Guard(Limits(rate=1, burst=3, refusals=4, cooldown=10))
    ticket = guard.open("192.0.2.1")
    assert isinstance(ticket, L.Ticket)
    verdicts = [ticket.admit() for _ in range(3 + 4 + 1)]
    assert verdicts == [OK] * 3 + [REFUSE] * 4 + [CLOSE]
    assert guard.counts()["closed"] == 1
    ticket.close()
    assert isinstance(guard.open("192.0.2.1"), str)  # the cooldown
    assert isinstance(guard.open("192.0.2.2"), L.Ticket)  # another address is not affected


def test_connections_per_address_and_how_often_they_open(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock(monkeypatch)
    guard = Guard(Limits(connections=2, connects_per_minute=3))
    a, b = guard.open("192.0.2.9"), guard.open("192.0.2.9")
    assert isinstance(a, L.Ticket) and isinstance(b, L.Ticket)
    assert "too many connections" in str(guard.open("192.0.2.9"))
    a.close()
    a.close()  # twice is once
    c = guard.open("192.0.2.9")
    assert isinstance(c, L.Ticket)
    c.close()
    assert "too often" in str(guard.open("192.0.2.9"))  # the fourth in a minute
    clock.now += 20  # one more a minute: one every 20 s
    assert isinstance(guard.open("192.0.2.9"), L.Ticket)


# ---------------------------------------------------------------------- addresses


@pytest.mark.parametrize(
    ("peer", "forwarded", "trusted", "expected"),
    [
        ("203.0.113.5", ["198.51.100.9"], (), "203.0.113.5"),  # no proxy trusted: the socket
        ("203.0.113.5", ["198.51.100.9"], ("10.0.0.0/8",), "203.0.113.5"),  # not a trusted one
        ("10.1.2.3", ["198.51.100.9"], ("10.0.0.0/8",), "198.51.100.9"),
        # a client cannot pass for another by writing the header itself
        ("10.1.2.3", ["6.6.6.6, 198.51.100.9"], ("10.0.0.0/8",), "198.51.100.9"),
        ("10.1.2.3", ["198.51.100.9, 10.9.9.9"], ("10.0.0.0/8",), "198.51.100.9"),  # two proxies
        ("10.1.2.3", [], ("10.0.0.0/8",), "10.1.2.3"),  # a trusted proxy's own request
        ("127.0.0.1", ["junk", "198.51.100.4"], ("127.0.0.1",), "198.51.100.4"),
        ("2001:db8:1:2:3:4:5:6", [], (), "2001:db8:1:2::/64"),  # IPv6: the /64
        ("::ffff:192.0.2.1", [], (), "192.0.2.1"),
        ("testclient", [], (), "testclient"),
    ],
)
def test_the_address_a_connection_counts_against(
    peer: str, forwarded: list[str], trusted: tuple[str, ...], expected: str
) -> None:
    guard = Guard(Limits(trusted_proxies=trusted))
    assert guard.client_address(peer, forwarded) == expected


def test_a_bad_trusted_proxy_is_named() -> None:
    with pytest.raises(ValueError, match="not-an-ip"):
        Guard(Limits(trusted_proxies=("10.0.0.0/8", "not-an-ip")))


def test_limits_come_from_the_environment() -> None:
    env = {
        "TWENTYNINE_MESSAGES_PER_SECOND": "5",
        "TWENTYNINE_MESSAGE_BURST": "9",
        "TWENTYNINE_ADDRESS_MESSAGES_PER_SECOND": "0",
        "TWENTYNINE_CONNECTIONS_PER_ADDRESS": "4",
        "TWENTYNINE_ROOM_CODE_GUESSES": "7",
        "TWENTYNINE_TRUSTED_PROXIES": " 127.0.0.1 , 10.0.0.0/8,",
        "TWENTYNINE_OUTBOX_MESSAGES": "64",
        "TWENTYNINE_SEND_TIMEOUT_MS": "2500",
        "TWENTYNINE_REFUSALS": "not a number",
    }
    limits = Limits.from_env(env)
    assert (limits.rate, limits.burst, limits.address_rate) == (5, 9, 0)
    assert limits.connections == 4 and limits.code_guesses == 7
    assert limits.trusted_proxies == ("127.0.0.1", "10.0.0.0/8")
    assert limits.outbox.messages == 64 and limits.outbox.send_timeout == 2.5
    assert limits.refusals == Limits().refusals
    assert Limits.from_env({}) == Limits()


# ---------------------------------------------------------------------- over the wire


def test_a_flooding_connection_is_refused_by_id_then_closed_4029() -> None:
    with server(rate=1, burst=5, refusals=3) as client:
        ws = connect(client)
        for i in range(5):
            send(ws, type="act", id=f"s{i}", action={})
            assert recv(ws)["code"] == P.NO_GAME  # handled (there is no game)
        for i in range(3):
            send(ws, type="act", id=f"x{i}", action={})
            refused = recv(ws)
            assert refused["code"] == P.RATE_LIMITED and refused["id"] == f"x{i}", refused
            assert "slow down" in refused["message"]
        send(ws, type="act", id="last", action={})
        final = recv(ws)
        assert final["code"] == P.RATE_LIMITED and "closing" in final["message"]
        assert closed_with(ws) == LIMITED
        # the address may not come back at once
        again = opened(client)
        assert recv(again)["code"] == P.RATE_LIMITED
        assert closed_with(again) == LIMITED


def test_the_whole_state_costs_five_moves(monkeypatch: pytest.MonkeyPatch) -> None:
    Clock(monkeypatch)
    guard = Guard(Limits(rate=1, burst=15, refusals=50))
    ticket = guard.open("192.0.2.3")
    assert isinstance(ticket, L.Ticket)
    assert [ticket.admit("sync") for _ in range(4)] == [OK, OK, OK, REFUSE]
    assert [ticket.admit("act") for _ in range(2)] == [REFUSE, REFUSE]  # (nothing left)
    fresh = guard.open("192.0.2.4")
    assert isinstance(fresh, L.Ticket)
    assert [fresh.admit("act") for _ in range(15)] == [OK] * 15


def test_the_connections_of_one_address_share_its_limit() -> None:
    with server(rate=0, address_rate=1, address_burst=4, refusals=50) as client:
        a, b = connect(client), connect(client)
        for ws in (a, b, a, b):
            send(ws, type="ping")
            assert recv(ws)["type"] == "pong"
        send(a, type="ping")
        assert recv(a)["code"] == P.RATE_LIMITED
        send(b, type="ping")
        assert recv(b)["code"] == P.RATE_LIMITED


def test_too_many_connections_from_one_address_are_turned_away() -> None:
    with server(connections=2) as client:
        kept = [connect(client), connect(client)]
        extra = opened(client)
        refused = recv(extra)
        assert refused["type"] == "error" and refused["code"] == P.RATE_LIMITED
        assert "too many connections" in refused["message"]
        assert closed_with(extra) == LIMITED
        kept[0].close()
        guard = client.app.state.lobby.guard  # type: ignore[attr-defined]
        deadline = time.monotonic() + 5
        while guard._addresses["203.0.113.7"].open >= 2 and time.monotonic() < deadline:
            time.sleep(0.01)  # the server notices the close, then lets one more in
        assert connect(client) is not None


def test_room_codes_tried_count_per_address_not_per_connection() -> None:
    with server(code_guesses=3, code_guess_seconds=3600) as client:
        host = connect(client)
        send(host, type="room_create", id="r1", setup={"length": "single"}, name="Asha")
        code = recv(host)["code"]
        for i in range(3):  # three wrong codes, each from a new connection
            ws = connect(client)
            send(ws, type="room_join", id=f"j{i}", code="ZZZZ-ZZZZ")
            assert recv(ws)["code"] == P.NOT_FOUND
            ws.close()
        late = connect(client)
        send(late, type="room_join", id="j9", code="ZZZZ-ZZZZ")
        refused = recv(late)
        assert refused["code"] == P.RATE_LIMITED and "room codes" in refused["message"]
        # even the right code: otherwise the answers would tell right from wrong
        send(late, type="room_join", id="j10", code=code)
        assert recv(late)["code"] == P.RATE_LIMITED
    # another address is not affected
    with server(peer="203.0.113.8", code_guesses=3) as client:
        ws = connect(client)
        send(ws, type="room_join", id="j1", code="ZZZZ-ZZZZ")
        assert recv(ws)["code"] == P.NOT_FOUND


def test_behind_a_trusted_proxy_the_forwarded_client_is_limited_not_the_proxy() -> None:
    with server(peer="10.0.0.2", connections=1, trusted_proxies=("10.0.0.0/8",)) as client:
        alice = connect(client, **{"x-forwarded-for": "198.51.100.1"})
        bob = connect(client, **{"x-forwarded-for": "198.51.100.2"})  # through the same proxy
        send(bob, type="ping")
        assert recv(bob)["type"] == "pong"
        again = opened(client, **{"x-forwarded-for": "198.51.100.1"})
        assert recv(again)["code"] == P.RATE_LIMITED  # Alice's second connection
        assert alice is not None


def test_a_client_told_once_is_dropped_early_while_it_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = Clock(monkeypatch)
    guard = Guard(Limits(rate=1, burst=1, refusals=1, cooldown=10, trusted_proxies=("10.0.0.1",)))
    ticket = guard.open("192.0.2.5")
    assert isinstance(ticket, L.Ticket)
    assert [ticket.admit() for _ in range(3)] == [OK, REFUSE, CLOSE]
    ticket.close()
    assert not guard.refuses_early("192.0.2.5")  # not told yet: the next one hears why
    assert isinstance(guard.open("192.0.2.5"), str) and guard.explain("192.0.2.5")
    assert guard.refuses_early("192.0.2.5")  # told: dropped before its handshake is read
    assert not guard.refuses_early("192.0.2.6") and not guard.refuses_early("10.0.0.1")
    clock.now += 10.5
    assert not guard.refuses_early("192.0.2.5")  # the cooldown is over
    assert isinstance(guard.open("192.0.2.5"), L.Ticket)
