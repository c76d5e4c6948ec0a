"""A whole match to ±6 under ``modern``, with a double that stands.

The seed is chosen by playing the match in-process first (the server's own
game and bots, South doubling whenever it may): the first seed whose match
has a double the bidder accepts and ends within a few deals. The browser
then plays that match through the page, and must reach the same end.
"""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page, expect

from .driver import Choices, play_until, simulate, start_game

SEATS = ["tara", "bablu", "pip"]
SETUP = {
    "profile": "modern",
    "length": "match",
    "seats": [{"human": True}, *({"bot": b} for b in SEATS)],
}


def policy() -> Choices:
    return Choices(bid="pass", double=True, redouble=False, pair=True)


def pick_seed() -> tuple[int, Any]:
    for seed in range(1, 300):
        sim = simulate({**SETUP, "seed": seed}, policy, max_deals=12)
        match = sim.game.match
        doubled = [d for d in match.deals if d.doubling == "double"]
        if match.winner is not None and doubled and len(match.deals) <= 5:
            return seed, sim
    raise AssertionError("no seed gives a short match with a double")


def test_a_modern_match_to_six_with_a_double_accepted(page: Page) -> None:
    seed, sim = pick_seed()
    start_game(page, profile="modern", seed=seed, length="match", target=6, seats=SEATS)
    doubles: list[dict[str, Any]] = []

    def watch(snap: dict[str, Any]) -> None:
        events = page.evaluate("window.twentynine.game.events[0] || []")
        doubles.extend(e for e in events if e["type"] == "double" and e not in doubles)

    end = play_until(page, policy(), deals=None, on_step=watch)
    assert end["over"]
    view = end["view"]
    assert view["winner"] == sim.game.match.winner
    assert view["score"] == sim.game.match.score
    assert max(abs(x) for x in view["score"]) >= 6
    assert doubles, "no double was seen on the table"
    panel = page.locator("[data-testid=result]")
    expect(panel).to_be_visible()
    team = "North–South" if view["winner"] == 0 else "East–West"
    expect(panel.locator("h2")).to_contain_text(team)
    expect(page.locator("[data-testid=result-new-game]")).to_be_visible()
    assert page.locator("[data-testid=next-deal]").count() == 0
