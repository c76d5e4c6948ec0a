"""The table's motion measured in chromium: frames per second over a trick.

A trick is the busiest stretch of the table's motion: the player's card flies
from the hand, the bots' cards from their seats, the winning card has its
moment and the trick is swept to its winner. This module plays one trick on
a page (Playwright) under CPU throttling (the Chrome DevTools Protocol's
``Emulation.setCPUThrottlingRate``; 4 is a phone-class CPU), records the
``requestAnimationFrame`` deltas and the layout shifts (``layout-shift``
entries of a ``PerformanceObserver``) of that stretch, and says how many
motions ran. ``twentynine bench browser`` reports it as its "animations"
figure; the browser tests use it too.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

QUICK_BOTS = ("raju", "meera", "tara")

RECORD = """() => {
  const rec = { frames: [], shifts: [], start: performance.now() };
  let last = null;
  const tick = (now) => {
    if (rec.stopped) return;
    if (last !== null) rec.frames.push(now - last);
    last = now;
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
  rec.observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      rec.shifts.push({
        value: e.value,
        input: e.hadRecentInput,
        at: e.startTime - rec.start,
        nodes: (e.sources || []).map(
          (s) =>
            `${s.node ? `${s.node.nodeName}#${s.node.id || ""}.${s.node.className || ""}` : "?"} ` +
            `${JSON.stringify(s.previousRect)} -> ${JSON.stringify(s.currentRect)}`,
        ),
      });
  });
  rec.observer.observe({ type: "layout-shift" });
  rec.long = [];
  rec.loaf = new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      rec.long.push({
        ms: e.duration,
        script_ms: (e.scripts || []).reduce((n, s) => n + s.duration, 0),
        render_ms: e.renderStart ? e.startTime + e.duration - e.renderStart : 0,
        scripts: (e.scripts || []).map((s) => `${s.invoker} ${Math.round(s.duration)}`),
      });
  });
  rec.loaf.observe({ type: "long-animation-frame" });
  rec.motions = window.twentynine.motion().played.length;
  rec.cost = window.twentynine.motion().cost_ms;
  window.__frames = rec;
}"""

STOP = """() => {
  const rec = window.__frames;
  rec.stopped = true;
  rec.observer.disconnect();
  rec.loaf.disconnect();
  return {
    long: rec.long,
    frames: rec.frames,
    shifts: rec.shifts,
    ms: performance.now() - rec.start,
    motions: window.twentynine.motion().played.slice(rec.motions),
    motion_ms: window.twentynine.motion().cost_ms - rec.cost,
  };
}"""

STATE = """() => {
  const tw = window.twentynine;
  if (!tw || !tw.game.setup || !tw.idle()) return null;
  const o = tw.obs();
  const mine = !!o && o.to_act === o.seat && o.legal.length > 0;
  const legal = mine ? o.legal : [];
  return { mine, hold: tw.game.hold, legal, v: tw.game.v, phase: o && o.phase };
}"""


def wait_state(page: Any, timeout_s: float = 30) -> dict[str, Any]:
    """The page's state once it waits for the player (their turn, or a trick or deal on show)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        st = page.evaluate(STATE)
        if st and (st["mine"] or st["hold"]):
            return dict(st)
        page.wait_for_timeout(30)
    raise RuntimeError("the table did not come to the player's turn")


def to_next_play(page: Any) -> dict[str, Any]:
    """Pass in every auction and choose the first trump offered, until a card is to be played."""
    for _ in range(200):
        st = wait_state(page)
        if st.get("hold") == "trick":
            page.click("[data-testid=next-trick]")
        elif st["hold"] == "deal":
            page.click("[data-testid=next-deal]")
        else:
            kinds = {next(k for k in a if k != "seat") for a in st["legal"]}
            if "play" in kinds:
                return st
            if "pass" in kinds:
                page.click("[data-testid=pass]")
            elif "trump" in kinds:
                suit = next(a["trump"] for a in st["legal"] if "trump" in a)
                page.click(f"[data-testid=trump-{suit}]")
            else:
                page.click("#controls button.primary")
        page.wait_for_function(f"() => window.twentynine.game.v > {st['v']}")
    raise RuntimeError("no card to play came")


def measure_trick(page: Any, throttle: float = 4.0) -> dict[str, Any]:
    """Play one card and watch its trick to the sweep, under ``throttle`` times CPU slowdown.

    The page must be at the player's turn to play (``to_next_play``).
    """
    cdp = page.context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": throttle})
    try:
        page.evaluate(RECORD)
        card = page.locator("#hand .card.legal").first
        card.click()
        page.click("[data-testid=play]")
        page.wait_for_function(
            "() => window.twentynine.game.hold === 'trick'", timeout=60_000, polling=250
        )
        page.wait_for_timeout(900)
        st = page.evaluate(STATE) or {}
        if st.get("hold") == "trick":
            page.click("[data-testid=next-trick]")
        page.wait_for_timeout(900)
        raw = page.evaluate(STOP)
    finally:
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": 1})
        cdp.detach()
    frames = sorted(raw["frames"])
    if not frames:
        raise RuntimeError("no animation frame was drawn")
    mean = statistics.fmean(frames)
    return {
        "throttle": throttle,
        "frames": len(frames),
        "fps": 1000 / mean,
        "median_ms": statistics.median(frames),
        "p95_ms": frames[min(len(frames) - 1, int(0.95 * len(frames)))],
        "worst_ms": frames[-1],
        "long_frames": sum(1 for f in frames if f > 1000 / 30),
        # as the browser's cumulative layout shift counts it: not the shifts right after
        # the player's own click or key (hadRecentInput); those are reported apart
        "layout_shift": sum(s["value"] for s in raw["shifts"] if not s["input"]),
        "layout_shift_after_input": sum(s["value"] for s in raw["shifts"] if s["input"]),
        "shifts": raw["shifts"],
        "long": raw["long"],
        "motion_script_ms": raw["motion_ms"],
        "long_script_ms": sum(f["script_ms"] for f in raw["long"]),
        "motions": {k: raw["motions"].count(k) for k in sorted(set(raw["motions"]))},
    }


def measure(url: str, chromium: str, args: list[str], throttle: float = 4.0) -> dict[str, Any]:
    """A game against bots on the server at ``url``: one trick measured at a phone's size."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, args=args)
        try:
            context = browser.new_context(
                viewport={"width": 390, "height": 844}, service_workers="block"
            )
            page = context.new_page()
            page.set_default_timeout(60_000)
            page.goto(url + "/")
            page.wait_for_selector("[data-testid=start-game]")
            # quick bots: the measure is of the page, not of the bots' thinking
            for i, who in enumerate(QUICK_BOTS, start=1):
                page.select_option(f"[data-testid=seat-{i}]", who)
            page.click("[data-testid=start-game]")
            to_next_play(page)
            return measure_trick(page, throttle)
        finally:
            browser.close()
