"""The table uses the screen it has: on a desktop a large trick and a hand laid
side by side, on a phone a hand that fits; seat plates that tell team, bid and
turn; one line that says what to do now."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest
from playwright.sync_api import Page

from .driver import Choices, play_until, start_game, wait_still


def first_play_turn(snap: dict[str, Any]) -> bool:
    obs = snap["obs"]
    return bool(
        obs
        and obs["phase"] == "play"
        and obs["to_act"] == obs["seat"]
        and snap["hold"] is None
        and len(obs["hand"]) == 8
        and len(obs["trick"]) >= 1
    )


def boxes(page: Page, selector: str) -> list[dict[str, float]]:
    found: list[dict[str, float]] = page.eval_on_selector_all(
        selector,
        "els => els.map(e => { const r = e.getBoundingClientRect();"
        " return {x: r.x, y: r.y, width: r.width, height: r.height}; })",
    )
    return found


def play_to_a_full_hand(page: Page) -> dict[str, Any]:
    start_game(page, profile="pagat", seed=11, length="match", seats=["meera", "anil", "raju"])
    snap = play_until(page, Choices(bid="min"), stop=first_play_turn)
    page.wait_for_timeout(400)  # the card played last settles
    wait_still(page)  # and the hand has closed up behind it
    return snap


def test_the_desktop_table_uses_its_space(page: Page) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})
    snap = play_to_a_full_hand(page)
    obs = snap["obs"]
    # the hand: eight cards side by side, none over another
    hand = boxes(page, "#hand button.card")
    assert len(hand) == 8
    for a, b in pairwise(hand):
        assert a["x"] + a["width"] <= b["x"] + 0.5, "hand cards overlap with room to spare"
    # a large trick: its cards are as wide as the hand's, the felt takes most of the height
    wait_still(page)
    played = boxes(page, ".trick-cards .played")
    # the trick cards at about a hand card's width (the felt gives up 50 px to the steady dock)
    assert played and min(b["width"] for b in played) >= 95
    felt = boxes(page, "#felt")[0]
    assert felt["height"] >= 0.5 * 800
    # every plate names its team; the one to act says so; the bidder's shows the bid
    for seat in range(4):
        tag = page.inner_text(f"[data-testid=team-{seat}]")
        assert tag == ("N–S" if seat % 2 == 0 else "E–W"), (seat, tag)
    assert page.locator("[data-testid=turn-0]").is_visible()
    assert page.locator("[data-testid^=turn-]").count() == 1
    bidder = page.locator(f"[data-testid=seat-{obs['bidder']}] .badge-bidder")
    assert bidder.inner_text() == f"Bid {obs['bid']}"
    # one place says what to do now, marked as the player's turn
    prompt = page.locator("[data-testid=prompt]")
    assert prompt.is_visible() and prompt.inner_text().strip()
    assert "my-turn" in (prompt.get_attribute("class") or "")
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0


@pytest.mark.parametrize(("width", "height"), [(360, 740), (390, 844), (800, 700)])
def test_the_hand_fits_a_narrower_screen(page: Page, width: int, height: int) -> None:
    page.set_viewport_size({"width": width, "height": height})
    play_to_a_full_hand(page)
    # measure the hand at rest, not while the second batch's cards are still flying in
    wait_still(page)
    hand = boxes(page, "#hand button.card")
    assert len(hand) == 8
    assert hand[0]["x"] >= 0 and hand[-1]["x"] + hand[-1]["width"] <= width
    # each card still shows its corner (rank and suit) beside the next one
    for a, b in pairwise(hand):
        assert b["x"] - a["x"] >= 0.2 * a["width"]
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
