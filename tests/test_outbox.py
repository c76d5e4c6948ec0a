"""The send path: a client's outbox never makes its game wait, and a client that
falls behind is closed with the code the page reconnects from.

The outbox is driven here with writers that stand for sockets: one that
writes at once, one that never finishes (a client that does not read), one
that fails (a client gone). Then a whole room plays through the lobby while
one of its spectators never reads: its players' moves are answered as
quickly as without it, and the spectator is closed with ``SLOW``.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest

from twentynine.server import protocol as P
from twentynine.server.config import ServerConfig
from twentynine.server.lobby import Lobby
from twentynine.server.outbox import CLOSE_SECONDS, SLOW, Outbox, OutboxLimits, encode

Msg = dict[str, Any]


class Socket:
    """What a writer writes to: it records, or hangs (``stuck``), or fails (``gone``)."""

    def __init__(self, stuck: bool = False, gone: bool = False, close_hangs: bool = False):
        self.stuck = stuck
        self.gone = gone
        self.close_hangs = close_hangs
        self.written: list[str] = []
        self.closed: list[tuple[int, str]] = []
        self.aborted = 0

    async def write(self, text: str) -> None:
        if self.gone:
            raise ConnectionResetError("gone")
        if self.stuck:
            await asyncio.Event().wait()  # never drains
        self.written.append(text)

    async def close(self, code: int, reason: str) -> None:
        if self.close_hangs:
            await asyncio.Event().wait()
        self.closed.append((code, reason))

    def abort(self) -> None:
        self.aborted += 1


def outbox(sock: Socket, **limits: Any) -> Outbox:
    return Outbox(sock.write, sock.close, OutboxLimits(**limits), abort=sock.abort)


def test_messages_go_out_in_order_and_put_never_waits() -> None:
    async def go() -> tuple[Socket, float]:
        sock = Socket()
        box = outbox(sock)
        writer = asyncio.create_task(box.run())
        started = time.perf_counter()
        for i in range(200):
            assert box.put({"type": "update", "v": i})
        took = time.perf_counter() - started
        while box.waiting:
            await asyncio.sleep(0.001)
        writer.cancel()
        return sock, took

    sock, took = asyncio.run(go())
    assert [json.loads(t)["v"] for t in sock.written] == list(range(200))
    assert took < 0.5  # nothing was written while putting: the writer had not run yet


def test_a_client_too_far_behind_is_closed_slow_and_dropped_if_the_close_cannot_go() -> None:
    async def go() -> tuple[Socket, Outbox, float]:
        sock = Socket(stuck=True, close_hangs=True)
        box = outbox(sock, messages=8, send_timeout=60)
        writer = asyncio.create_task(box.run())
        for i in range(8 + 1):  # the first is taken by the writer, which hangs on it
            await asyncio.sleep(0)
            box.put({"type": "update", "v": i})
        started = time.perf_counter()
        ok = [box.put({"type": "update", "v": 100 + i}) for i in range(20)]
        assert not any(ok) and box.closing is not None
        await asyncio.wait_for(writer, 5)
        return sock, box, time.perf_counter() - started

    sock, box, took = asyncio.run(go())
    assert box.closing is not None and box.closing[0] == SLOW
    assert sock.aborted == 1 and sock.closed == []  # the close frame could not be written
    assert CLOSE_SECONDS * 0.9 <= took < CLOSE_SECONDS + 2
    assert box.waiting == 0 and box.waiting_bytes == 0  # nothing kept for a client gone


def test_a_bound_on_bytes_closes_as_well() -> None:
    async def go() -> Outbox:
        sock = Socket(stuck=True)
        box = outbox(sock, max_bytes=10_000, send_timeout=60)
        writer = asyncio.create_task(box.run())
        for _ in range(30):
            box.put({"type": "state", "pad": "x" * 1000})
            await asyncio.sleep(0)
        await asyncio.wait_for(writer, 5)
        return box

    box = asyncio.run(go())
    assert box.closing is not None and box.closing[0] == SLOW


def test_a_write_that_does_not_drain_in_time_closes_the_client() -> None:
    async def go() -> tuple[Socket, Outbox, float]:
        sock = Socket(stuck=True)
        box = outbox(sock, send_timeout=0.2)
        writer = asyncio.create_task(box.run())
        started = time.perf_counter()
        box.put({"type": "update"})
        await asyncio.wait_for(writer, 5)
        return sock, box, time.perf_counter() - started

    sock, box, took = asyncio.run(go())
    assert box.closing is not None and box.closing[0] == SLOW
    assert sock.closed == [(SLOW, box.closing[1])]  # the close itself could be written
    assert sock.aborted == 0
    assert 0.15 < took < 2


def test_a_client_gone_ends_the_writer_without_a_close() -> None:
    async def go() -> tuple[Socket, Outbox]:
        sock = Socket(gone=True)
        box = outbox(sock)
        writer = asyncio.create_task(box.run())
        box.put({"type": "update"})
        await asyncio.wait_for(writer, 5)
        return sock, box

    sock, box = asyncio.run(go())
    assert box.done.is_set() and sock.closed == [] and not box.put({"type": "update"})


def test_text_that_utf8_cannot_carry_is_escaped_not_fatal() -> None:
    text = encode({"type": "room", "name": "a\ud800"})
    text.encode("utf-8")
    assert json.loads(text)["name"] == "a\ud800"
    assert encode({"name": "नमस्ते"}) == '{"name":"नमस्ते"}'  # valid text is kept as it is


# ---------------------------------------------------------------------- a room


class Client:
    """A lobby connection whose outbox writes to a ``Socket``."""

    def __init__(self, sock: Socket, limits: OutboxLimits) -> None:
        self.sock = sock
        self.outbox = Outbox(sock.write, sock.close, limits, abort=sock.abort)
        self.writer = asyncio.create_task(self.outbox.run())

    def send(self, data: Msg) -> None:
        self.outbox.put(data)

    def got(self) -> list[Msg]:
        return [json.loads(t) for t in self.sock.written]

    async def answer(self, ident: str, timeout: float = 5) -> Msg:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for msg in self.got():
                if msg.get("id") == ident and msg["type"] != "update":
                    return msg
            await asyncio.sleep(0.001)
        raise AssertionError(f"no answer to {ident}")


@pytest.mark.parametrize("watcher_reads", [True, False])
def test_a_room_never_waits_for_a_spectator_that_does_not_read(watcher_reads: bool) -> None:
    """South plays 20 moves against bots while a spectator's socket never drains: each
    move is acknowledged at once, and the spectator, 16 messages behind, is closed
    (``SLOW``)."""

    async def go() -> tuple[list[float], Client]:
        lobby = Lobby(ServerConfig(bot_delay=0, bot_workers=0, warm_up=False, trick_pause=0))
        # a write may hang for 30 s: a room that waited for it would show it at once
        limits = OutboxLimits(messages=16, send_timeout=30)
        player = Client(Socket(), limits)
        watcher = Client(Socket(stuck=not watcher_reads), limits)
        seats = [{"human": True}, {"bot": "tara"}, {"bot": "bablu"}, {"bot": "pip"}]
        setup = {"length": "match", "seed": 11, "seats": seats}
        session = await lobby.dispatch(
            player, None, P.parse_message(json.dumps({"type": "create", "id": "c", "setup": setup}))
        )
        assert session is not None
        await session.attach(watcher, None, seats=())  # a spectator
        times: list[float] = []
        n = 0
        while len(times) < 20 and not session.over:
            await asyncio.sleep(0.01)
            view = session.game.view(0)
            if session.hold == "deal":
                msg = {"type": "next_deal", "id": f"d{n}"}
            elif session.hold is not None:
                msg = {"type": "continue", "id": f"g{n}", "at": session.hold_at}
            elif view["to_act"] == 0 and view["legal"]:
                msg = {"type": "act", "id": f"a{n}", "action": view["legal"][0]}
            else:
                continue
            n += 1
            started = time.perf_counter()
            await lobby.dispatch(player, session, P.parse_message(json.dumps(msg)))
            reply = await player.answer(msg["id"])
            assert reply["type"] == "ack", reply
            if msg["type"] == "act":
                times.append(time.perf_counter() - started)
        for task in (session.driver, session.timer):
            if task is not None:
                task.cancel()
        lobby.close()
        return times, watcher

    times, watcher = asyncio.run(go())
    assert len(times) >= 10
    assert max(times) < 2, times  # a stuck spectator held nothing up (a loaded machine)
    if watcher_reads:
        assert watcher.outbox.closing is None
    else:
        assert watcher.outbox.closing is not None and watcher.outbox.closing[0] == SLOW
        assert watcher.outbox.waiting == 0


def test_over_the_websocket_a_client_too_far_behind_is_closed_4008() -> None:
    """With room for one waiting message, a move's update and its ack (queued together,
    before the writer runs) are one too many: the client is closed with ``SLOW``, and a
    new connection joins the game again at its whole state."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
        from starlette.websockets import WebSocketDisconnect

    from twentynine.server.limits import Limits
    from twentynine.web.app import create_app

    limits = Limits(outbox=OutboxLimits(messages=1))
    app = create_app(ServerConfig(bot_delay=0, bot_workers=0, warm_up=False, limits=limits))
    seats = [{"human": True}, {"bot": "tara"}, {"bot": "bablu"}, {"bot": "pip"}]
    setup = {"length": "single", "seed": 7, "first_dealer": 3, "seats": seats}
    with TestClient(app) as client:
        with client.websocket_connect("/ws") as ws:
            assert ws.receive_json()["type"] == "welcome"
            ws.send_json({"type": "create", "id": "c1", "setup": setup})
            state = ws.receive_json()
            assert state["type"] == "state" and state["views"]["0"]["to_act"] == 0
            action = state["views"]["0"]["legal"][0]
            ws.send_json({"type": "act", "id": "a1", "action": action})
            with pytest.raises(WebSocketDisconnect) as closed:
                for _ in range(10):
                    ws.receive_json()
            assert closed.value.code == SLOW
        with client.websocket_connect("/ws") as again:
            assert again.receive_json()["type"] == "welcome"
            join = {"type": "join", "id": "j1", "game": state["game"], "token": state["token"]}
            again.send_json(join)
            rejoined = again.receive_json()
            assert rejoined["type"] == "state" and rejoined["v"] > state["v"]  # the move is in
            again.send_json({"type": "act", "id": "a1", "action": action})  # the resend
            reply = again.receive_json()
            while reply.get("id") != "a1":  # the bots' moves may come first
                assert reply["type"] == "update", reply
                reply = again.receive_json()
            assert reply == {"type": "ack", "v": state["v"] + 1, "id": "a1", "duplicate": True}


def test_last_words_that_cannot_be_written_do_not_hold_the_close_up() -> None:
    async def go() -> tuple[Socket, Outbox, float]:
        sock = Socket(stuck=True)
        box = outbox(sock, send_timeout=0.2)
        writer = asyncio.create_task(box.run())
        for i in range(20):
            box.put({"type": "error", "n": i})
        await asyncio.sleep(0)
        started = time.perf_counter()
        box.close(4029, "over a limit", drop=False)  # the queue goes out first, if it can
        await asyncio.wait_for(writer, 5)
        return sock, box, time.perf_counter() - started

    sock, box, took = asyncio.run(go())
    assert took < 1.0  # one write's time limit, not twenty
    assert box.closing == (4029, "over a limit") and sock.closed == [(4029, "over a limit")]
    assert box.waiting == 0
