"""Taking back a card against bots, and a reload that finds the game again."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page, expect

from .driver import Choices, play_until, start_game


def my_play_turn(snap: dict[str, Any]) -> bool:
    obs = snap["obs"]
    return bool(
        obs and obs["phase"] == "play" and obs["to_act"] == obs["seat"] and snap["hold"] is None
    )


def test_undo_takes_back_my_last_card(page: Page) -> None:
    start_game(page, profile="arcade", seed=4, length="single", seats=["tara", "bablu", "pip"])
    before = play_until(page, Choices(), stop=my_play_turn)
    hand = before["obs"]["hand"]
    expect(page.locator("[data-testid=undo]")).to_have_count(0)
    card = next(a["play"] for a in before["obs"]["legal"] if "play" in a)
    page.click(f"[data-testid=card-{card}]")
    page.click("[data-testid=play]")
    undo = page.locator("[data-testid=undo]")
    expect(undo).to_be_visible()
    undo.click()
    page.wait_for_function(
        f"() => window.twentynine.obs().hand.includes('{card}') && window.twentynine.idle()"
    )
    after = page.evaluate("window.twentynine.obs()")
    assert after["hand"] == hand and after["to_act"] == 0
    expect(page.locator(f"[data-testid=card-{card}]")).to_be_visible()


def test_no_undo_in_a_match_that_counts(page: Page) -> None:
    start_game(page, profile="pagat", seed=4, length="match", seats=["tara", "bablu", "pip"])
    snap = play_until(page, Choices(), stop=my_play_turn)
    card = next(a["play"] for a in snap["obs"]["legal"] if "play" in a)
    page.click(f"[data-testid=card-{card}]")
    page.click("[data-testid=play]")
    page.wait_for_function(f"() => window.twentynine.game.v > {snap['v']}")
    expect(page.locator("[data-testid=undo]")).to_have_count(0)


def test_a_reload_rejoins_the_game(page: Page) -> None:
    start_game(page, profile="pagat", seed=6, length="single", seats=["tara", "bablu", "pip"])
    snap = play_until(page, Choices(), stop=my_play_turn)
    page.reload()
    page.wait_for_function("() => window.twentynine && window.twentynine.game.setup")
    again = play_until(page, Choices(), stop=my_play_turn)
    assert again["obs"]["hand"] == snap["obs"]["hand"]
    assert again["v"] == snap["v"]
