"""Bad text and deep nesting: refused with a clear error, before anything changes.

A lone surrogate in a seat's name used to be kept in the room (memory), fail
the store's write, and then make every later snapshot of the room
unencodable: the room was lost for everyone. Every message is now read
whole before anything happens: text must be valid Unicode anywhere in a
message, a name is NFC, printable and at most ``MAX_NAME`` characters, and
JSON nested deeper than ``MAX_DEPTH`` is ``bad_json``. A handler whose store
write fails leaves the room in memory exactly as the store has it.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import json
import logging
import unicodedata
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient, WebSocketTestSession

from twentynine.server import protocol as P
from twentynine.server.config import ServerConfig
from twentynine.server.names import BadName, read_name
from twentynine.server.setup import MAX_NAME
from twentynine.server.store import SQLiteStore, StoreError
from twentynine.web.app import create_app

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

_pool = concurrent.futures.ThreadPoolExecutor(4)
Msg = dict[str, Any]


def recv(ws: WebSocketTestSession, timeout: float = 10) -> Msg:
    text: str = _pool.submit(ws.receive_text).result(timeout=timeout)
    text.encode("utf-8")  # what a real websocket must carry: no lone surrogates
    msg: Msg = json.loads(text)
    return msg


def send(ws: WebSocketTestSession, **msg: Any) -> None:
    ws.send_text(json.dumps(msg))  # ensure_ascii: a lone surrogate travels as \\ud800


def answer(ws: WebSocketTestSession, ident: str) -> Msg:
    for _ in range(50):
        msg = recv(ws)
        if msg.get("id") == ident and msg["type"] != "update":
            return msg
    raise AssertionError(f"no answer to {ident}")


@contextlib.contextmanager
def server(store: SQLiteStore | None = None) -> Iterator[TestClient]:
    config = ServerConfig(bot_delay=0, bot_workers=0, warm_up=False, trick_pause=0.05)
    with TestClient(create_app(config, store=store)) as client:
        yield client


@contextlib.contextmanager
def connected(client: TestClient) -> Iterator[WebSocketTestSession]:
    with client.websocket_connect("/ws") as ws:
        assert recv(ws)["type"] == "welcome"
        yield ws


def open_room(ws: WebSocketTestSession) -> Msg:
    send(ws, type="room_create", id="r1", setup={"length": "single"}, name="Asha")
    room = answer(ws, "r1")
    assert room["type"] == "room", room
    return room


def test_a_lone_surrogate_in_a_name_is_refused_and_the_room_plays_on(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "games.sqlite3")
    with server(store) as client, connected(client) as host, connected(client) as guest:
        room = open_room(host)
        send(guest, type="room_join", id="j1", code=room["code"])
        assert answer(guest, "j1")["type"] == "room"
        before = store.rooms()

        send(guest, type="sit", id="e1", seat=1, name="\ud800")
        refused = answer(guest, "e1")
        assert refused["type"] == "error" and refused["code"] == P.BAD_MESSAGE, refused
        assert "name" in refused["message"]
        assert store.rooms() == before  # nothing was written

        # the room is whole: a seat, a bot, a new visitor and the start all work
        send(guest, type="sit", id="e2", seat=1, name="Ravi")
        assert answer(guest, "e2")["seats"][1]["name"] == "Ravi"
        send(host, type="seat_bot", id="b2", seat=2, bot="tara")
        assert answer(host, "b2")["seats"][2]["kind"] == "bot"
        send(host, type="seat_bot", id="b3", seat=3, bot="pip")
        assert answer(host, "b3")["type"] == "room"
        with connected(client) as late:
            send(late, type="room_join", id="j2", code=room["code"])
            assert answer(late, "j2")["type"] == "room"
        send(host, type="start", id="go")
        assert answer(host, "go")["type"] == "state"
    store.close()


@pytest.mark.parametrize(
    "field",
    [
        {"type": "room_join", "code": "\udc00ABC"},
        {"type": "room_join", "code": "ZZZZZZZZ", "token": "\ud800"},
        {"type": "join", "game": "\ud83d", "token": "x"},
        {"type": "create", "setup": {"profile": "\udfff"}},
        {"type": "create", "setup": {"seats": [{"human": True, "name": "a\ud800"}, {}, {}, {}]}},
        {"type": "room_create", "setup": {"\ud800": 1}},
        {"type": "act", "action": {"seat": 0, "play": "J\udc00"}},
    ],
)
def test_a_lone_surrogate_anywhere_is_a_clear_error(
    field: Msg, caplog: pytest.LogCaptureFixture
) -> None:
    with server() as client, connected(client) as ws:
        send(ws, id="x1", **field)
        reply = answer(ws, "x1")
        assert reply["type"] == "error" and reply["code"] == P.BAD_MESSAGE, reply
        assert "Unicode" in reply["message"]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


@pytest.mark.parametrize(
    "text",
    [
        "[" * 2000 + "]" * 2000,  # past the parser's own recursion limit
        '{"type":"ping","pad":' + "[" * 40 + "]" * 40 + "}",  # parsed, then refused
        '{"type":"create","id":"c1","setup":{"options":' + '{"a":' * 30 + "1" + "}" * 31 + "}",
    ],
)
def test_deep_nesting_is_bad_json_without_a_traceback(
    text: str, caplog: pytest.LogCaptureFixture
) -> None:
    assert len(text.encode()) <= P.MAX_MESSAGE_BYTES
    with server() as client, connected(client) as ws:
        ws.send_text(text)
        reply = recv(ws)
        assert reply["type"] == "error" and reply["code"] == P.BAD_JSON, reply
        assert "nested" in reply["message"]
        send(ws, type="ping")
        assert recv(ws)["type"] == "pong"
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_nesting_up_to_the_limit_is_read() -> None:
    text = '{"type":"ping","pad":' + "[" * (P.MAX_DEPTH - 1) + "]" * (P.MAX_DEPTH - 1) + "}"
    with pytest.raises(P.ProtocolError) as refused:
        P.parse_message(text)
    assert refused.value.code == P.BAD_MESSAGE  # an unknown key, not the depth


# ------------------------------------------------------------------ names


def test_names_are_nfc_with_spaces_collapsed_and_cut_to_length() -> None:
    decomposed = "Zoe\u0301  \t Ma\u0308rta"
    assert read_name(decomposed) == unicodedata.normalize("NFC", "Zoe\u0301 Ma\u0308rta")
    assert read_name(decomposed) == "Zoé Märta"
    assert read_name("   ") is None and read_name("") is None
    assert read_name("x" * 100) == "x" * MAX_NAME
    assert read_name("नमस्ते दुनिया") == "नमस्ते दुनिया"
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # joined by ZERO WIDTH JOINER
    assert read_name(family) == family
    england = "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"
    assert read_name(england) == england  # a flag spelt with tag characters


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ("a\x00b", "U+0000"),
        ("bell\x07", "U+0007"),
        ("\u202eevil", "U+202E"),  # right-to-left override: a name that reads backwards
        ("x\u2066y", "U+2066"),
        ("no\ufeffbom", "U+FEFF"),
        ("private\ue000", "U+E000"),
        ("\ud800", "surrogate"),
        ("non\uffff", "U+FFFF"),
    ],
)
def test_names_with_invisible_or_control_characters_are_refused(raw: str, why: str) -> None:
    with pytest.raises(BadName) as refused:
        read_name(raw)
    assert why in str(refused.value)


def test_a_bad_name_in_a_game_setup_is_bad_setup() -> None:
    setup = {"seats": [{"human": True, "name": "\u202eAsha"}, *([{"bot": "tara"}] * 3)]}
    with server() as client, connected(client) as ws:
        send(ws, type="create", id="c1", setup=setup)
        reply = answer(ws, "c1")
        assert reply["type"] == "error" and reply["code"] == P.BAD_SETUP, reply
        assert "U+202E" in reply["message"]


def test_a_room_name_is_normalised_before_it_is_kept(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "games.sqlite3")
    with server(store) as client, connected(client) as host:
        send(host, type="room_create", id="r1", setup={"length": "single"}, name="Jose\u0301 ")
        room = answer(host, "r1")
        assert room["seats"][0]["name"] == "José"
        ((_, state, _),) = store.rooms()
        assert state["slots"][0]["name"] == "José"
    store.close()


# ------------------------------------------------------------------ a failed write


class FailingStore(SQLiteStore):
    """A store whose room writes fail when told to."""

    fail = False

    def save_room(self, code: str, state: Any, game: str | None = None) -> None:
        if self.fail:
            raise StoreError("the disk is full")
        super().save_room(code, state, game)


def test_a_room_change_the_store_refuses_leaves_the_room_as_it_was(tmp_path: Path) -> None:
    store = FailingStore(tmp_path / "games.sqlite3")
    with server(store) as client, connected(client) as host, connected(client) as guest:
        room = open_room(host)
        send(guest, type="room_join", id="j1", code=room["code"])
        answer(guest, "j1")
        lobby = client.app.state.lobby  # type: ignore[attr-defined]
        kept = lobby.rooms[room["code"]]
        before, stored = kept.to_json(), store.rooms()
        version = kept.version
        store.fail = True
        for ident, ws, msg in [
            ("s1", guest, {"type": "sit", "seat": 1, "name": "Ravi"}),
            ("b1", host, {"type": "seat_bot", "seat": 2, "bot": "tara"}),
            ("w1", host, {"type": "swap", "a": 0, "b": 3}),
            ("t1", host, {"type": "stand"}),
        ]:
            send(ws, id=ident, **msg)
            reply = answer(ws, ident)
            assert reply["type"] == "error" and reply["code"] == P.UNAVAILABLE, reply
            assert kept.to_json() == before and kept.version == version, ident
            assert store.rooms() == stored
        # the guest did not get a seat (nor a token that holds one)
        assert set(lobby.room_clients[room["code"]].values()) == {kept.table.host, ""}
        store.fail = False
        send(guest, type="sit", id="s2", seat=1, name="Ravi")
        seated = answer(guest, "s2")
        assert seated["you"] == 1 and seated["v"] == version + 1
    store.close()
