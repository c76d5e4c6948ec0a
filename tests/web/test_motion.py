"""The table's motion: the deal, the cards of a trick, the sweep, the result.

Each test plays a real game against bots on the test server and reads what
motion.js says it started (``window.twentynine.motion()``) and what the
browser says is running (``document.getAnimations()``). The layout-shift and
frame-rate figures come from ``twentynine.benchmarks.animations``, the same
code as ``twentynine bench browser``'s "animations" figure.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

from twentynine.benchmarks import animations

from .driver import Choices, play_until, snapshot, start_game

SEATS = ["raju", "meera", "tara"]


def played(page: Page) -> list[str]:
    kinds: list[str] = page.evaluate("window.twentynine.motion().played")
    return kinds


def at_first_play(page: Page) -> None:
    def mine_to_play(snap: dict[str, Any]) -> bool:
        obs = snap["obs"]
        mine = bool(obs and obs["to_act"] == obs["seat"])
        return mine and obs["phase"] == "play" and not snap["hold"]

    play_until(page, Choices(), stop=mine_to_play)


def test_the_deal_flies_out_by_batches(page: Page) -> None:
    start_game(page, seed=11, seats=SEATS)
    # each card's flight starts at its own time, after the table's first drawing: once
    # none is running or waiting to start, the first batch is dealt
    page.wait_for_function(
        """() => {
          const m = window.twentynine.motion();
          return m.played.filter((k) => k === 'deal').length >= 4 && m.running === 0;
        }"""
    )
    first = played(page).count("deal")
    # the first batch: four cards of the hand and each other seat's four backs
    assert first == 16, played(page)
    # every card waited unseen only until its flight started
    assert page.locator(".undealt").count() == 0
    at_first_play(page)
    # the second batch flew too: four more for every seat, but for a back a seat had
    # already played to the first trick when its flight was due (the flight of a card
    # that left the fan is not started)
    page.wait_for_function("() => window.twentynine.motion().running === 0")
    before_mine = len(snapshot(page)["obs"]["trick"])
    assert 32 - before_mine <= played(page).count("deal") <= 32, (before_mine, played(page))
    assert page.locator(".undealt").count() == 0


def test_a_card_flies_to_the_trick_and_the_trick_is_swept_to_its_winner(
    page: Page, artifacts: Path
) -> None:
    start_game(page, seed=11, seats=SEATS)
    at_first_play(page)
    before = len(played(page))
    page.locator("#hand .card.legal").first.click()
    page.click("[data-testid=play]")
    page.wait_for_timeout(120)
    page.screenshot(path=str(artifacts / "motion-card-flying.png"))
    page.wait_for_function("() => window.twentynine.game.hold === 'trick'")
    page.wait_for_timeout(200)
    page.screenshot(path=str(artifacts / "motion-trick-won.png"))
    kinds = played(page)[before:]
    assert kinds.count("play") >= 1 and "trick" in kinds and "hand" in kinds, kinds
    page.click("[data-testid=next-trick]")
    # the trick's cards leave as copies over the page, then are gone
    page.wait_for_function("() => document.querySelectorAll('.motion-ghost').length === 4")
    page.screenshot(path=str(artifacts / "motion-sweep.png"))
    page.wait_for_function("() => !document.querySelector('.motion-ghost')")
    assert played(page)[before:].count("sweep") == 4


def test_the_result_arrives_with_the_change_of_score(page: Page) -> None:
    start_game(page, seed=11, seats=SEATS)
    end = play_until(page, Choices(bid="min"))
    assert end["hold"] == "deal"
    page.wait_for_selector("[data-testid=result]")
    kinds = played(page)
    assert "result" in kinds and "score" in kinds, kinds


def test_a_trick_makes_no_layout_shift(page: Page, artifacts: Path) -> None:
    for size in ({"width": 1280, "height": 800}, {"width": 390, "height": 844}):
        page.set_viewport_size(size)
        start_game(page, seed=11, seats=SEATS)
        at_first_play(page)
        figures = animations.measure_trick(page, throttle=1)
        assert figures["motions"].get("play", 0) >= 1 and figures["motions"].get("sweep") == 4
        shifts = json.dumps(figures["shifts"], indent=1)
        (artifacts / f"layout-shift-{size['width']}.json").write_text(shifts)
        assert figures["layout_shift"] == 0, (size, shifts)


def test_frame_rate_of_a_trick_under_cpu_throttling(page: Page, artifacts: Path) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    start_game(page, seed=11, seats=SEATS)
    at_first_play(page)
    figures = animations.measure_trick(page, throttle=4, frames="presented")
    (artifacts / "animations.json").write_text(json.dumps(figures, indent=2))
    assert figures["frames"] > 30
    assert figures["motions"].get("sweep") == 4
    # most frames a motion wants are put on the screen (a loaded machine drops some)
    assert figures["shown"] > figures["frames"] / 2, figures
    at_first_play(page)
    figures = animations.measure_trick(page, throttle=4, frames="raf")
    assert figures["motions"].get("sweep") == 4
    # most frames of the page's thread are drawn at the display's rate; the long ones are renders
    assert figures["median_ms"] < 34, figures


NO_ANIMATION = """() => {
  window.__animations = 0;
  const look = () => {
    window.__animations = Math.max(window.__animations, document.getAnimations().length);
    requestAnimationFrame(look);
  };
  look();
}"""


def _no_motion_through_a_trick(page: Page) -> None:
    start_game(page, seed=11, seats=SEATS)
    page.evaluate(NO_ANIMATION)
    at_first_play(page)
    page.locator("#hand .card.legal").first.click()
    page.click("[data-testid=play]")
    page.wait_for_function("() => window.twentynine.game.hold === 'trick'")
    page.click("[data-testid=next-trick]")
    page.wait_for_timeout(600)
    assert page.evaluate("window.__animations") == 0
    assert played(page) == []
    assert page.locator(".motion-ghost").count() == 0


def test_the_reduced_motion_setting_runs_no_animation(page: Page) -> None:
    page.goto(page.base_url + "/")  # type: ignore[attr-defined]
    page.wait_for_function("() => window.twentynine")
    page.evaluate("window.twentynine.setSettings({ motion: 'reduced' })")
    _no_motion_through_a_trick(page)


def test_the_system_preference_for_reduced_motion_runs_no_animation(page: Page) -> None:
    page.emulate_media(reduced_motion="reduce")
    _no_motion_through_a_trick(page)
