"""An online room in four browsers and a spectator's: create, invite, sit, start, play a deal.

Each person has a browser context of their own (own storage, own websocket).
One of them loses the network in the middle of a trick and comes back; the
others see the seat go away and return, and the game goes on from the exact
state. The spectator's page never holds a card it should not see.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page

from .driver import click_action

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

NAMES = ["Asha", "Bilal", "Chitra", "Dev"]


def new_page(
    browser: Browser, server: str, errors: list[str], width: int = 1280
) -> tuple[BrowserContext, Page]:
    context = browser.new_context(viewport={"width": width, "height": 800}, service_workers="block")
    page = context.new_page()
    page.set_default_timeout(20_000)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.base_url = server  # type: ignore[attr-defined]
    return context, page


def obs(page: Page) -> dict[str, Any] | None:
    value: dict[str, Any] | None = page.evaluate(
        "() => window.twentynine && window.twentynine.obs()"
    )
    return value


def choose(o: dict[str, Any]) -> dict[str, Any]:
    """A plain policy: pass when passing is allowed, else the first legal action."""
    legal: list[dict[str, Any]] = o["legal"]
    for a in legal:
        if a.get("pass"):
            return a
    return legal[0]


def spectator_sees_nothing_hidden(page: Page) -> None:
    view = page.evaluate("() => window.twentynine.view()")
    if view is None or view["phase"] == "over":
        return
    assert view["hand"] == [], "a spectator was sent cards"
    assert page.locator("#hand [data-card]").count() == 0
    if not view["trump_revealed"]:
        assert view["trump"] is None


def test_four_browsers_play_a_room_with_a_network_drop_and_a_spectator(
    browser: Browser, server: str, artifacts: Any
) -> None:
    errors: list[str] = []
    contexts: list[BrowserContext] = []
    pages: list[Page] = []
    for i in range(4):
        ctx, pg = new_page(browser, server, errors, width=390 if i == 3 else 1280)
        contexts.append(ctx)
        pages.append(pg)
    watch_ctx, watcher = new_page(browser, server, errors)
    contexts.append(watch_ctx)
    try:
        host = pages[0]
        host.goto(server + "/")
        host.wait_for_selector("[data-testid=start-game]")
        host.check("[data-testid=where-room]")
        host.check("[data-testid=profile-pagat]")
        host.check("[data-testid=length-single]")
        host.fill("[data-testid=room-create-name]", NAMES[0])
        host.click("[data-testid=start-game]")
        host.wait_for_selector("body[data-screen=room]")
        code = host.inner_text("[data-testid=room-code]")
        assert len(code.replace("-", "")) == 8
        link = host.get_attribute("[data-testid=room-link]", "href")
        assert link and link.endswith("#room/" + code)
        # the address is the room's: a reload comes back to it, still as its host
        host.reload()
        host.wait_for_selector("[data-testid=room-start]")
        assert host.inner_text("[data-testid=room-code]") == code

        # a wrong code says so
        watcher.goto(server + "/")
        watcher.wait_for_selector("[data-testid=join-code]")
        watcher.fill("[data-testid=join-code]", "ZZZZ-ZZZ2")
        watcher.click("[data-testid=join-room]")
        watcher.wait_for_function(
            "() => document.querySelector('[data-testid=join-error]').textContent.length > 0"
        )
        assert "code" in watcher.inner_text("[data-testid=join-error]").lower()

        for seat in (1, 2, 3):
            pg = pages[seat]
            pg.goto(link)
            pg.wait_for_selector("body[data-screen=room]")
            pg.fill("[data-testid=room-name]", NAMES[seat])
            pg.click(f"[data-testid=sit-{seat}]")
            pg.wait_for_selector(f"[data-testid=room-seat-{seat}].mine")
        host.wait_for_function("() => !document.querySelector('[data-testid=room-start]').disabled")
        assert NAMES[2] in host.inner_text("[data-testid=room-seat-2]")
        watcher.goto(link)
        watcher.wait_for_selector("body[data-screen=room]")
        assert "full" in watcher.inner_text("[data-testid=room-status]").lower()
        host.screenshot(path=str(artifacts / "room-lobby-1280.png"))
        pages[3].screenshot(path=str(artifacts / "room-lobby-390.png"))

        host.click("[data-testid=room-start]")
        for pg in [*pages, watcher]:
            pg.wait_for_selector("body[data-screen=table]")
        assert watcher.evaluate("() => window.twentynine.game.spectator") is True
        for seat, pg in enumerate(pages):
            assert pg.evaluate("() => window.twentynine.game.seats") == [seat]

        dropped = False
        restored = False
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            spectator_sees_nothing_hidden(watcher)
            views = [obs(pg) for pg in pages]
            if all(v is not None and v["phase"] == "over" for v in views):
                break
            acted = False
            for seat, pg in enumerate(pages):
                o = views[seat]
                if o is None or o["to_act"] != seat or not o["legal"]:
                    continue
                if pg.evaluate("() => window.twentynine.ui.busy || !window.twentynine.idle()"):
                    continue
                if pg.evaluate("() => window.twentynine.game.hold") is not None:
                    continue
                o = obs(pg)  # read again: the view read above may predate this page's last act
                if o is None or o["to_act"] != seat or not o["legal"]:
                    continue
                # the network drop: the second player, in the middle of the second trick
                if not dropped and seat == 1 and len(o["tricks"]) >= 1 and len(o["trick"]) >= 1:
                    contexts[1].set_offline(True)
                    pg.evaluate("() => window.dispatchEvent(new Event('offline'))")
                    dropped = True
                    host.wait_for_selector("[data-testid=away-1]", timeout=15_000)
                    host.screenshot(path=str(artifacts / "room-away-1280.png"))
                    contexts[1].set_offline(False)
                    pg.evaluate("() => window.dispatchEvent(new Event('online'))")
                    host.wait_for_selector("[data-testid=away-1]", state="detached", timeout=30_000)
                    pg.wait_for_function(
                        "() => document.body.dataset.connection === 'online'", timeout=30_000
                    )
                    restored = True
                    acted = True
                    break
                click_action(pg, choose(o))
                acted = True
                break
            if not acted:
                time.sleep(0.05)
        finals = [obs(pg) for pg in pages]
        assert all(v is not None and v["phase"] == "over" for v in finals), "the deal did not end"
        assert dropped and restored, finals[1]
        first = finals[0]
        assert first is not None
        for v in finals:
            assert (
                v is not None and v["points"] == first["points"] and v["result"] == first["result"]
            )
        watcher.wait_for_function("() => window.twentynine.view().phase === 'over'")
        hands = watcher.evaluate("() => window.twentynine.view().hands")
        assert hands is not None and all(len(h) == 8 for h in hands)  # shown once it is over
        watcher.screenshot(path=str(artifacts / "room-spectator-over-1280.png"))
        pages[3].screenshot(path=str(artifacts / "room-over-390.png"))
    finally:
        for ctx in contexts:
            ctx.close()
    assert not errors, f"JavaScript errors on the pages: {errors}"
