"""A resend after a restart is a duplicate, and versions never go down (in one process).

A lobby plays a game on a SQLite store through fake connections; then it is
dropped with everything in flight cancelled, as a killed server would be,
and a new lobby on the same file takes over. Every message the client had
an answer to is sent again: each one is answered ``duplicate``, with the
answer it had, and the game does not move. (``test_restart`` does the same
to a real server killed with SIGKILL.)
"""

from __future__ import annotations

import asyncio
import json
import secrets
from pathlib import Path
from typing import Any

from twentynine.server import protocol as P
from twentynine.server.config import ServerConfig
from twentynine.server.durable import VERSION_LEASE, Replies
from twentynine.server.lobby import Lobby
from twentynine.server.session import GameSession
from twentynine.server.store import REPLIES_KEPT, SQLiteStore, StoredReply

CONFIG = ServerConfig(bot_delay=0, bot_workers=0, warm_up=False, trick_pause=0.01)
BOTS = [{"bot": "pip"}, {"bot": "tara"}, {"bot": "pip"}]

Msg = dict[str, Any]


class Conn:
    def __init__(self) -> None:
        self.got: list[Msg] = []

    def send(self, data: Msg) -> None:
        self.got.append(json.loads(json.dumps(data)))


async def say(lobby: Lobby, conn: Conn, current: GameSession | None, msg: Msg) -> Any:
    parsed = P.parse_message(json.dumps(msg))
    try:
        return await lobby.dispatch(conn, current, parsed)
    except P.ProtocolError as e:
        conn.send(P.error(e.code, str(e), e.ident, 0))
        return current


def answer_to(conn: Conn, ident: str) -> Msg:
    return next(m for m in reversed(conn.got) if m.get("id") == ident and m["type"] != "update")


async def south_turn(session: GameSession) -> None:
    for _ in range(2000):
        game = session.game
        if session.hold is not None or (game.to_act == 0 and game.legal_for(0)):
            return
        await asyncio.sleep(0.002)
    raise AssertionError("South never got a turn")


def test_every_resend_after_a_restart_is_a_duplicate_and_changes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"

    async def first() -> tuple[str, str, list[Msg], int]:
        store = SQLiteStore(db)
        lobby = Lobby(CONFIG, store)
        conn = Conn()
        setup = {"profile": "modern", "seed": 12, "length": "single", "seats": [{"human": True}]}
        setup["seats"] += BOTS
        session = await say(lobby, conn, None, {"type": "create", "id": "c1", "setup": setup})
        state = answer_to(conn, "c1")
        sent: list[Msg] = []
        prefix = secrets.token_hex(3)
        for n in range(40):
            await south_turn(session)
            if session.game.deal_over:
                break
            if session.hold == "trick":
                msg = {"type": "continue", "id": f"{prefix}-{n}", "at": session.hold_at}
            else:
                action = session.game.legal_for(0)[0].to_json()
                msg = {"type": "act", "id": f"{prefix}-{n}", "action": action}
            await say(lobby, conn, session, msg)
            assert answer_to(conn, msg["id"])["type"] == "ack"
            sent.append(msg)
        await south_turn(session)
        seen = max(m["v"] for m in conn.got)
        lobby.close()  # everything in flight cancelled; the store is left as it is
        store.close()
        return state["game"], state["token"], sent, seen

    ident, token, sent, seen = asyncio.run(first())
    assert any(m["type"] == "act" and "pass" in m["action"] for m in sent)  # an auction pass

    async def second() -> None:
        store = SQLiteStore(db)
        lobby = Lobby(CONFIG, store)
        lobby.start()
        conn = Conn()
        session = await say(
            lobby, conn, None, {"type": "join", "id": "j", "game": ident, "token": token}
        )
        state = answer_to(conn, "j")
        assert state["v"] > seen, "a restarted game goes on above every version it sent"
        log = list(session.game.log)
        for msg in sent:
            await say(lobby, conn, session, msg)
            reply = answer_to(conn, msg["id"])
            assert reply["type"] == "ack" and reply.get("duplicate") is True, (msg, reply)
        await asyncio.sleep(0.05)
        assert session.game.log[: len(log)] == log and session.version >= state["v"]
        lobby.close()
        store.close()

    asyncio.run(second())


def test_the_store_ceiling_is_raised_before_a_version_above_it_is_sent(tmp_path: Path) -> None:
    """Presence changes write nothing else: the ceiling still stays ahead of them."""

    async def run() -> None:
        store = SQLiteStore(tmp_path / "g.sqlite3")
        lobby = Lobby(CONFIG, store)
        host = Conn()
        await say(lobby, host, None, {"type": "room_create", "id": "r", "setup": {}, "name": "A"})
        code = answer_to(host, "r")["code"]
        session: GameSession | None = None
        for seat, bot in ((1, "pip"), (2, "tara"), (3, "pip")):
            await say(
                lobby, host, None, {"type": "seat_bot", "id": f"b{seat}", "seat": seat, "bot": bot}
            )
        session = await say(lobby, host, None, {"type": "start", "id": "go"})
        assert session is not None
        for n in range(3 * VERSION_LEASE):  # spectators come and go
            watcher = Conn()
            await say(lobby, watcher, None, {"type": "room_join", "id": f"w{n}", "code": code})
            lobby.leave(watcher, session)
            await asyncio.sleep(0)
            sent = max(m["v"] for m in host.got + watcher.got)
            assert store.load(session.ident).version >= sent
        lobby.close()
        store.close()

    asyncio.run(run())


def test_replies_are_remembered_per_seats_and_bounded() -> None:
    replies = Replies([StoredReply((0,), "a", {"type": "ack", "v": 3, "id": "a"})], kept=3)
    assert replies.get((0,), "a") == {"type": "ack", "v": 3, "id": "a"}
    assert replies.get((2,), "a") is None and replies.get((0,), None) is None
    for n in range(5):
        replies.add((0,), f"m{n}", {"n": n})
    assert len(replies) == 3 and ((0,), "a") not in replies and ((0,), "m4") in replies
    assert REPLIES_KEPT >= 256
