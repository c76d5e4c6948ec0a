"""Every timer of a room comes back with a restart: the trick pause, the away grace, the clock.

A lobby runs a room on a SQLite store through fake connections (``Conn``
of ``test_durable``); it is then dropped with everything in flight
cancelled, as a killed server is, and a new lobby on the same file starts.
Nobody connects to the new one unless the test says so: what must happen
then happens by itself. ``restored`` (the rules of it) is tested alone too.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from test_durable import Conn, answer_to, say

from twentynine.server.config import ServerConfig
from twentynine.server.lobby import Lobby
from twentynine.server.session import TRICK, GameSession
from twentynine.server.store import SQLiteStore
from twentynine.server.timers import Clocks, restored, shape, to_json

FAST = ServerConfig(bot_delay=0, bot_workers=0, warm_up=False, trick_pause=0.05, pair_pause=0.1)


async def wait_for(test: Callable[[], bool], seconds: float = 10, what: str = "") -> None:
    end = asyncio.get_running_loop().time() + seconds
    while not test():
        assert asyncio.get_running_loop().time() < end, f"it never happened: {what}"
        await asyncio.sleep(0.005)


async def open_room(lobby: Lobby, **table: Any) -> tuple[Conn, GameSession]:
    """A room of one person (the host, South) and three bots, started."""
    host = Conn()
    setup = {"profile": "pagat", "length": "single", **table}
    await say(lobby, host, None, {"type": "room_create", "id": "r", "setup": setup, "name": "A"})
    for seat, bot in ((1, "pip"), (2, "tara"), (3, "pip")):
        msg = {"type": "seat_bot", "id": f"b{seat}", "seat": seat, "bot": bot}
        await say(lobby, host, None, msg)
    session = await say(lobby, host, None, {"type": "start", "id": "go"})
    assert isinstance(session, GameSession), answer_to(host, "go")
    return host, session


def run(db: Path, config: ServerConfig, body: Callable[[Lobby], Awaitable[Any]]) -> Any:
    """``body`` on a lobby of the store at ``db``, then the lobby dropped as if killed."""

    async def go() -> Any:
        store = SQLiteStore(db)
        lobby = Lobby(config, store)
        lobby.start()  # the restart: every unfinished game, its timers going again
        try:
            return await body(lobby)
        finally:
            lobby.close()
            store.close()

    return asyncio.run(go())


async def play_south(
    lobby: Lobby, host: Conn, session: GameSession, until: Callable[[], bool]
) -> None:
    n = 0
    while not until():
        game = session.game
        if session.hold is None and game.to_act == 0 and game.legal_for(0):
            n += 1
            msg = {"type": "act", "id": f"s{n}", "action": game.legal_for(0)[0].to_json()}
            await say(lobby, host, session, msg)
        await asyncio.sleep(0.005)


def test_a_room_killed_during_its_trick_pause_goes_on_by_itself(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    slow = dataclasses.replace(FAST, trick_pause=30.0)  # the kill comes in the pause

    async def first(lobby: Lobby) -> tuple[str, int]:
        host, session = await open_room(lobby)
        await play_south(lobby, host, session, lambda: session.hold == TRICK)
        return session.ident, len(session.game.log)

    ident, length = run(db, slow, first)

    async def second(lobby: Lobby) -> None:
        session = lobby.sessions[ident]
        assert session.hold == TRICK and len(session.game.log) == length and not session.clients
        await wait_for(lambda: session.hold is None, 5, "the pause ended")
        # released where the pause ended: after the trick, or after the pair window the
        # trick opened (its declaration or pass, taken in the pause, comes first)
        between = session.game.log[length : session.released]
        assert session.released >= length, (session.released, length)
        assert all("pair" in e or "pass" in e for e in between), between
        # and the table goes on: the bots play up to the person's turn (away, with full grace)
        await wait_for(lambda: session.game.to_act == 0 or session.hold is not None, 5, "bots")

    run(db, FAST, second)


def test_a_room_where_stand_ins_play_for_everyone_plays_on_after_a_restart(
    tmp_path: Path,
) -> None:
    db = tmp_path / "g.sqlite3"

    async def first(lobby: Lobby) -> str:
        host, session = await open_room(lobby, grace=10)
        assert session.table is not None
        session.table = dataclasses.replace(session.table, grace=0.05)  # no waiting here
        lobby.leave(host, session)
        await wait_for(lambda: 0 in session.standin, 5, "a stand-in for South")
        await wait_for(lambda: len(session.game.log) >= 6, 10, "the stand-in played")
        return session.ident

    ident = run(db, FAST, first)

    async def second(lobby: Lobby) -> None:
        session = lobby.sessions[ident]
        assert session.standin == {0} and not session.clients
        start = len(session.game.log)
        await wait_for(lambda: session.game.deal_over, 30, "the deal played to its end")
        south = [e for e in session.game.log[start:] if e.get("seat") == 0]
        assert south, "the stand-in played South's cards with nobody there"
        assert session.hold == "deal"  # and the next deal waits for a person, as designed

    run(db, FAST, second)


def test_the_away_grace_and_the_turn_clock_keep_what_they_had_left(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    calm = dataclasses.replace(FAST, bot_delay=0.0)

    async def first(lobby: Lobby) -> tuple[str, float, float]:
        host, session = await open_room(lobby, clock=30, grace=60)
        await wait_for(lambda: session.turn is not None and session.turn[0] == 0, 10, "South")
        await asyncio.sleep(0.4)
        lobby.leave(host, session)  # the clock pauses; the grace starts
        await wait_for(lambda: 0 in session.away and session.turn_left is not None, 5, "away")
        await asyncio.sleep(0.3)
        assert session.turn_left is not None
        return session.ident, session.turn_left, session.away[0]

    ident, clock_left, _since = run(db, calm, first)
    assert 29.0 < clock_left < 29.8

    async def second(lobby: Lobby) -> None:
        session = lobby.sessions[ident]
        assert session.table is not None
        grace_left = session.away[0] + session.table.grace - session._now()
        # the grace kept what it had when the player left (written then), less nothing
        # of the time the server was down
        assert 59.0 < grace_left <= 60.0
        assert session.turn is not None and session.turn[0] == 0
        assert session.turn_deadline is None  # paused: its player is away
        assert session.turn_left == pytest.approx(clock_left, abs=0.05)
        host = Conn()
        token_msg = {"type": "room_join", "id": "back", "code": session.table.code}
        await say(lobby, host, None, token_msg)  # a spectator: the clock stays paused
        assert session.turn_deadline is None

    run(db, calm, second)


# ------------------------------------------------------------------ the rules alone


def test_restored_timers_count_no_downtime_and_read_nothing_broken() -> None:
    now = 1000.0
    kept = to_json(
        Clocks(away={1: now - 15, 3: now - 70}, standin={3}, turn=(2, 40), turn_left=12.5),
        grace=60,
        now=now,
    )
    assert kept["away"] == {"1": 45.0} and kept["standin"] == [3]
    later = 50_000.0  # a long time down
    got = restored(kept, (0, 1, 2, 3), 60, 30, (2, 40), later)
    assert got.away[0] == later  # connected at the stop: the full grace from the restart
    assert got.away[1] == pytest.approx(later - 15)  # 45 s left, as when it was written
    assert got.standin == {3} and got.away[3] == later - 60
    assert got.turn == (2, 40) and got.turn_left == 12.5 and got.turn_deadline is None
    # another decision is due now: that clock is not this one
    assert restored(kept, (0, 1, 2, 3), 60, 30, (2, 41), later).turn is None
    for broken in (None, [], "x", {"away": {"9": 5, "x": 1, "1": "soon"}, "standin": [7, True]}):
        plain = restored(broken, (0, 2), 60, 30, (0, 1), later)
        assert plain.away == {0: later, 2: later} and not plain.standin and plain.turn is None
    assert shape(Clocks()) != shape(Clocks(away={0: 1.0}))
    assert shape(Clocks(away={0: 1.0})) == shape(Clocks(away={0: 2.0}))  # time passing is no change
