"""A new game's setup as the browser sends it, read strictly.

The setup names a profile, option overrides, the game's length (one deal
at a time or a match), who sits where (people or bot characters), and a few
table settings. Everything is checked here so that a game is only ever
created from a setup that makes sense; the message of a ``SetupError`` is
shown to the player as is.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..bots.characters import BY_ID, CHARACTERS
from ..game.rules import PROFILES, Rules, RulesError, resolve
from ..services.protocols.hosts import AllowList, OutboundRefused
from .names import MAX_NAME, BadName, read_name

SEAT_NAMES = ("South", "West", "North", "East")
MAX_SEED = (1 << 63) - 1
DEFAULT_MATCH_TARGET = 6
LENGTHS = ("single", "match")
# Default table: a partner and two opponents of middling strength.
DEFAULT_BOTS = ("meera", "anil", "raju")


class SetupError(ValueError):
    """A setup that cannot start a game; the message says what to change."""


@dataclass(frozen=True, slots=True)
class SeatSetup:
    """Who sits at a seat: a person (``character`` None) or a bot character."""

    seat: int
    character: str | None = None
    name: str | None = None
    url: str | None = None  # a contest bot played over HTTP (``protocols.bhoos``)

    @property
    def human(self) -> bool:
        return self.character is None and self.url is None

    def public(self) -> dict[str, Any]:
        """What every player may know about this seat."""
        if self.url is not None:
            return {
                "seat": self.seat,
                "kind": "bot",
                "character": None,
                "name": self.name or "contest bot",
                "level": "external",
            }
        if self.character is None:
            return {"seat": self.seat, "kind": "human", "name": self.name}
        c = BY_ID[self.character]
        return {
            "seat": self.seat,
            "kind": "bot",
            "character": c.id,
            "name": c.name,
            "level": c.level,
        }


@dataclass(frozen=True, slots=True)
class GameSetup:
    rules: Rules
    seats: tuple[SeatSetup, ...]
    seed: int
    first_dealer: int | None = None
    undo: bool = True
    auto_pair: bool = False
    options: Mapping[str, Any] = field(default_factory=dict)
    signals: bool = True  # players may attach a table signal (slam, drop) to a card
    hint: bool = False  # the expert's hint and bidding advisor on request

    @property
    def human_seats(self) -> tuple[int, ...]:
        return tuple(s.seat for s in self.seats if s.human)

    @property
    def is_match(self) -> bool:
        return self.rules.match_target is not None

    @property
    def undo_allowed(self) -> bool:
        """Undo is for practice against our bots: one person at the table, no contest bot
        (which must never be asked a question it already answered)."""
        return self.undo and len(self.human_seats) == 1 and all(s.url is None for s in self.seats)

    @property
    def hint_allowed(self) -> bool:
        """The hint follows undo's rule: practice against our bots only (one person at the
        table, no contest bot), and only when asked for: it is off unless set."""
        return self.hint and len(self.human_seats) == 1 and all(s.url is None for s in self.seats)

    def public(self) -> dict[str, Any]:
        """The setup as clients may see it. The seed stays on the server: it names every deal."""
        return {
            "profile": self.rules.profile,
            "rules": self.rules.to_json(),
            "options": self.rules.options(),
            "seats": [s.public() for s in self.seats],
            "undo": self.undo_allowed,
            "hint": self.hint_allowed,
            "match": self.is_match,
            "signals": self.signals,
        }

    def to_json(self) -> dict[str, Any]:
        """The whole setup, seed included, as ``parse_setup`` reads it back (for the store)."""
        seats: list[dict[str, Any]] = []
        for s in self.seats:
            if s.url is not None:
                seats.append({"url": s.url})
            elif s.human:
                seats.append({"human": True, **({"name": s.name} if s.name else {})})
            else:
                seats.append({"bot": s.character})
        return {
            "profile": self.rules.profile,
            "options": self.rules.overrides(),
            "seats": seats,
            "seed": self.seed,
            "first_dealer": self.first_dealer,
            "undo": self.undo,
            "auto_pair": self.auto_pair,
            "signals": self.signals,
            "hint": self.hint,
        }


def url_bot_name(base: str) -> str:
    """A contest bot's public name: its host and port, never credentials in its URL."""
    from urllib.parse import urlsplit

    parts = urlsplit(base)
    where = parts.hostname or "?"
    if parts.port is not None:
        where = f"{where}:{parts.port}"
    return f"bot at {where}"[:MAX_NAME]


def refused_url(hosts: AllowList, setup: GameSetup) -> str | None:
    """Why this server may not seat the setup's contest bots (None: it may, or it has none).

    Only what the URLs say is checked here; the addresses their hosts resolve
    to are checked at every connection (``outbound``)."""
    for s in setup.seats:
        if s.url is None:
            continue
        if not hosts:
            return "this server does not seat bots by URL"
        try:
            hosts.check_url(s.url)
        except OutboundRefused as e:
            return f"seat {s.seat}: {e}"
    return None


def _bool(obj: Mapping[str, Any], key: str, default: bool) -> bool:
    value = obj.get(key, default)
    if not isinstance(value, bool):
        raise SetupError(f"'{key}' must be true or false, not {value!r}")
    return value


def _seat(index: int, raw: Any) -> SeatSetup:
    if not isinstance(raw, Mapping):
        raise SetupError(f"seat {index} must be an object like {{'human': true}} or {{'bot': id}}")
    unknown = set(raw) - {"human", "bot", "name", "url"}
    if unknown:
        raise SetupError(f"seat {index}: unknown key {sorted(unknown)[0]!r}")
    if "url" in raw:
        url = raw["url"]
        if len(raw) != 1 or not isinstance(url, str):
            raise SetupError(f"seat {index}: a contest bot is {{'url': 'http://host:port'}}")
        from ..services.protocols.bhoos.adapter import parse_spec

        try:
            base, _, _ = parse_spec(url)
        except ValueError as e:
            raise SetupError(f"seat {index}: {e}") from None
        return SeatSetup(index, None, url_bot_name(base), url)
    if raw.get("human") is True:
        if "bot" in raw:
            raise SetupError(f"seat {index} cannot be both a person and a bot")
        name = raw.get("name")
        if name is not None:
            try:
                name = read_name(name)
            except BadName as e:
                raise SetupError(f"seat {index}: {e}") from None
        return SeatSetup(index, None, name)
    ident = raw.get("bot")
    if not isinstance(ident, str) or ident not in BY_ID:
        known = ", ".join(c.id for c in CHARACTERS)
        raise SetupError(f"seat {index}: unknown bot {ident!r}; bots are: {known}")
    return SeatSetup(index, ident, None)


def parse_setup(raw: Any, allow_bot_south: bool = False) -> GameSetup:
    """Read a setup object from a client; raise ``SetupError`` with a clear message.

    ``allow_bot_south``: a room may seat a bot at South (its people sit anywhere).
    """
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        raise SetupError("the setup must be an object")
    unknown = set(raw) - {
        "profile",
        "options",
        "length",
        "target",
        "seats",
        "seed",
        "first_dealer",
        "undo",
        "auto_pair",
        "signals",
        "hint",
    }
    if unknown:
        raise SetupError(f"unknown setup key {sorted(unknown)[0]!r}")
    profile = raw.get("profile", "pagat")
    if not isinstance(profile, str) or profile not in PROFILES:
        raise SetupError(f"unknown profile {profile!r}; profiles are: {', '.join(PROFILES)}")
    options = raw.get("options") or {}
    if not isinstance(options, Mapping):
        raise SetupError("'options' must be an object of option: value")
    options = dict(options)
    length = raw.get("length")
    if length is not None:
        if length not in LENGTHS:
            raise SetupError(f"'length' must be 'single' or 'match', not {length!r}")
        if "match_target" in options:
            raise SetupError("give the match length either as 'length' or as match_target")
        if length == "single":
            options["match_target"] = None
        else:
            target = raw.get("target")
            if target is None:
                target = PROFILES[profile].match_target or DEFAULT_MATCH_TARGET
            options["match_target"] = target
    try:
        rules = resolve(profile, options)
    except RulesError as e:
        raise SetupError(str(e)) from None

    seats_raw = raw.get("seats")
    if seats_raw is None:
        seats_raw = [{"human": True}, *({"bot": b} for b in DEFAULT_BOTS)]
    if not isinstance(seats_raw, list) or len(seats_raw) != 4:
        raise SetupError("'seats' must list the four seats: South, West, North, East")
    seats = tuple(_seat(i, s) for i, s in enumerate(seats_raw))
    if not seats[0].human and not allow_bot_south:
        raise SetupError("South (seat 0) is the first person at this device; it cannot be a bot")
    if any(s.url is not None for s in seats):
        if rules.profile != "bhoos":
            raise SetupError("a contest bot by URL plays the 'bhoos' profile only")
        from ..services.protocols.bhoos.notation import check_rules

        try:
            check_rules(rules)
        except RulesError as e:
            raise SetupError(str(e).replace(" (use --profile bhoos)", "")) from None

    seed = raw.get("seed")
    if seed is None:
        seed = secrets.randbits(62)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise SetupError("'seed' must be a whole number from 0 to 2^63 - 1")
    dealer = raw.get("first_dealer")
    if dealer is not None and (
        isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer <= 3
    ):
        raise SetupError("'first_dealer' must be a seat 0..3")
    return GameSetup(
        rules=rules,
        seats=seats,
        seed=seed,
        first_dealer=dealer,
        undo=_bool(raw, "undo", not rules.match_target),
        auto_pair=_bool(raw, "auto_pair", False),
        options=options,
        signals=_bool(raw, "signals", True),
        hint=_bool(raw, "hint", False),
    )
