"""The websocket protocol: what a client may send, read strictly.

Every client message is one JSON object in one text frame, at most
``MAX_MESSAGE_BYTES`` long and ``MAX_DEPTH`` levels deep, all of its text
valid Unicode, with a ``type`` and (except ``ping``) an ``id``:
a short string the client never reuses, so that a message sent twice (after
a reconnect, say) is answered twice but applied once.

Client to server::

    {"type": "create",    "id": "c1", "setup": {...}}          start a game
    {"type": "join",      "id": "c2", "game": "...", "token": "..."}   rejoin it
    {"type": "act",       "id": "c3", "action": {"seat": 0, "play": "JS"}}
    {"type": "continue",  "id": "c4", "at": 17}    done looking at a trick
    {"type": "next_deal", "id": "c5"}
    {"type": "undo",      "id": "c6", "seat": 0}
    {"type": "configure", "id": "c7", "auto_pair": true}
    {"type": "sync",      "id": "c8"}              send me everything again
    {"type": "ping"}

Rooms (four devices at one table; see ``room``)::

    {"type": "room_create", "id": "r1", "setup": {... "clock": 30, "grace": 60}, "name": "Asha"}
    {"type": "room_join",   "id": "r2", "code": "K7QM-3XWP", "token": "...", "name": "Ravi"}
    {"type": "sit",         "id": "r3", "seat": 2, "name": "Ravi"}    take an open seat
    {"type": "stand",       "id": "r4"}                             leave it (and watch)
    {"type": "seat_bot",    "id": "r5", "seat": 1, "bot": "dada"}   host: a bot, a URL, "" opens
    {"type": "swap",        "id": "r6", "a": 1, "b": 3}             host: swap two seats
    {"type": "start",       "id": "r7"}                             host: every seat is filled

An ``act`` may carry ``"signal": "slam"`` or ``"drop"`` with a card, at a
table that allows signals. Before its start a room answers with ``room``
messages (``{"type": "room", "v", "code", "you", "host", "seats", "setup",
"table", "game"}``, plus ``token`` for the one who just got a seat); after
the start every client gets ``state`` and ``update`` as for any game, with
a ``table`` block (presence of each seat, the turn clock, spectators). A
spectator's views and events are under the key ``public``.

Server to client (every message carries ``v``, the game's version; it grows
by one with every change of the game, and 0 before a game is joined)::

    {"type": "welcome", "v": 0, "protocol": 1, "server": "twentynine 0.1.0"}
    {"type": "state",  "v": 9, "game": ..., "seats": [0], "setup": {...},
     "views": {"0": observation}, "events": {"0": [event views of this deal]},
     "hold": null, "can_undo": false, "over": false}
    {"type": "update", "v": 10, "views": {...}, "events": {"0": [new event views]},
     "hold": "trick", "can_undo": true, "over": false}
    {"type": "ack",    "v": 10, "id": "c3"}            (``duplicate``: true on a resend)
    {"type": "error",  "v": 10, "id": "c3", "code": "illegal", "message": "..."}
    {"type": "pong",   "v": 10}

A client that sees an ``update`` whose ``v`` is not one more than the last
it saw asks for a ``sync``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from .. import __version__
from . import PROTOCOL_VERSION

MAX_MESSAGE_BYTES = 4096
TRICK, DEAL = "trick", "deal"  # the holds a state or an update may carry
# objects and lists inside one another: a setup needs five levels; past this a message is
# refused before anything reads it (and never reaches a recursive function)
MAX_DEPTH = 16
ID_PATTERN = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")

TYPES = (
    "create",
    "join",
    "act",
    "continue",
    "next_deal",
    "undo",
    "configure",
    "sync",
    "ping",
    "room_create",
    "room_join",
    "sit",
    "stand",
    "seat_bot",
    "swap",
    "start",
)

# Error codes (the client turns them into words of its own language).
BAD_JSON = "bad_json"
TOO_LARGE = "too_large"
BAD_MESSAGE = "bad_message"
UNKNOWN_TYPE = "unknown_type"
NO_GAME = "no_game"
NOT_FOUND = "not_found"
FORBIDDEN = "forbidden"
BAD_SETUP = "bad_setup"
BAD_ACTION = "bad_action"
NOT_YOUR_SEAT = "not_your_seat"
ILLEGAL = "illegal"
UNAVAILABLE = "unavailable"
RATE_LIMITED = "rate_limited"  # over a limit of this connection or address (``limits``)
# rooms
FULL = "full"
TAKEN = "taken"
NOT_READY = "not_ready"
STARTED = "started"

_FIELDS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "create": {"setup": dict},
    "join": {"game": str, "token": str},
    "act": {"action": dict, "signal": str},
    "continue": {"at": int},
    "next_deal": {},
    "undo": {"seat": int},
    "configure": {"auto_pair": bool},
    "sync": {},
    "ping": {},
    "room_create": {"setup": dict, "name": str},
    "room_join": {"code": str, "token": str, "name": str},
    "sit": {"seat": int, "name": str},
    "stand": {},
    "seat_bot": {"seat": int, "bot": str},
    "swap": {"a": int, "b": int},
    "start": {},
}
_OPTIONAL = {
    "undo": {"seat"},
    "continue": {"at"},
    "ping": {"id"},
    "act": {"signal"},
    "room_create": {"name"},
    "room_join": {"token", "name"},
    "sit": {"name"},
}


class ProtocolError(ValueError):
    """A message that cannot be honoured; ``code`` is for programs, the message for people.

    ``reason`` and ``params`` name the case more closely than the code, for a
    client that words it in its player's language (the browser's catalog
    has ``error.reason.<reason>``); the message itself is English.
    """

    def __init__(
        self,
        code: str,
        message: str,
        ident: str | None = None,
        reason: str | None = None,
        params: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.ident = ident
        self.reason = reason
        self.params = params or {}


@dataclass(frozen=True, slots=True)
class Message:
    type: str
    id: str | None
    body: dict[str, Any]


def parse_message(text: str | bytes | None) -> Message:
    """Read one client message; raise ``ProtocolError`` saying what is wrong with it."""
    if text is None:
        raise ProtocolError(BAD_MESSAGE, "messages must be JSON text frames, not binary")
    if isinstance(text, bytes):
        raise ProtocolError(BAD_MESSAGE, "messages must be JSON text frames, not binary")
    if len(text.encode("utf-8", "surrogatepass")) > MAX_MESSAGE_BYTES:
        raise ProtocolError(TOO_LARGE, f"message is longer than {MAX_MESSAGE_BYTES} bytes")
    if _too_deep(text):
        raise ProtocolError(BAD_JSON, f"message is nested deeper than {MAX_DEPTH} levels")
    try:
        obj = json.loads(text)
    except RecursionError:  # not reached after ``_too_deep``; kept as a guard
        raise ProtocolError(BAD_JSON, f"message is nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as e:
        raise ProtocolError(BAD_JSON, f"message is not valid JSON: {e}") from None
    fault = _check_tree(obj)
    if fault is not None:
        code, why = fault
        ident = obj.get("id") if isinstance(obj, dict) else None
        readable = isinstance(ident, str) and ID_PATTERN.match(ident)
        raise ProtocolError(code, why, ident if readable else None)
    if not isinstance(obj, dict):
        raise ProtocolError(BAD_MESSAGE, "a message must be a JSON object with a 'type'")
    ident = obj.get("id")
    if ident is not None and (not isinstance(ident, str) or not ID_PATTERN.match(ident)):
        raise ProtocolError(
            BAD_MESSAGE, "'id' must be 1-64 letters, digits or . _ : - (unique per message)"
        )
    kind = obj.get("type")
    if not isinstance(kind, str) or kind not in TYPES:
        raise ProtocolError(
            UNKNOWN_TYPE,
            f"unknown message type {kind!r}; types are: {', '.join(TYPES)}",
            ident,
        )
    if ident is None and kind != "ping":
        raise ProtocolError(BAD_MESSAGE, f"a '{kind}' message needs an 'id'")
    fields = _FIELDS[kind]
    optional = _OPTIONAL.get(kind, set())
    unknown = set(obj) - {"type", "id"} - set(fields)
    if unknown:
        raise ProtocolError(
            BAD_MESSAGE, f"unknown key {sorted(unknown)[0]!r} in a '{kind}' message", ident
        )
    for name, want in fields.items():
        if name not in obj:
            if name in optional:
                continue
            raise ProtocolError(BAD_MESSAGE, f"a '{kind}' message needs '{name}'", ident)
        value = obj[name]
        if (want is int and isinstance(value, bool)) or not isinstance(value, want):
            what = want.__name__ if isinstance(want, type) else "value"
            what = {"dict": "an object", "str": "text", "int": "a whole number"}.get(what, what)
            if want is bool:
                what = "true or false"
            raise ProtocolError(
                BAD_MESSAGE, f"'{name}' of a '{kind}' message must be {what}", ident
            )
    body = {k: v for k, v in obj.items() if k not in ("type", "id")}
    return Message(kind, ident, body)


_JSON_TEXT = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_BRACKET = re.compile(r"[\[\]{}]")


def _too_deep(text: str) -> bool:
    """Whether the raw text nests objects and lists deeper than ``MAX_DEPTH``.

    Checked before ``json.loads``, whose C parser recurses: how deep it gets
    before a ``RecursionError`` depends on the caller's own stack, so the
    same deep message could be refused with or without its id. Counting the
    brackets outside strings gives one answer everywhere (and no id: the
    message is never read).
    """
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return False
    depth = 0
    for mark in _BRACKET.findall(_JSON_TEXT.sub('""', text)):
        depth += 1 if mark in "[{" else -1
        if depth > MAX_DEPTH:
            return True
    return False


def _check_tree(obj: Any) -> tuple[str, str] | None:
    """What is wrong with a parsed message as a whole, as (code, words), or None.

    Every text in it (keys too) must be valid Unicode: a lone surrogate, which
    JSON's escapes can carry, could be kept and shown but never encoded again.
    And no object or list may sit deeper than ``MAX_DEPTH`` levels. The walk
    uses a stack of its own, so a deep message costs no recursion.
    """
    stack: list[tuple[Any, int, str]] = [(obj, 1, "")]
    while stack:
        value, depth, where = stack.pop()
        if isinstance(value, str):
            if not value.isascii() and not _encodes(value):
                field = f"'{where}'" if where and _encodes(where) else "a text"
                return (
                    BAD_MESSAGE,
                    f"{field} of the message is not valid Unicode (a lone surrogate)",
                )
        elif isinstance(value, dict):
            if depth > MAX_DEPTH:
                return BAD_JSON, f"message is nested deeper than {MAX_DEPTH} levels"
            for key, item in value.items():
                field = where or key  # a field of the message names where the fault is
                stack.append((key, depth, field))
                stack.append((item, depth + 1, field))
        elif isinstance(value, list):
            if depth > MAX_DEPTH:
                return BAD_JSON, f"message is nested deeper than {MAX_DEPTH} levels"
            stack.extend((item, depth + 1, where) for item in value)
    return None


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def error(
    code: str,
    message: str,
    ident: str | None,
    version: int,
    reason: str | None = None,
    params: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """An error message; ``reason`` and ``params`` only when the case has a name."""
    out: dict[str, Any] = {"type": "error", "v": version, "id": ident, "code": code}
    out["message"] = message
    if reason is not None:
        out["reason"] = reason
        out["params"] = params or {}
    return out


def welcome() -> dict[str, Any]:
    """The first message on every connection: who speaks, in which protocol version."""
    return {
        "type": "welcome",
        "v": 0,
        "protocol": PROTOCOL_VERSION,
        "server": f"twentynine {__version__}",
    }


def dumps(data: dict[str, Any]) -> str:
    """A message as sent on the wire: compact JSON, text kept as it is."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))
