"""The new-game form: its controls redraw without errors, the online-room choice, and
the characters' ladder ratings beside their names."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from .conftest import ServerProcess
from .driver import open_table

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_changing_the_length_target_and_where_redraws_cleanly(page: Page) -> None:
    open_table(page)
    page.check("[data-testid=length-match]")
    page.fill("[data-testid=setup-target]", "2")
    page.dispatch_event("[data-testid=setup-target]", "change")
    assert page.input_value("[data-testid=setup-target]") == "2"
    page.check("[data-testid=where-room]")
    assert page.locator("[data-testid=setup-clock]").is_visible()
    assert page.locator("[data-testid=seat-1]").count() == 0  # seats are chosen in the room
    assert "room" in page.inner_text("[data-testid=start-game]").lower()
    page.check("[data-testid=where-here]")
    assert page.locator("[data-testid=seat-1]").is_visible()
    page.fill("[data-testid=join-code]", "")
    page.click("[data-testid=join-room]")
    assert page.inner_text("[data-testid=join-error]")
    # the page fixture fails the test on any JavaScript error


@pytest.fixture
def rated_server(tmp_path: Path) -> Iterator[ServerProcess]:
    """A server whose characters read their ratings from a ladder file of this test's."""
    ladder = tmp_path / "ladder.json"
    ratings = {
        "pip": {"level": "random", "rating": 0.0, "ci95": [0.0, 0.0]},
        "dada": {"level": "expert", "rating": 1630.2, "ci95": [1590.0, 1670.0]},
        "meera": {"level": "casual", "rating": 812.0, "ci95": [None, None]},
    }
    ladder.write_text(json.dumps({"format": "twentynine-ladder/1", "ratings": ratings}))
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    proc = ServerProcess(f"ladder-{worker}", env={"TWENTYNINE_LADDER": str(ladder)})
    try:
        yield proc
    finally:
        proc.stop()


def test_a_characters_ladder_rating_shows_beside_its_name(
    browser: Browser, rated_server: ServerProcess
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800}, service_workers="block")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.base_url = rated_server.url  # type: ignore[attr-defined]
    try:
        open_table(page)
        dada = page.locator("[data-testid=seat-1] option[value=dada]")
        assert dada.inner_text() == "Dada · 1630 (±40)"
        title = dada.get_attribute("title") or ""
        assert "Ladder rating 1630" in title and "1590 to 1670" in title
        # the chosen character's line says it too, with the explanation as its tooltip
        page.select_option("[data-testid=seat-1]", "dada")
        rating = page.locator("[data-testid=rating-1]")
        assert rating.inner_text() == "1630 (±40)"
        assert "Elo scale" in (rating.get_attribute("title") or "")
        line = page.locator(".seat-setup-west .help").inner_text()
        assert line.startswith("Expert · 1630 (±40) · ")
        # a rating without an interval stands alone; no rating, nothing
        meera = page.locator("[data-testid=seat-1] option[value=meera]")
        assert meera.inner_text() == "Meera · 812"
        assert "95%" not in (meera.get_attribute("title") or "")
        tara = page.locator("[data-testid=seat-1] option[value=tara]")
        assert tara.inner_text() == "Tara" and tara.get_attribute("title") is None
        page.select_option("[data-testid=seat-1]", "tara")
        assert page.locator("[data-testid=rating-1]").count() == 0
        assert "·" in page.locator(".seat-setup-west .help").inner_text()
        # in Bengali: the character's name from the catalog, the rating in Bengali digits
        page.evaluate("window.twentynine.setSettings({lang: 'bn'})")
        page.wait_for_function("document.documentElement.lang === 'bn'")
        dada = page.locator("[data-testid=seat-1] option[value=dada]")
        assert dada.inner_text().endswith(" · ১৬৩০ (±৪০)"), dada.inner_text()
        assert "ল্যাডার রেটিং ১৬৩০" in (dada.get_attribute("title") or "")
    finally:
        context.close()
    assert not errors, errors
