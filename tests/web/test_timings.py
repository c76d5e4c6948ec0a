"""How fast the table comes: from opening the page to a table that can be played,
and from a reload in the middle of a game to the same table again.

The page marks, on its own clock (``performance.now()``, from the start of the
navigation), the first moment the new-game form is there, the click on Play now
and the first moment cards are in the hand. The median of a few runs is
printed and held to the targets: a playable table within 1 s of opening the
page, the table back within 0.5 s of a reload.
"""

from __future__ import annotations

import os
from statistics import median

from playwright.sync_api import Page

from .driver import Choices, play_until, wait_ready

MARKS = """(() => {
  const marks = (window.__marks = {});
  const now = () => performance.now();
  const look = () => {
    if (!marks.form && document.querySelector("[data-testid=start-game]")) marks.form = now();
    if (!marks.hand && document.querySelector("#hand button.card")) marks.hand = now();
  };
  new MutationObserver(look).observe(document, { subtree: true, childList: true });
  document.addEventListener("click", (e) => {
    if (e.target.closest && e.target.closest("[data-testid=quick-start]")) marks.click = now();
  }, true);
})();"""

RUNS = 4  # the first is a fresh browser's first visit: reported, not in the median
PLAYABLE_MS = 1000
RELOAD_MS = 500
# A machine shared by many runs at once is slower than a player's: the figures are
# printed as measured, and held to the targets times this (1 on a quiet machine).
SLACK = float(os.environ.get("TWENTYNINE_TIMING_SLACK", "3"))


def marks(page: Page) -> dict[str, float]:
    found: dict[str, float] = page.evaluate("window.__marks")
    return found


def test_a_playable_table_within_a_second_and_back_within_half_a_second_of_a_reload(
    page: Page,
) -> None:
    page.add_init_script(MARKS)
    playable: list[float] = []
    reloads: list[float] = []
    for _ in range(RUNS):
        if page.url.startswith("http"):
            page.evaluate("sessionStorage.clear()")  # no game to rejoin: the form comes
        page.goto(page.base_url + "/")  # type: ignore[attr-defined]
        page.wait_for_selector("[data-testid=quick-start]")
        page.click("[data-testid=quick-start]")
        page.wait_for_selector("#hand button.card")
        m = marks(page)
        playable.append(m["form"] + (m["hand"] - m["click"]))  # the player's own time left out
        play_until(page, Choices(bid="min"), stop=lambda s: s["obs"]["phase"] == "play")
        page.reload()
        page.wait_for_selector("#hand button.card")
        reloads.append(marks(page)["hand"])
        wait_ready(page)
    warm_playable, warm_reload = median(playable[1:]), median(reloads[1:])
    print(f"\nplayable table: {warm_playable:.0f} ms, first visit {playable[0]:.0f} ms")
    print(f"reload mid-game: {warm_reload:.0f} ms, first {reloads[0]:.0f} ms")
    assert warm_playable <= PLAYABLE_MS * SLACK, [round(x) for x in playable]
    assert warm_reload <= RELOAD_MS * SLACK, [round(x) for x in reloads]
