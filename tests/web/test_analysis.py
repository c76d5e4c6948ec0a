"""The analysis in the replay viewer, in chromium.

A deal played to its end against bots is replayed: the analysis arrives from
the server, every card of the deal is listed trick by trick and coloured by its
cost exactly as the server's analysis says, the card on the table carries the
same colour, the chart has a point per judged decision and a marker at the
current step, a turning point takes the replay to its step, and the switch
between "every card known" and "as each seat saw it" recolours everything by
the other view.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from twentynine.services.analysis import analyse_record

from .driver import Choices, game_handle, play_until, simulate, start_game

BOTS = ["tara", "bablu", "pip"]
SETUP = {
    "profile": "pagat",
    "length": "single",
    "seats": [{"human": True}, *({"bot": b} for b in BOTS)],
}


def cost_all(row: dict[str, Any]) -> str:
    """The colour of a card with every card known (the viewer's rule, from the JSON)."""
    if row["dd_outcome_lost"]:
        return "turning"
    cost = row["dd_cost_points"]
    return "free" if cost == 0 else "minor" if cost <= 2 else "major"


def cost_seat(row: dict[str, Any]) -> str:
    view = row["seat_view"]
    if view is None:
        return "forced"
    cost = view["cost_score"]
    return (
        "free" if cost < 0.05 else "minor" if cost < 0.2 else "major" if cost < 0.5 else "turning"
    )


def a_seed_with_a_turning_point() -> int:
    """A seed whose deal (played as the browser will play it) has a card that changed
    the result with every card known."""
    for seed in range(1, 40):
        game = simulate({**SETUP, "seed": seed}, Choices, max_deals=1).game
        deals = analyse_record(game.record(), 1, seat_view=False).deals
        if any(a.turning for a in deals[0].actions if a.action.kind == "play"):
            return seed
    raise AssertionError("no seed with a turning point")


def test_the_replay_shows_each_card_s_cost_a_chart_and_the_turning_points(
    page: Page, artifacts: Path
) -> None:
    seed = a_seed_with_a_turning_point()
    start_game(page, profile="pagat", seed=seed, length="single", seats=BOTS)
    play_until(page, Choices(), deals=1)
    handle = game_handle(page)
    page.goto(f"{page.base_url}/#replay/{handle['id']}")  # type: ignore[attr-defined]
    panel = page.locator("[data-testid=analysis]")
    expect(panel).to_have_attribute("data-state", "ready", timeout=90_000)
    expect(panel).to_have_attribute("data-mode", "all")

    url = f"{page.base_url}/api/games/{handle['id']}/analysis?token={handle['token']}&deal=0"  # type: ignore[attr-defined]
    response = page.request.get(url)
    assert response.ok
    analysis: dict[str, Any] = response.json()["analysis"]
    plays = [a for a in analysis["actions"] if "play" in a["action"]]

    cards = page.locator("[data-testid=analysis-card]")
    expect(cards).to_have_count(len(plays))
    shown = cards.evaluate_all("els => els.map(e => [Number(e.dataset.index), e.dataset.cost])")
    assert shown == [[a["index"], cost_all(a)] for a in plays]

    # the chart: one point per decision valued with every card known
    chart = page.locator("[data-testid=analysis-chart]")
    judged = [a for a in analysis["actions"] if "dd_outcome_after" in a]
    expect(chart).to_have_attribute("data-points", str(len(judged)))

    # a turning point takes the replay to its step; the card on the table is red
    turning = [t for t in analysis["turning_points"] if "all-hands" in t["kinds"]]
    items = page.locator("[data-testid=analysis-turning-point]")
    expect(items).to_have_count(len(turning))
    first = next(t for t in turning if "play" in analysis["actions"][t["index"]]["action"])
    row = analysis["actions"][first["index"]]
    page.locator(f"[data-testid=analysis-turning-point][data-index='{first['index']}']").click()
    felt = page.locator("[data-testid=replay-felt]")
    expect(felt).to_have_attribute("data-step", str(first["index"] + 1))
    played = page.locator(f"[data-testid=replay-played-{row['seat']}]")
    expect(played).to_have_attribute("data-card", row["action"]["play"])
    expect(played).to_have_attribute("data-cost", "turning")
    expect(page.locator("[data-testid=analysis-now]")).to_have_attribute("data-cost", "turning")
    expect(page.locator("[data-testid=analysis-chart-now]")).to_have_count(1)
    page.screenshot(path=str(artifacts / "analysis-all-1280x800.png"), full_page=True)

    # from the seat's view: the other colours, the other chart
    page.click("[data-testid=analysis-mode-seat]")
    expect(panel).to_have_attribute("data-mode", "seat")
    expect(page.locator("[data-testid=analysis-mode-seat]")).to_have_attribute(
        "aria-checked", "true"
    )
    shown = cards.evaluate_all("els => els.map(e => [Number(e.dataset.index), e.dataset.cost])")
    assert shown == [[a["index"], cost_seat(a)] for a in plays]
    seat_points = [
        a
        for a in analysis["actions"]
        if a["seat_view"] and a["seat_view"]["p_make"] is not None and a["stage"] != "auction"
    ]
    expect(chart).to_have_attribute("data-points", str(len(seat_points)))
    expect(played).to_have_attribute("data-cost", cost_seat(row))
    seat_turning = [t for t in analysis["turning_points"] if "seat-view" in t["kinds"]]
    if seat_turning:
        expect(items).to_have_count(len(seat_turning))
    else:
        expect(page.locator("[data-testid=analysis-turning-none]")).to_be_visible()
    expect(page.locator("[data-testid=analysis-now]")).to_contain_text(re.compile(r"\d+%"))
    page.set_viewport_size({"width": 390, "height": 844})
    width: int = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert width <= 0
    page.screenshot(path=str(artifacts / "analysis-seat-390x844.png"), full_page=True)

    # a card of the list goes to its step, and back to every card known
    last = plays[-1]
    page.locator(f"[data-testid=analysis-card][data-index='{last['index']}']").click()
    expect(felt).to_have_attribute("data-step", str(last["index"] + 1))
    page.click("[data-testid=analysis-mode-all]")
    expect(panel).to_have_attribute("data-mode", "all")
    expect(page.locator(f"[data-testid=replay-played-{last['seat']}]")).to_have_attribute(
        "data-cost", cost_all(last)
    )


def test_the_page_says_when_the_analysis_cannot_be_had(page: Page) -> None:
    start_game(page, profile="arcade", seed=4, length="single", seats=BOTS)
    play_until(page, Choices(), deals=1)
    handle = game_handle(page)
    page.route("**/api/games/*/analysis*", lambda route: route.abort())
    page.goto(f"{page.base_url}/#replay/{handle['id']}")  # type: ignore[attr-defined]
    panel = page.locator("[data-testid=analysis]")
    expect(panel).to_have_attribute("data-state", "offline")
    expect(page.locator("[data-testid=replay-felt]")).to_be_visible()  # the replay still works
    page.unroute("**/api/games/*/analysis*")
    page.click("[data-testid=analysis-retry]")
    expect(panel).to_have_attribute("data-state", "ready", timeout=90_000)
