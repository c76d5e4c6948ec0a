"""Fuzzed websocket messages of every kind, seeded, and the check that none does harm.

``frames(rng, table)`` makes an endless, reproducible stream of frames that a
client could send: text that is not JSON, JSON that is not a message,
messages with a wrong or missing field, bad text (lone surrogates, control
and bidirectional characters, non-characters, names far too long) in every
field, JSON nested up to two thousand levels, frames over and near the size
limit, binary frames, huge and odd numbers, bad ids, malformed and illegal
actions, forged joins, room codes, seats and bots, and broken setups. Each
frame is meant for one of three clients of a ``Table``: the player of a
game that stands still, a visitor of a full room that has not started, or a
stranger with neither.

None of them may change anything: ``harmless`` leaves out the few frames
that are proper requests (a legal move, a valid setup, the real token, a
setting changed), so that whatever is sent, the game and the room must stay
exactly as they were, every reply must be a known error (never
``server_error``) and the server must live on. The test suite runs a few
thousand of these in process (``tests/test_ws_fuzz.py``); ``twentynine bench
abuse --parts fuzz`` sends tens of thousands to a real server.
"""

from __future__ import annotations

import json
import random
import string
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..game.actions import KINDS, Action, ActionError
from ..server import protocol as P
from ..server.config import PACES
from ..server.names import BadName, read_name
from ..server.room import RoomError, read_room_setup
from ..server.setup import SetupError, parse_setup

PLAYER, VISITOR, STRANGER = "player", "visitor", "stranger"
CLIENTS = (PLAYER, VISITOR, STRANGER)
CARDS = [r + s for r in "J9ATKQ87" for s in "SHDC"]
BOTS = ["tara", "bablu", "pip", "anil", "meera", "raju", "dada", "nobody", ""]
# the error codes a client may get for anything it sends (never "server_error")
KNOWN_CODES = frozenset(
    v for k, v in vars(P).items() if k.isupper() and isinstance(v, str) and v.islower()
) | {"full", "taken", "not_ready", "started"}

BAD_CHARS = [
    "\ud800",  # lone surrogates (JSON carries them as escapes)
    "\udfff",
    "\ud83d",
    "\x00",
    "\x07",
    "\x1b[31m",
    "\x7f",
    "\u202e",  # right-to-left override
    "\u2066",
    "\u200f",
    "\ufeff",
    "\ufffe",
    "\uffff",
    "\ue000",  # private use
    "\u2028",
    "\u0301",  # a lone combining mark
    "e\u0301",
    "\U0001f3f4\U000e0067\U000e0062\U000e007f",
    "\U0010ffff",
]


@dataclass
class Table:
    """What the fuzzer knows of the things it must not change."""

    game: str
    token: str  # the player's token
    code: str  # the room's code
    host_token: str
    legal: list[dict[str, Any]] = field(default_factory=list)  # the player's legal actions
    auto_pair: bool = False

    def is_legal(self, action: Any) -> bool:
        try:
            parsed = Action.from_json(action)
        except (ActionError, TypeError, ValueError, KeyError, AttributeError):
            return False
        return any(parsed == Action.from_json(a) for a in self.legal)


Frame = tuple[str, str, str | bytes]  # (client, kind of fuzz, frame: text or bytes)


# ---------------------------------------------------------------------- pieces


def _text(rng: random.Random, n: int = 12) -> str:
    pools = [
        string.printable,
        "".join(BAD_CHARS),
        "अआइईउऊकखगघ",
        "♠♥♦♣JQKA",
        '{}[]":,\\',
    ]
    return "".join(rng.choice(rng.choice(pools)) for _ in range(rng.randint(0, n)))


def _bad_text(rng: random.Random) -> str:
    base = _text(rng, 6)
    bad = rng.choice(BAD_CHARS)
    at = rng.randint(0, len(base))
    text = base[:at] + bad + base[at:]
    if rng.random() < 0.15:
        text = text * rng.randint(20, 200)  # far too long, for a name
    return text


def _number(rng: random.Random) -> Any:
    return rng.choice(
        [
            0,
            -1,
            1,
            3,
            4,
            29,
            2**31,
            2**63,
            -(2**63) - 1,
            10**300,
            1.5,
            -0.0,
            float("nan"),
            float("inf"),
            float("-inf"),
            1e308,
            True,
            False,
            None,
        ]
    )


def _value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth > 3 or roll < 0.3:
        return rng.choice([_text(rng), _number(rng), _bad_text(rng), rng.choice(CARDS)])
    if roll < 0.6:
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    keys = ["type", "id", "seat", "name", "setup", "action", "code", "token", "at", _text(rng, 4)]
    return {rng.choice(keys): _value(rng, depth + 1) for _ in range(rng.randint(0, 3))}


def _nested(rng: random.Random, levels: int) -> str:
    if rng.random() < 0.5:
        return "[" * levels + "]" * levels
    return '{"a":' * levels + "1" + "}" * levels


def _id(rng: random.Random, n: int) -> Any:
    if rng.random() < 0.92:
        return f"f{n}"
    return rng.choice(["", "x" * 65, "a b", "é", "\ud800", 7, None, [], {}, "id\n"])


def _dumps(obj: Any) -> str:
    """As a client library sends it: JSON with escapes (NaN and Infinity too, as Python's
    json writes them: not JSON, so the server must refuse them as such or read them)."""
    return json.dumps(obj, ensure_ascii=True)


# ---------------------------------------------------------------------- the kinds


def _near(rng: random.Random, t: Table, n: int) -> str:
    kind = rng.choice([*P.TYPES, "", "Ping", "act ", None, 3])
    msg: dict[str, Any] = {"type": kind, "id": _id(rng, n)}
    fields = ["action", "game", "token", "at", "seat", "auto_pair", "setup", "code", "name"]
    for key in rng.sample(fields, rng.randint(0, 3)):
        msg[key] = _value(rng)
    if rng.random() < 0.2:
        msg[_text(rng, 5)] = _value(rng)
    return _dumps(msg)


def _bad_text_message(rng: random.Random, t: Table, n: int) -> str:
    bad = _bad_text(rng)
    choices: list[dict[str, Any]] = [
        {"type": "sit", "seat": rng.randint(0, 3), "name": bad},
        {"type": "room_join", "code": bad},
        {"type": "room_join", "code": t.code, "token": bad},
        {"type": "room_join", "code": t.code, "name": bad},
        {"type": "join", "game": bad, "token": t.token},
        {"type": "join", "game": t.game, "token": bad},
        {"type": "room_create", "setup": {"length": "single"}, "name": bad},
        {"type": "create", "setup": {"seats": [{"human": True, "name": bad}, {}, {}, {}]}},
        {"type": "create", "setup": {"profile": bad}},
        {"type": "create", "setup": {"options": {bad: 1}}},
        {"type": "seat_bot", "seat": 1, "bot": bad},
        {"type": "act", "action": {"seat": 0, "play": bad}},
        {"type": "act", "action": {"seat": 0, bad: True}},
        {"type": "act", "action": rng.choice(t.legal) if t.legal else {}, "signal": bad},
        {"type": "sync", bad: 1},
    ]
    msg = rng.choice(choices)
    return _dumps({**msg, "id": _id(rng, n)})


def _deep(rng: random.Random, t: Table, n: int) -> str:
    levels = rng.choice([P.MAX_DEPTH + 1, P.MAX_DEPTH + 5, 100, 500, 999, 1000, 1500, 2000])
    inner = _nested(rng, levels)
    where = rng.random()
    if where < 0.4:
        text = inner
    elif where < 0.7:
        text = f'{{"type":"act","id":"f{n}","action":{inner}}}'
    else:
        text = f'{{"type":"create","id":"f{n}","setup":{{"options":{inner}}}}}'
    return text[: P.MAX_MESSAGE_BYTES] if rng.random() < 0.1 else text


def _big(rng: random.Random, t: Table, n: int) -> str:
    size = rng.choice(
        [P.MAX_MESSAGE_BYTES - 1, P.MAX_MESSAGE_BYTES, P.MAX_MESSAGE_BYTES + 1, 60_000]
    )
    pad = rng.choice(["a", "é", "\U0001f600", " "])
    text = _dumps({"type": "ping", "pad": ""})
    return text[:-2] + pad * max(0, size // len(pad.encode()) - len(text)) + '"}'


def _act(rng: random.Random, t: Table, n: int) -> str:
    seat = rng.choice([0, 0, 0, 1, 2, 3, -1, 4, True, "0", None, 2**70])
    kind = rng.choice([*KINDS, "bid", "play", "nope", ""])
    value: Any = True
    if kind in ("bid", "play", "trump"):
        value = rng.choice(
            [*CARDS, *"SHDC", 15, 16, 28, 29, 30, 0, -5, "16", "js", " 10h ", None, 1.5]
        )
    action: Any = {"seat": seat, kind: value}
    if rng.random() < 0.2:
        action[rng.choice(KINDS)] = _value(rng)
    if rng.random() < 0.1:
        action = _value(rng)
    msg: dict[str, Any] = {"type": "act", "id": _id(rng, n), "action": action}
    if rng.random() < 0.15:
        msg["signal"] = rng.choice(["slam", "drop", "", "SLAM", 1, None])
    return _dumps(msg)


def _room(rng: random.Random, t: Table, n: int) -> str:
    seat = rng.choice([0, 1, 2, 3, -1, 4, 99, 2**40, True, None, "1"])
    kind = rng.choice(["sit", "stand", "seat_bot", "swap", "start", "room_join"])
    msg: dict[str, Any] = {"type": kind, "id": _id(rng, n)}
    if kind == "sit":
        msg["seat"] = seat
        if rng.random() < 0.7:
            msg["name"] = rng.choice(["Ravi", "", " ", _text(rng), _bad_text(rng)])
    elif kind == "seat_bot":
        msg["seat"] = seat
        bots = [*BOTS, "http://127.0.0.1:9/", "ftp://x", "http://", _text(rng)]
        msg["bot"] = rng.choice(bots)
    elif kind == "swap":
        msg["a"], msg["b"] = seat, rng.choice([0, 1, 2, 3, 7, None])
    elif kind == "room_join":
        code = rng.choice(
            [t.code, t.code.lower(), "ZZZZ-ZZZZ", "", t.code[:-1], _text(rng, 9), t.code + "A"]
        )
        msg["code"] = code
        if rng.random() < 0.5:
            msg["token"] = rng.choice([t.host_token[:-1], "x", "", _text(rng, 30), t.token])
    return _dumps(msg)


def _join(rng: random.Random, t: Table, n: int) -> str:
    game = rng.choice([t.game, t.game.upper(), t.game[:-1], "", _text(rng, 12), "x" * 200])
    token = rng.choice([t.token[:-1], t.token + "x", " " + t.token, "", _text(rng, 24)])
    return _dumps({"type": "join", "id": _id(rng, n), "game": game, "token": token})


def _setup(rng: random.Random, t: Table, n: int) -> str:
    setup: Any = {
        "profile": rng.choice(["pagat", "bhoos", "arcade", "nope", "", 3, None]),
        "length": rng.choice(["single", "match", "forever", 1, None]),
    }
    for key in rng.sample(
        ["options", "seats", "seed", "first_dealer", "undo", "target", "clock", "grace", "x"],
        rng.randint(1, 4),
    ):
        if key == "seats":
            setup[key] = [rng.choice([{"human": True}, {"bot": rng.choice(BOTS)}, {}, _value(rng)])]
            setup[key] *= rng.choice([1, 3, 4, 5])
        elif key == "options":
            setup[key] = {rng.choice(["min_bid", "max_bid", "pair", "doubling", "x"]): _number(rng)}
        else:
            setup[key] = rng.choice([_number(rng), _text(rng, 4)])
    if rng.random() < 0.1:
        setup = _value(rng)
    kind = rng.choice(["create", "room_create"])
    msg: dict[str, Any] = {"type": kind, "id": _id(rng, n), "setup": setup}
    if kind == "room_create" and rng.random() < 0.5:
        msg["name"] = rng.choice(["Asha", _bad_text(rng), 7])
    if kind == "create" and isinstance(setup, dict) and rng.random() < 0.3:
        setup["pace"] = rng.choice(["slow", "warp", 1])
    return _dumps(msg)


def _other(rng: random.Random, t: Table, n: int) -> str:
    kind = rng.choice(["next_deal", "undo", "continue", "configure", "sync", "ping"])
    msg: dict[str, Any] = {"type": kind, "id": _id(rng, n)}
    if kind == "undo" and rng.random() < 0.7:
        msg["seat"] = rng.choice([0, 1, 3, 9, -1, True, None, "0"])
    elif kind == "continue" and rng.random() < 0.7:
        msg["at"] = rng.choice([0, 1, 2**62, -1, 1.5, None, "1"])
    elif kind == "configure":
        msg["auto_pair"] = rng.choice([t.auto_pair, 1, "yes", None])
    return _dumps(msg)


Make = Callable[[random.Random, Table, int], str | bytes]
KINDS_OF_FUZZ: dict[str, Make] = {
    # a text frame itself is UTF-8 on the wire (a lone surrogate can only come escaped)
    "text": lambda rng, t, n: _text(rng, 40).encode("utf-8", "replace").decode(),
    "json": lambda rng, t, n: _dumps(_value(rng)),
    "near": _near,
    "bad_text": _bad_text_message,
    "deep": _deep,
    "big": _big,
    "binary": lambda rng, t, n: bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 64))),
    "act": _act,
    "room": _room,
    "join": _join,
    "setup": _setup,
    "other": _other,
}


def frames(rng: random.Random, table: Table) -> Iterator[Frame]:
    """Fuzzed frames without end, each for one of the three clients; harmless ones only."""
    n = 0
    kinds = list(KINDS_OF_FUZZ)
    while True:
        n += 1
        kind = kinds[n % len(kinds)] if n <= len(kinds) else rng.choice(kinds)
        client = rng.choice(CLIENTS)
        frame = KINDS_OF_FUZZ[kind](rng, table, n)
        if harmless(frame, client, table):
            yield client, kind, frame


# ---------------------------------------------------------------------- harm


def harmless(frame: str | bytes, client: str, t: Table) -> bool:
    """False for a frame that is a proper request some state should change for."""
    try:
        msg = P.parse_message(frame)
    except P.ProtocolError:
        return True
    body = msg.body
    if msg.type == "create":
        raw = dict(body["setup"])
        if raw.pop("pace", "normal") not in PACES:
            return True
        try:
            parse_setup(raw)
        except SetupError:
            return True
        return False  # a new game: its sender would leave its place
    if msg.type == "room_create":
        try:
            read_room_setup(body["setup"])
            if body.get("name") is not None:
                read_name(body["name"])
        except (SetupError, BadName, RoomError):
            return True
        return False
    if msg.type == "join":
        return (body["game"], body["token"]) != (t.game, t.token)
    if msg.type == "room_join":
        return client != PLAYER  # (the player would leave its game for the room)
    if msg.type == "configure":
        return body["auto_pair"] == t.auto_pair or client != PLAYER
    if msg.type == "act" and client == PLAYER:
        return not t.is_legal(body["action"])
    return True


def unsolicited(msg: dict[str, Any]) -> bool:
    """A message that answers no frame: a room's or a game's news to everyone in it
    (someone entered the room, say). Every answer carries an ``id`` key, pongs aside."""
    return msg.get("type") in ("room", "update") and "id" not in msg


def reply_fault(reply: dict[str, Any]) -> str | None:
    """What is wrong with a server's reply to a fuzzed frame, or None."""
    if "v" not in reply:
        return f"a reply without a version: {reply}"
    if reply.get("type") != "error":
        return None
    code = reply.get("code")
    if code == "server_error":
        return f"server_error: {reply}"
    if code not in KNOWN_CODES:
        return f"an unknown error code: {reply}"
    message = reply.get("message")
    if not isinstance(message, str) or not message.strip():
        return f"an error without words: {reply}"
    return None


__all__ = [
    "CLIENTS",
    "KINDS_OF_FUZZ",
    "KNOWN_CODES",
    "PLAYER",
    "STRANGER",
    "VISITOR",
    "Table",
    "frames",
    "harmless",
    "reply_fault",
    "unsolicited",
]
