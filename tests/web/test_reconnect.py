"""The page after the server closes its connection: 4008 (too far behind), 4029 (a limit).

Each test has a server of its own with a limit small enough for one page to
meet it: an outbox of one waiting message (a move's update and its ack,
queued together, are one too many, so the server closes with 4008), or a
small burst of messages (the page is answered ``rate_limited``, then closed
with 4029). Either way the page reconnects by itself, at once after 4008 and
only after the server's cooldown after 4029, rejoins its game and has the
state the server has.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from .conftest import ServerProcess
from .driver import Choices, click_action, start_game, wait_ready

MakePage = Callable[[str, dict[str, str]], Page]
# the websocket protocol of `twentynine serve` (it stops reading a closed client, and drops
# one that does not answer the close)
SOCKETS = "twentynine.web.sockets:AbortableSockets"


@pytest.fixture
def page_of(browser: Browser) -> Iterator[MakePage]:
    """``page_of(name, env)``: a fresh page on a server of its own with these settings."""
    opened: list[tuple[ServerProcess, Any]] = []
    errors: list[str] = []

    def make(name: str, env: dict[str, str]) -> Page:
        server = ServerProcess(name, env, ws=SOCKETS)
        context = browser.new_context(
            viewport={"width": 1280, "height": 800}, service_workers="block"
        )
        opened.append((server, context))
        pg = context.new_page()
        pg.set_default_timeout(20_000)
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.base_url = server.url  # type: ignore[attr-defined]
        return pg

    try:
        yield make
    finally:
        for server, context in opened:
            context.close()
            server.stop()
    assert not errors, f"JavaScript errors on the page: {errors}"


def connection(page: Page) -> dict[str, Any]:
    info: dict[str, Any] = page.evaluate("window.twentynine.connection()")
    return info


def wait_for(page: Page, condition: str, timeout: float = 20_000) -> None:
    """``page.wait_for_function``, saying where the connection stood if it times out."""
    try:
        page.wait_for_function(condition, timeout=timeout)
    except PlaywrightTimeout:
        state = page.evaluate(
            "({ v: window.twentynine.version(), ...window.twentynine.connection(),"
            " pending: [...window.twentynine.net().pending.values()].map((p) => p.msg.type) })"
        )
        raise AssertionError(f"not {condition} in {timeout / 1000:g} s: {state}") from None


def test_a_page_closed_for_falling_behind_reconnects_at_once_and_resyncs(
    page_of: MakePage,
) -> None:
    page = page_of("slow", {"TWENTYNINE_OUTBOX_MESSAGES": "1"})
    start_game(page, profile="pagat", seed=6, length="single", seats=["tara", "bablu", "pip"])
    snap = wait_ready(page)
    assert connection(page)["closes"] == []
    page.evaluate(
        """() => {
          const net = window.twentynine.net();
          const shown = net.onStatus;
          window.statusesSeen = [];
          net.onStatus = (status, retry) => {
            window.statusesSeen.push(status);
            shown(status, retry);
          };
        }"""
    )
    click_action(page, Choices()(snap["obs"]))
    # the move's update and its ack were one message too many: closed 4008
    wait_for(page, "() => window.twentynine.connection().closes.includes(4008)")
    # the rejoin brought the whole state, the move in it, and the move's resend was answered
    wait_for(page, f"() => window.twentynine.version() > {snap['v']}")
    after = wait_ready(page)
    wait_for(page, "() => window.twentynine.idle()")
    assert after["v"] > snap["v"] and after["obs"]["to_act"] == after["obs"]["seat"]
    info = connection(page)
    assert info["status"] == "online" and info["closes"] == [4008]
    # it never said the server was unreachable: it was connecting again, then online
    seen = page.evaluate("window.statusesSeen")
    assert seen == ["connecting", "online"], seen
    assert page.locator("#banner").is_hidden()


def test_a_page_over_a_limit_is_told_then_waits_and_comes_back(page_of: MakePage) -> None:
    env = {
        # a ping and a create (1 and 5), then room for two syncs (5 each)
        "TWENTYNINE_MESSAGE_BURST": "16",
        "TWENTYNINE_MESSAGES_PER_SECOND": "0.01",
        "TWENTYNINE_REFUSALS": "1",
        "TWENTYNINE_LIMIT_COOLDOWN_MS": "3000",
    }
    page = page_of("limited", env)
    start_game(page, profile="pagat", seed=6, length="single", seats=["tara", "bablu", "pip"])
    before = wait_ready(page)
    started = time.monotonic()
    # a ping and the create so far; of six syncs at once two are handled, one is refused,
    # the next closes the connection; the rest wait and go again after the reconnect
    answers = page.evaluate(
        """() => {
          const net = window.twentynine.net();
          const asks = Array.from({ length: 6 }, () => net.request("sync"));
          return Promise.allSettled(asks).then((all) =>
            all.map((r) => (r.status === "fulfilled" ? "ok" : r.reason.code)));
        }"""
    )
    waited = time.monotonic() - started
    assert answers.count("rate_limited") == 2, answers
    assert answers.count("ok") == 4, answers
    assert connection(page)["closes"] == [4029]
    assert connection(page)["status"] == "online"
    assert waited > 10  # it waited past the server's cooldown before coming back
    snap = wait_ready(page)  # the game is back, as the server has it
    assert snap["v"] >= before["v"] and snap["obs"]["hand"] == before["obs"]["hand"]
