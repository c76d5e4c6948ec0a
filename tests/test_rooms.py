"""Rooms: four devices at one table, spectators, presence, the turn clock, signals.

Driven through Starlette's TestClient with one websocket per person. The
clocks of a room are shortened in the tests by changing a started session's
table settings (the real bounds are seconds to minutes).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import json
import re
import time
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient, WebSocketTestSession

from loops import run_async

from twentynine.server.config import ServerConfig
from twentynine.server.room import CODE_ALPHABET, CODE_LENGTH, Room, normal_code
from twentynine.server.session import GameSession
from twentynine.server.store import SQLiteStore
from twentynine.services.protocols.hosts import AllowList
from twentynine.web.app import create_app

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

_pool = concurrent.futures.ThreadPoolExecutor(8)
CARD = re.compile(r'"([JQKAT987][SHDC])"')
Msg = dict[str, Any]


def make_client(store: SQLiteStore | None = None) -> TestClient:
    config = ServerConfig(
        bot_delay=0,
        bot_workers=0,
        warm_up=False,
        trick_pause=0.05,
        pair_pause=0.1,
        bot_hosts=AllowList.parse("127.0.0.1"),  # contest bots of these tests run here
    )
    return TestClient(create_app(config, store=store))


_open: list[WebSocketTestSession] = []


def close_all() -> None:
    while _open:
        ws = _open.pop()
        with contextlib.suppress(Exception):  # already closed by the test
            ws.__exit__(None, None, None)


@pytest.fixture
def client() -> Iterator[TestClient]:
    with make_client() as c:
        try:
            yield c
        finally:
            close_all()


def recv(ws: WebSocketTestSession, timeout: float = 10) -> Msg:
    text: str = _pool.submit(ws.receive_text).result(timeout=timeout)
    msg: Msg = json.loads(text)
    assert "v" in msg, f"server message without a version: {msg}"
    return msg


def send(ws: WebSocketTestSession, **msg: Any) -> None:
    ws.send_text(json.dumps(msg))


def until(ws: WebSocketTestSession, pred: Callable[[Msg], bool], timeout: float = 10) -> Msg:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        msg = recv(ws, max(0.1, end - time.monotonic()))
        if pred(msg):
            return msg
    raise AssertionError("no such message")


def answer(ws: WebSocketTestSession, ident: str) -> Msg:
    return until(ws, lambda m: m.get("id") == ident and m["type"] != "update")


def connect(client: TestClient) -> WebSocketTestSession:
    ws = client.websocket_connect("/ws").__enter__()
    _open.append(ws)
    assert recv(ws)["type"] == "welcome"
    return ws


def new_room(client: TestClient, **setup: Any) -> tuple[WebSocketTestSession, Msg]:
    host = connect(client)
    body = {"profile": "pagat", "length": "single", **setup}
    send(host, type="room_create", id="r1", setup=body, name="Asha")
    room = answer(host, "r1")
    assert room["type"] == "room", room
    return host, room


def join(client: TestClient, code: str, ident: str = "j1", **extra: Any) -> tuple[Any, Msg]:
    ws = connect(client)
    send(ws, type="room_join", id=ident, code=code, **extra)
    return ws, answer(ws, ident)


def sit(ws: WebSocketTestSession, seat: int, name: str, ident: str = "s1") -> Msg:
    send(ws, type="sit", id=ident, seat=seat, name=name)
    return answer(ws, ident)


def session_of(client: TestClient, game: str) -> GameSession:
    session: GameSession = client.app.state.lobby.sessions[game]  # type: ignore[attr-defined]
    return session


def started_room(
    client: TestClient, **setup: Any
) -> tuple[WebSocketTestSession, WebSocketTestSession, WebSocketTestSession, Msg, Msg, str]:
    """Asha (South, host) and Ravi (North) with two quick bots, and a spectator."""
    host, room = new_room(client, **setup)
    guest, _ = join(client, room["code"])
    seated = sit(guest, 2, "Ravi")
    send(host, type="seat_bot", id="b1", seat=1, bot="tara")
    answer(host, "b1")
    send(host, type="seat_bot", id="b3", seat=3, bot="pip")
    answer(host, "b3")
    watcher, _ = join(client, room["code"], ident="w1")
    send(host, type="start", id="go")
    state = answer(host, "go")
    assert state["type"] == "state", state
    guest_state = until(guest, lambda m: m["type"] == "state")
    until(watcher, lambda m: m["type"] == "state")
    return host, guest, watcher, state, guest_state, seated["token"]


def legal_of(msg: Msg, seat: int) -> list[Msg]:
    legal: list[Msg] = msg["views"][str(seat)]["legal"]
    return legal


# ------------------------------------------------------------------ codes


def test_codes_are_long_random_and_forgiving_to_type() -> None:
    from twentynine.server.room import new_code

    codes = {new_code() for _ in range(2000)}
    assert len(codes) == 2000
    for code in list(codes)[:50]:
        assert len(code) == CODE_LENGTH and set(code) <= set(CODE_ALPHABET)
        spaced = f"{code[:4].lower()}-{code[4:]} "
        assert normal_code(spaced) == code
    assert normal_code("ABCD-EFG") is None  # too short
    assert normal_code("ABCD-EFG0") is None  # 0 is not in the alphabet


# ------------------------------------------------------------------ the lobby


def test_create_join_sit_and_the_lobby_everyone_sees(client: TestClient) -> None:
    host, room = new_room(client, clock=30, grace=45)
    assert room["you"] == 0 and room["host"] is True and room["token"]
    assert room["table"] == {"code": room["code"], "clock": 30, "grace": 45}
    assert [s["kind"] for s in room["seats"]] == ["human", "open", "open", "open"]
    assert room["seats"][0]["name"] == "Asha" and room["seats"][0]["host"] is True
    assert room["setup"]["signals"] is True and room["setup"]["match"] is False

    guest, seen = join(client, room["code"].lower())
    assert seen["you"] is None and seen["host"] is False and "token" not in seen
    seated = sit(guest, 2, "Ravi")
    assert seated["you"] == 2 and seated["token"]
    update = until(host, lambda m: m["type"] == "room" and m["seats"][2]["kind"] == "human")
    assert update["seats"][2]["name"] == "Ravi" and update["seats"][2]["here"] is True
    # a token is never shown to anyone else, hashed or not
    assert seated["token"] not in json.dumps(update) and room["token"] not in json.dumps(update)
    assert "token" not in json.dumps(update["seats"])


def test_room_errors_are_clear_and_change_nothing(client: TestClient) -> None:
    host, room = new_room(client)
    code = room["code"]
    stranger, missing = join(client, "ZZZZ-ZZZZ")
    assert missing["type"] == "error" and missing["code"] == "not_found"
    assert "code" in missing["message"]
    send(stranger, type="room_join", id="j2", code="not a code at all")
    assert answer(stranger, "j2")["code"] == "not_found"

    guest, _ = join(client, code)
    send(guest, type="sit", id="s0", seat=0, name="Ravi")
    taken = answer(guest, "s0")
    assert taken["code"] == "taken" and "South" in taken["message"]
    send(guest, type="sit", id="s9", seat=7)
    assert answer(guest, "s9")["code"] == "bad_message"
    send(guest, type="seat_bot", id="b1", seat=1, bot="dada")
    assert answer(guest, "b1")["code"] == "forbidden"
    send(guest, type="start", id="go")
    assert answer(guest, "go")["code"] == "forbidden"
    send(host, type="start", id="go")
    not_ready = answer(host, "go")
    assert not_ready["code"] == "not_ready" and "West" in not_ready["message"]
    send(host, type="seat_bot", id="b2", seat=1, bot="nobody")
    assert answer(host, "b2")["code"] == "bad_setup"
    send(host, type="seat_bot", id="b3", seat=0, bot="dada")
    assert answer(host, "b3")["code"] == "forbidden"  # the host's own seat
    send(host, type="seat_bot", id="b4", seat=1, bot="http://127.0.0.1:9/")
    assert answer(host, "b4")["code"] == "bad_setup"  # contest bots play 'bhoos' only
    send(guest, type="act", id="a1", action={"seat": 2, "bid": 16})
    assert answer(guest, "a1")["code"] == "no_game"

    lobby = client.app.state.lobby  # type: ignore[attr-defined]
    assert [s.kind for s in lobby.rooms[code].slots] == ["human", "open", "open", "open"]


def test_bad_room_setups_are_refused(client: TestClient) -> None:
    ws = connect(client)
    for i, (setup, words) in enumerate(
        [
            ({"profile": "nope"}, "profile"),
            ({"clock": 2}, "clock"),
            ({"clock": True}, "clock"),
            ({"grace": 9999}, "grace"),
            ({"seats": []}, "seats"),
            ({"seed": 4}, "seed"),
            ({"signals": "yes"}, "signals"),
            ({"options": {"min_bid": 99}}, "min_bid"),
        ]
    ):
        send(ws, type="room_create", id=f"c{i}", setup=setup)
        err = answer(ws, f"c{i}")
        assert err["type"] == "error" and err["code"] == "bad_setup", setup
        assert words in err["message"], (setup, err["message"])
    assert client.app.state.lobby.rooms == {}  # type: ignore[attr-defined]


def test_room_errors_name_their_reason_for_the_players_language(client: TestClient) -> None:
    # the browser words these itself (error.reason.* in every catalog): the
    # seat is a number, the open seats a list of numbers, never English words
    host, room = new_room(client)
    _stranger, missing = join(client, "ZZZZ-ZZZZ")
    assert (missing["reason"], missing["params"]) == ("room_unknown", {})
    guest, _ = join(client, room["code"])
    send(guest, type="sit", id="s0", seat=0, name="Ravi")
    taken = answer(guest, "s0")
    assert (taken["reason"], taken["params"]) == ("seat_taken", {"seat": 0})
    send(guest, type="start", id="go")
    assert answer(guest, "go")["reason"] == "host_only"
    send(host, type="start", id="go")
    assert answer(host, "go")["params"] == {"seats": [1, 2, 3]}
    send(host, type="seat_bot", id="b3", seat=0, bot="dada")
    assert answer(host, "b3")["reason"] == "host_seat"
    send(guest, type="act", id="a1", action={"seat": 2, "bid": 16})
    assert answer(guest, "a1")["reason"] == "not_started"
    send(guest, type="sit", id="s9", seat=7)
    assert "reason" not in answer(guest, "s9")  # a malformed message has only its code


def test_a_full_room_says_so_and_the_visitor_watches(client: TestClient) -> None:
    host, room = new_room(client)
    for seat, bot in ((1, "tara"), (2, "meera"), (3, "pip")):
        send(host, type="seat_bot", id=f"b{seat}", seat=seat, bot=bot)
        answer(host, f"b{seat}")
    late, seen = join(client, room["code"])
    assert all(s["kind"] != "open" for s in seen["seats"])
    send(late, type="sit", id="s1", seat=3)
    full = answer(late, "s1")
    assert full["code"] == "full" and "watch" in full["message"]
    assert full["reason"] == "room_full"


def test_the_host_swaps_seats_and_opens_them_again(client: TestClient) -> None:
    host, room = new_room(client)
    guest, _ = join(client, room["code"])
    sit(guest, 1, "Ravi")
    send(host, type="swap", id="w1", a=0, b=1)
    swapped = answer(host, "w1")
    assert swapped["you"] == 1 and swapped["seats"][0]["name"] == "Ravi"
    seen = until(guest, lambda m: m["type"] == "room" and m["you"] == 0)
    assert seen["seats"][1]["name"] == "Asha"
    send(host, type="seat_bot", id="o1", seat=0, bot="")
    opened = answer(host, "o1")
    assert opened["seats"][0]["kind"] == "open"
    # the guest, unseated, can take another open seat
    again = sit(guest, 3, "Ravi", ident="s2")
    assert again["you"] == 3


# ------------------------------------------------------------------ the game


def test_start_gives_each_seat_its_own_view_and_spectators_the_public_one(
    client: TestClient,
) -> None:
    _host, guest, watcher, state, guest_state, _ = started_room(client)
    assert state["seats"] == [0] and guest_state["seats"] == [2]
    watched = until(watcher, lambda m: m["type"] in ("state", "update"), timeout=5)
    send(watcher, type="sync", id="y1")
    public = answer(watcher, "y1")
    assert public["seats"] == [] and set(public["views"]) == {"public"}
    assert public["views"]["public"]["hand"] == []
    assert public["table"]["spectators"] == 1
    assert [p["state"] for p in public["table"]["presence"]] == ["here", "bot", "here", "bot"]
    del watched
    # a spectator cannot act, for any seat
    send(watcher, type="act", id="a1", action={"seat": 0, "pass": True})
    assert answer(watcher, "a1")["code"] == "forbidden"
    # a player cannot act for another seat
    send(guest, type="act", id="a2", action={"seat": 0, "pass": True})
    assert answer(guest, "a2")["code"] == "not_your_seat"


def play_out_deal(client: TestClient, sockets: dict[int, WebSocketTestSession], game: str) -> Msg:
    """Both people play legal actions until the deal is over; the last host message."""
    session = session_of(client, game)
    counter = 0
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if session.game.deal_over:
            break
        seat = session.game.to_act
        if seat in sockets:
            legal = session.game.legal_for(seat)
            if legal:
                counter += 1
                send(sockets[seat], type="act", id=f"p{counter}", action=legal[0].to_json())
                reply = answer(sockets[seat], f"p{counter}")
                assert reply["type"] in ("ack", "error"), reply
        time.sleep(0.01)
    assert session.game.deal_over
    return {}


def test_a_whole_deal_with_two_people_two_bots_and_a_spectator(client: TestClient) -> None:
    host, guest, watcher, state, _, _ = started_room(client)
    play_out_deal(client, {0: host, 2: guest}, state["game"])
    seen = until(watcher, lambda m: m.get("views", {}).get("public", {}).get("phase") == "over")
    public = seen["views"]["public"]
    assert public["hands"] is not None and len(public["hands"]) == 4  # the full deal, at the end
    assert all(len(h) == 8 for h in public["hands"])


def test_spectators_never_see_a_hidden_card(client: TestClient) -> None:
    host, guest, watcher, state, _, _ = started_room(client)
    game = state["game"]
    session = session_of(client, game)
    msgs: list[Msg] = []

    def drain() -> None:
        while True:
            try:
                msgs.append(recv(watcher, timeout=0.05))
            except concurrent.futures.TimeoutError:
                return

    counter = 0
    while not session.game.deal_over:
        seat = session.game.to_act
        if seat in (0, 2) and session.game.legal_for(seat):
            counter += 1
            ws = host if seat == 0 else guest
            send(ws, type="act", id=f"q{counter}", action=session.game.legal_for(seat)[0].to_json())
            answer(ws, f"q{counter}")
        drain()
        time.sleep(0.01)
    deal = session.game.match.deals[0]
    played: set[str] = set()
    for msg in msgs:
        view = msg.get("views", {}).get("public")
        if view is None or view["phase"] == "over":
            continue
        assert view["hand"] == []
        shown = set(CARD.findall(json.dumps(msg)))
        for t in view["tricks"]:
            played.update(t["cards"])
        played.update(x["card"] for x in view["trick"])
        assert shown <= played | set(
            c for e in msg["events"]["public"] for c in CARD.findall(json.dumps(e))
        )
        if not view["trump_revealed"]:
            assert view["trump"] is None
    assert deal.phase == "over"


def test_a_player_who_leaves_is_away_then_reclaims_the_seat(client: TestClient) -> None:
    host, guest, _watcher, state, _, token = started_room(client)
    game = state["game"]
    guest.close()
    away = until(
        host, lambda m: (m.get("table") or {}).get("presence", [{}] * 4)[2].get("state") == "away"
    )
    assert 0 < away["table"]["presence"][2]["grace_left"] <= 60
    _back, seen = join(client, state["table"]["code"], ident="k1", token=token)
    assert seen["type"] == "state" and seen["seats"] == [2] and seen["game"] == game
    assert seen["views"]["2"]["hand"]  # its own cards again
    until(
        host, lambda m: (m.get("table") or {}).get("presence", [{}] * 4)[2].get("state") == "here"
    )
    # a wrong token does not reclaim anything: it only watches
    _, other = join(client, state["table"]["code"], ident="k2", token="forged-token")
    assert other["type"] == "state" and other["seats"] == []


def test_after_the_grace_a_bot_plays_for_the_away_player_until_they_return(
    client: TestClient,
) -> None:
    host, guest, _watcher, state, _, token = started_room(client)
    session = session_of(client, state["game"])
    assert session.table is not None
    session.table = dataclasses.replace(session.table, grace=0.3)
    guest.close()
    seen = until(
        host,
        lambda m: (m.get("table") or {}).get("presence", [{}] * 4)[2].get("state") == "bot",
        timeout=5,
    )
    assert seen
    # the host plays; the stand-in plays North's turns
    start = len(session.game.log)
    deadline = time.monotonic() + 30
    counter = 0
    while time.monotonic() < deadline and not any(
        e.get("seat") == 2 for e in session.game.log[start:]
    ):
        if session.game.to_act == 0 and session.game.legal_for(0):
            counter += 1
            send(host, type="act", id=f"h{counter}", action=session.game.legal_for(0)[0].to_json())
            answer(host, f"h{counter}")
        time.sleep(0.02)
    assert any(e.get("seat") == 2 for e in session.game.log[start:]), "no stand-in move"
    _back, seen = join(client, state["table"]["code"], ident="k1", token=token)
    assert seen["seats"] == [2]
    assert seen["table"]["presence"][2]["state"] == "here"
    assert 2 not in session.standin


def test_the_turn_clock_lets_a_bot_make_one_move_then_gives_the_seat_back(
    client: TestClient,
) -> None:
    host, _guest, _watcher, state, _, _ = started_room(client, clock=30)
    session = session_of(client, state["game"])
    assert session.table is not None
    session.table = dataclasses.replace(session.table, clock=1)
    session.turn = None  # the clock starts again at the next change: a spectator arrives
    join(client, state["table"]["code"], ident="w2")
    # nobody plays: whoever's turn it is (a person) runs out of time, a bot moves
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and len(session.game.log) < 3:
        time.sleep(0.05)
    assert len(session.game.log) >= 3, "the clock never ran out"
    seen = until(host, lambda m: ((m.get("table") or {}).get("clock") or {}).get("total") == 1)
    clock = seen["table"]["clock"]
    assert 0 <= clock["left"] <= 1 and clock["seat"] in (0, 2)
    assert session.timed_out in (None, session.game.to_act)


def test_signals_go_with_cards_and_are_refused_otherwise(client: TestClient) -> None:
    host, guest, watcher, state, _, _ = started_room(client)
    session = session_of(client, state["game"])
    counter = 0
    deadline = time.monotonic() + 30
    signalled = False
    while time.monotonic() < deadline and not signalled:
        seat = session.game.to_act
        if seat in (0, 2) and session.game.legal_for(seat):
            ws = host if seat == 0 else guest
            action = session.game.legal_for(seat)[0]
            counter += 1
            if action.kind == "play":
                send(ws, type="act", id=f"x{counter}", action=action.to_json(), signal="shout")
                assert answer(ws, f"x{counter}")["code"] == "unavailable"
                counter += 1
                send(ws, type="act", id=f"x{counter}", action=action.to_json(), signal="slam")
                assert answer(ws, f"x{counter}")["type"] == "ack"
                signalled = True
            else:
                send(ws, type="act", id=f"x{counter}", action=action.to_json(), signal="drop")
                refused = answer(ws, f"x{counter}")
                assert refused["code"] == "unavailable" and "card" in refused["message"]
                counter += 1
                send(ws, type="act", id=f"x{counter}", action=action.to_json())
                answer(ws, f"x{counter}")
        time.sleep(0.01)
    assert signalled
    seen = until(
        watcher,
        lambda m: any(e.get("signal") == "slam" for e in m.get("events", {}).get("public", [])),
    )
    assert seen
    assert session.game.observation(1).signals[0][2] == "slam"
    assert session.game.log[-1].get("signal") == "slam" or any(
        e.get("signal") == "slam" for e in session.game.log
    )


def test_a_table_without_signals_refuses_them(client: TestClient) -> None:
    host, guest, _watcher, state, _, _ = started_room(client, signals=False)
    assert state["setup"]["signals"] is False
    session = session_of(client, state["game"])
    deadline = time.monotonic() + 30
    counter = 0
    while time.monotonic() < deadline:
        seat = session.game.to_act
        if seat in (0, 2) and session.game.legal_for(seat):
            ws = host if seat == 0 else guest
            action = session.game.legal_for(seat)[0]
            counter += 1
            extra = {"signal": "drop"} if action.kind == "play" else {}
            send(ws, type="act", id=f"z{counter}", action=action.to_json(), **extra)
            reply = answer(ws, f"z{counter}")
            if extra:
                assert reply["code"] == "unavailable" and "off" in reply["message"]
                return
        time.sleep(0.01)
    raise AssertionError("no card to play came")


# ------------------------------------------------------------------ restarts


def test_rooms_and_their_games_survive_a_restart(tmp_path: Any) -> None:
    path = tmp_path / "games.sqlite3"
    store = SQLiteStore(path)
    with make_client(store) as c:
        host, room = new_room(c)
        waiting = room["code"]
        send(host, type="seat_bot", id="b1", seat=1, bot="tara")
        answer(host, "b1")
        _, _, _, state, _, token = started_room(c)
        game, code = state["game"], state["table"]["code"]
        close_all()
    store.close()
    store = SQLiteStore(path)
    with make_client(store) as c:
        lobby = c.app.state.lobby  # type: ignore[attr-defined]
        assert waiting in lobby.rooms and lobby.rooms[waiting].game is None
        assert [s.kind for s in lobby.rooms[waiting].slots] == ["human", "bot", "open", "open"]
        _back, seen = join(c, code, ident="k1", token=token)
        assert seen["type"] == "state" and seen["game"] == game and seen["seats"] == [2]
        assert seen["table"]["presence"][0]["state"] == "away"
        _, lobby_view = join(c, waiting, ident="k2")
        assert lobby_view["type"] == "room" and lobby_view["seats"][1]["kind"] == "bot"
        close_all()
    store.close()


def test_room_state_round_trips_through_json() -> None:
    from twentynine.server.room import make_room

    room = make_room({"profile": "modern", "clock": 20}, "tok", "Asha")
    again = Room.from_json(room.code, json.loads(json.dumps(room.to_json())), None)
    assert again.to_json() == room.to_json()


def test_two_players_may_use_the_same_message_id(client: TestClient) -> None:
    """Replies are remembered per seat: another seat's id never answers for this one."""
    host, guest, _watcher, state, _, _ = started_room(client)
    session = session_of(client, state["game"])
    deadline = time.monotonic() + 30
    applied = {0: False, 2: False}
    counter = 0
    while time.monotonic() < deadline and not all(applied.values()):
        seat = session.game.to_act
        if seat in applied and session.game.legal_for(seat):
            ws = host if seat == 0 else guest
            before = len(session.game.log)
            counter += 1
            ident = "same-id" if not applied[seat] else f"own-{counter}"
            send(ws, type="act", id=ident, action=session.game.legal_for(seat)[0].to_json())
            reply = answer(ws, ident)
            assert reply["type"] == "ack" and not reply.get("duplicate"), reply
            assert len(session.game.log) > before
            applied[seat] = True
        time.sleep(0.01)
    assert all(applied.values())


def test_contest_bot_seats_need_rules_the_protocol_can_play(client: TestClient) -> None:
    from twentynine.server.setup import SetupError, parse_setup

    seats = [
        {"human": True},
        {"url": "http://127.0.0.1:9/"},
        {"bot": "tara"},
        {"bot": "pip"},
    ]
    with pytest.raises(SetupError, match="doubling"):
        parse_setup({"profile": "bhoos", "options": {"doubling": True}, "seats": seats})
    setup = parse_setup({"profile": "bhoos", "length": "single", "seats": seats})
    assert setup.seats[1].name == "bot at 127.0.0.1:9"
    with pytest.raises(SetupError, match="user name or a password"):  # never credentials
        parse_setup(
            {"profile": "bhoos", "seats": [seats[0], {"url": "http://bot:pw@h:9/"}, *seats[2:]]}
        )
    assert setup.undo is True and setup.undo_allowed is False  # a contest bot is never re-asked
    host, _room = new_room(client, profile="bhoos", options={"doubling": True})
    send(host, type="seat_bot", id="u1", seat=1, bot="http://127.0.0.1:9/")
    refused = answer(host, "u1")
    assert refused["code"] == "bad_setup" and "doubling" in refused["message"]


def test_a_full_server_refuses_new_games_but_never_drops_one_being_played() -> None:
    config = ServerConfig(bot_delay=0, bot_workers=0, warm_up=False, max_games=2)
    store = SQLiteStore()
    with TestClient(create_app(config, store=store)) as c:
        try:
            players = []
            for i in range(2):
                ws = connect(c)
                send(ws, type="create", id=f"c{i}", setup={"length": "single"})
                players.append((ws, answer(ws, f"c{i}")))
            third = connect(c)
            send(third, type="create", id="c9", setup={"length": "single"})
            refused = answer(third, "c9")
            assert refused["code"] == "unavailable" and "full" in refused["message"]
            lobby = c.app.state.lobby  # type: ignore[attr-defined]
            assert {s["game"] for _, s in players} == set(lobby.sessions)
            # the first players leave: their game may make room, and comes back when joined
            ws0, state0 = players[0]
            ws0.close()
            deadline = time.monotonic() + 5
            while lobby.sessions[state0["game"]].clients and time.monotonic() < deadline:
                time.sleep(0.02)
            send(third, type="create", id="c10", setup={"length": "single"})
            assert answer(third, "c10")["type"] == "state"
            back = connect(c)
            send(back, type="join", id="j1", game=state0["game"], token=state0["token"])
            rejoined = answer(back, "j1")
            assert rejoined["type"] == "state" and rejoined["game"] == state0["game"]
        finally:
            close_all()
    store.close()


def test_a_client_gone_before_its_answer_does_not_upset_the_lobby() -> None:

    from twentynine.server import protocol as P
    from twentynine.server.lobby import Lobby

    class Gone:
        def send(self, data: dict[str, Any]) -> None:
            raise ConnectionResetError("the client hung up")

    lobby = Lobby(ServerConfig(bot_workers=0, warm_up=False))
    try:
        for text in ('{"type": "ping"}', '{"type": "room_join", "id": "r1", "code": "ZZZZZZZZ"}'):
            # an unknown code is an answer of its own, sent by the socket's handler
            with contextlib.suppress(P.ProtocolError):
                run_async(lobby.dispatch(Gone(), None, P.parse_message(text)))
    finally:
        lobby.close()
