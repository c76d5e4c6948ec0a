"""Every screen in Bengali, Hindi and Nepali: no English left, nothing cut off.

A player picks the language on the first screen; the test then walks the
new-game form, the table in the auction and in play, the result, the rules,
how to play, the settings, the history and the score sheet, and on each
compares every visible text (and every accessible name) with the English
catalog: no English sentence or word from ``en.json`` may show, only proper
names, digits and card symbols. Screenshots of every screen in every
language go to ``artifacts/languages/`` (the replay and the room's lobby too).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from babel import Locale
from playwright.sync_api import Browser, Page, expect

from .driver import Choices, open_table, play_until, start_game, wait_ready

I18N = Path(__file__).resolve().parents[2] / "twentynine" / "web" / "static" / "i18n"
EN: dict[str, str] = json.loads((I18N / "en.json").read_text(encoding="utf-8"))
LANGUAGES = ("bn", "hi", "ne")
SIZES = [(390, 844), (1280, 800)]
SCRIPT = {"bn": "[\u0980-\u09ff]", "hi": "[\u0900-\u097f]", "ne": "[\u0900-\u097f]"}
DIGITS = {"bn": "০১২৩৪৫৬৭৮৯", "hi": "0123456789", "ne": "०१२३४५६७८९"}

# Words that stay Latin in every language: key caps, file formats, commands
# and addresses quoted as they are typed, the sources' own names.
ALLOWED_WORDS = {
    "Enter",
    "Esc",
    "Tab",
    "Home",
    "End",
    "JSON",
    "CSV",
    "Pyodide",
    "pagat",
    "bhoos",
    "twentynine",
    "score",
    "sheet",
    "FILE",
    "make",
    "play",
    "serve",
    "http",
    "host",
    "port",
    "ABCD",
    "EFGH",
    "scoresheet",
}
# English messages that every language writes the same (names of the
# languages, key caps, card letters).
SAME = {"meta.dir", "meta.digits", "meta.native_digits", "key.enter", "key.escape", "key.tab"}
SAME |= {k for k in EN if k.startswith("lang.")} | {"seat.pair_badge"}


def english_fragments() -> list[str]:
    """The English catalog cut at its placeholders: every piece with a word in it."""
    pieces: set[str] = set()
    for key, text in EN.items():
        if key in SAME:
            continue
        for piece in re.split(r"\{\w+\}", text):
            piece = piece.strip(" .,:;!?()–—·“”‘’/")
            words = re.findall(r"[A-Za-z]{3,}", piece)
            if words and not all(w in ALLOWED_WORDS for w in words):
                pieces.add(piece)
    return sorted(pieces, key=len, reverse=True)


FRAGMENTS = english_fragments()
FRAGMENT = re.compile(
    "(?<![A-Za-z])(?:" + "|".join(re.escape(f) for f in FRAGMENTS) + ")(?![A-Za-z])"
)
ENGLISH_WORDS = {w for f in FRAGMENTS for w in re.findall(r"[A-Za-z]{3,}", f)}

# Every text a player can see or hear: visible text nodes, and the
# accessible names (aria-label, title, placeholder) of visible elements.
VISIBLE_TEXTS = """() => {
  const shown = (el) => {
    for (let e = el; e; e = e.parentElement) {
      if (e.hidden || e.getAttribute?.("aria-hidden") === "true") return false;
      if (e.tagName === "DIALOG" && !e.open) return false;
    }
    return el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
  };
  const out = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walk.nextNode()) {
    const node = walk.currentNode;
    const text = node.textContent.trim();
    const el = node.parentElement;
    if (!text || !el || ["SCRIPT", "STYLE", "NOSCRIPT", "KBD"].includes(el.tagName)) continue;
    if (el.closest("option") && !el.closest("select")?.matches(":focus")) {
      if (!shown(el.closest("select"))) continue;
    } else if (!shown(el)) continue;
    out.push(text);
  }
  for (const el of document.querySelectorAll("[aria-label], [title], [placeholder]")) {
    if (!shown(el)) continue;
    for (const a of ["aria-label", "title", "placeholder"]) {
      const v = el.getAttribute(a);
      if (v && v.trim()) out.push(v.trim());
    }
  }
  out.push(document.title);
  return out;
}"""

# Buttons and labels whose words do not fit: cut off sideways or below.
CLIPPED = """() => {
  const out = [];
  const sel = "button, .chip, label, .badge, .seat-name, .prompt, summary, select, th, td, h1, h2";
  for (const el of document.querySelectorAll(sel)) {
    if (!el.getClientRects().length) continue;
    if (el.closest("[hidden], dialog:not([open]), .sr-only")) continue;
    let tiny = false; // inside a box shown only to screen readers (1px, clipped)
    for (let e = el; e && e !== document.body; e = e.parentElement) {
      const r = e.getBoundingClientRect();
      if (r.width <= 1 || r.height <= 1) tiny = true;
    }
    if (tiny) continue;
    const st = getComputedStyle(el);
    const cut = (v) => v === "hidden" || v === "clip";
    const clips = cut(st.overflowX) || cut(st.overflowY) || st.textOverflow === "ellipsis";
    if (!clips) continue;
    if (el.scrollWidth > el.clientWidth + 2 || el.scrollHeight > el.clientHeight + 3)
      out.push(`${el.tagName}.${el.className}: ${el.textContent.trim().slice(0, 40)}`);
  }
  return out;
}"""


# The innermost elements that reach past the right edge of the screen.
PAST_THE_EDGE = """() => {
  const out = [];
  for (const el of document.body.querySelectorAll("*")) {
    const r = el.getBoundingClientRect();
    if (r.right <= window.innerWidth + 0.5 || !el.getClientRects().length) continue;
    if ([...el.children].some((c) => c.getBoundingClientRect().right > window.innerWidth + 0.5))
      continue;
    out.push(`${el.tagName}.${el.className} right ${Math.round(r.right)}: ` +
      el.textContent.trim().slice(0, 40));
  }
  return out.slice(0, 8);
}"""


AUTONYMS = {v for k, v in EN.items() if k.startswith("lang.")}


def leaks(texts: list[str]) -> list[str]:
    """The texts that still carry English from the catalog (a language's own name aside)."""
    found = []
    for text in texts:
        if text in AUTONYMS:
            continue
        text = re.sub(
            r"https?://\S+|\b[0-9A-Z]{4}-[0-9A-Z]{4}\b", "", text
        )  # a room's link and code
        match = FRAGMENT.search(text)
        fragment = match.group(0) if match else None
        words = [w for w in re.findall(r"[A-Za-z]{3,}", text) if w not in ALLOWED_WORDS]
        if fragment is not None or words:
            found.append(f"{text!r} ({fragment or ', '.join(words)})")
    return found


# Latin digits a Bengali or Nepali screen keeps: card indices as printed on
# the cards (8♥, "J 9 A 10 K Q 8 7"), the score sheet's file format, and a
# room's code and link (typed and sent as they are).
PRINTED = re.compile(
    r"(?:10|[2-9JQKA])[♠♥♦♣]"
    r"|(?:[JQKA]|10|[789])(?:[ ,]+(?:[JQKA]|10|[789])){3,}"
    r"|29-scoresheet/1"
    r"|https?://\S+|\b[0-9A-Z]{4}-[0-9A-Z]{4}\b"  # a room's link and code
)


def latin_digits(texts: list[str]) -> list[str]:
    return [t for t in texts if re.search(r"[0-9]", PRINTED.sub("", t))]


def check_screen(page: Page, lang: str, name: str, shots: Path, size: str) -> None:
    # A card on its way (a bot's card to the trick, the second batch's deal) is drawn
    # where it flies, past the hand's or the plates' edges for a moment: the screen is
    # checked at rest, once the table's motions are over.
    page.wait_for_function(
        "() => !window.twentynine?.motion || window.twentynine.motion().running === 0",
        timeout=15_000,
    )
    page.wait_for_timeout(150)  # let a transition settle before the screenshot
    page.screenshot(path=shots / f"{lang}-{name}-{size}.png")
    texts = page.evaluate(VISIBLE_TEXTS)
    assert texts, name
    english = leaks(texts)
    assert not english, f"{lang} {name}: English on the screen: {english}"
    if DIGITS[lang] != "0123456789":
        catalog = json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))
        offered = catalog["settings.digits_latin"].replace("{sample}", "29")  # the choice of 0-9
        wrong = [t for t in latin_digits(texts) if t != offered]
        assert not wrong, f"{lang} {name}: numbers not in the language's digits: {wrong}"
    native = [t for t in texts if re.search(SCRIPT[lang], t)]
    assert len(native) >= len(texts) // 3, f"{lang} {name}: few texts in the script: {texts}"
    wide = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    if wide > 0:
        shot = shots / f"{lang}-{name}-{size}-too-wide.png"
        page.screenshot(path=shot, full_page=True)
        past = page.evaluate(PAST_THE_EDGE)
        pytest.fail(f"{lang} {name}: the page is {wide}px wider than the screen ({shot}): {past}")
    clipped = page.evaluate(CLIPPED)
    assert not clipped, f"{lang} {name}: words cut off: {clipped}"


def bidding(snap: dict[str, Any]) -> bool:
    obs = snap["obs"]
    return bool(obs and obs["to_act"] == obs["seat"] and any("bid" in a for a in obs["legal"]))


def playing(snap: dict[str, Any]) -> bool:
    obs = snap["obs"]
    return bool(
        obs
        and obs["phase"] == "play"
        and obs["to_act"] == obs["seat"]
        and len(obs["trick"]) >= 1
        and snap["hold"] is None
    )


def close_dialog(page: Page, ident: str) -> None:
    page.click(f"[data-testid={ident}-close]")
    expect(page.locator(f"#{ident}")).to_be_hidden()


@pytest.mark.parametrize(("width", "height"), SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_screen_speaks_the_language_with_nothing_cut_off(
    page: Page, artifacts: Path, lang: str, width: int, height: int
) -> None:
    shots = artifacts / "languages"
    shots.mkdir(parents=True, exist_ok=True)
    size = f"{width}x{height}"
    page.set_viewport_size({"width": width, "height": height})
    page.goto(page.base_url + "/")  # type: ignore[attr-defined]
    page.wait_for_selector("[data-testid=start-game]")
    # the first screen has the picker; the page changes at once, without a reload
    page.evaluate("window.notReloaded = true")
    page.select_option("[data-testid=first-lang]", lang)
    page.wait_for_function(f"document.documentElement.lang === '{lang}'")
    expect(page.locator("[data-testid=start-game]")).to_have_text(
        json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))["setup.start"]
    )
    assert page.evaluate("window.notReloaded === true")
    check_screen(page, lang, "setup", shots, size)

    start_game(page, profile="pagat", seed=7, length="match")
    play_until(page, Choices(bid="min"), stop=bidding)
    check_screen(page, lang, "table-bidding", shots, size)
    play_until(page, Choices(bid="min"), stop=playing)
    page.click("#hand button.card.legal")  # a card lifted: the Play button names it
    check_screen(page, lang, "table-play", shots, size)
    page.keyboard.press("Escape")
    end = play_until(page, Choices(bid="min"))
    assert end["hold"] == "deal"
    check_screen(page, lang, "result", shots, size)

    page.click("[data-testid=btn-rules]")
    expect(page.locator("#dlg-rules")).to_be_visible()
    check_screen(page, lang, "rules", shots, size)
    close_dialog(page, "dlg-rules")
    page.click("[data-testid=btn-howto]")
    expect(page.locator("#dlg-howto")).to_be_visible()
    check_screen(page, lang, "howto", shots, size)
    close_dialog(page, "dlg-howto")
    page.click("[data-testid=btn-settings]")
    expect(page.locator("#dlg-settings")).to_be_visible()
    check_screen(page, lang, "settings", shots, size)
    close_dialog(page, "dlg-settings")

    page.click("[data-testid=btn-history]")
    page.wait_for_selector(".history-page li, .history-page [data-testid]")
    page.wait_for_function("() => !document.querySelector('#screen-history [aria-busy=true]')")
    page.wait_for_timeout(300)
    check_screen(page, lang, "history", shots, size)
    page.click("[data-testid=history-replay]")
    page.wait_for_selector("[data-testid=replay-trick]")
    check_screen(page, lang, "replay", shots, size)

    page.goto(page.base_url + "/#score")  # type: ignore[attr-defined]
    page.wait_for_selector("[data-testid=score-form]")
    page.click("[data-testid=score-team-0]")
    page.fill("[data-testid=score-bid]", DIGITS[lang][1] + DIGITS[lang][8])  # 18, as typed here
    page.select_option("[data-testid=score-outcome]", "points")
    page.fill("[data-testid=score-value]", "20")
    page.click("[data-testid=score-add]")
    expect(page.locator("[data-testid=score-table] tbody tr")).to_have_count(1)
    check_screen(page, lang, "score", shots, size)

    open_table(page)  # the game of this tab is rejoined first: the form once it is left
    page.check("[data-testid=where-room]")
    page.click("[data-testid=start-game]")
    page.wait_for_selector("body[data-screen=room]")
    check_screen(page, lang, "room", shots, size)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_numbers_plurals_and_card_names_follow_the_language(page: Page, lang: str) -> None:
    catalog = json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))
    page.goto(page.base_url + "/")  # type: ignore[attr-defined]
    page.wait_for_selector("[data-testid=start-game]")
    page.evaluate(f"window.twentynine.setSettings({{lang: '{lang}'}})")
    page.wait_for_function(f"document.documentElement.lang === '{lang}'")
    # the browser's own plural rules ask for the forms the catalog test demands
    categories = page.evaluate(f"new Intl.PluralRules('{lang}').resolvedOptions().pluralCategories")
    assert set(categories) == set(Locale.parse(lang).plural_form.tags) | {"other"}
    start_game(page, profile="pagat", seed=7, length="match")
    play_until(page, Choices(bid="min"), stop=playing)
    # card names and points come from the catalog, in the language's digits
    card = page.locator("#hand button.card").first
    # the card says its name in hidden text of its own (no aria-label: its name is its content)
    label = card.evaluate("e => e.getAttribute('aria-label') || e.textContent || ''")
    names = {v for k, v in catalog.items() if re.fullmatch(r"card\.[a-z]+_[a-z]+", k)}
    assert any(name in label for name in names), label
    status = page.locator("#status").inner_text()
    usual = DIGITS[lang]
    assert any(d in status for d in usual), status
    if usual != "0123456789":
        assert not re.search(r"[0-9]", re.sub(r"[JQKA]|10", "", status)), status
    # the other digits, chosen in the settings, apply at once
    page.click("[data-testid=btn-settings]")
    choice = "native" if usual == "0123456789" else "latn"
    page.select_option("[data-testid=set-digits]", choice)
    other = "०१२३४५६७८९" if choice == "native" else "0123456789"
    page.wait_for_function(f"() => /[{other}]/.test(document.querySelector('#status').innerText)")
    assert page.evaluate("window.twentynine.settings().digits") == choice
    # and the choices are remembered: after a reload the table speaks the same
    page.reload()
    page.wait_for_function(f"document.documentElement.lang === '{lang}'")
    wait_ready(page)
    assert re.search(f"[{other}]", page.locator("#status").inner_text())


def test_a_language_chosen_mid_game_redraws_the_table_in_place(page: Page) -> None:
    page.goto(page.base_url + "/")  # type: ignore[attr-defined]
    start_game(page, profile="pagat", seed=7, length="match")
    play_until(page, Choices(bid="min"), stop=playing)
    english_prompt = page.locator("[data-testid=prompt]").inner_text()
    page.evaluate("window.notReloaded = true")
    page.click("[data-testid=btn-settings]")
    page.select_option("#set-lang", "hi")
    page.wait_for_function("document.documentElement.lang === 'hi'")
    # the settings page itself is redrawn in Hindi, and stays open
    expect(page.locator("#dlg-settings-title")).to_have_text("सेटिंग्स")
    expect(page.locator("#set-lang")).to_be_focused()
    close_dialog(page, "dlg-settings")
    prompt = page.locator("[data-testid=prompt]").inner_text()
    assert prompt != english_prompt and re.search(SCRIPT["hi"], prompt), prompt
    assert page.evaluate("window.notReloaded === true")
    assert page.evaluate("window.twentynine.settings().lang") == "hi"
    assert page.evaluate("document.title") == "29 · ट्वेंटी-नाइन"


@pytest.mark.parametrize(
    ("locale", "expected"),
    [("bn-BD", "bn"), ("ne-NP", "ne"), ("hi-IN", "hi"), ("fr-FR", "en")],
)
def test_the_first_visit_speaks_the_browsers_language(
    browser: Browser, server: str, locale: str, expected: str
) -> None:
    context = browser.new_context(locale=locale, service_workers="block")
    try:
        page = context.new_page()
        page.goto(server + "/")
        page.wait_for_selector("[data-testid=start-game]")
        assert page.evaluate("document.documentElement.lang") == expected
        assert page.locator("[data-testid=first-lang]").input_value() == expected
    finally:
        context.close()


def test_a_server_refusal_is_worded_in_the_language(page: Page) -> None:
    page.goto(page.base_url + "/#room/ZZZZ-ZZZZ")  # type: ignore[attr-defined]
    page.wait_for_function("() => window.twentynine && window.twentynine.setSettings")
    page.evaluate("window.twentynine.setSettings({lang: 'bn'})")
    page.wait_for_function("document.documentElement.lang === 'bn'")
    page.evaluate("location.hash = '#room/YYYY-YYYY'")
    toast = page.locator("#toast")
    catalog = json.loads((I18N / "bn.json").read_text(encoding="utf-8"))
    expect(toast).to_have_text(catalog["error.reason.room_unknown"])
