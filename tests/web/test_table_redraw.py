"""A move redraws only what it changed: the cards still in the hand, the seat
plates and the contract's box are the same elements before and after a move
(dom.js's patch), so a focused control keeps its focus and the browser restyles
little. The trick's cards take their size from the felt's height, handed down as
``--felt-h`` and kept up to date as the page changes size."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page

from .driver import (
    Choices,
    play_until,
    plays,
    start_game,
    wait_ready,
    wait_still,
    wait_version_after,
)

SEATS = ["raju", "meera", "tara"]

MARK = """() => { for (const e of document.querySelectorAll(
  '#hand button.card, #seats .seat, #seats .plate, #status')) e.__kept = true; }"""

KEPT = """() => ({
  hand: [...document.querySelectorAll('#hand button.card')]
    .map((e) => [e.dataset.card, !!e.__kept]),
  seats: [...document.querySelectorAll('#seats .seat')].map((e) => !!e.__kept),
  plates: [...document.querySelectorAll('#seats .plate')].map((e) => !!e.__kept),
  status: !!document.querySelector('#status').__kept,
})"""

FELT = """() => { const f = document.querySelector('#felt'), cs = getComputedStyle(f);
  return { said: parseFloat(f.style.getPropertyValue('--felt-h')),
    inner: f.clientHeight - parseFloat(cs.paddingTop) - parseFloat(cs.paddingBottom) }; }"""

# the width a trick's card has now (a probe as wide as --tc, the trick cards' width)
TRICK_CARD = """() => { const probe = document.createElement('div');
  probe.style.width = 'var(--tc)'; document.querySelector('.trick').append(probe);
  const w = probe.getBoundingClientRect().width; probe.remove(); return w; }"""


def mine_to_play(snap: dict[str, Any]) -> bool:
    obs = snap["obs"]
    mine = bool(obs and obs["to_act"] == obs["seat"])
    return mine and obs["phase"] == "play" and not snap["hold"]


def test_a_move_keeps_the_elements_it_did_not_change(page: Page) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    start_game(page, seed=11, seats=SEATS)
    snap = play_until(page, Choices(), stop=mine_to_play)
    wait_still(page)
    before = list(snap["obs"]["hand"])
    page.evaluate(MARK)
    card = plays(snap["obs"])[0]
    page.click(f"[data-testid=card-{card}]")
    page.click("[data-testid=play]")
    wait_version_after(page, snap["v"])
    # the bots answer; then the page waits on the player again (or shows the trick)
    page.wait_for_function(f"() => window.twentynine.game.v > {snap['v'] + 1}")
    wait_ready(page)
    wait_still(page)
    kept = page.evaluate(KEPT)
    shown = [c for c, _ in kept["hand"]]
    assert card not in shown and sorted(shown) == sorted(c for c in before if c != card)
    assert all(k for _, k in kept["hand"]), kept["hand"]
    assert all(kept["seats"]) and len(kept["seats"]) == 4, kept
    assert all(kept["plates"]) and len(kept["plates"]) == 4, kept
    assert kept["status"], kept


def test_the_felt_hands_its_height_to_the_trick(page: Page) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})
    start_game(page, seed=11, seats=SEATS)
    play_until(page, Choices(), stop=mine_to_play)
    felt = page.evaluate(FELT)
    assert felt["said"] > 0 and abs(felt["said"] - felt["inner"]) <= 1, felt
    # a smaller window: the felt's height follows, and the trick's cards with it
    width_before = page.evaluate(TRICK_CARD)
    page.set_viewport_size({"width": 1280, "height": 620})
    page.wait_for_function(
        "(h) => parseFloat(document.querySelector('#felt').style.getPropertyValue('--felt-h')) < h",
        arg=felt["said"],
    )
    felt_after = page.evaluate(FELT)
    assert abs(felt_after["said"] - felt_after["inner"]) <= 1, felt_after
    width_after = page.evaluate(TRICK_CARD)
    assert width_after < width_before, (width_before, width_after)
