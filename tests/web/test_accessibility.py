"""axe-core on every screen of the app, at a desktop size and a phone size.

Each test walks one path through the app (a game from the new-game form to
its result; the pages over the table; the history and a replay; a room; the
score sheet; the page with the server out of reach), saves a screenshot of
each screen in ``artifacts/`` and runs axe-core (installed from npm by
``scripts/ensure-axe``) on it. A critical or serious violation fails the
test, with each rule, its count and the first elements it names.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .conftest import ROOT, _missing
from .driver import Choices, play_until, start_game, wait_ready, wait_still

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
SIZES = [(1280, 800), (390, 844)]
SIZE_IDS = [f"{w}x{h}" for w, h in SIZES]
BLOCKING = ("critical", "serious")

RUN_AXE = """async () => {
  const result = await axe.run(document, { resultTypes: ["violations"] });
  return result.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map((n) => n.target.join(" ")).slice(0, 4), count: v.nodes.length,
  }));
}"""


def axe_violations(page: Page) -> list[dict[str, Any]]:
    """Every axe violation on the page as it is now (axe injected once per document)."""
    if not AXE.exists():
        _missing("axe-core is not installed (scripts/ensure-axe)")
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(path=str(AXE))
    found: list[dict[str, Any]] = page.evaluate(RUN_AXE)
    return found


def check_screen(page: Page, artifacts: Path, name: str, size: str) -> list[dict[str, Any]]:
    """Screenshot the screen, run axe, fail on a critical or serious violation."""
    page.wait_for_timeout(250)  # let an entering card or a dialog start
    wait_still(page)  # and finish: axe reads colours mid-fade as they are then
    page.screenshot(path=artifacts / f"a11y-{name}-{size}.png")
    found = axe_violations(page)
    blocking = [v for v in found if v["impact"] in BLOCKING]
    assert not blocking, f"{name} at {size}: " + "; ".join(
        f"{v['impact']} {v['id']} x{v['count']} ({v['help']}): {v['nodes']}" for v in blocking
    )
    return found


def in_auction(snap: dict[str, Any]) -> bool:
    obs = snap["obs"]
    return bool(obs and obs["phase"] == "auction" and snap["hold"] is None)


def mid_trick(snap: dict[str, Any]) -> bool:
    obs = snap["obs"]
    return bool(
        obs
        and obs["phase"] == "play"
        and obs["to_act"] == obs["seat"]
        and len(obs["tricks"]) >= 1
        and len(obs["trick"]) >= 1
        and snap["hold"] is None
    )


@pytest.mark.parametrize(("width", "height"), SIZES, ids=SIZE_IDS)
def test_a_game_from_the_form_to_the_result_has_no_serious_violation(
    page: Page, artifacts: Path, width: int, height: int
) -> None:
    page.set_viewport_size({"width": width, "height": height})
    size = f"{width}x{height}"
    page.goto(page.base_url + "/")  # type: ignore[attr-defined]
    page.wait_for_selector("[data-testid=start-game]")
    page.wait_for_function("() => document.body.dataset.connection === 'online'")
    check_screen(page, artifacts, "setup", size)
    start_game(page, profile="pagat", seed=11, length="match", seats=["meera", "anil", "raju"])
    play_until(page, Choices(bid="min"), stop=in_auction)
    check_screen(page, artifacts, "bidding", size)
    play_until(page, Choices(bid="min"), stop=mid_trick)
    page.click("#hand button.card.legal")
    check_screen(page, artifacts, "play", size)
    page.keyboard.press("Escape")
    end = play_until(page, Choices(bid="min"))
    assert end["hold"] == "deal"
    check_screen(page, artifacts, "result", size)


def choosing_trumps(snap: dict[str, Any]) -> bool:
    obs = snap["obs"]
    return bool(obs and obs["phase"] == "trump" and obs["to_act"] == obs["seat"])


@pytest.mark.parametrize(("width", "height"), SIZES, ids=SIZE_IDS)
def test_the_choice_of_trumps_has_no_serious_violation(
    page: Page, artifacts: Path, width: int, height: int
) -> None:
    # the suit buttons are named by what they show (a speech user says what they see)
    page.set_viewport_size({"width": width, "height": height})
    page.goto(page.base_url + "/")  # type: ignore[attr-defined]
    page.wait_for_selector("[data-testid=start-game]")
    start_game(page, profile="pagat", seed=11, length="match", seats=["meera", "anil", "raju"])
    play_until(page, Choices(bid="max"), stop=choosing_trumps)
    expect(page.locator("[data-testid=trump-S]")).to_be_visible()
    check_screen(page, artifacts, "trump", f"{width}x{height}")


@pytest.mark.parametrize(("width", "height"), SIZES, ids=SIZE_IDS)
def test_the_pages_over_the_table_have_no_serious_violation(
    page: Page, artifacts: Path, width: int, height: int
) -> None:
    page.set_viewport_size({"width": width, "height": height})
    size = f"{width}x{height}"
    start_game(page, profile="pagat", seed=3, length="single")
    wait_ready(page)
    for name, button, dialog in (
        ("rules", "btn-rules", "#dlg-rules"),
        ("howto", "btn-howto", "#dlg-howto"),
        ("settings", "btn-settings", "#dlg-settings"),
    ):
        page.click(f"[data-testid={button}]")
        expect(page.locator(dialog)).to_be_visible()
        check_screen(page, artifacts, name, size)
        page.keyboard.press("Escape")
        expect(page.locator(dialog)).to_be_hidden()


@pytest.mark.parametrize(("width", "height"), SIZES, ids=SIZE_IDS)
def test_the_history_a_replay_and_the_score_sheet_have_no_serious_violation(
    page: Page, artifacts: Path, width: int, height: int
) -> None:
    page.set_viewport_size({"width": width, "height": height})
    size = f"{width}x{height}"
    start_game(page, profile="pagat", seed=7, length="single")
    play_until(page, Choices(bid="min"))
    page.click("[data-testid=btn-history]")
    expect(page.locator("[data-testid=history-game]").first).to_be_visible()
    check_screen(page, artifacts, "history", size)
    page.click("[data-testid=history-replay]")
    expect(page.locator("[data-testid=replay-felt]")).to_be_visible()
    page.click("[data-testid=replay-next]")
    check_screen(page, artifacts, "replay", size)
    page.click("[data-testid=btn-score]")
    expect(page.locator("#screen-score")).to_be_visible()
    check_screen(page, artifacts, "score", size)


@pytest.mark.parametrize(("width", "height"), SIZES, ids=SIZE_IDS)
def test_a_room_lobby_has_no_serious_violation(
    page: Page, artifacts: Path, width: int, height: int
) -> None:
    page.set_viewport_size({"width": width, "height": height})
    size = f"{width}x{height}"
    page.goto(page.base_url + "/")  # type: ignore[attr-defined]
    page.wait_for_selector("[data-testid=start-game]")
    page.wait_for_function("() => document.body.dataset.connection === 'online'")
    page.check("[data-testid=where-room]")
    page.fill("[data-testid=room-create-name]", "Asha")
    page.click("[data-testid=start-game]")
    expect(page.locator("[data-testid=room-code]")).to_be_visible()
    check_screen(page, artifacts, "room", size)


@pytest.mark.parametrize(("width", "height"), SIZES, ids=SIZE_IDS)
def test_the_page_without_its_server_has_no_serious_violation(
    page: Page, artifacts: Path, width: int, height: int
) -> None:
    page.set_viewport_size({"width": width, "height": height})
    size = f"{width}x{height}"
    page.route_web_socket("**/ws", lambda ws: ws.close())  # the server does not answer
    page.goto(page.base_url + "/")  # type: ignore[attr-defined]
    expect(page.locator("#banner")).to_be_visible()
    page.wait_for_selector("[data-testid=start-game]")
    check_screen(page, artifacts, "offline", size)


@pytest.mark.parametrize(("width", "height"), SIZES, ids=SIZE_IDS)
def test_the_dark_table_has_no_serious_violation(
    page: Page, artifacts: Path, width: int, height: int
) -> None:
    page.set_viewport_size({"width": width, "height": height})
    size = f"{width}x{height}"
    start_game(page, profile="pagat", seed=11, length="match", seats=["meera", "anil", "raju"])
    page.evaluate("window.twentynine.setSettings({theme: 'dark', fourColour: true})")
    play_until(page, Choices(bid="min"), stop=mid_trick)
    page.click("#hand button.card.legal")
    check_screen(page, artifacts, "play-dark", size)
    page.keyboard.press("Escape")
    end = play_until(page, Choices(bid="min"))
    assert end["hold"] == "deal"
    check_screen(page, artifacts, "result-dark", size)


@pytest.mark.parametrize(("width", "height"), SIZES, ids=SIZE_IDS)
def test_the_hot_seat_hand_over_has_no_serious_violation(
    page: Page, artifacts: Path, width: int, height: int
) -> None:
    page.set_viewport_size({"width": width, "height": height})
    start_game(page, profile="pagat", seed=3, length="single", seats=["human", "meera", "raju"])
    expect(page.locator("[data-testid=handover]")).to_be_visible()
    check_screen(page, artifacts, "handover", f"{width}x{height}")
