"""The hint and the bid chances at the browser table (hint.js)."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Page, expect

from .driver import Choices, play_until, start_game

BOTS = ["tara", "bablu", "pip"]
HINT_LINE = re.compile(
    r"^.+: (makes in \d+% of the deals you cannot rule out"
    r"|the contract fails in \d+% of the deals you cannot rule out"
    r"|makes in \d+% whatever you play; the bidders take [\d.]+ card points"
    r"|[+-][\d.]+ game points expected)"
)


def my_play_turn(snap: dict[str, Any]) -> bool:
    obs = snap["obs"]
    return bool(
        obs
        and obs["phase"] == "play"
        and obs["to_act"] == obs["seat"]
        and snap["hold"] is None
        and len(obs["legal"]) > 1
    )


def my_bid_turn(snap: dict[str, Any]) -> bool:
    obs = snap["obs"]
    return bool(obs and obs["phase"] == "auction" and obs["to_act"] == obs["seat"])


def test_the_hint_button_shows_the_expert_s_card_in_one_line(page: Page) -> None:
    start_game(page, profile="pagat", seed=12, length="single", seats=BOTS, hint=True)
    snap = play_until(page, Choices(), stop=my_play_turn)
    button = page.locator("[data-testid=hint]")
    expect(button).to_be_visible()
    button.click()
    answer = page.locator("[data-testid=hint-answer][data-state=done]")
    expect(answer).to_be_visible(timeout=30_000)
    text = answer.inner_text()
    assert HINT_LINE.match(text), text
    assert "\n" not in text.strip()
    # it names one of the seat's legal cards first
    assert page.evaluate("window.twentynine.game.v") == snap["v"]


def test_the_hint_key_and_the_bid_chances_during_the_auction(page: Page) -> None:
    start_game(page, profile="pagat", seed=3, length="single", seats=BOTS, hint=True)
    play_until(page, Choices(), stop=my_bid_turn)
    page.keyboard.press("t")
    table = page.locator("[data-testid=advice-answer][data-state=done] [data-testid=advice-table]")
    expect(table).to_be_visible(timeout=20_000)
    expect(table.locator("tbody tr")).to_have_count(4)
    cells = table.locator("tbody tr").first.locator("td").all_inner_texts()
    assert all(re.fullmatch(r"\d+%", c) for c in cells[1:]), cells
    page.keyboard.press("i")
    line = page.locator("[data-testid=hint-answer][data-state=done]")
    expect(line).to_be_visible(timeout=20_000)
    assert re.match(r"^(bid \d+|pass): your four cards", line.inner_text()), line.inner_text()


def test_no_hint_unless_the_setup_asks_for_it(page: Page) -> None:
    start_game(page, profile="pagat", seed=12, length="match", seats=BOTS)
    play_until(page, Choices(), stop=my_play_turn)
    expect(page.locator("[data-testid=hint]")).to_have_count(0)
    page.keyboard.press("i")
    expect(page.locator("[data-testid=hint-answer]")).to_have_count(0)


def test_the_hint_is_offered_on_the_seat_s_turn_only(page: Page) -> None:
    start_game(page, profile="pagat", seed=12, length="single", seats=BOTS, hint=True)
    play_until(page, Choices(), stop=my_play_turn)
    expect(page.locator("[data-testid=hint]")).to_be_visible()
    snap = page.evaluate("window.twentynine.obs()")
    card = next(a["play"] for a in snap["legal"] if "play" in a)
    page.click(f"[data-testid=card-{card}]")
    page.click("[data-testid=play]")
    page.wait_for_function("() => window.twentynine.obs().to_act !== 0")
    expect(page.locator("[data-testid=hint]")).to_have_count(0)
