"""Statistics: a deal played counts, on the page and in its chart, in this browser
and as the server counts it from the game's moves."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect

from twentynine.game.record import replay_record

from .driver import Choices, fetch_record, play_until, start_game

SEATS = ["raju", "meera", "tara"]  # East, North (the partner), West


def test_a_finished_deal_is_counted_by_side_profile_and_bot(page: Page, artifacts: Path) -> None:
    page.goto(page.base_url + "/")  # type: ignore[attr-defined]
    page.wait_for_function("() => window.twentynine")
    page.click("[data-testid=btn-stats]")
    expect(page.locator("[data-testid=stats-empty]")).to_be_visible()
    # no game yet: the server is asked about nothing, and says so
    expect(page.locator("[data-testid=stats-server][data-state=none]")).to_be_visible()
    page.click("[data-testid=dlg-stats-close]")

    start_game(page, profile="pagat", seed=11, seats=SEATS)
    end = play_until(page, Choices(bid="min"))
    assert end["hold"] == "deal"
    match, fault = replay_record(fetch_record(page))
    assert fault is None
    deal = match.deals[0]
    verdict = deal.verdict()
    declarer = deal.single if deal.single >= 0 else deal.bidder
    bidding = declarer % 2 == 0  # the player sits South: North-South is seat 0's team
    made = verdict["result"] in ("made", "single-made")
    won = bidding == made

    figures = page.evaluate("window.twentynine.stats()")
    assert figures["deals"] == {"played": 1, "won": int(won)}
    assert figures["bidder"] == {"played": int(bidding), "made": int(bidding and made)}
    beaten = int(not bidding and not made)
    assert figures["defender"] == {"played": int(not bidding), "beaten": beaten}
    assert figures["byProfile"] == {"pagat": {"played": 1, "won": int(won)}}
    # the opponents are the bots East and West; the partner is not one of them
    one = {"played": 1, "won": int(won)}
    assert figures["byBot"] == {"raju": one, "tara": one}
    assert figures["names"] == {"raju": "Raju", "meera": "Meera", "tara": "Tara"}

    # a reload says nothing new: the deal is not counted twice
    page.reload()
    page.wait_for_function("() => window.twentynine && window.twentynine.game.setup")
    assert page.evaluate("window.twentynine.stats().deals.played") == 1

    page.click("[data-testid=btn-stats]")
    dlg = page.locator("#dlg-stats")
    expect(dlg.locator("[data-testid=stats-deals]")).to_contain_text(f"{int(won)} of 1")
    bars = dlg.locator("[data-testid=stats-chart]").first.locator(".stats-bar")
    assert bars.count() == 2
    assert {bars.nth(i).get_attribute("data-share") for i in range(2)} == {"100" if won else "0"}
    # the server's count of the same game says the same
    server = dlg.locator("[data-testid=stats-server][data-state=ready]")
    expect(server).to_be_visible()
    expect(server.locator("[data-testid=server-stats-deals]")).to_contain_text(f"{int(won)} of 1")
    bidder = f"{int(bidding and made)} of {int(bidding)}"
    expect(server.locator("[data-testid=server-stats-bidder]")).to_contain_text(bidder)
    served = server.locator("[data-testid=server-stats-chart]").first.locator(".stats-bar")
    assert served.count() == 2
    page.screenshot(path=str(artifacts / "stats.png"))
    # clearing this browser's figures leaves the server's count as it was
    page.click("[data-testid=stats-clear]")
    expect(dlg.locator("[data-testid=stats-empty]")).to_be_visible()
    expect(server.locator("[data-testid=server-stats-deals]")).to_contain_text(f"{int(won)} of 1")
