"""The translated catalogs: Bengali, Hindi and Nepali beside English.

Every catalog must say everything English says (the same keys), with the same
placeholders, in valid JSON; plural messages must have the forms the
language's own plural rules (CLDR, through Babel) need; and the server's
named error reasons must each have a sentence. The browser tests of the
translated screens are in ``test_language_screens.py``.
"""

from __future__ import annotations

import ast
import json
import re
from collections import Counter
from pathlib import Path

import pytest
from babel import Locale

I18N = Path(__file__).resolve().parents[2] / "twentynine" / "web" / "static" / "i18n"
SERVER = Path(__file__).resolve().parents[2] / "twentynine" / "server"
LANGUAGES = ("bn", "hi", "ne")
PLURAL_FORMS = ("zero", "one", "two", "few", "many", "other")
DIGITS = {"latn": "0123456789", "beng": "০১২৩৪৫৬৭৮৯", "deva": "०१२३४५६७८९"}
NATIVE = {"en": "latn", "bn": "beng", "hi": "deva", "ne": "deva"}
# Messages that may read the same as in English: the languages' own names,
# key caps printed in English, the letters printed on the cards, and
# messages made only of placeholders and signs.
SAME_AS_ENGLISH = {
    "meta.dir",
    "meta.digits",
    "lang.en",
    "lang.bn",
    "lang.hi",
    "lang.ne",
    "key.enter",
    "key.escape",
    "key.tab",
    "seat.pair_badge",
}


def load(code: str) -> dict[str, str]:
    data = json.loads((I18N / f"{code}.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


EN = load("en")


def placeholders(text: str) -> Counter[str]:
    return Counter(re.findall(r"\{(\w+)\}", text))


def plural_stem(key: str) -> tuple[str, str] | None:
    stem, _, form = key.rpartition(".")
    return (stem, form) if form in PLURAL_FORMS and stem else None


def needed_forms(code: str) -> set[str]:
    return set(Locale.parse(code).plural_form.tags) | {"other"}


def expected_keys(code: str) -> set[str]:
    """English's keys, each plural family with the forms this language needs."""
    keys: set[str] = set()
    for key in EN:
        plural = plural_stem(key)
        if plural is None:
            keys.add(key)
        else:
            keys |= {f"{plural[0]}.{form}" for form in needed_forms(code)}
    return keys


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_catalog_is_json_of_texts_without_duplicate_keys(code: str) -> None:
    seen: list[str] = []

    def pairs(items: list[tuple[str, object]]) -> dict[str, object]:
        seen.extend(k for k, _ in items)
        return dict(items)

    json.loads((I18N / f"{code}.json").read_text(encoding="utf-8"), object_pairs_hook=pairs)
    duplicates = [k for k, n in Counter(seen).items() if n > 1]
    assert not duplicates, duplicates
    assert all(isinstance(v, str) for v in load(code).values())


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_catalog_has_exactly_the_keys_of_english(code: str) -> None:
    keys = set(load(code))
    want = expected_keys(code)
    assert not sorted(want - keys), f"{code} lacks {sorted(want - keys)}"
    assert not sorted(keys - want), f"{code} has keys English has not: {sorted(keys - want)}"


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_message_keeps_the_placeholders_of_english(code: str) -> None:
    catalog = load(code)
    wrong = []
    for key, text in catalog.items():
        plural = plural_stem(key)
        english = EN.get(key) if plural is None else EN.get(f"{plural[0]}.other")
        assert english is not None, key
        if placeholders(text) != placeholders(english):
            wrong.append((key, dict(placeholders(english)), dict(placeholders(text))))
        assert text.count("{") == text.count("}"), key
    assert not wrong, wrong


@pytest.mark.parametrize("code", LANGUAGES)
def test_plural_messages_have_the_forms_the_language_needs(code: str) -> None:
    catalog = load(code)
    families = {p[0] for k in EN if (p := plural_stem(k))}
    assert len(families) > 12
    for stem in families:
        forms = {f for f in PLURAL_FORMS if f"{stem}.{f}" in catalog}
        assert forms == needed_forms(code), (stem, forms)


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_catalog_is_translated_not_copied(code: str) -> None:
    catalog = load(code)
    latin_word = re.compile(r"[A-Za-z]{3,}")

    def words(text: str) -> bool:
        return bool(latin_word.search(re.sub(r"\{\w+\}", "", text)))

    copied = [k for k, v in catalog.items() if v == EN[k] and k not in SAME_AS_ENGLISH and words(v)]
    assert not copied, copied
    # nearly every message is written in the language's own script
    script = {"bn": r"[\u0980-\u09ff]", "hi": r"[\u0900-\u097f]", "ne": r"[\u0900-\u097f]"}[code]
    worded = [k for k, v in catalog.items() if words(EN.get(k, v))]
    native = [k for k in worded if re.search(script, catalog[k])]
    assert len(native) / len(worded) > 0.97


@pytest.mark.parametrize("code", ("en", *LANGUAGES))
def test_the_digits_are_named_and_written_in_the_text(code: str) -> None:
    catalog = load(code)
    assert catalog["meta.native_digits"] == NATIVE[code]
    assert catalog["meta.digits"] in (NATIVE[code], "latn")
    # digits that are neither the language's usual ones nor 0-9 never appear
    usual = DIGITS[catalog["meta.digits"]]
    other = "".join(
        d for nu, ds in DIGITS.items() if nu not in ("latn", catalog["meta.digits"]) for d in ds
    )
    stray = [k for k, v in catalog.items() if any(d in other for d in v)]
    assert not stray, stray
    if usual != DIGITS["latn"]:
        assert sum(any(d in usual for d in v) for v in catalog.values()) > 30


def test_the_languages_are_named_alike_in_every_catalog() -> None:
    names = {k: v for k, v in EN.items() if k.startswith("lang.")}
    assert set(names) == {f"lang.{c}" for c in ("en", *LANGUAGES)}
    for code in LANGUAGES:
        assert {k: load(code)[k] for k in names} == names


def reasons_named_by_the_server() -> set[str]:
    """Every literal ``reason`` given to ProtocolError or RoomError in the server's code."""
    found: set[str] = set()
    for path in SERVER.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "attr", None) or getattr(node.func, "id", None)
            index = {"ProtocolError": 3, "RoomError": 2}.get(name or "")
            if index is None:
                continue
            args = [
                *node.args[index : index + 1],
                *(k.value for k in node.keywords if k.arg == "reason"),
            ]
            found |= {
                a.value for a in args if isinstance(a, ast.Constant) and isinstance(a.value, str)
            }
    return found


def test_every_reason_the_server_names_has_a_sentence() -> None:
    reasons = reasons_named_by_the_server()
    assert len(reasons) >= 14
    for code in ("en", *LANGUAGES):
        catalog = load(code)
        missing = sorted(r for r in reasons if f"error.reason.{r}" not in catalog)
        assert not missing, (code, missing)
    unused = sorted(k for k in EN if k.startswith("error.reason.") and k[13:] not in reasons)
    assert not unused, unused


def test_every_bot_character_has_a_name_in_every_catalog() -> None:
    # the server sends a bot's English name; the page shows the catalog's
    from twentynine.bots.characters import CHARACTERS

    for code in ("en", *LANGUAGES):
        catalog = load(code)
        for c in CHARACTERS:
            assert f"botname.{c.id}" in catalog, (code, c.id)
            assert f"character.{c.id}" in catalog, (code, c.id)
    # a contest bot without a name gets the server's English default, which
    # the page knows (model.js) and words from botname.contest
    from twentynine.server.setup import SeatSetup

    default = SeatSetup(1, url="http://127.0.0.1:9").public()["name"]
    model = (I18N.parent / "js" / "model.js").read_text(encoding="utf-8")
    assert f'info?.name === "{default}"' in model
    # so do the names the server gives people who gave none (the seat, the host)
    from twentynine.server.setup import SEAT_NAMES

    defaults = re.search(r"DEFAULT_NAMES = new Set\((\[.*?\])\)", model)
    assert defaults is not None
    assert set(json.loads(defaults.group(1))) == {*SEAT_NAMES, "Host"}
    assert 'clean_name(body.get("name"), "Host")' in (SERVER / "rooms.py").read_text()
