"""What a client needs to offer a new game: profiles, options, bot characters.

Only data goes out from here (names, values, ranges); every word a player
reads comes from the client's message catalog, keyed by these names.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from .. import __version__
from ..bots.characters import CHARACTERS
from ..game.rules import ABSOLUTE_MAX_BID, BOOLS, CHOICES, PROFILES, Rules
from . import PROTOCOL_VERSION
from .setup import DEFAULT_BOTS, DEFAULT_MATCH_TARGET, SEAT_NAMES


def option_schema() -> list[dict[str, Any]]:
    """Each option with the kind of control that sets it."""
    out: list[dict[str, Any]] = []
    for f in fields(Rules):
        name = f.name
        if name in ("profile", "match_target"):
            continue  # the profile is chosen on its own; the length has its own control
        if name in CHOICES:
            out.append({"name": name, "kind": "choice", "choices": list(CHOICES[name])})
        elif name in BOOLS:
            out.append({"name": name, "kind": "bool"})
        elif name in ("min_bid", "max_bid"):
            out.append({"name": name, "kind": "int", "min": 1, "max": ABSOLUTE_MAX_BID})
        elif name == "auto_double_from":
            out.append({"name": name, "kind": "optional_int", "min": 1, "max": ABSOLUTE_MAX_BID})
        elif name == "single_hand":
            out.append({"name": name, "kind": "stake", "min": 1, "max": 12})
    return out


def meta() -> dict[str, Any]:
    return {
        "server": f"twentynine {__version__}",
        "protocol": PROTOCOL_VERSION,
        "profiles": {name: rules.options() for name, rules in PROFILES.items()},
        "profile_order": list(PROFILES),
        "options": option_schema(),
        "characters": [c.to_json() for c in CHARACTERS],
        "default_bots": list(DEFAULT_BOTS),
        "default_match_target": DEFAULT_MATCH_TARGET,
        "seat_names": list(SEAT_NAMES),
    }
