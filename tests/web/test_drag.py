"""Drag to play: push a card up toward the trick and let go; short, it returns.

The drags are made with the mouse (Playwright's ``page.mouse``) and with a
finger (touch events sent through the Chrome DevTools Protocol), on a real
game against bots.
"""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page, expect

from .driver import Choices, display_order, play_until, plays, snapshot, start_game

SEATS = ["raju", "meera", "tara"]


def at_play(page: Page, *, with_illegal: bool = False) -> dict[str, Any]:
    def ready(snap: dict[str, Any]) -> bool:
        obs = snap["obs"]
        if not (obs and obs["phase"] == "play" and obs["to_act"] == obs["seat"]) or snap["hold"]:
            return False
        return not with_illegal or len(plays(obs)) < len(obs["hand"])

    snap = play_until(page, Choices(), stop=ready)
    # the second batch may still be flying in: the cards are taken where they rest
    page.wait_for_function("() => window.twentynine.motion().running === 0")
    return snap


def centre(page: Page, card: str) -> tuple[float, float]:
    box = page.locator(f"[data-testid=card-{card}]").bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def mouse_drag(page: Page, start: tuple[float, float], path: list[tuple[float, float]]) -> None:
    page.mouse.move(*start)
    page.mouse.down()
    for x, y in path:
        page.mouse.move(x, y, steps=6)
    page.mouse.up()


def in_trick(page: Page, card: str) -> bool:
    cards: list[str] = page.evaluate(
        "() => [...document.querySelectorAll('#trick .played')].map((e) => e.dataset.card)"
    )
    return card in cards


def wait_in_trick(page: Page, card: str) -> None:
    page.wait_for_function(
        "(card) => !!document.querySelector(`#trick .played[data-card='${card}']`)",
        arg=card,
    )


def test_a_card_pushed_to_the_centre_is_played(page: Page) -> None:
    start_game(page, seed=11, seats=SEATS)
    snap = at_play(page)
    card = plays(snap["obs"])[0]
    x, y = centre(page, card)
    mouse_drag(page, (x, y), [(x, y - 40), (x + 10, y - 220)])
    page.wait_for_function(f"() => window.twentynine.game.v > {snap['v']}")
    wait_in_trick(page, card)
    assert card not in page.evaluate("window.twentynine.obs().hand")


def test_a_card_let_go_short_goes_back_to_the_hand(page: Page) -> None:
    start_game(page, seed=11, seats=SEATS)
    snap = at_play(page)
    card = plays(snap["obs"])[0]
    x, y = centre(page, card)
    mouse_drag(page, (x, y), [(x, y - 25)])
    page.wait_for_timeout(400)
    assert snapshot(page)["v"] == snap["v"], "a short push played the card"
    button = page.locator(f"[data-testid=card-{card}]")
    expect(button).not_to_have_class("dragging")
    assert button.evaluate("e => e.style.translate") == ""
    # and the click that ended the drag did not select it either
    assert page.evaluate("window.twentynine.ui.selected") is None


def test_sliding_along_the_hand_takes_the_neighbour(page: Page) -> None:
    start_game(page, seed=11, seats=SEATS)
    snap = at_play(page)
    legal = plays(snap["obs"])
    assert len(legal) >= 2, "the seed's first play has a choice"
    first, second = legal[:2]
    (x1, y1), (x2, _) = centre(page, first), centre(page, second)
    mouse_drag(page, (x1, y1), [(x1 + 10, y1 - 5), (x2, y1 - 5), (x2, y1 - 220)])
    page.wait_for_function(f"() => window.twentynine.game.v > {snap['v']}")
    wait_in_trick(page, second)
    assert not in_trick(page, first)


def test_an_illegal_card_is_not_dragged_and_says_why(page: Page) -> None:
    start_game(page, seed=11, seats=SEATS)
    snap = at_play(page, with_illegal=True)
    obs = snap["obs"]
    illegal = next(c for c in display_order(obs["hand"]) if c not in plays(obs))
    x, y = centre(page, illegal)
    mouse_drag(page, (x, y), [(x, y - 60), (x, y - 220)])
    toast = page.locator("#toast")
    expect(toast).to_be_visible()
    expect(toast).to_contain_text("must")
    page.wait_for_timeout(300)
    assert snapshot(page)["v"] == snap["v"]
    assert page.locator(f"[data-testid=card-{illegal}]").evaluate("e => e.style.translate") == ""


def test_a_finger_drags_a_card_into_play(page: Page) -> None:
    start_game(page, seed=11, seats=SEATS)
    snap = at_play(page)
    card = plays(snap["obs"])[0]
    x, y = centre(page, card)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 1})

    def touch(kind: str, px: float, py: float) -> None:
        points = [] if kind == "touchEnd" else [{"x": px, "y": py, "id": 1}]
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    touch("touchStart", x, y)
    for i in range(1, 9):
        touch("touchMove", x, y - i * 28)
    touch("touchEnd", x, y - 224)
    page.wait_for_function(f"() => window.twentynine.game.v > {snap['v']}")
    wait_in_trick(page, card)
