"""The table shows each state right: where a card lands, what the result says,
what can still be looked at behind it, where the focus and the toasts go.

Each test here drives the page to one state that was once shown wrong and
checks what a player sees there (positions, words, colours, the focus).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .driver import (
    Choices,
    click_action,
    play_until,
    simulate,
    snapshot,
    start_game,
    wait_ready,
)

FAST_BOTS = ["tara", "bablu", "pip"]  # novice and random bots: quick to simulate


def my_play_turn(snap: dict[str, Any]) -> bool:
    obs = snap["obs"]
    return bool(
        obs and obs["phase"] == "play" and obs["to_act"] == obs["seat"] and not snap["hold"]
    )


def has_an_illegal_card(snap: dict[str, Any]) -> bool:
    if not my_play_turn(snap):
        return False
    legal = {a["play"] for a in snap["obs"]["legal"] if "play" in a}
    return any(c not in legal for c in snap["obs"]["hand"])


@cache
def early_end_seed() -> int:
    """A Modern deal that ends before its eighth trick (the result is settled early)."""
    setup = {
        "profile": "modern",
        "length": "single",
        "seats": [{"human": True}] + [{"bot": b} for b in FAST_BOTS],
    }
    for seed in range(1, 200):
        sim = simulate({**setup, "seed": seed}, lambda: Choices(bid="min"), max_deals=1)
        view = sim.game.view(0)
        if view["result"] in ("made", "failed") and len(view["tricks"]) < 8:
            return seed
    raise AssertionError("no Modern deal in range ends early")


def centre(box: dict[str, float]) -> tuple[float, float]:
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def overlap(a: dict[str, float] | None, b: dict[str, float] | None) -> bool:
    assert a and b
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def slot_of(page: Page, seat: int) -> str:
    """Which side of the trick the card of ``seat`` sits on, from where it is drawn."""
    area = page.locator(".trick-cards").bounding_box()
    card = page.locator(f"[data-testid=played-{seat}]").bounding_box()
    assert area and card
    ax, ay = centre(area)
    cx, cy = centre(card)
    dx, dy = cx - ax, cy - ay
    if abs(dx) > abs(dy):
        return "right" if dx > 0 else "left"
    return "bottom" if dy > 0 else "top"


def test_a_card_played_with_a_signal_stays_in_its_seats_slot(page: Page) -> None:
    start_game(page, profile="pagat", seed=11, length="single", seats=["meera", "anil", "raju"])
    snap = play_until(page, Choices(bid="min"), stop=my_play_turn)
    page.click("[data-testid=signal-drop]")
    card = page.locator("#hand button.card.legal").first
    card.click()
    page.click("[data-testid=play]")
    page.wait_for_selector("[data-testid=signal-0]")
    expect(page.locator("[data-testid=played-0]")).to_have_css("position", "absolute")
    expected = {0: "bottom", 1: "left", 2: "top", 3: "right"}
    for seat in range(4):
        if page.locator(f"[data-testid=played-{seat}]").count():
            assert slot_of(page, seat) == expected[seat], f"seat {seat}'s card is drawn elsewhere"
    assert snap["obs"] is not None


def test_single_deal_totals_give_each_team_its_own_colour(page: Page) -> None:
    start_game(page, profile="pagat", seed=3, length="single")
    wait_ready(page)
    chips = page.locator(".stat-match .team-points .team-name")
    expect(chips).to_have_count(2)
    ns = chips.nth(0).evaluate("e => getComputedStyle(e).backgroundColor")
    ew = chips.nth(1).evaluate("e => getComputedStyle(e).backgroundColor")
    points_ew = page.locator("[data-testid=points-1] .team-name").evaluate(
        "e => getComputedStyle(e).backgroundColor"
    )
    assert ns != ew and ew == points_ew


def test_modern_says_on_the_result_that_the_deal_ended_early(page: Page) -> None:
    seed = early_end_seed()
    start_game(page, profile="modern", seed=seed, length="single", seats=FAST_BOTS)
    end = play_until(page, Choices(bid="min"))
    assert end["hold"] == "deal" and len(end["view"]["tricks"]) < 8
    note = page.locator("[data-testid=result-early]")
    expect(note).to_be_visible()
    expect(note).to_contain_text(f"after trick {len(end['view']['tricks'])}")


def test_the_last_trick_and_the_deal_log_can_be_seen_behind_the_result(page: Page) -> None:
    start_game(
        page,
        profile="modern",
        seed=4,
        length="single",
        seats=FAST_BOTS,
        options={"early_end": False},
    )
    end = play_until(page, Choices(bid="min"))
    assert end["hold"] == "deal"
    last = end["view"]["tricks"][-1]
    # the deal log opens with the result on show
    page.click(".log > summary")
    expect(page.locator(".log")).to_have_attribute("open", "")
    expect(page.locator("#log-list li").last).to_be_visible()
    expect(page.locator("#log-list")).to_contain_text("+ 1 for the last trick")
    # the last trick: the result steps aside, the four cards are on show, then it comes back
    page.click("[data-testid=result-last-trick]")
    cover = page.locator("#result").bounding_box()
    assert cover
    for seat in last["seats"]:
        played = page.locator(f"[data-testid=played-{seat}]")
        expect(played).to_be_visible()
        assert not overlap(played.bounding_box(), cover), "the result covers the last trick"
    # Modern counts one point for the last trick: the caption says it apart from the cards
    card_points = sum({"J": 3, "9": 2, "A": 1, "T": 1}.get(c[0], 0) for c in last["cards"])
    assert last["points"] == card_points + 1
    caption = page.locator("[data-testid=trick-caption]")
    expect(caption).to_contain_text(f"{card_points} point")
    expect(caption).to_contain_text("last trick")
    page.click("[data-testid=result-back]")
    expect(page.locator("[data-testid=result] h2")).to_be_visible()
    expect(page.locator("[data-testid=next-deal]")).to_be_focused()


def test_play_now_puts_the_focus_on_the_first_decision(page: Page) -> None:
    page.goto(page.base_url + "/")  # type: ignore[attr-defined]
    page.wait_for_function("() => document.body.dataset.connection === 'online'")
    page.click("[data-testid=quick-start]")
    snap = wait_ready(page)
    # the focus follows the first render of the decision (later on a loaded machine)
    page.wait_for_function("() => document.activeElement !== document.body")
    focused = page.evaluate(
        "() => { const a = document.activeElement; return a && a !== document.body"
        " ? (a.dataset.testid || a.id || a.tagName) : null; }"
    )
    assert focused is not None, "the focus is on <body>"
    if snap["obs"]["phase"] == "auction":
        assert focused in ("bid", "pass"), focused


def test_the_illegal_card_toast_leaves_the_controls_in_sight(page: Page) -> None:
    for width, height in ((1280, 800), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        start_game(page, profile="pagat", seed=11, length="single", seats=["meera", "anil", "raju"])
        snap = play_until(page, Choices(bid="min"), stop=has_an_illegal_card)
        legal = {a["play"] for a in snap["obs"]["legal"] if "play" in a}
        illegal = [c for c in snap["obs"]["hand"] if c not in legal]
        page.click(f"[data-testid=card-{illegal[0]}]", force=True)  # aria-disabled, yet it answers
        toast = page.locator("#toast")
        expect(toast).to_be_visible()
        box = toast.bounding_box()
        assert box
        for control in page.locator("#controls button").all():
            covered = overlap(box, control.bounding_box())
            assert not covered, f"the toast covers {control.inner_text()} at {width}x{height}"


def test_the_play_button_shows_the_cards_points(page: Page) -> None:
    start_game(page, profile="pagat", seed=11, length="single", seats=["meera", "anil", "raju"])
    snap = play_until(page, Choices(bid="min"), stop=my_play_turn)
    legal = [a["play"] for a in snap["obs"]["legal"] if "play" in a]
    points = {"J": 3, "9": 2, "A": 1, "T": 1}
    scoring = [c for c in legal if c[0] in points]
    blank = [c for c in legal if c[0] not in points]
    if scoring:
        page.click(f"[data-testid=card-{scoring[0]}]")
        n = points[scoring[0][0]]
        expect(page.locator("[data-testid=play]")).to_contain_text(f"{n} point")
    if blank:
        page.click(f"[data-testid=card-{blank[0]}]")
        expect(page.locator("[data-testid=play]")).to_contain_text("0 points")
    assert scoring or blank


@pytest.mark.parametrize("width", [390, 600, 800])
def test_the_phone_top_bar_names_every_button(page: Page, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 844})
    page.goto(page.base_url + "/")  # type: ignore[attr-defined]
    page.wait_for_selector("[data-testid=start-game]")
    buttons = page.locator(".menu button:not([hidden])")
    assert buttons.count() == 7
    for button in buttons.all():
        label = button.locator(".label:visible")
        expect(label).to_have_count(1)
        text = label.inner_text().strip()
        assert text, "a top-bar button shows no word"
        name = button.evaluate("e => e.textContent.trim()")
        assert text in name
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the top bar is {overflow}px wider than the screen"


def test_settings_say_the_app_plays_offline_when_it_can(page: Page) -> None:
    page.goto(page.base_url + "/")  # type: ignore[attr-defined]
    page.wait_for_selector("[data-testid=start-game]")
    available = page.evaluate("window.twentynine.offline.available()")
    page.click("[data-testid=btn-settings]")
    body = page.locator("#dlg-settings").inner_text()
    if available:
        assert "needs the server" not in body
        assert "in this browser" in body
    else:
        assert "needs the server" in body


def test_the_strip_is_reachable_by_keyboard(page: Page) -> None:
    start_game(page, profile="pagat", seed=3, length="single")
    wait_ready(page)
    assert page.get_attribute("#strip", "tabindex") == "0"
    assert snapshot(page)["obs"] is not None


HOLD_ACKS = """(ms) => {
  const net = window.twentynine.net();
  const receive = net._receive.bind(net);
  net._receive = (text) => {
    const msg = JSON.parse(text);
    if (msg.type === "ack") setTimeout(() => receive(text), ms);
    else receive(text);
  };
}"""


MY_TURN_SHOWN = """() => {
  const tw = window.twentynine, o = tw.obs();
  return tw.game.hold !== null || (!!o && o.to_act === o.seat && o.legal.length > 0);
}"""


def test_a_decision_on_a_newer_state_goes_out_while_the_last_ack_is_on_its_way(
    page: Page,
) -> None:
    """An act's update can be shown before its ack arrives; the next decision is not lost.

    Every ack is held back 4 s here: each decision must still go out at once.
    """
    # quick bots: the player's next turn comes long before the held ack
    start_game(page, profile="pagat", seed=11, length="match", seats=["pip", "pip", "pip"])
    page.evaluate(HOLD_ACKS, 4000)
    policy = Choices(bid="min")
    acts = 0
    while acts < 4:
        # the player's turn as the table shows it, the last act's ack still held back
        page.wait_for_function(MY_TURN_SHOWN)
        snap = snapshot(page)
        v = snap["v"]
        if snap["hold"] == "trick":
            page.click("[data-testid=next-trick]")
        elif snap["hold"] == "deal":
            break
        else:
            click_action(page, policy(snap["obs"]))
            acts += 1
        # far sooner than the ack: the move itself went out and came back as a new state
        page.wait_for_function(f"() => window.twentynine.game.v > {v}", timeout=2500)
    assert acts == 4


SAMPLE_HITS = """async () => {
  // every frame of the deal's motion: what a tap at the centre of each control would hit
  const missed = [];
  const end = performance.now() + 1500;
  while (performance.now() < end) {
    await new Promise((r) => requestAnimationFrame(r));
    for (const btn of document.querySelectorAll("#controls button")) {
      const r = btn.getBoundingClientRect();
      if (!r.width) continue;
      const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
      if (hit && !btn.contains(hit)) {
        const card = hit.closest("[data-card]");
        missed.push(`${btn.dataset.testid}: ${card ? card.dataset.card : hit.tagName}`);
      }
    }
  }
  return missed;
}"""


@pytest.mark.parametrize("width,height", [(1280, 800), (390, 844)])
def test_a_card_flying_in_never_takes_a_tap_meant_for_a_control(
    page: Page, width: int, height: int
) -> None:
    """The deal's cards fly over the controls: a tap there reaches the control."""
    page.set_viewport_size({"width": width, "height": height})
    page.goto(page.base_url + "/")  # type: ignore[attr-defined]
    page.wait_for_function("() => document.body.dataset.connection === 'online'")
    missed: list[str] = []
    for seed in (3, 11, 21):
        start_game(page, profile="pagat", seed=seed, seats=["pip", "pip", "pip"])
        page.wait_for_selector("#controls button")
        missed += page.evaluate(SAMPLE_HITS)
    assert not missed, sorted(set(missed))
