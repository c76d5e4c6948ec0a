"""The guided first game in the browser: offered once, dismissible, walked to the end.

The test walks the steps of ``static/guide.json`` (what the engine made of the
script) and checks the page shows each step's own sentence, refuses a wrong
move with the reason, and returns to the new game form at the end.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from twentynine.web.guide import PATH

CATALOG: dict[str, str] = json.loads((PATH.parent / "i18n" / "en.json").read_text(encoding="utf-8"))
STEPS: list[dict[str, Any]] = json.loads(PATH.read_text(encoding="utf-8"))["steps"]


def open_start(page: Page) -> None:
    page.goto(page.base_url + "/")  # type: ignore[attr-defined]
    page.wait_for_selector("[data-testid=start-game]")


def fixed_part(key: str) -> str:
    """The words of a sentence up to its first placeholder."""
    return CATALOG[key].split("{")[0].strip()


def test_the_offer_appears_once_and_is_remembered(page: Page) -> None:
    open_start(page)
    expect(page.get_by_test_id("guide-offer")).to_be_visible()
    expect(page.get_by_test_id("guide-offer")).to_contain_text(CATALOG["guide.offer_title"])
    page.reload()
    page.wait_for_selector("[data-testid=start-game]")
    expect(page.get_by_test_id("guide-offer")).to_have_count(0)
    assert page.evaluate("localStorage.getItem('twentynine.guide')") == "offered"


def test_dismissing_the_offer_leaves_the_page_usable(page: Page) -> None:
    open_start(page)
    page.get_by_test_id("guide-offer-dismiss").click()
    expect(page.get_by_test_id("guide-offer")).to_have_count(0)
    assert page.evaluate("localStorage.getItem('twentynine.guide')") == "dismissed"
    expect(page.locator("#dlg-guide")).to_have_count(0)
    page.click("[data-testid=start-game]")
    page.wait_for_selector("#screen-table:not([hidden])")


def test_a_wrong_move_is_refused_with_its_reason(page: Page) -> None:
    open_start(page)
    page.get_by_test_id("guide-offer-start").click()
    say = page.get_by_test_id("guide-say")
    refusal = page.get_by_test_id("guide-refusal")
    # a card before the deal is even bid: not yet
    page.get_by_test_id("guide-card").first.click()
    expect(refusal).to_have_text(CATALOG["guide.refuse_wait"])
    follow = next(i for i, s in enumerate(STEPS) if s["say"] == "guide.follow")
    walk(page, until=follow)
    expect(say).to_contain_text(fixed_part("guide.follow"))
    step = STEPS[follow]
    legal = {m["play"] for m in step["legal"]}
    wrong = next(c for c in step["view"]["hand"] if c not in legal)
    page.locator(f"[data-testid=guide-card][data-card='{wrong}']").click()
    expect(refusal).to_be_visible()
    expect(refusal).to_contain_text("you must follow suit")
    other = next(c for c in legal if c != step["do"]["play"])
    page.locator(f"[data-testid=guide-card][data-card='{other}']").click()
    expect(refusal).to_contain_text("is allowed, but this step is about another card")
    assert page.locator("#dlg-guide .page-body").get_attribute("data-step") == str(follow)


def walk(page: Page, until: int | None = None) -> None:
    """Make the guide's moves from where the page is, checking each step's sentence."""
    body = page.locator("#dlg-guide .page-body")
    start = int(body.get_attribute("data-step") or 0)
    stop = len(STEPS) - 1 if until is None else until
    for i in range(start, stop):
        step = STEPS[i]
        expect(body).to_have_attribute("data-step", str(i))
        expect(page.get_by_test_id("guide-say")).to_contain_text(fixed_part(step["say"]))
        move = step.get("do")
        if move is None:
            page.get_by_test_id("guide-next").click()
        elif "play" in move:
            page.locator(f"[data-testid=guide-card][data-card='{move['play']}']").click()
        else:
            text = json.dumps(move, separators=(",", ":"))  # as JSON.stringify writes it
            page.locator(f"[data-testid=guide-choice][data-move='{text}']").click()
    expect(body).to_have_attribute("data-step", str(stop))


def test_the_guide_walks_every_step_and_returns_to_the_start(page: Page) -> None:
    open_start(page)
    page.get_by_test_id("guide-offer-start").click()
    expect(page.locator("#dlg-guide")).to_be_visible()
    expect(page.get_by_test_id("guide-progress")).to_have_text(f"Step 1 of {len(STEPS)}")
    said = set()
    body = page.locator("#dlg-guide .page-body")
    for i in range(len(STEPS) - 1):
        walk(page, until=i)
        said.add(body.get_attribute("data-say"))
        if STEPS[i]["say"] == "guide.trump":
            wrong = page.locator("[data-testid=guide-choice]").first
            if json.loads(wrong.get_attribute("data-move") or "{}") != STEPS[i]["do"]:
                wrong.click()
                expect(page.get_by_test_id("guide-refusal")).to_contain_text("as trumps")
        if STEPS[i]["say"] == "guide.pair":
            expect(page.get_by_test_id("guide-target")).to_have_text("19")
        if STEPS[i]["say"] == "guide.lead_nine":
            expect(page.get_by_test_id("guide-target")).to_have_text("15")
        if STEPS[i]["say"] == "guide.reveal":
            expect(page.get_by_test_id("guide-trump")).to_contain_text(CATALOG["guide.trump_shown"])
        if STEPS[i]["say"] == "guide.follow":
            expect(page.get_by_test_id("guide-trump")).to_contain_text(
                CATALOG["guide.trump_secret"]
            )
    walk(page)
    end = STEPS[-1]
    expect(page.get_by_test_id("guide-say")).to_have_text(CATALOG[end["say"]])
    expect(page.get_by_test_id("guide-points")).to_contain_text("23")
    said.add(body.get_attribute("data-say"))
    assert said == {s["say"] for s in STEPS}
    page.get_by_test_id("guide-finish").click()
    expect(page.locator("#dlg-guide")).to_be_hidden()
    expect(page.locator("#screen-setup")).to_be_visible()
    expect(page.get_by_test_id("start-game")).to_be_visible()


def test_how_to_play_opens_the_guide(page: Page) -> None:
    open_start(page)
    page.get_by_test_id("guide-offer-dismiss").click()
    page.click("[data-testid=btn-howto]")
    page.get_by_test_id("howto-guide").click()
    expect(page.locator("#dlg-howto")).to_be_hidden()
    expect(page.get_by_test_id("guide-say")).to_have_text(CATALOG["guide.intro"])


def test_how_to_play_has_worked_examples_and_what_to_do_when_stuck(page: Page) -> None:
    open_start(page)
    page.click("[data-testid=btn-howto]")
    examples = page.get_by_test_id("howto-examples")
    expect(examples.locator("h2")).to_have_text(CATALOG["howto.h_examples"])
    for key in ("trump", "follow", "count", "pair"):
        expect(examples.locator(f"[data-example={key}]")).to_have_text(CATALOG[f"howto.ex_{key}"])
        expect(examples).to_contain_text(CATALOG[f"howto.ex_{key}_title"])
    expect(examples.locator("[data-example=count]")).to_contain_text("28")
    stuck = page.get_by_test_id("howto-stuck")
    expect(stuck.locator("h2")).to_have_text(CATALOG["howto.h_stuck"])
    for key in ("trick", "card", "wait", "reconnect", "trump", "pair"):
        expect(stuck.locator(f"[data-stuck={key}]")).to_have_text(CATALOG[f"howto.stuck_{key}"])


def test_the_guide_fits_a_phone_screen(page: Page, artifacts: Path) -> None:
    page.set_viewport_size({"width": 360, "height": 740})
    open_start(page)
    page.screenshot(path=artifacts / "guide-offer-360x740.png")
    page.get_by_test_id("guide-offer-start").click()
    reveal = next(i for i, s in enumerate(STEPS) if s["say"] == "guide.reveal")
    walk(page, until=reveal)
    page.screenshot(path=artifacts / "guide-reveal-360x740.png")
    overflow = page.evaluate(
        "(() => { const b = document.querySelector('#dlg-guide .page-body');"
        " return b.scrollWidth - b.clientWidth; })()"
    )
    assert overflow <= 0, f"the guide is {overflow}px wider than its page"
