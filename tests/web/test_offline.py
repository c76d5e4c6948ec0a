"""Offline play: after one visit the app plays against bots with no network and no server.

The app is loaded once from a server of this test's own (the service worker
keeps the shell, the package's zip and Pyodide); then the browser goes offline
*and* the server process is stopped. The page is reloaded from the cache, a
game starts in this browser (the engine runs in a web worker), a whole deal is
played through the page's controls, the page is reloaded, and the game resumes
where it was, from the browser's storage.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from .conftest import ServerProcess, _missing
from .driver import Choices, play_until, snapshot, start_game, wait_ready

RUNTIME_CACHED = """async () => {
  const keys = await caches.keys();
  const runtime = keys.find((k) => k.startsWith("twentynine-pyodide-"));
  const shell = keys.find((k) => k.startsWith("twentynine-shell-"));
  if (!runtime || !shell) return false;
  const files = await (await caches.open(runtime)).keys();
  const kept = await (await caches.open(shell)).keys();
  const zip = kept.some((r) => r.url.includes("/offline/twentynine-"));
  return files.length === 5 && zip && !!navigator.serviceWorker.controller;
}"""


def wait_until_cached(page: Page, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not page.evaluate(RUNTIME_CACHED):
        assert time.monotonic() < deadline, "the service worker did not keep the runtime"
        time.sleep(0.25)


def download_record(page: Page, link: Locator, console: list[str]) -> Path:
    """Click the result card's record link and return the file the browser saved.

    The record is made by the engine in the page's worker after the click, so a
    failure says what the page showed and logged rather than only that no file came.
    """
    try:
        link.click(trial=True)  # a link that cannot be clicked fails here, not as "no download"
    except PlaywrightTimeoutError as e:
        pytest.fail(f"the record link could not be clicked: {e.message.splitlines()[0]}")
    try:
        with page.expect_download(timeout=60_000) as download:
            link.click()
        return Path(download.value.path())
    except PlaywrightTimeoutError:
        toast = page.locator("#toast")
        shown = toast.text_content() if toast.is_visible() else None
        pytest.fail(f"no record was downloaded; toast: {shown!r}; console: {console[-20:]}")


@pytest.fixture
def own_server() -> Iterator[ServerProcess]:
    """A server this test may stop (the shared one serves the other tests)."""
    proc = ServerProcess(f"offline-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}")
    try:
        yield proc
    finally:
        proc.stop()


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    ctx = browser.new_context(viewport={"width": 1280, "height": 800}, service_workers="allow")
    try:
        yield ctx
    finally:
        ctx.close()


def test_a_whole_deal_offline_with_the_server_stopped_then_a_reload_resumes(
    context: BrowserContext, own_server: ServerProcess
) -> None:
    page: Page = context.new_page()
    page.set_default_timeout(30_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    console: list[str] = []
    page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
    page.base_url = own_server.url  # type: ignore[attr-defined]
    page.js_errors = errors  # type: ignore[attr-defined]
    page.goto(own_server.url + "/")
    config = page.evaluate("fetch('/offline/config.json').then((r) => r.json())")
    if not config["available"]:
        _missing("Pyodide is not installed (scripts/ensure-pyodide)")
    expect(page.locator("[data-testid=engine-badge] .long")).to_have_text("Server")
    # one visit: the service worker keeps everything offline play needs
    wait_until_cached(page)

    context.set_offline(True)
    own_server.stop()

    start_game(page, profile="pagat", length="match", seed=5, seats=["tara", "bablu", "pip"])
    badge = page.locator("[data-testid=engine-badge]")
    expect(badge).to_have_attribute("data-where", "browser")
    expect(badge.locator(".long")).to_have_text("This browser")
    assert page.evaluate("window.twentynine.engine()") == "browser"
    first = play_until(page, Choices(bid="min"), deals=1)
    assert first["hold"] == "deal"
    assert first["view"]["phase"] == "over"
    # the game record comes from the engine in this browser too
    link = page.locator("[data-testid=result] a[href='#record']")
    expect(link).to_be_visible()
    record = json.loads(download_record(page, link, console).read_text(encoding="utf-8"))
    assert record["format"] == "29-record/1" and len(record["deals"]) == 1
    # a record the engine cannot make is said on the page, and changes nothing
    ident = page.evaluate("window.twentynine.game.id")
    page.evaluate("window.twentynine.game.id = 'no-such-game'")
    link.click()
    expect(page.locator("#toast")).to_contain_text("The record could not be made")
    page.evaluate(f"window.twentynine.game.id = {json.dumps(ident)}")

    page.reload()
    page.wait_for_function(
        "() => window.twentynine && window.twentynine.game.setup", timeout=60_000
    )
    expect(badge).to_have_attribute("data-where", "browser")
    back = wait_ready(page, timeout=60_000)
    assert back["hold"] == "deal"
    assert back["view"]["deal_index"] == 0 and back["view"]["result"] == first["view"]["result"]

    # the next deal, a few moves, another reload in the middle of it
    page.click("[data-testid=next-deal]")
    page.wait_for_function("() => window.twentynine.view().deal_index === 1")
    mid = play_until(
        page, Choices(), stop=lambda s: s["obs"] is not None and s["obs"]["phase"] == "play"
    )
    page.reload()
    page.wait_for_function(
        "() => window.twentynine && window.twentynine.game.setup", timeout=60_000
    )
    again = wait_ready(page, timeout=60_000)
    assert again["view"]["deal_index"] == 1
    assert again["obs"]["hand"] == mid["obs"]["hand"]
    assert snapshot(page)["obs"]["score"] == mid["obs"]["score"]
    page.screenshot(path="artifacts/offline-resumed.png")
    assert not errors, errors


KEEP_PROBE = """async (level) => {
  const config = await (await fetch('/offline/config.json')).json();
  const version = `${config.pyodide_version} ${config.bundle}`;
  const probe = { version, times: [0.8, 1.1], levels: {}, level };
  localStorage.setItem('twentynine.offline.probe', JSON.stringify(probe));
}"""


@pytest.mark.parametrize(
    ("level", "bots", "note"),
    [
        ("expert", ["meera", "anil", "raju"], None),  # the server's table
        ("strong", ["meera", "anil", "raju"], "the expert bots can take several seconds"),
        ("casual", ["meera", "tara", "raju"], "the strong and expert bots"),  # Anil swapped
    ],
)
def test_the_browser_engine_offers_by_default_the_levels_fast_enough_here(
    page: Page, level: str, bots: list[str], note: str | None
) -> None:
    """What the speed probe kept decides the default bots of a game in this browser, and
    the form says which bots are slow here."""
    page.route_web_socket("**/ws", lambda ws: ws.close())  # no server: the browser engine
    page.goto(page.base_url + "/")  # type: ignore[attr-defined]
    page.wait_for_selector("[data-testid=start-game]")
    if not page.evaluate("window.twentynine.offline.available()"):
        _missing("Pyodide is not installed (scripts/ensure-pyodide)")
    page.evaluate(KEEP_PROBE, level)
    page.reload()
    page.wait_for_selector("[data-testid=start-game]")
    expect(page.locator("[data-testid=engine-browser]")).to_be_checked()
    assert [page.input_value(f"[data-testid=seat-{s}]") for s in (1, 2, 3)] == bots
    slow = page.locator("[data-testid=engine-slow]")
    if note is None:
        expect(slow).to_have_count(0)
    else:
        expect(slow).to_contain_text(note)


def test_the_speed_probe_times_the_strong_bot_then_the_expert_and_keeps_the_answer(
    page: Page,
) -> None:
    page.goto(page.base_url + "/")  # type: ignore[attr-defined]
    page.wait_for_function("() => window.twentynine")
    if not page.evaluate("window.twentynine.offline.available()"):
        _missing("Pyodide is not installed (scripts/ensure-pyodide)")
    page.set_default_timeout(120_000)
    page.evaluate("window.twentynine.offline.startEngine()")
    probe = page.evaluate("window.twentynine.offline.probed()")
    assert probe is not None and probe["level"] in ("casual", "strong", "expert")
    # the strong bot's first bid and first card of up to three deals
    assert probe["times"] == probe["levels"]["strong"] and 2 <= len(probe["times"]) <= 6
    slowest = max(probe["times"])
    assert (probe["level"] == "casual") == (slowest > 1.5), probe
    if probe["level"] != "casual" and "expert" in probe["levels"]:
        assert (probe["level"] == "expert") == (max(probe["levels"]["expert"]) <= 1.5)
    kept = page.evaluate("JSON.parse(localStorage.getItem('twentynine.offline.probe'))")
    assert kept == probe
