"""Rule options, the named profiles, and their validation.

Every disagreement between the traditions of 29 is an option; a profile
fixes all of them. ``Rules`` is immutable: overriding returns a new object,
so a game's rules can never change under it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any


class RulesError(ValueError):
    """Rules that cannot be played: unknown option or value, or a contradiction."""


DIRECTIONS = ("clockwise", "anticlockwise")
AUCTIONS = ("open", "duel")
ALL_PASS = ("dealer_forced", "first_forced", "redeal")
REVEALS = ("auto", "ask")
DOUBLE_BY = ("either", "bidder_right")
PAIRS = ("off", "standard", "bangladesh")
UNREVEALED = ("cancel", "score")

SINGLE_HAND_DEFAULT_STAKE = 3
ABSOLUTE_MAX_BID = 29  # 28 card points plus the last-trick point
CARD_POINTS_TOTAL = 28


@dataclass(frozen=True, slots=True)
class Rules:
    """The resolved options of a game. ``profile`` names where it started from."""

    profile: str = "pagat"
    direction: str = "clockwise"
    min_bid: int = 15
    max_bid: int = 28
    auction: str = "open"
    all_pass: str = "dealer_forced"
    reveal: str = "auto"
    seventh_card: bool = False
    single_hand: int | bool = False  # False, or the single-hand stake
    doubling: bool = False
    double_by: str = "either"
    allow_set: bool = False
    pair: str = "standard"
    last_trick_point: bool = False
    unrevealed: str = "cancel"
    under_half: bool = False
    auto_double_from: int | None = None
    early_end: bool = False
    match_target: int | None = 6

    # -- derived -----------------------------------------------------------
    @property
    def clockwise(self) -> bool:
        return self.direction == "clockwise"

    def next_seat(self, seat: int) -> int:
        return (seat + 1) % 4 if self.direction == "clockwise" else (seat + 3) % 4

    @property
    def total_points(self) -> int:
        return CARD_POINTS_TOTAL + (1 if self.last_trick_point else 0)

    @property
    def single_hand_stake(self) -> int:
        return int(self.single_hand) if self.single_hand else 0

    # -- conversions -------------------------------------------------------
    def options(self) -> dict[str, Any]:
        """Every option with its value (without the profile name)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "profile"}

    def overrides(self) -> dict[str, Any]:
        """The options that differ from the named profile."""
        base = PROFILES[self.profile] if self.profile in PROFILES else PROFILES["pagat"]
        return {k: v for k, v in self.options().items() if getattr(base, k) != v}

    def to_json(self) -> dict[str, Any]:
        """The ``rules`` object of a game record: the profile and what differs from it."""
        return {"profile": self.profile, **self.overrides()}

    def with_options(self, **changes: Any) -> Rules:
        return resolve(self.profile, changes, base=self)


PROFILES: dict[str, Rules] = {
    "pagat": Rules(),
    "arcade": Rules(
        profile="arcade",
        min_bid=16,
        pair="off",
        unrevealed="score",
        match_target=None,
    ),
    "bangladesh": Rules(
        profile="bangladesh",
        direction="anticlockwise",
        min_bid=16,
        auction="duel",
        pair="bangladesh",
    ),
    "modern": Rules(
        profile="modern",
        direction="anticlockwise",
        min_bid=16,
        max_bid=29,
        all_pass="first_forced",
        doubling=True,
        double_by="bidder_right",
        allow_set=False,
        last_trick_point=True,
        unrevealed="score",
        early_end=True,
    ),
    "bhoos": Rules(
        profile="bhoos",
        direction="anticlockwise",
        min_bid=16,
        auction="duel",
        reveal="ask",
        pair="off",
        unrevealed="score",
    ),
}

PROFILE_SUMMARIES = {
    "pagat": "The classic rules: clockwise, bids 15-28, open auction, pair ±4, "
    "a deal with trumps never shown is void; match to ±6.",
    "arcade": "Single deals as mobile apps play them: bids 16-28, no pair, "
    "every deal is scored even if trumps stay hidden.",
    "bangladesh": "Anticlockwise, bids from 16, duel auction where the holder may match, "
    "pair lowers 19-20 to 16 and leaves 16-18 alone.",
    "modern": "Anticlockwise, bids 16-29 with the last-trick point, double and redouble "
    "by the bidder's right-hand opponent, the deal stops once decided.",
    "bhoos": "The bot-contest rules: duel auction, trumps revealed only on request "
    "with an obligation to trump, no pair.",
}

OPTION_HELP = {
    "direction": "order of dealing, bidding and play",
    "min_bid": "lowest bid (and the forced bid)",
    "max_bid": "highest bid (29 needs the last-trick point)",
    "auction": "open: bid above or pass, may come back; duel: holder may match, a pass is final",
    "all_pass": "what happens when nobody bids",
    "reveal": "auto: first seat that cannot follow reveals; ask: a seat may ask, then must trump",
    "seventh_card": "the bidder may make the suit of its seventh card trumps",
    "single_hand": "no, or the stake of a lone player who must win every trick",
    "doubling": "defenders may double, the bidder redouble",
    "double_by": "either defender, or only the bidder's right-hand opponent",
    "allow_set": "after a redouble the doubler may set (x6)",
    "pair": "effect of the king and queen of trumps on the target",
    "last_trick_point": "the last trick is worth one more point (29 in all)",
    "unrevealed": "a deal where trumps were never revealed is cancelled or scored",
    "under_half": "a contract failed with under half the bid loses double",
    "auto_double_from": "bids from this value up count double",
    "early_end": "stop the deal as soon as its result is certain",
    "match_target": "game points that win (or lose) the match; none for single deals",
}

CHOICES: dict[str, tuple[str, ...]] = {
    "direction": DIRECTIONS,
    "auction": AUCTIONS,
    "all_pass": ALL_PASS,
    "reveal": REVEALS,
    "double_by": DOUBLE_BY,
    "pair": PAIRS,
    "unrevealed": UNREVEALED,
}
BOOLS = ("seventh_card", "doubling", "allow_set", "last_trick_point", "under_half", "early_end")
_INTS = ("min_bid", "max_bid")
_OPTIONAL_INTS = ("auto_double_from", "match_target")
OPTION_NAMES = tuple(f.name for f in fields(Rules) if f.name != "profile")

_TRUE_WORDS = {"yes", "true", "on", "1"}
_FALSE_WORDS = {"no", "false", "off", "0"}
_NONE_WORDS = {"none", "null", "no", "off", ""}


def _as_bool(name: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        v = value.strip().lower()
        if v in _TRUE_WORDS:
            return True
        if v in _FALSE_WORDS:
            return False
    raise RulesError(f"option {name} takes yes or no, not {value!r}")


def _as_int(name: str, value: Any) -> int:
    if isinstance(value, bool):
        raise RulesError(f"option {name} takes a whole number, not {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value.strip())
    raise RulesError(f"option {name} takes a whole number, not {value!r}")


def _convert(name: str, value: Any) -> Any:
    if name in CHOICES:
        choices = CHOICES[name]
        if isinstance(value, str) and value.strip().lower() in choices:
            return value.strip().lower()
        raise RulesError(f"option {name} takes one of {', '.join(choices)}, not {value!r}")
    if name in BOOLS:
        return _as_bool(name, value)
    if name in _INTS:
        return _as_int(name, value)
    if name in _OPTIONAL_INTS:
        if value is None or (isinstance(value, str) and value.strip().lower() in _NONE_WORDS):
            return None
        if value is False:
            return None
        n = _as_int(name, value)
        if n <= 0:
            raise RulesError(f"option {name} must be a positive number or none, not {value!r}")
        return n
    if name == "single_hand":
        if value is True:
            return SINGLE_HAND_DEFAULT_STAKE
        if value is False or value is None:
            return False
        if isinstance(value, str):
            v = value.strip().lower()
            if v in _TRUE_WORDS - {"1"}:
                return SINGLE_HAND_DEFAULT_STAKE
            if v in _FALSE_WORDS - {"0"} or v in ("none", "null"):
                return False
        n = _as_int(name, value)
        if n <= 0:
            raise RulesError(f"option single_hand takes no or a positive stake, not {value!r}")
        return n
    raise RulesError(_unknown_option(name))


def _unknown_option(name: str) -> str:
    import difflib

    close = difflib.get_close_matches(name, OPTION_NAMES, n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return f"unknown option {name!r}{hint}; options are: {', '.join(OPTION_NAMES)}"


def _check(rules: Rules, explicit: set[str]) -> None:
    if rules.min_bid < 1:
        raise RulesError(f"min_bid must be at least 1, not {rules.min_bid}")
    if rules.max_bid > ABSOLUTE_MAX_BID:
        raise RulesError(f"max_bid {rules.max_bid} is above {ABSOLUTE_MAX_BID}, the most points")
    if rules.max_bid > CARD_POINTS_TOTAL and not rules.last_trick_point:
        raise RulesError(
            f"max_bid {rules.max_bid} is above {CARD_POINTS_TOTAL} without the last-trick point"
        )
    if rules.min_bid > rules.max_bid:
        raise RulesError(f"min_bid {rules.min_bid} is above max_bid {rules.max_bid}")
    if not rules.doubling:
        for name in ("allow_set", "double_by"):
            if name in explicit and (name != "allow_set" or rules.allow_set):
                raise RulesError(f"option {name} needs doubling=yes")
    if rules.auto_double_from is not None and not (
        rules.min_bid <= rules.auto_double_from <= rules.max_bid
    ):
        raise RulesError(
            f"auto_double_from {rules.auto_double_from} is outside the bids "
            f"{rules.min_bid}-{rules.max_bid}"
        )


def resolve(
    profile: str | None = None, options: Mapping[str, Any] | None = None, base: Rules | None = None
) -> Rules:
    """Rules from a profile name and option overrides (values as JSON or as CLI text)."""
    name = "pagat" if profile is None else profile
    if not isinstance(name, str) or name.strip().lower() not in PROFILES:
        raise RulesError(f"unknown profile {name!r}; profiles are: {', '.join(PROFILES)}")
    name = name.strip().lower()
    rules = base if base is not None else PROFILES[name]
    changes: dict[str, Any] = {}
    for key, value in (options or {}).items():
        if key == "profile":
            continue
        if not isinstance(key, str) or key not in OPTION_NAMES:
            raise RulesError(_unknown_option(str(key)))
        changes[key] = _convert(key, value)
    # Switching doubling on over a profile without it starts from the plain defaults.
    if changes.get("doubling") and not rules.doubling:
        changes.setdefault("double_by", "either")
        changes.setdefault("allow_set", False)
    new = replace(rules, **changes)
    _check(new, set(changes) & set(options or {}))
    return new


def from_json(obj: Any) -> Rules:
    """The ``rules`` object of a record (``None`` or missing means pagat)."""
    if obj is None:
        return PROFILES["pagat"]
    if not isinstance(obj, Mapping):
        raise RulesError(f"rules must be an object, not {type(obj).__name__}")
    profile = obj.get("profile", "pagat")
    return resolve(profile, {k: v for k, v in obj.items() if k != "profile"})


def parse_assignments(items: list[str]) -> dict[str, str]:
    """``["min_bid=16", "seventh_card=yes"]`` → a dict, for the command line."""
    out: dict[str, str] = {}
    for item in items:
        if "=" not in item:
            raise RulesError(
                f"{item!r} is not an option setting; write name=value, e.g. min_bid=16"
            )
        k, v = item.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def format_value(value: Any) -> str:
    if value is True:
        return "yes"
    if value is False:
        return "no"
    if value is None:
        return "none"
    return str(value)
