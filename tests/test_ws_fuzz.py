"""Fuzzing the game websocket: malformed, oversized, out-of-turn and forged messages.

Thousands of Hypothesis-made frames go to ``/ws`` through Starlette's TestClient
while a game waits for South (the bots wait too, so nothing moves on its own).
Whatever is sent, the sender gets one clear error (a known code and words),
the connection stays usable, the game (its version, log and every client's
snapshot) does not change, and another client of the game hears nothing.
A message resent under the same id is answered again but never applied twice.
Bad text (lone surrogates, control and invisible characters) and deep
nesting are among the frames; and a seeded run of the benchmark's fuzzer
(``benchmarks/fuzz.py``: every kind of frame, to a game's player, a room's
visitor and a stranger) leaves the game and a full room as they were.
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import itertools
import json
import logging
import random
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient, WebSocketTestSession

from twentynine.benchmarks import fuzz
from twentynine.game.actions import KINDS, Action, ActionError
from twentynine.server import protocol as P
from twentynine.server.config import ServerConfig
from twentynine.server.limits import Limits
from twentynine.server.session import GameSession
from twentynine.web.app import create_app

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

QUICK_BOTS = [{"bot": "tara"}, {"bot": "bablu"}, {"bot": "pip"}]
# South speaks first and the bots wait for South: a game that stands still.
AUCTION = {"profile": "pagat", "seed": 7, "first_dealer": 3, "length": "single"}
# The same, later: South to lead or follow in the play of the cards.
PLAY = {"profile": "arcade", "seed": 5, "length": "single"}
CODES = {
    P.BAD_JSON,
    P.TOO_LARGE,
    P.BAD_MESSAGE,
    P.UNKNOWN_TYPE,
    P.NO_GAME,
    P.NOT_FOUND,
    P.FORBIDDEN,
    P.BAD_SETUP,
    P.BAD_ACTION,
    P.NOT_YOUR_SEAT,
    P.ILLEGAL,
    P.UNAVAILABLE,
}
CARDS = [r + s for r in "J9ATKQ87" for s in "SHDC"]
FUZZ = settings(
    max_examples=500,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
# Bots on a thread of this process, without a pause: fast, and no worker processes. The
# fuzzer sends far faster than any person: the limits of a connection are off here (they
# have tests of their own, tests/test_limits.py).
QUIET = ServerConfig(bot_delay=0, bot_workers=0, warm_up=False, limits=Limits.none())
_pool = concurrent.futures.ThreadPoolExecutor(4)
_ids = itertools.count()


def fresh_id(prefix: str) -> str:
    """A message id never used before in this run (Hypothesis replays examples)."""
    return f"{prefix}-{next(_ids)}"


# ---------------------------------------------------------------------- the wire


def recv(ws: WebSocketTestSession, timeout: float = 10) -> dict[str, Any]:
    """The next server message, failing (not hanging) if none comes."""
    text: str = _pool.submit(ws.receive_text).result(timeout=timeout)
    text.encode("utf-8")  # a real websocket can carry it (no lone surrogates)
    msg: dict[str, Any] = json.loads(text)
    assert "v" in msg, f"server message without a version: {msg}"
    return msg


def send(ws: WebSocketTestSession, **msg: Any) -> None:
    ws.send_text(json.dumps(msg))


def settle(ws: WebSocketTestSession) -> list[dict[str, Any]]:
    """Everything the server still had on its way to ``ws``, up to the answer to a ping."""
    send(ws, type="ping")
    seen = []
    for _ in range(500):
        msg = recv(ws)
        if msg["type"] == "pong":
            return seen
        seen.append(msg)
    raise AssertionError("no pong")


def assert_quiet(ws: WebSocketTestSession, v: int) -> None:
    """``ws`` received nothing since it last settled (no broadcast of anything)."""
    send(ws, type="ping")
    msg = recv(ws)
    assert msg == {"type": "pong", "v": v}, f"a bystander received {msg}"


def assert_clear_error(reply: dict[str, Any], codes: set[str] = CODES) -> None:
    assert reply["type"] == "error", reply
    assert isinstance(reply["code"], str) and reply["code"] in codes, reply
    assert isinstance(reply["message"], str) and reply["message"].strip(), reply


def my_turn(msg: dict[str, Any]) -> bool:
    view = msg.get("views", {}).get("0")
    return bool(view and view["to_act"] == 0 and view["legal"])


def snapshot(ws: WebSocketTestSession) -> dict[str, Any]:
    """The client's ``sync`` state, without the id of the request."""
    ident = fresh_id("sync")
    send(ws, type="sync", id=ident)
    state = recv(ws)
    assert state["type"] == "state" and state["id"] == ident, state
    return {k: v for k, v in state.items() if k != "id"}


def create_game(ws: WebSocketTestSession, setup: dict[str, Any]) -> dict[str, Any]:
    ident = fresh_id("create")
    send(ws, type="create", id=ident, setup={"seats": [{"human": True}, *QUICK_BOTS], **setup})
    for _ in range(500):
        msg = recv(ws)
        if msg["type"] == "state" and msg["id"] == ident:
            return msg
        assert msg["type"] != "error", msg
    raise AssertionError("no state after create")


def reach_play(ws: WebSocketTestSession, state: dict[str, Any]) -> None:
    """Play South's first legal actions until South must play a card (no trick on show)."""
    msg = state
    for n in range(500):
        view = msg.get("views", {}).get("0")
        if my_turn(msg) and view["phase"] == "play" and msg["hold"] is None:
            return
        if msg.get("hold") == "trick" and not (my_turn(msg) and view["phase"] == "pair"):
            send(ws, type="continue", id=f"go-{n}", at=msg["hold_at"])
        elif my_turn(msg):
            send(ws, type="act", id=f"act-{n}", action=view["legal"][0])
        while True:
            msg = recv(ws)
            if msg["type"] == "update" and (my_turn(msg) or msg["hold"] is not None):
                break
    raise AssertionError("South never got to play a card")


@dataclass
class Table:
    """A game standing still, its player, a second client of the game, and the server."""

    client: TestClient
    player: WebSocketTestSession
    observer: WebSocketTestSession
    session: GameSession
    state: dict[str, Any]

    @property
    def legal(self) -> list[Action]:
        return [Action.from_json(a) for a in self.state["views"]["0"]["legal"]]

    def server_side(self) -> tuple[int, int, list[dict[str, Any]], bool, str | None]:
        s = self.session
        return s.version, len(s.clients), list(s.game.log), s.auto_pair, s.hold

    def check_unchanged(self) -> None:
        """Nothing moved: same snapshot for the player, nothing for the observer."""
        assert snapshot(self.player) == self.state, "the game changed"
        assert_quiet(self.observer, self.state["v"])


@contextlib.contextmanager
def table(setup: dict[str, Any], play: bool = False) -> Iterator[Table]:
    app = create_app(QUIET)
    with (
        TestClient(app) as client,
        client.websocket_connect("/ws") as player,
        client.websocket_connect("/ws") as observer,
    ):
        assert recv(player)["type"] == "welcome" and recv(observer)["type"] == "welcome"
        first = create_game(player, setup)
        if play:
            reach_play(player, first)
        settle(player)
        send(observer, type="join", id="watch", game=first["game"], token=first["token"])
        assert recv(observer)["type"] == "state"
        settle(observer)
        session = app.state.lobby.sessions[first["game"]]
        state = snapshot(player)
        assert my_turn(state) and state["hold"] is None
        yield Table(client, player, observer, session, state)


# ---------------------------------------------------------------------- strategies

PROTO_KEYS = st.sampled_from(
    ["type", "id", "action", "game", "token", "at", "seat", "auto_pair", "setup", "name", "code"]
)
# text no name may hold: lone surrogates, controls, format and private-use characters
BAD_CHARS = st.text(st.characters(categories=["Cs", "Cc", "Cf", "Co", "Zl"]), min_size=1)
BAD_TEXT = st.tuples(st.text(max_size=4), BAD_CHARS, st.text(max_size=4)).map("".join)
SURROGATES = st.text(st.characters(categories=["Cs"]), min_size=1, max_size=3)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20) | BAD_TEXT,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(PROTO_KEYS | st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
GOOD_IDS = st.from_regex(P.ID_PATTERN, fullmatch=True)
# Objects that look like protocol messages, with something wrong in them.
NEAR_MESSAGES = st.fixed_dictionaries(
    {"type": st.sampled_from(P.TYPES) | JSON},
    optional={
        "id": GOOD_IDS | JSON,
        "action": st.dictionaries(st.sampled_from(["seat", *KINDS]), JSON, max_size=3) | JSON,
        "game": JSON,
        "token": JSON,
        "at": JSON,
        "seat": JSON,
        "auto_pair": JSON,
        "setup": JSON,
        "extra": JSON,
    },
)


@st.composite
def oversized(draw: st.DrawFn) -> str:
    """A ping padded beyond the size limit (any character: bytes count, not characters)."""
    n = draw(st.integers(P.MAX_MESSAGE_BYTES + 1, 4 * P.MAX_MESSAGE_BYTES))
    char = draw(st.characters(exclude_categories=["Cs"]))
    return json.dumps({"type": "ping", "pad": char * n}, ensure_ascii=draw(st.booleans()))


@st.composite
def near_the_limit(draw: st.DrawFn) -> str:
    """A message of a few bytes more or less than the limit (unknown key: never valid)."""
    size = draw(st.integers(P.MAX_MESSAGE_BYTES - 8, P.MAX_MESSAGE_BYTES + 8))
    empty = '{"type":"ping","pad":""}'
    text = empty[:-2] + "a" * (size - len(empty)) + '"}'
    assert len(text.encode()) == size
    return text


@st.composite
def deeply_nested(draw: st.DrawFn) -> str:
    """JSON nested past ``MAX_DEPTH`` (up to the parser's own recursion limit and beyond),
    alone or inside a message; always within the size limit."""
    wrapped = draw(st.booleans())
    room = P.MAX_MESSAGE_BYTES - (40 if wrapped else 0)
    if draw(st.booleans()):
        levels = draw(st.integers(P.MAX_DEPTH + 1, room // 2))
        inner = "[" * levels + "]" * levels
    else:
        levels = draw(st.integers(P.MAX_DEPTH + 1, (room - 1) // 6))
        inner = '{"a":' * levels + "0" + "}" * levels
    return '{"type":"act","id":"d1","action":' + inner + "}" if wrapped else inner


@st.composite
def bad_text_messages(draw: st.DrawFn) -> str:
    """A message of a known type with text no client may send in one of its fields."""
    bad = draw(st.tuples(st.text(max_size=4), SURROGATES).map("".join))
    body = draw(
        st.sampled_from(
            [
                {"type": "sit", "seat": 1, "name": bad},
                {"type": "room_join", "code": bad},
                {"type": "room_join", "code": "ZZZZZZZZ", "token": bad},
                {"type": "join", "game": bad, "token": "x"},
                {"type": "room_create", "setup": {}, "name": bad},
                {"type": "act", "action": {"seat": 0, "play": bad}},
                {"type": "create", "setup": {"profile": bad}},
            ]
        )
    )
    return json.dumps({**body, "id": draw(GOOD_IDS)})


TEXT_FRAMES = st.one_of(
    st.text(),
    JSON.map(json.dumps),
    NEAR_MESSAGES.map(json.dumps),
    st.lists(NEAR_MESSAGES, min_size=1, max_size=3).map(json.dumps),
    oversized(),
    near_the_limit(),
    deeply_nested(),
    bad_text_messages(),
)
FRAMES = st.one_of(
    TEXT_FRAMES.map(lambda t: ("text", t)), st.binary(max_size=64).map(lambda b: ("bytes", b))
)

SEATS = st.integers(0, 3) | st.integers(-3, 9) | st.booleans() | st.none() | st.text(max_size=3)
VALUES = st.one_of(
    st.sampled_from(CARDS),
    st.sampled_from(["S", "H", "D", "C", "♠", "js", " 10h ", "1S", "JX", ""]),
    st.integers(-5, 40),
    st.integers(),
    st.booleans(),
    st.none(),
    st.floats(),
    st.text(max_size=6),
    st.lists(st.sampled_from(CARDS), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


@st.composite
def action_objects(draw: st.DrawFn) -> dict[str, Any]:
    """Action objects: mostly well formed (a seat and one kind), often not."""
    if draw(st.booleans()):
        kind = draw(st.sampled_from(KINDS))
        value = True if kind not in ("bid", "trump", "play") else draw(VALUES)
        return {"seat": draw(st.integers(0, 3)), kind: value}
    obj = draw(st.dictionaries(st.sampled_from(KINDS) | st.text(max_size=6), VALUES, max_size=3))
    if draw(st.booleans()):
        obj["seat"] = draw(SEATS)
    return obj


def is_legal(obj: dict[str, Any], legal: list[Action]) -> bool:
    try:
        return Action.from_json(obj) in legal
    except ActionError:
        return False


# ---------------------------------------------------------------------- 1. malformed input


def test_malformed_frames_get_an_error_and_change_nothing() -> None:
    with table(AUCTION) as t:
        before = t.server_side()

        @settings(FUZZ, max_examples=800)
        @given(frame=FRAMES)
        def check(frame: tuple[str, Any]) -> None:
            kind, data = frame
            try:
                P.parse_message(data)
            except P.ProtocolError as e:
                expected = e
            else:
                assume(False)  # a well-formed message: not this test's business
            if kind == "bytes":
                t.player.send_bytes(data)
            else:
                t.player.send_text(data)
            send(t.player, type="ping")  # the connection lives on, in order
            reply, pong = recv(t.player), recv(t.player)
            assert_clear_error(reply)
            assert reply["code"] == expected.code, (data, reply)
            assert reply["id"] == expected.ident, (data, reply)
            assert reply["v"] == t.state["v"]
            assert pong == {"type": "pong", "v": t.state["v"]}
            t.check_unchanged()

        check()
        assert t.server_side() == before


# ---------------------------------------------------------------------- 2. out of turn


@pytest.mark.parametrize("where", ["auction", "play"])
def test_wrong_actions_get_an_error_and_change_nothing(where: str) -> None:
    with table(AUCTION if where == "auction" else PLAY, play=where == "play") as t:
        before = t.server_side()
        legal = t.legal
        assert t.state["views"]["0"]["phase"] == where

        @FUZZ
        @given(action=action_objects())
        def check(action: dict[str, Any]) -> None:
            assume(not is_legal(action, legal))
            ident = fresh_id("act")
            send(t.player, type="act", id=ident, action=action)
            reply = recv(t.player)
            assert_clear_error(reply, {P.BAD_ACTION, P.NOT_YOUR_SEAT, P.ILLEGAL})
            assert reply["id"] == ident and reply["v"] == t.state["v"]
            seat = action.get("seat")
            if reply["code"] == P.NOT_YOUR_SEAT:
                assert seat in (1, 2, 3) and not isinstance(seat, bool)
            t.check_unchanged()

        check()
        assert t.server_side() == before


@pytest.mark.parametrize("where", ["auction", "play"])
def test_out_of_turn_requests_change_nothing(where: str) -> None:
    with table(AUCTION if where == "auction" else PLAY, play=where == "play") as t:
        before = t.server_side()

        @settings(FUZZ, max_examples=100)
        @given(
            kind=st.sampled_from(["next_deal", "undo", "continue"]),
            number=st.none() | st.integers(),
        )
        def check(kind: str, number: int | None) -> None:
            ident = fresh_id(kind)
            body: dict[str, Any] = {}
            if number is not None and kind != "next_deal":
                body = {"seat": number} if kind == "undo" else {"at": number}
            send(t.player, type=kind, id=ident, **body)
            reply = recv(t.player)
            assert reply["id"] == ident and reply["v"] == t.state["v"]
            if kind == "continue":  # nothing on show: nothing to let go of
                assert reply["type"] == "ack", reply
            else:
                assert_clear_error(reply, {P.UNAVAILABLE, P.NOT_YOUR_SEAT})
            t.check_unchanged()

        check()
        assert t.server_side() == before


# ---------------------------------------------------------------------- 3. forged tokens


def test_forged_joins_are_refused_and_no_one_else_hears_of_them() -> None:
    with table(AUCTION) as t:
        game, token = t.state["game"], t.session.token
        before = t.server_side()
        # an intruder with a game of its own (that it must keep), and one without a game
        with (
            t.client.websocket_connect("/ws") as intruder,
            t.client.websocket_connect("/ws") as stranger,
        ):
            recv(intruder)
            recv(stranger)
            own = create_game(intruder, AUCTION)
            settle(intruder)
            own_state = snapshot(intruder)
            sessions = t.client.app.state.lobby.sessions  # type: ignore[attr-defined]

            ids = st.one_of(
                st.just(game),
                st.just(own["game"]),
                st.text(max_size=40),
                st.sampled_from([game.upper(), game.lower(), game + " ", game[:-1], ""]),
            )
            tokens = st.one_of(
                st.text(max_size=60),
                st.just(own["token"]),
                st.sampled_from([token[:-1], token + "x", token.upper(), " " + token, ""]),
                st.just(token),
            )

            @FUZZ
            @given(game_id=ids, forged=tokens, from_intruder=st.booleans())
            def check(game_id: str, forged: str, from_intruder: bool) -> None:
                real = (game_id, forged) in ((game, token), (own["game"], own["token"]))
                assume(not real)
                ws = intruder if from_intruder else stranger
                ident = fresh_id("join")
                send(ws, type="join", id=ident, game=game_id, token=forged)
                reply = recv(ws)
                code = P.FORBIDDEN if game_id in sessions else P.NOT_FOUND
                assert_clear_error(reply, {code})
                assert reply["id"] == ident
                assert reply["v"] == (own_state["v"] if from_intruder else 0)
                assert token not in json.dumps(reply)
                # the owners of the game hear nothing, and the intruder keeps its own game
                assert_quiet(t.player, t.state["v"])
                t.check_unchanged()
                if from_intruder:
                    assert snapshot(intruder) == own_state
                else:
                    send(stranger, type="sync", id=fresh_id("sync"))
                    assert recv(stranger)["code"] == P.NO_GAME

            check()
        assert t.server_side() == before  # still the player and the observer, no one else


# ---------------------------------------------------------------------- 4. resends


RESENDS = st.one_of(
    st.builds(lambda a: {"type": "act", "action": a}, action_objects()),
    st.just({"type": "act", "action": None}),  # the same action again (filled in below)
    st.just({"type": "next_deal"}),
    st.builds(lambda s: {"type": "undo", "seat": s}, st.integers(0, 3)),
    st.builds(lambda b: {"type": "configure", "auto_pair": b}, st.booleans()),
    st.builds(lambda a: {"type": "continue", "at": a}, st.integers(0, 50)),
)


def test_a_resent_id_is_never_applied_twice() -> None:
    app = create_app(QUIET)
    with TestClient(app) as client, client.websocket_connect("/ws") as ws:
        recv(ws)

        @settings(FUZZ, max_examples=200)
        @given(
            choice=st.integers(0, 100),
            resends=st.lists(RESENDS, min_size=1, max_size=4),
            undo=st.booleans(),
        )
        def check(choice: int, resends: list[dict[str, Any]], undo: bool) -> None:
            state = create_game(ws, {**AUCTION, "undo": undo})
            session = app.state.lobby.sessions[state["game"]]
            legal = state["views"]["0"]["legal"]
            action = legal[choice % len(legal)]
            ident = fresh_id("once")
            send(ws, type="act", id=ident, action=action)
            first = recv(ws)
            while first.get("id") != ident:  # the update of South's move comes first
                first = recv(ws)
            assert first["type"] == "ack" and first["v"] == state["v"] + 1
            for resend in resends:
                body = dict(resend)
                if body.get("action", 0) is None:
                    body["action"] = action
                send(ws, id=ident, **body)
                again = recv(ws)
                while again.get("id") != ident:  # bot moves may come in between
                    assert again["type"] == "update", again
                    again = recv(ws)
                assert again == {**first, "duplicate": True}
            settle(ws)
            south = [a for a in session.game.log if a.get("seat") == 0]
            assert south == [action], "a resent message was applied again"
            assert session.auto_pair is False

        check()


# ---------------------------------------------------------------------- 5. every kind at once

SEEDED_FRAMES = 3000  # here; ``twentynine bench abuse --parts fuzz`` sends tens of thousands


def full_room(client: TestClient) -> tuple[WebSocketTestSession, dict[str, Any]]:
    """A room whose every seat is taken (its host and three bots), not started."""
    host = client.websocket_connect("/ws").__enter__()
    recv(host)
    send(host, type="room_create", id="r1", setup={"length": "single"}, name="Asha")
    room = recv(host)
    for seat, bot in ((1, "tara"), (2, "bablu"), (3, "pip")):
        send(host, type="seat_bot", id=f"b{seat}", seat=seat, bot=bot)
        assert recv(host)["type"] == "room"
    return host, room


def test_thousands_of_seeded_fuzzed_frames_of_every_kind_change_nothing(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with table(AUCTION) as t:
        lobby = t.client.app.state.lobby  # type: ignore[attr-defined]
        host, room = full_room(t.client)
        opened = [host]
        try:
            visitor = t.client.websocket_connect("/ws").__enter__()
            stranger = t.client.websocket_connect("/ws").__enter__()
            opened += [visitor, stranger]
            recv(visitor), recv(stranger)
            send(visitor, type="room_join", id="v1", code=room["code"])
            assert recv(visitor)["type"] == "room"
            kept = lobby.rooms[room["code"]]
            room_before, version_before = kept.to_json(), kept.version
            before = t.server_side()
            known = fuzz.Table(
                game=t.state["game"],
                token=t.session.token,
                code=room["code"],
                host_token=room["token"],
                legal=t.state["views"]["0"]["legal"],
                auto_pair=t.state["auto_pair"],
            )
            sockets = {fuzz.PLAYER: t.player, fuzz.VISITOR: visitor, fuzz.STRANGER: stranger}
            kinds: collections.Counter[str] = collections.Counter()
            codes: collections.Counter[str] = collections.Counter()
            stream = fuzz.frames(random.Random(2929), known)
            sent = 0
            while sent < SEEDED_FRAMES:
                batch = [next(stream) for _ in range(100)]
                waiting: collections.Counter[str] = collections.Counter()
                for who, kind, frame in batch:
                    ws = sockets[who]
                    ws.send_bytes(frame) if isinstance(frame, bytes) else ws.send_text(frame)
                    waiting[who] += 1
                    kinds[kind] += 1
                for who, n in waiting.items():
                    while n > 0:  # one answer to every frame, in order; the room's news aside
                        reply = recv(sockets[who])
                        if fuzz.unsolicited(reply):
                            continue
                        n -= 1
                        assert fuzz.reply_fault(reply) is None, fuzz.reply_fault(reply)
                        codes[reply["code"] if reply["type"] == "error" else reply["type"]] += 1
                sent += len(batch)
                if sent % 500 == 0:
                    t.check_unchanged()
                    assert kept.to_json() == room_before and kept.version == version_before
            assert t.server_side() == before
            assert lobby.rooms[room["code"]] is kept and kept.to_json() == room_before
            assert set(kinds) == set(fuzz.KINDS_OF_FUZZ)  # every kind was sent
            assert codes["server_error"] == 0 and codes[P.BAD_JSON] > 0
            assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
        finally:
            for ws in opened:
                with contextlib.suppress(Exception):
                    ws.__exit__(None, None, None)
