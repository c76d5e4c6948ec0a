"""Screenshots of the table at a phone size and a desktop size (saved in ``artifacts/``),
and the installable shell: manifest, icons, service worker, offline message."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from .driver import Choices, play_until, start_game

SIZES = [(360, 740), (390, 844), (1280, 800)]
SEATS = ["meera", "anil", "raju"]


def mid_trick(snap: dict[str, Any]) -> bool:
    obs = snap["obs"]
    return bool(
        obs
        and obs["phase"] == "play"
        and obs["to_act"] == obs["seat"]
        and len(obs["tricks"]) >= 1
        and len(obs["trick"]) >= 2
        and snap["hold"] is None
    )


@pytest.mark.parametrize(("width", "height"), SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_screenshots_of_the_table(page: Page, artifacts: Path, width: int, height: int) -> None:
    page.set_viewport_size({"width": width, "height": height})
    size = f"{width}x{height}"
    page.goto(page.base_url + "/")  # type: ignore[attr-defined]
    page.wait_for_selector("[data-testid=start-game]")
    page.screenshot(path=artifacts / f"setup-{size}.png", full_page=True)
    start_game(page, profile="pagat", seed=11, length="match", seats=SEATS)
    play_until(page, Choices(bid="min"), stop=mid_trick)
    page.click("#hand button.card.legal")
    page.wait_for_timeout(350)  # let the last card settle
    page.screenshot(path=artifacts / f"table-{size}.png")
    # nothing may stick out sideways on a phone
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page is {overflow}px wider than the screen"
    page.keyboard.press("Escape")
    end = play_until(page, Choices(bid="min"))
    assert end["hold"] == "deal"
    page.wait_for_timeout(300)
    page.screenshot(path=artifacts / f"result-{size}.png")
    page.evaluate("window.twentynine.setSettings({theme: 'dark', fourColour: true})")
    page.click("[data-testid=next-deal]")
    play_until(page, Choices(bid="min"), stop=mid_trick)
    page.wait_for_timeout(350)
    page.screenshot(path=artifacts / f"table-dark-{size}.png")
    page.click("[data-testid=btn-rules]")
    expect(page.locator("#dlg-rules")).to_be_visible()
    page.screenshot(path=artifacts / f"rules-dark-{size}.png")


def test_manifest_and_icons(page: Page) -> None:
    base = page.base_url  # type: ignore[attr-defined]
    manifest = page.request.get(f"{base}/manifest.webmanifest")
    assert manifest.ok and "manifest" in manifest.headers["content-type"]
    data = manifest.json()
    assert data["display"] == "standalone" and data["start_url"] == "/"
    sizes = {icon["sizes"] for icon in data["icons"]}
    assert {"192x192", "512x512"} <= sizes
    for icon in data["icons"]:
        assert page.request.get(base + icon["src"]).ok, icon["src"]


def test_the_shell_opens_offline_and_says_the_server_is_unreachable(
    browser: Browser, server: str
) -> None:
    context = browser.new_context(service_workers="allow")
    page = context.new_page()
    try:
        page.goto(server + "/")
        page.wait_for_selector("[data-testid=start-game]")
        page.evaluate("navigator.serviceWorker.ready.then(() => true)")
        page.wait_for_function("() => navigator.serviceWorker.controller !== null || true")
        page.reload()
        page.wait_for_function("() => !!navigator.serviceWorker.controller")
        context.set_offline(True)
        page.reload()
        banner = page.locator("#banner")
        expect(banner).to_be_visible(timeout=10_000)
        expect(banner).to_contain_text("cannot be reached")
        expect(page.locator(".topbar")).to_be_visible()
        context.set_offline(False)  # the page reconnects by itself
        expect(banner).to_be_hidden(timeout=15_000)
    finally:
        context.close()
