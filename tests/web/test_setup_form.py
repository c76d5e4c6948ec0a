"""The new-game form: its controls redraw without errors, and the online-room choice."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

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
