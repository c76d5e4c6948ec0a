"""Hot-seat: two people share one device with two bots.

Between the turns of different people a hand-over screen covers the page,
and no hand is in the page at all until the next person says who they are;
while the bots play, no hand is shown either.
"""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page, expect

from .driver import Choices, display_order, play_until, start_game

HAND_CARDS = "#hand [data-card]"


def test_the_hand_over_screen_hides_every_hand_between_turns(page: Page) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    start_game(page, profile="pagat", seed=8, length="single", seats=["tara", "human", "bablu"])
    handovers: list[int] = []
    hidden_checks = 0

    def check(snap: dict[str, Any]) -> None:
        nonlocal hidden_checks
        if snap["handover"] is not None:
            seat = snap["handover"]
            handovers.append(seat)
            cover = page.locator("[data-testid=handover]")
            expect(cover).to_be_visible()
            assert page.locator(HAND_CARDS).count() == 0, "a hand is in the page behind the cover"
            box = page.locator("#handover").bounding_box()
            assert box is not None and box["width"] >= 390 and box["height"] >= 844
            name = "South" if seat == 0 else "North"
            expect(page.locator("[data-testid=claim-seat]")).to_have_text(f"I am {name}")
            # after claiming, exactly that seat's cards are shown
            page.click("[data-testid=claim-seat]")
            page.wait_for_function("() => window.twentynine.ui.handover === null")
            view = page.evaluate(f"window.twentynine.game.views[{seat}]")
            shown = page.eval_on_selector_all(HAND_CARDS, "els => els.map(e => e.dataset.card)")
            assert shown == display_order(view["hand"])
            hidden_checks += 1
        elif snap["viewer"] is None and snap["hold"] != "deal":
            assert page.locator(HAND_CARDS).count() == 0, "a hand is shown while nobody claimed"

    end = play_until(page, Choices(bid="min"), on_step=check)
    assert end["hold"] == "deal"
    assert {0, 2} <= set(handovers), "both people should have been handed the device"
    assert hidden_checks >= 8
