"""The message catalog: every word of the interface, English complete.

Every key the scripts and the page use, literally or by a family (one per
option, value, profile, character, error code...), must be in ``en.json``;
no file of the front end may carry its own English sentence.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from twentynine.bots.characters import CHARACTERS
from twentynine.game.rules import PROFILES
from twentynine.server import protocol as P
from twentynine.server.meta import CHOICES, option_schema

STATIC = Path(__file__).resolve().parents[2] / "twentynine" / "web" / "static"
CATALOG: dict[str, str] = json.loads((STATIC / "i18n" / "en.json").read_text(encoding="utf-8"))
SCRIPTS = {p.name: p.read_text(encoding="utf-8") for p in (STATIC / "js").glob("*.js")}
HTML = (STATIC / "index.html").read_text(encoding="utf-8")


def known(key: str) -> bool:
    return key in CATALOG or (f"{key}.one" in CATALOG and f"{key}.other" in CATALOG)


def test_every_literal_key_is_in_the_catalog() -> None:
    call = re.compile(r"\b(?:t|tYou|has)\(\s*\"([a-z_]+\.[a-z0-9_.]+)\"")
    html = re.compile(r'data-i18n(?:-aria|-title|-placeholder)?="([a-z_.0-9]+)"')
    keys = {k for text in SCRIPTS.values() for k in call.findall(text)}
    keys |= set(html.findall(HTML))
    assert len(keys) > 150
    missing = sorted(k for k in keys if not known(k))
    assert not missing, f"keys missing from en.json: {missing}"


def test_every_key_family_is_complete() -> None:
    family: list[str] = []
    options = [o["name"] for o in option_schema()] + ["match_target"]
    family += [f"option.{name}.{part}" for name in options for part in ("label", "help")]
    family += [f"value.{name}.{v}" for name, values in CHOICES.items() for v in values]
    family += [f"profile.{p}.{part}" for p in PROFILES for part in ("name", "summary")]
    family += [f"character.{c.id}" for c in CHARACTERS]
    family += [f"level.{c.level}" for c in CHARACTERS]
    holds = ("TYPES", "TRICK", "DEAL")  # not error codes: the message types and the holds
    codes = [v for k, v in vars(P).items() if k.isupper() and isinstance(v, str) and k not in holds]
    family += [f"error.{c}" for c in codes if c.islower()] + ["error.server_error"]
    stages = ("auction", "single", "double", "redouble", "set", "pair")
    family += [f"ev.pass_{s}" for s in stages]
    family += [f"chip.pass_{s}" for s in stages if s not in ("auction", "pair")]
    family += [f"trick.phase_{p}" for p in ("trump", "single", "double", "redouble", "set", "pair")]
    results = ("made", "failed", "cancelled", "single_made", "single_failed")
    family += [f"ev.deal_end_{r}" for r in results]
    family += [f"result.headline_{r}" for r in (*results, "redeal")]
    family += [f"conn.{s}" for s in ("online", "offline", "connecting")]
    for name, values in CHOICES.items():
        if name in ("direction", "auction", "all_pass", "reveal", "pair", "unrevealed"):
            family += [f"rules.{name}_{v}" for v in values]
    family += [f"rules.double_{v}" for v in CHOICES["double_by"]]
    family += [f"suit.{s}" for s in ("spades", "hearts", "diamonds", "clubs")]
    family += [f"suit_title.{s}" for s in ("spades", "hearts", "diamonds", "clubs")]
    # the replay's analysis (analysis.js): choices, results, costs, stages, views
    kinds = ("pass", "pair", "double", "redouble", "set", "single", "seventh", "reveal")
    family += [f"analysis.choice_{k}" for k in kinds]
    family += [f"analysis.res_{r}" for r in ("made", "failed", "cancelled")]
    costs = ("free", "minor", "major", "turning", "forced", "none")
    family += [f"analysis.cost_{c}" for c in costs]
    family += [f"analysis.stage_{p}" for p in (*stages, "trump", "play")]
    family += [f"analysis.mode_{m}" for m in ("all", "seat")]
    missing = sorted(k for k in family if not known(k))
    assert not missing, f"keys missing from en.json: {missing}"


def test_no_english_sentence_is_written_in_the_scripts() -> None:
    # A string literal of two or more words starting with a capital is a sentence for people.
    sentence = re.compile(r"[\"'`]([A-Z][a-z]+(?: [a-z]+){2,}[.!?]?)[\"'`]")
    found = {name: sentence.findall(text) for name, text in SCRIPTS.items()}
    found = {k: v for k, v in found.items() if v}
    assert not found, f"text outside the catalog: {found}"


def test_placeholders_are_well_formed() -> None:
    for key, text in CATALOG.items():
        assert text.count("{") == text.count("}"), key
        for name in re.findall(r"\{([^}]*)\}", text):
            assert re.fullmatch(r"[a-z]+", name), (key, name)
