"""A whole deal against bots, played with the keyboard only.

The game is set up with the form (pointer), then every decision of the deal
is made with keys: B/P and the arrows in the auction, S/H/D/C for trumps,
the arrows and Enter for cards, N for the next trick. Along the way the test
tries cards the rules forbid (by their number key) and checks that they are
refused with a reason; at the end the result panel must agree with the
engine's verdict of the game record.
"""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page, expect

from twentynine.game.record import replay_record

from .driver import Choices, display_order, fetch_record, play_until, plays, start_game

SEATS = ["tara", "meera", "pip"]


def test_a_whole_deal_by_keyboard_matches_the_engine_verdict(page: Page) -> None:
    start_game(page, profile="pagat", seed=29, length="single", seats=SEATS)
    tried: list[str] = []

    def try_illegal(snap: dict[str, Any]) -> None:
        obs = snap["obs"]
        if not obs or snap["hold"] or obs["phase"] != "play" or obs["to_act"] != obs["seat"]:
            return
        legal = set(plays(obs))
        hand = display_order(obs["hand"])
        illegal = [c for c in hand if c not in legal]
        if not illegal or len(tried) >= 3:
            return
        card = illegal[0]
        v = snap["v"]
        page.keyboard.press(str(hand.index(card) + 1))
        toast = page.locator("#toast")
        expect(toast).to_be_visible()
        expect(toast).to_contain_text("must")
        button = page.locator(f"[data-testid=card-{card}]")
        expect(button).to_have_attribute("aria-disabled", "true")
        assert page.evaluate("window.twentynine.ui.selected") is None
        page.keyboard.press("Enter")
        page.wait_for_timeout(150)
        assert page.evaluate("window.twentynine.game.v") == v, "an illegal card changed the game"
        expect(button).to_be_visible()
        tried.append(card)

    end = play_until(page, Choices(bid="min"), keyboard=True, on_step=try_illegal)
    assert tried, "the deal never offered an illegal card to try"
    assert end["hold"] == "deal"

    record = fetch_record(page)
    match, fault = replay_record(record)
    assert fault is None
    verdict = match.deals[0].verdict()
    panel = page.locator("[data-testid=result]")
    expect(panel).to_be_visible()

    def value(key: str) -> str:
        return panel.locator(f"[data-testid=result-{key}] td").get_attribute("data-value") or ""

    assert value("outcome") == verdict["result"]
    assert value("stake") == str(verdict["stake"])
    assert value("points") == ",".join(map(str, verdict["points"]))
    if verdict["result"] in ("made", "failed"):
        team = verdict["bidder"] & 1
        assert value("needed") == str(verdict["target"])
        assert value("taken") == str(verdict["points"][team])
    score = page.locator("[data-testid=result-score]").get_attribute("data-value")
    assert score == ",".join(map(str, verdict["delta"]))
