"""Where a new game runs: the new-game form says it, and the game starts there.

The form waits for the server's first answer before it says where a game
runs and who plays; a game started from it runs where it said. With the
server out of reach the form offers this browser (four different players at
the table), and a game kept in this browser is never dropped for a server
that does not answer.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import ServerProcess, _missing
from .driver import wait_ready
from .test_accessibility import SIZES, check_screen

# A websocket that opens 1.5 s late (as on a slow phone network): the page sees
# "connecting" for that long, then the real socket.
SLOW_SOCKET = """(() => {
  const Real = window.WebSocket;
  class Slow {
    constructor(url) {
      this.readyState = 0;
      setTimeout(() => {
        if (this.readyState === 3) return;
        const ws = new Real(url);
        this.ws = ws;
        ws.onopen = (e) => { this.readyState = 1; this.onopen && this.onopen(e); };
        ws.onmessage = (e) => this.onmessage && this.onmessage(e);
        ws.onclose = (e) => { this.readyState = 3; this.onclose && this.onclose(e); };
        ws.onerror = (e) => this.onerror && this.onerror(e);
      }, 1500);
    }
    send(data) { this.ws.send(data); }
    close() { if (this.ws) this.ws.close(); else { this.readyState = 3; } }
  }
  Object.assign(Slow, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
  window.WebSocket = Slow;
})();"""


# The deal of the game kept in this browser (one where the player's first turn comes
# in the auction, so the screen checked is the bidding screen).
SEED = 7


def seat_names(page: Page) -> list[str]:
    return [page.inner_text(f"[data-testid=seat-{s}] .name") for s in range(4)]


def offline_served(page: Page) -> bool:
    return bool(page.evaluate("window.twentynine.offline.available()"))


def test_the_form_waits_for_a_slow_connection_and_the_game_runs_where_it_says(
    page: Page,
) -> None:
    page.add_init_script(SLOW_SOCKET)
    page.goto(page.base_url + "/")  # type: ignore[attr-defined]
    page.wait_for_selector("[data-testid=start-game]")
    if offline_served(page):
        expect(page.locator("[data-testid=engine-server]")).to_be_checked()
    assert page.input_value("[data-testid=seat-2]") == "anil"  # the strong partner
    page.click("[data-testid=quick-start]")
    wait_ready(page)
    assert page.evaluate("window.twentynine.engine()") == "server"
    names = seat_names(page)
    assert len(set(names)) == 4, names


def test_without_the_server_the_form_offers_this_browser_and_four_different_players(
    page: Page,
) -> None:
    page.route_web_socket("**/ws", lambda ws: ws.close())
    page.goto(page.base_url + "/")  # type: ignore[attr-defined]
    page.wait_for_selector("[data-testid=start-game]")
    if not offline_served(page):
        _missing("Pyodide is not installed (scripts/ensure-pyodide)")
    expect(page.locator("[data-testid=engine-browser]")).to_be_checked()
    bots = [page.input_value(f"[data-testid=seat-{i}]") for i in (1, 2, 3)]
    assert len(set(bots)) == 3, bots
    body = page.locator("#banner").inner_text()
    assert "kept on the server" not in body  # there is no game there to keep


@pytest.fixture
def own_server() -> Iterator[ServerProcess]:
    """A server this test may stop (the shared one serves the other tests)."""
    proc = ServerProcess(f"engine-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}")
    try:
        yield proc
    finally:
        proc.stop()


def test_a_game_in_this_browser_survives_a_new_game_with_the_server_stopped(
    browser: Browser, own_server: ServerProcess, artifacts: Path
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800}, service_workers="block")
    page = context.new_page()
    page.set_default_timeout(60_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.base_url = own_server.url  # type: ignore[attr-defined]
    try:
        page.goto(own_server.url + "/")
        page.wait_for_selector("[data-testid=start-game]")
        if not offline_served(page):
            _missing("Pyodide is not installed (scripts/ensure-pyodide)")
        page.check("[data-testid=engine-browser]")
        for i, bot in enumerate(["tara", "bablu", "pip"], start=1):
            page.select_option(f"[data-testid=seat-{i}]", bot)
        # a seeded deal: the screen axe checks below is the same one every run
        page.click("[data-testid=setup-options] > summary")
        page.fill("[data-testid=setup-seed]", str(SEED))
        page.click("[data-testid=start-game]")
        wait_ready(page, timeout=60_000)
        assert page.evaluate("window.twentynine.engine()") == "browser"
        kept = page.evaluate("window.twentynine.offline.keptGame()")
        assert kept and kept["id"] == page.evaluate("window.twentynine.game.id")
        # a reload resumes it in this browser, with no pick of engine left on the page
        page.reload()
        wait_ready(page, timeout=60_000)
        assert page.evaluate("window.twentynine.engine()") == "browser"
        # the table with its badge ("this browser") at both sizes: no serious axe violation
        expect(page.locator("[data-testid=engine-badge]")).to_have_attribute(
            "data-where", "browser"
        )
        for width, height in SIZES:
            page.set_viewport_size({"width": width, "height": height})
            check_screen(page, artifacts, "browser-engine", f"{width}x{height}")
        page.set_viewport_size({"width": 1280, "height": 800})

        own_server.stop()
        page.click("[data-testid=btn-new]")
        # the server does not answer: the form offers this browser, and says nothing false
        expect(page.locator("[data-testid=engine-browser]")).to_be_checked()
        assert "kept on the server" not in page.inner_text("body")
        # asked for the server anyway, it says why not, and the game here stays
        page.check("[data-testid=engine-server]")
        page.click("[data-testid=start-game]")
        expect(page.locator("[data-testid=setup-error]")).to_contain_text("cannot be reached")
        assert page.evaluate("window.twentynine.offline.keptGame()") == kept
        assert page.evaluate("window.twentynine.engine()") == "browser"
        page.click(".form-actions button.quiet")  # back to the table
        back = wait_ready(page)
        assert back["obs"] is not None and page.evaluate("window.twentynine.game.id") == kept["id"]
        # a new game with the defaults starts, in this browser
        page.click("[data-testid=btn-new]")
        page.check("[data-testid=engine-browser]")
        page.click("[data-testid=start-game]")
        page.wait_for_function(f"() => window.twentynine.game.id !== {kept['id']!r}")
        wait_ready(page)
        assert page.evaluate("window.twentynine.engine()") == "browser"
        now = page.evaluate("window.twentynine.offline.keptGame()")
        assert now and now["id"] == page.evaluate("window.twentynine.game.id")
        assert not errors, errors
    finally:
        context.close()
