"""Web games with a contest bot seated by URL: whole deals, forfeits, restarts.

The well-behaved external bot is our own ``twentynine bot-serve --level
casual``, started as a subprocess. The broken ones come from
``test_bhoos_live`` (one small app whose path picks the fault: slow, an
illegal card, garbage), plus a port nobody listens on, plus a bot of this
module that counts the requests it gets. Everything goes through the
websocket protocol with Starlette's TestClient; every socket is closed at
the end of its test, or the client would hang at exit.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import secrets
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient, WebSocketTestSession

from helpers import bot_serve, loopback_port
from test_bhoos_live import broken_app, run_server

from twentynine.server.config import ServerConfig
from twentynine.server.forfeit import FIELDS, REASON_CHARS
from twentynine.server.session import GameSession
from twentynine.server.store import SQLiteStore
from twentynine.services.protocols.bhoos.server import BotService
from twentynine.services.protocols.hosts import NOWHERE, AllowList
from twentynine.web.app import create_app

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

Msg = dict[str, Any]
_pool = concurrent.futures.ThreadPoolExecutor(8)
# Limits roomy enough that a bot is never late on a busy machine (the contest's are 1.5 s a
# game and 1 s a decision): the faults tested here are the ones the bots are made to commit.
ROOMY = "#clock=30000&timeout=10000"


# ------------------------------------------------------------------ the bots


@pytest.fixture(scope="module")
def served() -> Iterator[str]:
    """Our casual bot behind the contest protocol, in its own process."""
    with bot_serve("casual") as url:
        yield url


@pytest.fixture(scope="module")
def broken() -> Iterator[str]:
    yield from run_server(broken_app())


def counting_app(seen: Counter[str]) -> Starlette:
    """A casual bot that counts each decision it is asked for (``/count``), or that answers
    a megabyte of garbage (``/huge``). Its plays take a while, so a table can change meanwhile."""
    service = BotService("casual")

    async def hi(request: Request) -> Response:
        return JSONResponse({"value": "hello"})

    async def decide(request: Request) -> Response:
        mode, name = request.path_params["mode"], request.path_params["name"]
        body = json.loads(await request.body())
        if mode == "huge" and name == "play":
            return Response("x" * 1_000_000, media_type="application/json")
        # one decision, one request: the same body (but for the clock) twice is a repeat
        key = json.dumps({k: v for k, v in body.items() if k != "timeRemaining"}, sort_keys=True)
        seen[f"{name} {key}"] += 1
        if name == "play":
            await asyncio.sleep(0.4)
        return JSONResponse(await run_in_threadpool(service.answer, name, body))

    return Starlette(
        routes=[
            Route("/{mode}/hi", hi, methods=["GET"]),
            Route("/{mode}/{name}", decide, methods=["POST"]),
        ]
    )


@pytest.fixture(scope="module")
def counted() -> Iterator[tuple[str, Counter[str]]]:
    seen: Counter[str] = Counter()
    for url in run_server(counting_app(seen)):
        yield url, seen


# ------------------------------------------------------------------ clients


# The bots of these tests run on this machine: the operator names its loopback address.
LOOPBACK = AllowList.parse("127.0.0.1")


def make_client(store: SQLiteStore | None = None, **config: Any) -> TestClient:
    settings: dict[str, Any] = {
        "bot_delay": 0,
        "bot_workers": 0,
        "warm_up": False,
        "trick_pause": 0.05,
        "bot_hosts": LOOPBACK,
        **config,
    }
    return TestClient(create_app(ServerConfig(**settings), store=store))


class Person:
    """One websocket: everything it received, and the last state or update among it."""

    def __init__(self, client: TestClient, opened: list[WebSocketTestSession]) -> None:
        self.ws = client.websocket_connect("/ws").__enter__()
        opened.append(self.ws)
        self.seen: list[Msg] = []
        self.last: Msg = {}
        self.count = 0
        self.name = secrets.token_hex(4)
        assert self.recv()["type"] == "welcome"

    def recv(self, timeout: float = 20) -> Msg:
        text: str = _pool.submit(self.ws.receive_text).result(timeout=timeout)
        msg: Msg = json.loads(text)
        assert "v" in msg, f"a server message without a version: {msg}"
        self.seen.append(msg)
        if msg["type"] in ("state", "update"):
            self.last = msg
        return msg

    def until(self, pred: Callable[[Msg], bool], timeout: float = 20) -> Msg:
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            assert left > 0, "no such message came"
            msg = self.recv(left)
            if pred(msg):
                return msg

    def request(self, kind: str, **body: Any) -> Msg:
        """Send one message and return its answer (the updates before it are kept)."""
        self.count += 1
        ident = f"{self.name}-{kind}-{self.count}"  # ids are unique per client, as in browsers
        self.ws.send_text(json.dumps({"type": kind, "id": ident, **body}))
        return self.until(lambda m: m.get("id") == ident and m["type"] != "update")

    def catch_up(self, version: int) -> None:
        while self.last.get("v", 0) < version:
            self.recv()


def close_all(sockets: list[WebSocketTestSession]) -> None:
    while sockets:
        with contextlib.suppress(Exception):  # closed already
            sockets.pop().__exit__(None, None, None)


@pytest.fixture
def opened() -> Iterator[list[WebSocketTestSession]]:
    sockets: list[WebSocketTestSession] = []
    try:
        yield sockets
    finally:
        close_all(sockets)


@pytest.fixture
def client(opened: list[WebSocketTestSession]) -> Iterator[TestClient]:
    with make_client() as c:
        try:
            yield c
        finally:
            close_all(opened)  # before the app stops


def session_of(client: TestClient, game: str) -> GameSession:
    session: GameSession = client.app.state.lobby.sessions[game]  # type: ignore[attr-defined]
    return session


def spy_on_pool(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Every (character, seat) our bot pool is asked to decide for, from now on."""
    pool = client.app.state.lobby.pool  # type: ignore[attr-defined]
    asked: list[tuple[str, int]] = []
    decide = pool.decide

    async def spy(character: str, seed: int, obs: Any) -> Any:
        asked.append((character, obs.seat))
        return await decide(character, seed, obs)

    monkeypatch.setattr(pool, "decide", spy)
    return asked


def my_turn(msg: Msg, seat: int) -> bool:
    view = msg.get("views", {}).get(str(seat))
    return bool(view and view["to_act"] == seat and view["legal"])


def play(people: dict[int, Person], stop: Callable[[Msg], bool], seconds: float = 90) -> Msg:
    """Each seated person plays its first legal action until ``stop`` holds for the table.

    The first person's updates are the table's clock: every change reaches every
    client, and whose turn it is is public. A person acts on a view no older than
    that, and waits for the answer, so no action is ever sent twice.
    """
    first = next(iter(people))
    watch = people[first]
    end = time.monotonic() + seconds
    while not stop(watch.last):
        assert time.monotonic() < end, "the game did not get there in time"
        msg = watch.last
        assert not msg["over"], f"the game ended early: {msg['forfeit']}"
        if msg["hold"] == "trick":
            watch.request("continue", at=msg["hold_at"])
            continue
        to_act = msg["views"][str(first)]["to_act"]
        person = people.get(to_act)
        if person is not None:
            person.catch_up(msg["v"])
            if my_turn(person.last, to_act):
                action = person.last["views"][str(to_act)]["legal"][0]
                reply = person.request("act", action=action)
                assert reply["type"] == "ack", reply
                continue
        watch.recv()
    return watch.last


def deal_over(msg: Msg) -> bool:
    return msg.get("hold") == "deal"


def forfeited(msg: Msg) -> bool:
    return msg.get("forfeit") is not None


# ------------------------------------------------------------------ whole deals


def test_one_device_plays_whole_deals_against_our_served_bot(
    client: TestClient,
    opened: list[WebSocketTestSession],
    served: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked = spy_on_pool(client, monkeypatch)
    south = Person(client, opened)
    seats = [{"human": True}, {"url": served + ROOMY}, {"bot": "tara"}, {"url": served + ROOMY}]
    state = south.request("create", setup={"profile": "bhoos", "seats": seats})
    assert state["type"] == "state", state
    assert state["forfeit"] is None and state["over"] is False
    shown = state["setup"]["seats"]
    for seat in (1, 3):
        assert shown[seat]["kind"] == "bot" and shown[seat]["level"] == "external"
        assert shown[seat]["name"] == f"bot at {served.split('://')[1]}"
    for deal in range(2):
        end = play({0: south}, deal_over)
        assert end["forfeit"] is None and not end["over"]
        events = [e["type"] for m in south.seen if m["type"] == "update" for e in m["events"]["0"]]
        assert events.count("deal_end") == deal + 1
        if deal == 0:
            south.request("next_deal")
    session = session_of(client, state["game"])
    movers = Counter(e["seat"] for e in session.game.log if "seat" in e)
    assert all(movers[seat] >= 8 for seat in range(4)), movers  # eight cards a deal, at least
    # the contest bots answered for seats 1 and 3; our pool decided for tara only
    assert set(session.external) == {1, 3}
    assert {seat for _c, seat in asked} == {2} and {c for c, _s in asked} == {"tara"}
    assert not [m for m in south.seen if m["type"] == "error"]


def test_a_room_plays_whole_deals_with_a_served_bot_seated_by_its_host(
    client: TestClient,
    opened: list[WebSocketTestSession],
    served: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked = spy_on_pool(client, monkeypatch)
    host = Person(client, opened)
    room = host.request("room_create", setup={"profile": "bhoos", "length": "single"}, name="Asha")
    assert room["type"] == "room", room
    watcher = Person(client, opened)
    assert watcher.request("room_join", code=room["code"])["type"] == "room"
    seated = host.request("seat_bot", seat=1, bot=served + ROOMY)
    assert seated["type"] == "room", seated
    assert seated["seats"][1] == {
        "seat": 1,
        "kind": "url",
        "name": f"bot at {served.split('://')[1]}",
    }
    assert host.request("seat_bot", seat=2, bot="tara")["type"] == "room"
    assert host.request("seat_bot", seat=3, bot=served + ROOMY)["type"] == "room"
    state = host.request("start")
    assert state["type"] == "state", state
    assert [p["state"] for p in state["table"]["presence"]] == ["here", "bot", "bot", "bot"]
    for deal in range(2):
        end = play({0: host}, deal_over)
        assert end["forfeit"] is None and not end["over"]
        if deal == 0:
            host.request("next_deal")
    watcher.catch_up(end["v"])
    assert watcher.last["views"]["public"]["phase"] == "over"
    session = session_of(client, state["game"])
    assert set(session.external) == {1, 3}
    assert {seat for _c, seat in asked} == {2}
    assert not [m for m in host.seen + watcher.seen if m["type"] == "error"]


# ------------------------------------------------------------------ broken bots

FAULTS = [
    # mode, limits, words of the message, endpoint, kind of fault
    ("slow", "#clock=30000&timeout=300", "300 ms per decision", "play", "late"),
    ("illegal", ROOMY, "which is not legal", "play", "illegal"),
    ("garbage", ROOMY, "not JSON", "play", "not_json"),
    ("refused", ROOMY, "connection refused", "hi", "unreachable"),
]


def shown_only(fault: Msg) -> None:
    """A forfeit as a table shows it: who, the kind, a short reason; never the request
    (the bot's hand) nor anything the bot's address answered."""
    assert set(fault) == set(FIELDS), fault
    assert len(fault["message"]) <= REASON_CHARS


@pytest.mark.parametrize(("mode", "limits", "words", "endpoint", "kind"), FAULTS)
def test_a_broken_bot_forfeits_the_room_game_for_its_team(
    client: TestClient,
    opened: list[WebSocketTestSession],
    broken: str,
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
    limits: str,
    words: str,
    endpoint: str,
    kind: str,
) -> None:
    asked = spy_on_pool(client, monkeypatch)
    base = f"http://127.0.0.1:{loopback_port()}" if mode == "refused" else f"{broken}/{mode}"
    host = Person(client, opened)
    room = host.request("room_create", setup={"profile": "bhoos"}, name="Asha")
    guest = Person(client, opened)
    guest.request("room_join", code=room["code"])
    assert guest.request("sit", seat=2, name="Ravi")["you"] == 2
    assert host.request("seat_bot", seat=1, bot=base + limits)["type"] == "room"
    assert host.request("seat_bot", seat=3, bot="pip")["type"] == "room"
    watcher = Person(client, opened)
    watcher.request("room_join", code=room["code"])
    state = host.request("start")
    assert state["type"] == "state", state
    guest.until(lambda m: m["type"] == "state")
    watcher.until(lambda m: m["type"] == "state")

    end = play({0: host, 2: guest}, forfeited)
    session = session_of(client, state["game"])
    fault = end["forfeit"]
    assert fault["seat"] == 1 and fault["team"] == 1
    assert words in fault["message"], fault["message"]
    assert fault["endpoint"] == endpoint and fault["kind"] == kind
    assert fault["bot"] == base.split("://")[1].split("/")[0]  # host and port only
    shown_only(fault)
    assert session.game.to_act == 1  # the decision the bot failed is the one still due
    # every client hears of it: the event in its log, and the block with the details
    for person, key in ((host, "0"), (guest, "2"), (watcher, "public")):
        update = person.until(forfeited) if not forfeited(person.last) else person.last
        assert update["over"] is True and update["forfeit"] == fault
        events = [e for m in person.seen if m["type"] == "update" for e in m["events"][key]]
        said = [e for e in events if e["type"] == "forfeit"]
        assert len(said) == 1, said
        assert said[0] == {"type": "forfeit", "seat": 1, "team": 1, "message": fault["message"]}
    # the game stays over: no act, no next deal; a fresh state says so too
    length = len(session.game.log)
    for person, seat in ((host, 0), (guest, 2)):
        legal = person.last["views"][str(seat)]["legal"]
        action = legal[0] if legal else {"seat": seat, "play": "JS"}
        refused = person.request("act", action=action)
        assert refused["type"] == "error" and "forfeited" in refused["message"], refused
        refused = person.request("next_deal")
        assert refused["type"] == "error" and "forfeited" in refused["message"], refused
    again = watcher.request("sync")
    assert again["type"] == "state" and again["over"] and again["forfeit"] == fault
    # nothing plays in the bot's place: no move for West after the fault, none by our pool
    time.sleep(0.3)
    assert len(session.game.log) == length and session.game.to_act == 1
    assert all(seat != 1 for _c, seat in asked)
    # the server plays on: another game, on the same connection
    seats = [{"human": True}, {"bot": "pip"}, {"bot": "tara"}, {"bot": "pip"}]
    other = host.request("create", setup={"length": "single", "seats": seats})
    assert other["type"] == "state" and other["forfeit"] is None
    assert play({0: host}, deal_over, 30)["forfeit"] is None


def test_a_broken_bot_forfeits_a_game_of_one_device(
    client: TestClient, opened: list[WebSocketTestSession], broken: str
) -> None:
    south = Person(client, opened)
    seats = [{"human": True}, {"bot": "pip"}, {"bot": "tara"}, {"url": f"{broken}/illegal{ROOMY}"}]
    setup = {"profile": "bhoos", "length": "single", "first_dealer": 0, "seats": seats}
    state = south.request("create", setup=setup)
    assert state["type"] == "state", state
    end = play({0: south}, forfeited)
    fault = end["forfeit"]
    assert fault["seat"] == 3 and fault["team"] == 1 and "not legal" in fault["message"]
    assert fault["kind"] == "illegal"
    shown_only(fault)
    assert end["can_undo"] is False
    for kind, body in (("undo", {"seat": 0}), ("next_deal", {})):
        refused = south.request(kind, **body)
        assert refused["type"] == "error" and "forfeited" in refused["message"], refused


def test_an_answer_a_megabyte_long_is_a_fault_and_never_read_to_its_end(
    client: TestClient,
    opened: list[WebSocketTestSession],
    counted: tuple[str, Counter[str]],
) -> None:
    url, _seen = counted
    south = Person(client, opened)
    seats = [{"human": True}, {"url": f"{url}/huge{ROOMY}"}, {"bot": "tara"}, {"bot": "pip"}]
    state = south.request("create", setup={"profile": "bhoos", "seats": seats})
    assert state["type"] == "state", state
    end = play({0: south}, forfeited)
    fault = end["forfeit"]
    assert fault["kind"] == "too_large" and "too long" in fault["message"], fault
    shown_only(fault)
    assert "xxx" not in json.dumps(end) and len(json.dumps(end)) < 50_000


def test_a_change_at_the_table_while_the_bot_thinks_neither_asks_twice_nor_loses_a_fault(
    client: TestClient,
    opened: list[WebSocketTestSession],
    counted: tuple[str, Counter[str]],
    broken: str,
) -> None:
    """A spectator who comes in is a new version of the game, but not a new position."""
    url, seen = counted
    host = Person(client, opened)
    room = host.request("room_create", setup={"profile": "bhoos"}, name="Asha")
    code = room["code"]
    host.request("seat_bot", seat=1, bot=f"{url}/count{ROOMY}")
    host.request("seat_bot", seat=2, bot="tara")
    host.request("seat_bot", seat=3, bot="pip")
    seen.clear()
    assert host.request("start")["type"] == "state"
    visits = Visitors(client, opened, code, 3)
    end = play({0: host}, lambda m: visits(m) or deal_over(m))
    assert end["forfeit"] is None and visits.count == 3
    assert seen and max(seen.values()) == 1, [k for k, n in seen.items() if n > 1]

    # and a fault while someone comes in is still the end of the game
    host = Person(client, opened)
    room = host.request("room_create", setup={"profile": "bhoos"}, name="Asha")
    host.request("seat_bot", seat=1, bot=f"{broken}/slow#clock=30000&timeout=800")
    host.request("seat_bot", seat=2, bot="tara")
    host.request("seat_bot", seat=3, bot="pip")
    assert host.request("start")["type"] == "state"
    visits = Visitors(client, opened, room["code"], 1)
    end = play({0: host}, lambda m: visits(m) or forfeited(m), 30)
    assert visits.count == 1 and end["forfeit"]["seat"] == 1, end["forfeit"]


class Visitors:
    """A ``play`` stop that never stops: a spectator enters the room each time West starts
    on a card (``times`` at most), while the bot takes its time over it."""

    def __init__(
        self, client: TestClient, opened: list[WebSocketTestSession], code: str, times: int
    ) -> None:
        self.client, self.opened, self.code, self.times = client, opened, code, times
        self.count = 0
        self.looked: set[int] = set()
        self.west = False  # West on a card in the last update looked at

    def __call__(self, msg: Msg) -> bool:
        if msg.get("type") != "update" or msg["v"] in self.looked:
            return False
        self.looked.add(msg["v"])
        view = msg["views"]["0"]
        west = view["to_act"] == 1 and view["phase"] == "play" and msg["hold"] is None
        # West starts on a card after a play or after the trick's pause (an update with no
        # event of its own): not on the update a spectator's coming in makes
        starts, self.west = west and not self.west, west
        if starts and self.count < self.times:
            self.count += 1
            Person(self.client, self.opened).request("room_join", code=self.code)
        return False


# ------------------------------------------------------------------ refused setups


@pytest.mark.parametrize(
    ("seat", "words"),
    [
        ({"url": "ftp://127.0.0.1:9"}, "is not a bot URL"),
        ({"url": "http://"}, "is not a bot URL"),
        ({"url": "http://127.0.0.1:9#clock=0"}, "positive number"),
        ({"url": "http://127.0.0.1:9#speed=3"}, "unknown setting 'speed'"),
        ({"url": 29}, "a contest bot is"),
        ({"url": "http://127.0.0.1:9", "name": "Zed"}, "a contest bot is"),
    ],
)
def test_a_malformed_url_seat_is_a_bad_setup(
    client: TestClient, opened: list[WebSocketTestSession], seat: Msg, words: str
) -> None:
    south = Person(client, opened)
    seats = [{"human": True}, seat, {"bot": "tara"}, {"bot": "pip"}]
    refused = south.request("create", setup={"profile": "bhoos", "seats": seats})
    assert refused["type"] == "error" and refused["code"] == "bad_setup", refused
    assert words in refused["message"] and "seat 1" in refused["message"]


def test_url_seats_outside_the_bhoos_profile_or_on_a_closed_server_are_refused(
    client: TestClient, opened: list[WebSocketTestSession]
) -> None:
    url = f"http://127.0.0.1:{loopback_port()}"
    seats = [{"human": True}, {"url": url}, {"bot": "tara"}, {"bot": "pip"}]
    south = Person(client, opened)
    refused = south.request("create", setup={"profile": "pagat", "seats": seats})
    assert refused["code"] == "bad_setup" and "'bhoos' profile only" in refused["message"]
    host = Person(client, opened)
    host.request("room_create", setup={"profile": "pagat"}, name="Asha")
    refused = host.request("seat_bot", seat=1, bot=url)
    assert refused["code"] == "bad_setup" and "'bhoos' profile only" in refused["message"]
    for bad, words in (("http://", "is not a bot URL"), (url + "#timeout=-1", "positive")):
        other = Person(client, opened)
        other.request("room_create", setup={"profile": "bhoos"}, name="Asha")
        refused = other.request("seat_bot", seat=1, bot=bad)
        assert refused["code"] == "bad_setup" and words in refused["message"], refused

    with make_client(bot_hosts=NOWHERE) as closed:
        sockets: list[WebSocketTestSession] = []
        try:
            south = Person(closed, sockets)
            refused = south.request("create", setup={"profile": "bhoos", "seats": seats})
            assert refused["code"] == "bad_setup" and "by URL" in refused["message"], refused
            host = Person(closed, sockets)
            room = host.request("room_create", setup={"profile": "bhoos"}, name="Asha")
            refused = host.request("seat_bot", seat=1, bot=url)
            assert refused["code"] == "forbidden" and "by URL" in refused["message"], refused
            assert room["type"] == "room"
            assert host.request("seat_bot", seat=1, bot="tara")["seats"][1]["kind"] == "bot"
        finally:
            close_all(sockets)


# ------------------------------------------------------------------ restarts


def test_a_forfeited_game_stays_finished_after_a_restart(tmp_path: Path, broken: str) -> None:
    db = tmp_path / "games.sqlite3"
    seats = [{"human": True}, {"url": f"{broken}/garbage{ROOMY}"}, {"bot": "tara"}, {"bot": "pip"}]
    store = SQLiteStore(db)
    sockets: list[WebSocketTestSession] = []
    try:
        with make_client(store) as first:
            try:
                south = Person(first, sockets)
                state = south.request("create", setup={"profile": "bhoos", "seats": seats})
                fault = play({0: south}, forfeited)["forfeit"]
            finally:
                close_all(sockets)
    finally:
        store.close()
    ident, token = state["game"], state["token"]

    store = SQLiteStore(db)
    sockets = []
    try:
        with make_client(store) as second:
            try:
                assert ident not in second.app.state.lobby.sessions  # type: ignore[attr-defined]
                stored = store.load(ident)
                assert stored.finished and stored.settings["forfeit"] == fault
                assert stored.record is not None and stored.record["meta"]["forfeit"] == fault
                south = Person(second, sockets)
                back = south.request("join", game=ident, token=token)
                if back["type"] == "state":  # a finished game may be shown, over, never played on
                    assert back["over"] and back["forfeit"] == fault
                else:
                    assert back["type"] == "error" and back["code"] == "not_found", back
            finally:
                close_all(sockets)
    finally:
        store.close()
