"""Rooms: a table that four people on four devices fill before the game starts.

A room is created by its *host* with a profile, options, a length (one deal
or a match) and table settings (turn clock, disconnect grace, signals). It
gets a *code*: eight letters and digits from an alphabet without look-alike
characters (about 40 random bits), which is both the short code people type
and the last part of the invite link. Anyone who has the code may enter the
room; entering makes a *visitor*, who watches. A visitor takes an open seat
(``sit``) and receives a secret *seat token*, known to that browser only; the
token is what later reclaims the seat after a reload or a lost connection.
The host fills seats with bot characters (or a contest bot by URL), opens
them again, swaps any two seats, and starts the game when no seat is open.

Before the start a room lives here; at the start it becomes a ``GameSession``
(see ``session``) whose seats each have their own token hash, and the room
keeps only its code and the game's id. Nothing in this module talks to a
client; the lobby sends what ``snapshot`` returns.
"""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ..bots.characters import BY_ID, CHARACTERS
from ..services.protocols.hosts import AllowList, OutboundRefused
from .names import BadName, read_name
from .setup import SEAT_NAMES, GameSetup, SetupError, parse_setup, url_bot_name
from .store import hash_token

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no I, L, O, 0 or 1
CODE_LENGTH = 8
DEFAULT_GRACE = 60
CLOCK_RANGE = (5, 600)
GRACE_RANGE = (10, 600)
# The bot that plays for a person who is away or out of time.
STANDIN = "anil"

OPEN = "open"
HUMAN = "human"
BOT = "bot"
URL = "url"


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normal_code(text: str) -> str | None:
    """A code as people type it (any case, spaces or dashes) in its canonical form."""
    code = "".join(ch for ch in text.upper() if ch not in " -")
    if len(code) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in code):
        return None
    return code


class RoomError(ValueError):
    """A room request that cannot be honoured; the message says why, for people.

    ``reason`` (with ``params``) names the case for a client that says it in
    the player's language (its catalog's ``error.reason.*``); the English
    message stays for logs and programs.
    """

    def __init__(
        self,
        code: str,
        message: str,
        reason: str | None = None,
        params: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.params = params or {}


def clean_name(raw: Any, fallback: str) -> str:
    """A person's name at a room's seat (``names.read_name``), or ``fallback`` if empty."""
    if raw is None:
        return fallback
    try:
        return read_name(raw) or fallback
    except BadName as e:
        raise RoomError("bad_message", str(e)) from None


@dataclass(frozen=True, slots=True)
class TableRules:
    """A room's table settings, kept with its game."""

    code: str
    host: str  # the host's token hash
    clock: int = 0  # seconds per decision; 0: no clock
    grace: int = DEFAULT_GRACE  # seconds an away player keeps the seat before a bot plays

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "host": self.host, "clock": self.clock, "grace": self.grace}

    def public(self) -> dict[str, Any]:
        return {"code": self.code, "clock": self.clock, "grace": self.grace}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> TableRules:
        return cls(
            code=str(obj["code"]),
            host=str(obj["host"]),
            clock=int(obj.get("clock", 0)),
            grace=int(obj.get("grace", DEFAULT_GRACE)),
        )


@dataclass(slots=True)
class Slot:
    """One seat of a room before the start."""

    kind: str = OPEN
    token_hash: str = ""  # a person's seat token, hashed
    name: str = ""
    character: str | None = None
    url: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "token": self.token_hash,
            "name": self.name,
            "character": self.character,
            "url": self.url,
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Slot:
        return cls(
            kind=str(obj.get("kind", OPEN)),
            token_hash=str(obj.get("token") or ""),
            name=str(obj.get("name") or ""),
            character=obj.get("character"),
            url=obj.get("url"),
        )


def _int_setting(raw: Mapping[str, Any], key: str, default: int, bounds: tuple[int, int]) -> int:
    value = raw.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise SetupError(f"'{key}' must be a whole number of seconds")
    if key == "clock" and value == 0:
        return 0
    lo, hi = bounds
    if not lo <= value <= hi:
        off = " (or 0 for no clock)" if key == "clock" else ""
        raise SetupError(f"'{key}' must be from {lo} to {hi} seconds{off}")
    return value


def read_room_setup(raw: Any) -> tuple[dict[str, Any], int, int]:
    """Split a room's setup into the game setup and the table settings; check both.

    Returns ``(game_setup, clock, grace)``. The game setup's seats are filled in
    at the start.
    """
    if not isinstance(raw, Mapping):
        raise SetupError("the setup must be an object")
    raw = dict(raw)
    clock = _int_setting(raw, "clock", 0, CLOCK_RANGE)
    grace = _int_setting(raw, "grace", DEFAULT_GRACE, GRACE_RANGE)
    for key in ("clock", "grace"):
        raw.pop(key, None)
    for key in ("seats", "seed", "first_dealer", "undo"):
        if key in raw:
            raise SetupError(f"'{key}' cannot be chosen for a room")
    parse_setup(raw)  # checks profile, options and length; seats come at the start
    return raw, clock, grace


@dataclass(eq=False)
class Room:
    """A room before its game starts (and, after, the code that leads to the game)."""

    code: str
    setup: dict[str, Any]  # the game setup without seats (checked by ``read_room_setup``)
    table: TableRules
    slots: list[Slot] = field(default_factory=lambda: [Slot() for _ in range(4)])
    game: str | None = None  # the game's id once started
    version: int = 1

    # ------------------------------------------------------------ reading
    @cached_property
    def rules_setup(self) -> GameSetup:
        """The room's rules and length, read once (its setup never changes; seats are
        placeholders here, the real ones come at the start)."""
        return parse_setup({**self.setup, "seats": _placeholder_seats()})

    def seat_of(self, token_hash: str) -> int | None:
        for i, slot in enumerate(self.slots):
            if slot.kind == HUMAN and secrets.compare_digest(slot.token_hash, token_hash):
                return i
        return None

    def is_host(self, token_hash: str) -> bool:
        return bool(token_hash) and secrets.compare_digest(self.table.host, token_hash)

    @property
    def full(self) -> bool:
        return all(s.kind != OPEN for s in self.slots)

    def snapshot(self, viewer: str | None, present: set[str]) -> dict[str, Any]:
        """The room as a client sees it (``viewer``: its token hash, or None)."""
        seat = self.seat_of(viewer) if viewer else None
        seats = []
        for i, slot in enumerate(self.slots):
            info: dict[str, Any] = {"seat": i, "kind": slot.kind}
            if slot.kind == HUMAN:
                info["name"] = slot.name
                info["here"] = slot.token_hash in present
                info["host"] = self.is_host(slot.token_hash)
            elif slot.kind == BOT and slot.character:
                c = BY_ID[slot.character]
                info.update(character=c.id, name=c.name, level=c.level)
            elif slot.kind == URL:
                info["name"] = slot.name
            seats.append(info)
        game = self.rules_setup
        return {
            "type": "room",
            "v": self.version,
            "code": self.code,
            "you": seat,
            "host": bool(viewer) and self.is_host(viewer or ""),
            "seats": seats,
            "setup": {
                "profile": game.rules.profile,
                "rules": game.rules.to_json(),
                "options": game.rules.options(),
                "match": game.is_match,
                "signals": game.signals,
            },
            "table": self.table.public(),
            "game": self.game,
        }

    # ------------------------------------------------------------ changes
    def checkpoint(self) -> tuple[list[Slot], int]:
        """The seats and version as they are now, for ``rollback``."""
        return [dataclasses.replace(s) for s in self.slots], self.version

    def rollback(self, point: tuple[list[Slot], int]) -> None:
        """Back to a ``checkpoint``: a change the store could not keep is not kept here
        either."""
        slots, self.version = point
        self.slots = [dataclasses.replace(s) for s in slots]

    def _changed(self) -> None:
        self.version += 1

    def sit(self, token_hash: str, seat: int, name: str) -> None:
        """Put the person with this token at an open seat (leaving the one they had)."""
        self._before_start()
        _check_seat(seat)
        mine = self.seat_of(token_hash)
        if mine == seat:
            self.slots[seat].name = name
            self._changed()
            return
        if self.slots[seat].kind != OPEN:
            if self.full and mine is None:
                raise RoomError(
                    "full", "the room is full: every seat is taken (you can watch)", "room_full"
                )
            raise RoomError(
                "taken",
                f"{SEAT_NAMES[seat]} is taken; pick an open seat",
                "seat_taken",
                {"seat": seat},
            )
        if mine is not None:
            self.slots[mine] = Slot()
        self.slots[seat] = Slot(HUMAN, token_hash, name)
        self._changed()

    def stand(self, token_hash: str) -> None:
        self._before_start()
        mine = self.seat_of(token_hash)
        if mine is not None:
            self.slots[mine] = Slot()
            self._changed()

    def set_seat(self, by: str, seat: int, bot: str, hosts: AllowList) -> None:
        """Host only: a bot character, a contest bot URL (where ``hosts`` allows), or ''
        to open the seat."""
        self._before_start()
        self._host_only(by)
        _check_seat(seat)
        if self.slots[seat].kind == HUMAN and self.is_host(self.slots[seat].token_hash):
            raise RoomError("forbidden", "the host's own seat cannot be given away", "host_seat")
        if bot == "":
            self.slots[seat] = Slot()
        elif bot.startswith(("http://", "https://")):
            if not hosts:
                raise RoomError("forbidden", "this server does not seat bots by URL", "no_url_bots")
            if self.setup.get("profile") != "bhoos":
                raise RoomError(
                    "bad_setup",
                    "a contest bot by URL plays the 'bhoos' profile only",
                    "url_bot_profile",
                )
            from ..services.protocols.bhoos.adapter import parse_spec
            from ..services.protocols.bhoos.notation import check_rules

            try:
                base, _, _ = parse_spec(bot)
                check_rules(self.rules_setup.rules)
            except ValueError as e:
                raise RoomError("bad_setup", str(e).replace(" (use --profile bhoos)", "")) from None
            try:
                hosts.check_url(base)
            except OutboundRefused as e:
                raise RoomError("forbidden", str(e)) from None
            self.slots[seat] = Slot(URL, name=url_bot_name(base), url=bot)
        elif bot in BY_ID:
            self.slots[seat] = Slot(BOT, character=bot)
        else:
            known = ", ".join(c.id for c in CHARACTERS)
            raise RoomError("bad_setup", f"unknown bot {bot!r}; bots are: {known}")
        self._changed()

    def swap(self, by: str, a: int, b: int) -> None:
        self._before_start()
        self._host_only(by)
        _check_seat(a)
        _check_seat(b)
        self.slots[a], self.slots[b] = self.slots[b], self.slots[a]
        self._changed()

    def game_setup(self, by: str) -> tuple[GameSetup, tuple[str, ...]]:
        """Host only: the game this room starts, and each seat's token hash."""
        self._before_start()
        self._host_only(by)
        if not self.full:
            open_seats = [i for i, s in enumerate(self.slots) if s.kind == OPEN]
            names = ", ".join(SEAT_NAMES[i] for i in open_seats)
            raise RoomError(
                "not_ready",
                f"fill every seat first (open: {names})",
                "seats_open",
                {"seats": open_seats},
            )
        seats: list[dict[str, Any]] = []
        for slot in self.slots:
            if slot.kind == HUMAN:
                seats.append({"human": True, "name": slot.name})
            elif slot.kind == BOT:
                seats.append({"bot": slot.character})
            else:
                seats.append({"url": slot.url})
        setup = parse_setup({**self.setup, "seats": seats, "undo": False}, allow_bot_south=True)
        hashes = tuple(s.token_hash if s.kind == HUMAN else "" for s in self.slots)
        return setup, hashes

    def _before_start(self) -> None:
        if self.game is not None:
            raise RoomError(
                "started", "the game has started: seats can no longer change", "room_started"
            )

    def _host_only(self, by: str) -> None:
        if not self.is_host(by):
            raise RoomError("forbidden", "only the host can do that", "host_only")

    # ------------------------------------------------------------ storage
    def to_json(self) -> dict[str, Any]:
        return {
            "setup": self.setup,
            "table": self.table.to_json(),
            "slots": [s.to_json() for s in self.slots],
        }

    @classmethod
    def from_json(cls, code: str, obj: Mapping[str, Any], game: str | None) -> Room:
        slots = [Slot.from_json(s) for s in obj["slots"]]
        if len(slots) != 4:
            raise ValueError("a room has four seats")
        return cls(
            code=code,
            setup=dict(obj["setup"]),
            table=TableRules.from_json(obj["table"]),
            slots=slots,
            game=game,
        )


def _check_seat(seat: int) -> None:
    if not 0 <= seat <= 3:
        raise RoomError("bad_message", "a seat is 0 (South), 1 (West), 2 (North) or 3 (East)")


def _placeholder_seats() -> list[dict[str, Any]]:
    return [{"human": True}, {"human": True}, {"human": True}, {"human": True}]


def make_room(raw: Any, host_token: str, name: str) -> Room:
    setup, clock, grace = read_room_setup(raw)
    code = new_code()
    host = hash_token(host_token)
    room = Room(code, setup, TableRules(code, host, clock, grace))
    room.slots[0] = Slot(HUMAN, host, name)
    return room


__all__ = [
    "Room",
    "RoomError",
    "TableRules",
    "make_room",
    "new_code",
    "normal_code",
]
