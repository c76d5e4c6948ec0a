"""Nobody but the holder can tell a pair window from its frames or their timing.

Rooms of one person (South, driven here) and three bots play many seeded
deals under pagat rules (the standard pair), with a turn clock, watched by
a spectator. Every frame South and the spectator get is kept with the time
it came. Each trick is then told apart by what the game really held (the
log replayed): a *window* trick left a seat holding K and Q of trumps on
the winning team; a *could* trick is one after which a window might have
been open, judged on public facts (``could_open``). For both viewers, the
frames from a could trick to the one that lets play go on must have the
same shapes and fields whether a window was open or not, and the table
must wait as long. (South's own frames are left out when South holds the
pair: the holder knows.)
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import statistics
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_durable import Conn, answer_to, say
from test_timers import run, wait_for

from twentynine.game.actions import Action
from twentynine.server.botpool import decide
from twentynine.server.config import ServerConfig
from twentynine.server.game import Game
from twentynine.server.lobby import Lobby
from twentynine.server.pair import could_open, masked
from twentynine.server.room import Room
from twentynine.server.session import DEAL, TRICK, GameSession
from twentynine.server.setup import GameSetup, parse_setup

DEALS = 40
PAIR_PAUSE = 0.1
CONFIG = ServerConfig(
    bot_delay=0, bot_workers=0, warm_up=False, trick_pause=0.02, pair_pause=PAIR_PAUSE
)

Msg = dict[str, Any]


class Timed(Conn):
    """A connection that notes when each frame came."""

    def __init__(self) -> None:
        super().__init__()
        self.at: list[float] = []

    def send(self, data: Msg) -> None:
        super().send(data)
        self.at.append(time.monotonic())


def shape(msg: Msg, key: str) -> tuple[Any, ...]:
    """What a frame shows, but for who holds the cards: its kind, the hold, whose turn
    (someone or nobody), the phase, the cards on the table, the legal actions (any or
    none), the clock (whose and whether it runs), and its events' types. A declared pair
    is public, so its event and its effect on the target are left out."""
    view = msg["views"][key]
    clock = (msg.get("table") or {}).get("clock")
    events = tuple(e["type"] for e in msg.get("events", {}).get(key, []) if e["type"] != "pair")
    return (
        msg["type"],
        msg["hold"],
        view["to_act"] is not None,
        view["phase"],
        len(view["trick"]),
        bool(view["legal"]),
        None if clock is None else (clock["seat"], clock["running"]),
        events,
    )


def tricks_of(game_setup: dict[str, Any], log: list[dict[str, Any]]) -> list[tuple[bool, int]]:
    """For each trick of a deal: (could a window be open after it, the holder or -1)."""
    game = Game(parse_setup(game_setup, allow_bot_south=True))
    out = []
    for entry in log:
        done = len(game.match.deal.tricks)
        game.apply(Action.from_json(entry))
        if len(game.match.deal.tricks) > done and not game.deal_over:
            out.append((could_open(game), game.to_act if game.pair_pending else -1))
    return out


def segments(conn: Timed, key: str) -> list[tuple[tuple[Any, ...], float, bool]]:
    """From each frame with a trick event to the first that lets play go on (its hold gone):
    the shapes of those frames, the time the table waited, and whether the deal ended
    there (a pass that settles the deal early: its cards are shown to all then)."""
    frames = [(m, t) for m, t in zip(conn.got, conn.at, strict=True) if m["type"] == "update"]
    out = []
    for i, (msg, at) in enumerate(frames):
        if not any(e["type"] == "trick" for e in msg["events"][key]):
            continue
        if msg["hold"] != TRICK:
            continue  # the last trick, or an early end: the deal is over, its cards shown
        run = [shape(msg, key)]
        for later, when in frames[i + 1 :]:
            run.append(shape(later, key))
            if later["hold"] != TRICK:
                out.append((tuple(run), when - at, later["hold"] == DEAL))
                break
    return out


async def play_deal(
    lobby: Lobby, choices: Iterator[str]
) -> tuple[Timed, Timed, GameSession, Counter[str]]:
    host, watcher = Timed(), Timed()
    setup = {"profile": "pagat", "length": "single", "clock": 30}
    await say(lobby, host, None, {"type": "room_create", "id": "r", "setup": setup, "name": "A"})
    code = answer_to(host, "r")["code"]
    for seat, bot in enumerate(BOTS, 1):
        await say(
            lobby, host, None, {"type": "seat_bot", "id": f"b{seat}", "seat": seat, "bot": bot}
        )
    await say(lobby, watcher, None, {"type": "room_join", "id": "w", "code": code})
    session = await say(lobby, host, None, {"type": "start", "id": "go"})
    assert isinstance(session, GameSession)
    chose: Counter[str] = Counter()
    decided_at = -1
    k = 0
    deadline = time.monotonic() + 60
    while session.hold != DEAL:
        assert time.monotonic() < deadline, "the deal did not end"
        game = session.game
        k += 1
        if session.hold == TRICK and session.pairing.on and game.pair_pending:
            if game.to_act == 0 and decided_at != len(game.log):
                decided_at = len(game.log)
                choice = next(choices)
                chose[choice] += 1
                if choice != "lapse":
                    action = {"seat": 0, choice: True}
                    await say(
                        lobby, host, session, {"type": "act", "id": f"p{k}", "action": action}
                    )
        elif session.hold is None and game.to_act == 0 and game.legal_for(0):
            action = game.legal_for(0)[0].to_json()
            await say(lobby, host, session, {"type": "act", "id": f"a{k}", "action": action})
        await asyncio.sleep(0.002)
    return host, watcher, session, chose


BOTS = ("pip", "bablu", "tara")


def holders(seed: int) -> set[int]:
    """The seats a pair window opens for in the deal of ``seed``, played as the room plays
    it (South: the first legal action; the bots decide as the server's do)."""
    seats = [{"human": True}, *({"bot": b} for b in BOTS)]
    raw = {"profile": "pagat", "length": "single", "seed": seed, "seats": seats, "undo": False}
    game = Game(parse_setup(raw, allow_bot_south=True))
    found: set[int] = set()
    while not game.deal_over:
        seat = game.to_act
        if game.pair_pending:
            found.add(seat)
        if seat == 0:
            action = game.legal_for(0)[0]
        else:
            obs = game.observation(seat)
            action = Action.from_json(decide(BOTS[seat - 1], game.bot_seed(seat), obs))
        game.apply(action)
    return found


def chosen_seeds() -> list[int]:
    """Deals with a bot's window (half), with South's (a few), and without."""
    want = {"bot": DEALS // 2, "south": 6, "none": DEALS - DEALS // 2 - 6}
    got: dict[str, list[int]] = {k: [] for k in want}
    for seed in itertools.count(1000):
        if all(len(got[k]) >= n for k, n in want.items()):
            break
        seats = holders(seed)
        kind = "south" if 0 in seats else "bot" if seats else "none"
        got[kind].append(seed)
    return [seed for k, n in want.items() for seed in got[k][:n]]


def test_a_pair_window_leaves_no_trace_a_non_holder_or_a_spectator_can_see(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seeds = iter(chosen_seeds())
    setup_of = Room.game_setup

    def seeded(room: Room, by: str) -> tuple[GameSetup, tuple[str, ...]]:
        setup, hashes = setup_of(room, by)  # a room draws its seed: this one instead
        return dataclasses.replace(setup, seed=next(seeds)), hashes

    monkeypatch.setattr(Room, "game_setup", seeded)
    seen: dict[str, dict[bool, list[tuple[tuple[Any, ...], float]]]] = {
        "public": {True: [], False: []},
        "0": {True: [], False: []},
    }
    counts: Counter[str] = Counter()

    async def run() -> None:
        lobby = Lobby(CONFIG)
        try:
            choices = itertools.cycle(("pass", "lapse", "pair"))  # South's, when it holds
            for _ in range(DEALS):
                host, watcher, session, chose = await play_deal(lobby, choices)
                counts.update(chose)
                tricks = tricks_of(session.setup.to_json(), session.game.log)
                for key, conn in (("public", watcher), ("0", host)):
                    runs = segments(conn, key)
                    assert len(runs) == len(tricks), (len(runs), len(tricks))
                    for (pattern, waited, ended), (could, holder) in zip(runs, tricks, strict=True):
                        if not could:
                            assert holder < 0, "a window after a trick that could not open one"
                            continue
                        if ended or (key == "0" and holder == 0):
                            continue  # the deal's cards are all shown; the holder knows
                        seen[key][holder >= 0].append((pattern, waited))
                        counts[f"{key} {'window' if holder >= 0 else 'none'}"] += 1
        finally:
            lobby.close()

    asyncio.run(run())
    print("pair window figures:", dict(counts))
    for key in ("public", "0"):
        window, none = seen[key][True], seen[key][False]
        assert len(window) >= 15 and len(none) >= 15, (key, len(window), len(none))
        shapes_window = {p for p, _ in window}
        shapes_none = {p for p, _ in none}
        assert shapes_window == shapes_none, (key, shapes_window ^ shapes_none)
        assert len(shapes_window) <= 2  # the leader plays next: South, or a bot
        waits = {flag: [w for _, w in seen[key][flag]] for flag in (True, False)}
        for flag, times in waits.items():
            assert min(times) >= PAIR_PAUSE * 0.95, (key, flag, min(times))
        gap = abs(statistics.median(waits[True]) - statistics.median(waits[False]))
        assert gap < 0.03, (key, gap, statistics.median(waits[True]))
    assert counts["pair"] and counts["pass"] and counts["lapse"]  # South held it too


def test_a_pair_pause_shows_nobody_s_turn_but_to_an_undecided_holder() -> None:
    view = {"phase": "pair", "to_act": 2, "legal": [{"seat": 2, "pair": True}], "trick": []}
    assert masked(view) == {"phase": "play", "to_act": None, "legal": [], "trick": []}
    play = {"phase": "play", "to_act": 1, "legal": [], "trick": []}
    assert masked(play)["to_act"] is None and masked(play)["phase"] == "play"


def test_a_choice_noted_in_the_pause_survives_a_restart_and_is_shown_when_it_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """South holds the pair and declares it during the pause; the server is killed before
    the pause ends. After the restart, with nobody there, the pause ends and the pair is
    South's; South's resend of its choice is a duplicate."""
    seed = next(s for s in itertools.count(1000) if 0 in holders(s))
    setup_of = Room.game_setup

    def seeded(room: Room, by: str) -> tuple[GameSetup, tuple[str, ...]]:
        setup, hashes = setup_of(room, by)
        return dataclasses.replace(setup, seed=seed), hashes

    monkeypatch.setattr(Room, "game_setup", seeded)
    db = tmp_path / "g.sqlite3"
    slow = dataclasses.replace(CONFIG, pair_pause=60.0)  # the kill comes within it

    async def first(lobby: Lobby) -> tuple[str, str, Msg, int]:
        host = Timed()
        setup = {"profile": "pagat", "length": "single"}
        await say(lobby, host, None, {"type": "room_create", "id": "r", "setup": setup})
        token = answer_to(host, "r")["token"]
        for seat, bot in enumerate(BOTS, 1):
            await say(
                lobby, host, None, {"type": "seat_bot", "id": f"b{seat}", "seat": seat, "bot": bot}
            )
        session = await say(lobby, host, None, {"type": "start", "id": "go"})
        watcher = Timed()
        await say(
            lobby, watcher, None, {"type": "room_join", "id": "w", "code": session.table.code}
        )
        k = 0
        while not (session.hold == TRICK and session.game.pair_pending):
            game = session.game
            if session.hold is None and game.to_act == 0 and game.legal_for(0):
                k += 1
                action = game.legal_for(0)[0].to_json()
                await say(lobby, host, session, {"type": "act", "id": f"a{k}", "action": action})
            await asyncio.sleep(0.002)
        assert session.game.to_act == 0 and session.pairing.on
        frames = len(watcher.got)
        declare = {"type": "act", "id": "mine", "action": {"seat": 0, "pair": True}}
        await say(lobby, host, session, declare)
        assert answer_to(host, "mine")["type"] == "ack"
        assert len(watcher.got) == frames, "the spectator heard of South's choice"
        told = host.got[-2]  # South's own state, then the ack
        assert told["type"] == "state" and told["views"]["0"]["to_act"] is None
        assert told["v"] == session.version  # nothing anyone else could count
        return session.ident, token, declare, len(session.game.log)

    ident, token, declare, length = run(db, slow, first)

    async def second(lobby: Lobby) -> None:
        session = lobby.sessions[ident]
        assert session.pairing.choice is not None and not session.clients
        await wait_for(lambda: session.hold is None, 5, "the pause ended by itself")
        assert session.game.log[length] == {"seat": 0, "pair": True}
        assert session.game.match.deal.pair_seat == 0
        assert session.table is not None
        back = Conn()
        join = {"type": "room_join", "id": "j", "code": session.table.code, "token": token}
        await say(lobby, back, None, join)
        assert answer_to(back, "j")["seats"] == [0]
        await say(lobby, back, session, declare)  # the choice sent again, after the restart
        again = answer_to(back, "mine")
        assert again["type"] == "ack" and again.get("duplicate") is True, again

    run(db, CONFIG, second)
