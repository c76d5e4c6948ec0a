"""Sound: off by default, and when on, the right sound for each event.

A spy wraps the page's one sound function (``window.twentynine.sound.play``)
and still calls it, so the Web Audio voices run too (a voice that throws
would show as a JavaScript error, which fails every browser test).
"""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page

from .driver import Choices, play_until, start_game

SEATS = ["raju", "meera", "tara"]

SPY = """() => {
  window.__heard = [];
  const player = window.twentynine.sound;
  const real = player.play.bind(player);
  player.play = (name) => {
    window.__heard.push(name);
    real(name);
  };
}"""


def sound_of(ev: dict[str, Any]) -> str | None:
    kind = ev["type"]
    if kind == "play":
        return "card"
    if kind in ("trick", "reveal"):
        return str(kind)
    if kind == "deal_end":
        return {"made": "made", "single-made": "made", "failed": "failed"}.get(
            ev["result"], "failed" if ev["result"] == "single-failed" else None
        )
    return None


def test_no_sound_plays_while_sound_is_off(page: Page) -> None:
    start_game(page, seed=11, seats=SEATS)
    assert page.evaluate("window.twentynine.settings().sound") is False
    page.evaluate(SPY)
    play_until(page, Choices(bid="min"))
    assert page.evaluate("window.__heard") == []


def test_each_event_has_its_sound_once_sound_is_on(page: Page) -> None:
    start_game(page, seed=11, seats=SEATS)
    # turned on in the settings, as a player would
    page.click("[data-testid=btn-settings]")
    page.check("[data-testid=set-sound]")
    page.fill("[data-testid=set-volume]", "30")
    page.dispatch_event("[data-testid=set-volume]", "change")
    page.click("[data-testid=dlg-settings-close]")
    assert page.evaluate("window.twentynine.settings().volume") == 30
    page.evaluate(SPY)
    # the events so far (the deal's start) make no sound; everything after is heard
    seen = page.evaluate("window.twentynine.game.events[window.twentynine.game.seats[0]].length")
    end = play_until(page, Choices(bid="min"))
    assert end["hold"] == "deal"
    events = page.evaluate("window.twentynine.game.events[window.twentynine.game.seats[0]]")
    expected = [s for s in (sound_of(ev) for ev in events[seen:]) if s]
    heard = page.evaluate("window.__heard")
    assert heard == expected
    assert heard.count("card") == 32 and heard.count("trick") == 8
    assert heard[-1] in ("made", "failed")
