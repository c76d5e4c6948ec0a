"""The history page (#history) and the replay viewer (#replay/<id>) in chromium.

A single deal played to its end against bots is listed with its result; its
replay starts from the four dealt hands of the record, steps card by card
with the keyboard, shows the cards the record says were played, and ends on
the engine's verdict; the export downloads the record itself. A game still
being played is listed as in progress with a way back to its table, and a
page whose server cannot be reached says so.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from twentynine.game.record import replay_text

from .driver import Choices, fetch_record, game_handle, play_until, start_game

BOTS = ["tara", "bablu", "pip"]


def my_play_turn(snap: dict[str, Any]) -> bool:
    obs = snap["obs"]
    return bool(
        obs and obs["phase"] == "play" and obs["to_act"] == obs["seat"] and snap["hold"] is None
    )


def cards_of(page: Page, selector: str) -> list[str]:
    found: list[str] = page.locator(selector).evaluate_all("els => els.map(e => e.dataset.card)")
    return found


def no_overflow(page: Page) -> bool:
    """Nothing sticks out sideways (the phone would scroll the page)."""
    width: int = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    return width <= 0


def open_history(page: Page) -> None:
    page.click("[data-testid=btn-history]")
    expect(page).to_have_url(re.compile(r"#history$"))
    expect(page.locator("[data-testid=history-status]")).to_have_attribute(
        "data-state", re.compile("ready|empty|offline|error")
    )


def test_a_finished_deal_is_listed_replayed_and_exported(page: Page, artifacts: Path) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    start_game(page, profile="arcade", seed=4, length="single", seats=BOTS)
    end = play_until(page, Choices(), deals=1)
    assert end["hold"] == "deal"
    record = fetch_record(page)
    ident = game_handle(page)["id"]
    verdict = replay_text(json.dumps(record)).data["deals"][0]
    deal = record["deals"][0]

    open_history(page)
    item = page.locator(f"[data-testid=history-game][data-game='{ident}']")
    expect(item).to_have_attribute("data-status", "finished")
    expect(item.locator("[data-testid=history-result]")).not_to_be_empty()
    page.screenshot(path=str(artifacts / "history-390x844.png"))
    assert no_overflow(page)

    with page.expect_download() as info:
        item.locator("[data-testid=history-export]").click()
    download = info.value
    assert download.suggested_filename == f"29-{ident}.json"
    exported = json.loads(Path(download.path()).read_text(encoding="utf-8"))
    assert exported == record
    assert replay_text(json.dumps(exported)).ok

    item.locator("[data-testid=history-replay]").click()
    expect(page).to_have_url(re.compile(rf"#replay/{ident}$"))
    felt = page.locator("[data-testid=replay-felt]")
    expect(felt).to_have_attribute("data-step", "0")
    for seat in range(4):
        shown = cards_of(page, f"[data-testid=replay-hand-{seat}] .mini-card")
        assert sorted(shown) == sorted(deal["hands"][seat]), seat

    # step to the first card with the keyboard: it is on the table and out of its hand
    actions = deal["actions"]
    first = next(i for i, a in enumerate(actions) if "play" in a)
    for _ in range(first + 1):
        page.keyboard.press("ArrowRight")
    expect(felt).to_have_attribute("data-step", str(first + 1))
    seat, card = actions[first]["seat"], actions[first]["play"]
    expect(page.locator(f"[data-testid=replay-played-{seat}]")).to_have_attribute("data-card", card)
    assert card not in cards_of(page, f"[data-testid=replay-hand-{seat}] .mini-card")
    page.keyboard.press("ArrowLeft")
    expect(felt).to_have_attribute("data-step", str(first))
    expect(page.locator("[data-testid=replay-trick] .replay-played")).to_have_count(0)

    # the end of the first trick: its winner as the engine says
    plays = [i for i, a in enumerate(actions) if "play" in a]
    fourth = plays[3]
    for _ in range(fourth + 1 - first):
        page.keyboard.press("ArrowRight")
    expect(felt).to_have_attribute("data-step", str(fourth + 1))
    trick = verdict["tricks"][0]
    winner = page.locator(f"[data-testid=replay-played-{trick['winner']}]")
    expect(winner).to_have_class(re.compile(r"\bwinner\b"))
    assert sorted(cards_of(page, "[data-testid=replay-trick] .replay-played")) == sorted(
        trick["cards"]
    )
    page.screenshot(path=str(artifacts / "replay-390x844.png"))
    assert no_overflow(page)

    page.keyboard.press("End")
    expect(felt).to_have_attribute("data-step", str(len(actions)))
    result = page.locator("[data-testid=replay-result]")
    expect(result).to_have_attribute("data-result", verdict["result"])
    for team in (0, 1):
        expect(page.locator(f"[data-testid=replay-points-{team}]")).to_have_attribute(
            "data-value", str(verdict["points"][team])
        )
    for seat in range(4):
        assert cards_of(page, f"[data-testid=replay-hand-{seat}] .mini-card") == []
    page.screenshot(path=str(artifacts / "replay-end-390x844.png"), full_page=True)
    page.keyboard.press("Home")
    expect(felt).to_have_attribute("data-step", "0")
    page.set_viewport_size({"width": 360, "height": 740})
    assert no_overflow(page)

    page.set_viewport_size({"width": 1280, "height": 800})
    for _ in range(fourth + 1):
        page.keyboard.press("ArrowRight")
    expect(felt).to_have_attribute("data-step", str(fourth + 1))
    page.screenshot(path=str(artifacts / "replay-1280x800.png"))

    page.click("[data-testid=replay-back]")
    expect(page).to_have_url(re.compile(r"#history$"))
    expect(page.locator(f"[data-testid=history-game][data-game='{ident}']")).to_be_visible()


def test_a_game_in_progress_is_listed_and_leads_back_to_its_table(page: Page) -> None:
    start_game(page, profile="pagat", seed=6, length="single", seats=BOTS)
    snap = play_until(page, Choices(), stop=my_play_turn)
    ident = game_handle(page)["id"]
    open_history(page)
    item = page.locator(f"[data-testid=history-game][data-game='{ident}']")
    expect(item).to_have_attribute("data-status", "in-progress")
    expect(item.locator("[data-testid=history-replay]")).to_have_count(0)
    item.locator("[data-testid=history-resume]").click()
    expect(page.locator("body")).to_have_attribute("data-screen", "table")
    page.wait_for_function("() => window.twentynine.obs() && window.twentynine.idle()")
    assert page.evaluate("window.twentynine.obs().hand") == snap["obs"]["hand"]

    # another tab of this browser finds it in the history and joins it
    other = page.context.new_page()
    other.goto(f"{page.base_url}/#history")  # type: ignore[attr-defined]
    item = other.locator(f"[data-testid=history-game][data-game='{ident}']")
    item.locator("[data-testid=history-resume]").click()
    expect(other.locator("body")).to_have_attribute("data-screen", "table")
    other.wait_for_function("() => window.twentynine.obs() && window.twentynine.idle()")
    assert other.evaluate("window.twentynine.obs().hand") == snap["obs"]["hand"]
    assert other.evaluate("JSON.parse(sessionStorage.getItem('twentynine.game')).id") == ident
    other.close()

    # a replay of this game has no deal to show yet, and never the one being played
    page.goto(f"{page.base_url}/#replay/{ident}")  # type: ignore[attr-defined]
    expect(page.locator("[data-testid=replay-status]")).to_have_attribute("data-state", "empty")
    expect(page.locator("[data-testid=replay-hidden-note]")).to_be_visible()
    expect(page.locator("[data-testid=replay-felt]")).to_have_count(0)


def test_the_page_says_when_the_server_cannot_be_reached(page: Page) -> None:
    start_game(page, profile="arcade", seed=4, length="single", seats=BOTS)
    page.wait_for_function("() => window.twentynine.game.setup")
    page.route("**/api/history", lambda route: route.abort())
    page.click("[data-testid=btn-history]")
    status = page.locator("[data-testid=history-status]")
    expect(status).to_have_attribute("data-state", "offline")
    expect(status.locator(".history-problem")).to_be_visible()
    page.unroute("**/api/history")
    status.locator("[data-testid=history-retry]").click()
    expect(status).to_have_attribute("data-state", "ready")
    expect(page.locator("[data-testid=history-game]")).to_have_count(1)


def test_a_browser_without_games_is_told_so(page: Page) -> None:
    page.goto(f"{page.base_url}/#history")  # type: ignore[attr-defined]
    status = page.locator("[data-testid=history-status]")
    expect(status).to_have_attribute("data-state", "empty")
    page.goto(f"{page.base_url}/#replay/unknown-game")  # type: ignore[attr-defined]
    expect(page.locator("[data-testid=replay-status]")).to_have_attribute("data-state", "error")
