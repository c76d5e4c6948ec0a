"""The table draws a section again only when what it draws from changed (board.js).

A card chosen in the hand (a tap, an arrow key) moves the selected card's mark
and draws the controls, and nothing else: the seats, the status, the trick and
the recent events are not touched, and no section is built anew. A card played
changes the trick and the seats. A language chosen mid-game redraws every
section in its words, and the language is part of every section's key (a
drawing of the table after the catalog changed is in the new words even
without the settings' full redraw). And whatever the table left as it was is
what a full redraw would draw: at every step of a deal, in a game against the
bots and in a hot-seat game, drawing every section anew changes nothing.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from playwright.sync_api import Page, expect

from .driver import (
    Choices,
    find_seed,
    play_until,
    plays,
    start_game,
    wait_still,
    wait_version_after,
)

SEATS = ["raju", "meera", "tara"]
SECTIONS = ["status", "strip", "seats", "trick", "hand", "controls", "prompt"]
DEVANAGARI = re.compile("[\u0900-\u097f]")


def following(snap: dict[str, Any]) -> bool:
    """The player's turn to play a card to a trick already led, with a choice of cards."""
    obs = snap["obs"]
    return bool(
        obs
        and obs["phase"] == "play"
        and obs["to_act"] == obs["seat"]
        and not snap["hold"]
        and obs["trick"]
        and len(plays(obs)) >= 2
    )


# Mutations of each section, and the elements built meanwhile (a section drawn
# builds its whole drawing before it is patched in).
WATCH = """() => {
  const seen = (window.__seen = { made: 0, hand: [] });
  const all = { subtree: true, childList: true, attributes: true, characterData: true };
  for (const id of ['seats', 'status', 'trick', 'strip']) {
    seen[id] = 0;
    new MutationObserver((list) => { seen[id] += list.length; })
      .observe(document.getElementById(id), all);
  }
  new MutationObserver((list) => {
    for (const m of list)
      seen.hand.push(`${m.type} ${m.attributeName || ''} ${m.target.dataset?.card || ''}`);
  }).observe(document.getElementById('hand'), all);
  for (const name of ['createElement', 'createElementNS']) {
    const own = Document.prototype[name];
    document[name] = function (...args) { seen.made += 1; return own.apply(this, args); };
  }
  for (const e of document.querySelectorAll('#hand button.card')) e.__kept = true;
}"""

SEEN = """() => { const s = window.__seen; const out = JSON.parse(JSON.stringify(s));
  s.made = 0; s.hand = []; for (const id of ['seats', 'status', 'trick', 'strip']) s[id] = 0;
  out.kept = [...document.querySelectorAll('#hand button.card')].every((e) => e.__kept);
  return out; }"""

SELECTED = """() => [...document.querySelectorAll('#hand button.card')].map((e) =>
  [e.dataset.card, e.classList.contains('selected'), e.getAttribute('aria-pressed')])"""


def assert_only_the_selection_moved(seen: dict[str, Any], cards: list[str]) -> None:
    for section in ("seats", "status", "trick", "strip"):
        assert seen[section] == 0, (section, seen)
    # in the hand, the mark of the card left and of the card chosen: no card built anew
    assert seen["kept"], seen
    assert seen["hand"], seen
    for mutation in seen["hand"]:
        kind, attribute, card = mutation.split(" ")
        assert kind == "attributes" and attribute in ("class", "aria-pressed"), seen["hand"]
        assert card in cards, (mutation, cards)
    # the controls' panel is drawn (the Play button's words); nothing else is built
    assert seen["made"] < 40, seen


def test_choosing_a_card_draws_only_its_mark_and_the_controls(page: Page) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    start_game(page, seed=11, seats=SEATS)
    snap = play_until(page, Choices(), stop=following)
    wait_still(page)
    legal = plays(snap["obs"])
    page.evaluate(WATCH)

    # a tap on a card
    page.click(f"[data-testid=card-{legal[0]}]")
    page.wait_for_function(f"() => window.twentynine.ui.selected === '{legal[0]}'")
    assert_only_the_selection_moved(page.evaluate(SEEN), [legal[0]])
    marks = {card: (on, pressed) for card, on, pressed in page.evaluate(SELECTED)}
    assert marks[legal[0]] == (True, "true"), marks
    assert all(not on for card, (on, _) in marks.items() if card != legal[0]), marks
    expect(page.locator("#play-button")).to_be_enabled()
    expect(page.locator("#play-button")).to_be_focused()

    # an arrow key moves the choice to the next legal card
    page.keyboard.press("ArrowRight")
    page.wait_for_function(f"() => window.twentynine.ui.selected === '{legal[1]}'")
    assert_only_the_selection_moved(page.evaluate(SEEN), [legal[0], legal[1]])
    marks = {card: (on, pressed) for card, on, pressed in page.evaluate(SELECTED)}
    assert marks[legal[0]] == (False, "false") and marks[legal[1]] == (True, "true"), marks

    # the card played: the trick and the seats change
    page.click("[data-testid=play]")
    wait_version_after(page, snap["v"])
    page.wait_for_function(f"() => !!document.querySelector('#trick [data-card=\"{legal[1]}\"]')")
    seen = page.evaluate(SEEN)
    assert seen["trick"] > 0 and seen["seats"] > 0, seen
    assert legal[1] not in [c for c, _, _ in page.evaluate(SELECTED)]


def leading_after_a_trick(snap: dict[str, Any]) -> bool:
    """The trick just taken is still on show, and the player leads the next."""
    obs = snap["obs"]
    mine = bool(obs and obs["phase"] == "play" and obs["to_act"] == obs["seat"])
    return snap["hold"] == "trick" and mine


@cache
def lead_seed() -> int:
    """A deal where the player wins a trick (not the last) and so leads the next."""
    seats = [{"human": True}] + [{"bot": b} for b in SEATS]
    setup = {"profile": "pagat", "length": "single", "seats": seats}

    def leads(obs: dict[str, Any]) -> bool:
        after_a_trick = obs["phase"] == "play" and not obs["trick"] and bool(obs["tricks"])
        return after_a_trick and len(plays(obs)) >= 2

    return find_seed(setup, Choices, leads)


def test_the_focused_play_button_stays_when_the_trick_is_taken_away(page: Page) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    start_game(page, seed=lead_seed(), seats=SEATS)
    snap = play_until(page, Choices(), stop=leading_after_a_trick)
    assert leading_after_a_trick(snap), snap
    wait_still(page)
    card = plays(snap["obs"])[0]
    # a card chosen while the trick is still on show, then the trick taken away (N)
    page.click(f"[data-testid=card-{card}]")
    expect(page.locator("#play-button")).to_be_focused()
    page.evaluate("document.querySelector('#play-button').__kept = true")
    page.keyboard.press("n")
    wait_version_after(page, snap["v"])
    page.wait_for_function("() => !document.querySelector('#next-trick')")
    # the same button, still focused, still for that card
    assert page.evaluate("document.querySelector('#play-button').__kept === true")
    expect(page.locator("#play-button")).to_be_focused()
    expect(page.locator("#play-button")).to_be_enabled()
    assert page.evaluate("window.twentynine.ui.selected") == card


# Every word a section shows or says (its text, and its names for a screen reader).
TEXTS = """(ids) => Object.fromEntries(ids.map((id) => {
  const el = document.getElementById(id);
  const said = [...el.querySelectorAll('[aria-label], [title]')]
    .map((e) => `${e.getAttribute('aria-label') || ''} ${e.getAttribute('title') || ''}`);
  return [id, [el.textContent, ...said].join(' | ')];
}))"""

# The catalog changed under the table, and the table drawn as after any change
# (render, not the settings' redraw): only the sections' keys can say it changed.
ENGLISH_AGAIN = """async () => {
  const i18n = await import('/static/js/i18n.js');
  await i18n.loadCatalog('en');
  (await import('/static/js/board.js')).render();
}"""


def test_a_language_chosen_mid_game_redraws_every_section(page: Page) -> None:
    start_game(page, seed=11, seats=SEATS)
    play_until(page, Choices(bid="min"), stop=following)
    wait_still(page)
    english = page.evaluate(TEXTS, SECTIONS)
    drawn = page.evaluate("window.twentynine.board().drawn")
    page.click("[data-testid=btn-settings]")
    page.select_option("#set-lang", "hi")
    page.wait_for_function("document.documentElement.lang === 'hi'")
    page.click("[data-testid=dlg-settings-close]")
    expect(page.locator("#dlg-settings")).to_be_hidden()
    hindi = page.evaluate(TEXTS, SECTIONS)
    for section in SECTIONS:
        assert hindi[section] != english[section], section
        assert DEVANAGARI.search(hindi[section]), (section, hindi[section])
    after = page.evaluate("window.twentynine.board().drawn")
    for section in ("status", "strip", "seats", "trick", "hand", "controls", "prompt"):
        assert after.get(section, 0) > drawn.get(section, 0), (section, drawn, after)
    # back to English by the catalog alone: every section's key holds the language
    page.evaluate(ENGLISH_AGAIN)
    assert page.evaluate(TEXTS, SECTIONS) == english


# At every change of the game (and wherever a test asks), the table as it is
# compared with the table drawn anew whole. A trick card's entry (the class
# `enter`) is the one mark a drawing does not repeat: it is left out.
CHECK = """() => {
  const ids = ['status', 'strip', 'seats', 'trick', 'hand', 'controls', 'prompt', 'result',
    'handover'];
  const shown = (el) => {
    const copy = el.cloneNode(true);
    for (const e of copy.querySelectorAll('.enter')) e.classList.remove('enter');
    return copy.outerHTML;
  };
  const snap = () => Object.fromEntries(ids.map((id) => [id, shown(document.getElementById(id))]));
  window.__stale = [];
  window.__checked = 0;
  window.__check = (why) => {
    if (document.body.dataset.screen !== 'table') return;
    const before = snap();
    window.twentynine.redraw();
    const after = snap();
    for (const id of ids)
      if (before[id] !== after[id])
        window.__stale.push({ why, id, before: before[id], after: after[id] });
    window.__checked += 1;
  };
  const marks = () => `v${document.body.dataset.v} busy ${document.body.dataset.busy}`;
  new MutationObserver(() => window.__check(marks()))
    .observe(document.body, { attributes: true, attributeFilter: ['data-v', 'data-busy'] });
}"""


def stale(page: Page) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = page.evaluate("window.__stale")
    return found


def check_each_step(page: Page) -> Any:
    """An on_step for play_until: a card chosen and let go, a seat claimed, each compared too."""

    def step(snap: dict[str, Any]) -> None:
        if snap["handover"] is not None:
            page.click("[data-testid=claim-seat]")
            page.wait_for_function("() => window.twentynine.ui.handover === null")
            page.evaluate("window.__check('claimed')")
            return
        obs = snap["obs"]
        if obs and obs["phase"] == "play" and obs["to_act"] == obs["seat"] and not snap["hold"]:
            legal = plays(obs)
            if len(legal) >= 2:
                page.click(f"[data-testid=card-{legal[-1]}]")
                page.wait_for_function(f"() => window.twentynine.ui.selected === '{legal[-1]}'")
                page.evaluate("window.__check('chosen')")
                page.keyboard.press("Escape")
                page.wait_for_function("() => window.twentynine.ui.selected === null")
                page.evaluate("window.__check('let go')")
        assert not stale(page), stale(page)[:2]

    return step


def test_what_the_table_left_is_what_a_full_redraw_draws(page: Page) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    start_game(page, seed=11, seats=SEATS)
    page.evaluate(CHECK)
    end = play_until(page, Choices(bid="min"), on_step=check_each_step(page))
    assert end["hold"] == "deal"
    assert not stale(page), stale(page)[:2]
    assert page.evaluate("window.__checked") > 40


def test_what_a_hot_seat_table_left_is_what_a_full_redraw_draws(page: Page) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    start_game(page, profile="pagat", seed=8, length="single", seats=["tara", "human", "bablu"])
    page.evaluate(CHECK)
    end = play_until(page, Choices(bid="min"), on_step=check_each_step(page))
    assert end["hold"] == "deal"
    assert not stale(page), stale(page)[:2]
    assert page.evaluate("window.__checked") > 40
