"""The table's motion measured in chromium: frames per second over a trick.

A trick is the busiest stretch of the table's motion: the player's card flies
from the hand, the bots' cards from their seats, the winning card has its
moment and the trick is swept to its winner. This module plays one trick on
a page (Playwright) under CPU throttling (the Chrome DevTools Protocol's
``Emulation.setCPUThrottlingRate``; 4 is a phone-class CPU) and counts its
frames in one of two ways:

- ``"presented"``: the frames the browser put on the screen while something
  moved, as the Frames track of the DevTools performance timeline counts
  them (its ``PipelineReporter`` trace events: a frame wanted for a motion
  is presented whole, presented in part, or dropped). This is what a person
  sees: a motion the compositor runs goes on while a script runs.
- ``"raf"``: the ``requestAnimationFrame`` deltas of the page's own thread,
  which every script and layout delays. Its loop asks for a frame of the
  page's thread at every refresh, so the two are not counted in one trick.

Both record the layout shifts (``layout-shift`` entries of a
``PerformanceObserver``) and the long animation frames of that stretch, and
say how many motions ran. ``twentynine bench browser`` reports both; the
browser tests use them too.
"""

from __future__ import annotations

import json
import statistics
import time
from typing import Any

QUICK_BOTS = ("raju", "meera", "tara")

RECORD = """(raf) => {
  const rec = { frames: [], shifts: [], start: performance.now() };
  let last = null;
  const tick = (now) => {
    if (rec.stopped) return;
    if (last !== null) rec.frames.push(now - last);
    last = now;
    requestAnimationFrame(tick);
  };
  if (raf) requestAnimationFrame(tick);
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


def tap(page: Any, selector: str, across: float = 0.5) -> None:
    """A press and release on the first element ``selector`` finds, as a finger's: at its
    middle in height and ``across`` its width (a card of the hand is covered on its right).

    Not Playwright's ``click``: its checks before a click (the element stable
    over two frames, nothing covering it) run script and read the layout on
    the page being measured."""
    box = page.locator(selector).first.bounding_box()
    if box is None:
        raise RuntimeError(f"nothing on show to tap: {selector}")
    page.mouse.click(box["x"] + box["width"] * across, box["y"] + box["height"] / 2)


# the trace category of the compositor's frame reports (the DevTools Frames track)
FRAME_CATEGORIES = ["disabled-by-default-devtools.timeline.frame"]
SHOWN = ("STATE_PRESENTED_ALL", "STATE_PRESENTED_PARTIAL")
RANK = {"STATE_PRESENTED_ALL": 3, "STATE_PRESENTED_PARTIAL": 2, "STATE_DROPPED": 1}


def presented_frames(trace: bytes | str) -> dict[str, Any]:
    """The page's frames in a Chrome trace: those a motion wanted, and how many were shown.

    Each begin-frame of a compositor has one or more ``PipelineReporter``
    reports (a frame forked for the page's thread has two); the best state
    stands for the frame. A frame counts when a motion ran in it (a compositor
    or a main-thread animation) and it was not idle. ``fps`` is the refresh
    rate times the share shown; ``partial`` frames were shown without the
    page thread's latest changes (a motion the compositor runs still moved).
    """
    data = json.loads(trace)
    events = data["traceEvents"] if isinstance(data, dict) else data
    frames: dict[tuple[Any, ...], tuple[str, bool]] = {}
    for e in events:
        if e.get("name") != "PipelineReporter" or e.get("ph") != "b":
            continue
        report = (e.get("args") or {}).get("frame_reporter")
        if not report:
            continue
        key = (e.get("pid"), report.get("layer_tree_host_id"), report.get("frame_sequence"))
        state = report.get("state", "")
        moving = bool(report.get("has_compositor_animation") or report.get("has_main_animation"))
        old = frames.get(key)
        if old is None or RANK.get(state, 0) > RANK.get(old[0], 0):
            frames[key] = (state, moving or (old is not None and old[1]))
        elif moving:
            frames[key] = (old[0], True)
    wanted = [state for state, moving in frames.values() if moving and state in RANK]
    shown = sum(1 for state in wanted if state in SHOWN)
    return {
        "frames": len(wanted),
        "shown": shown,
        "partial": sum(1 for state in wanted if state == "STATE_PRESENTED_PARTIAL"),
        "dropped": len(wanted) - shown,
        "fps": 60 * shown / len(wanted) if wanted else 0.0,
    }


def measure_trick(page: Any, throttle: float = 4.0, frames: str = "raf") -> dict[str, Any]:
    """Play one card and watch its trick to the sweep, under ``throttle`` times CPU slowdown.

    The page must be at the player's turn to play (``to_next_play``).
    ``frames`` is ``"raf"`` or ``"presented"`` (see the module's text).
    """
    if frames not in ("raf", "presented"):
        raise ValueError(f"frames is 'raf' or 'presented', not {frames!r}")
    browser = page.context.browser
    # the cards dealt or moved before are still: a tap lands where the card is drawn
    page.wait_for_function("() => window.twentynine.motion().running === 0")
    page.wait_for_timeout(300)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": throttle})
    tracing = False
    try:
        if frames == "presented":
            browser.start_tracing(page=page, categories=FRAME_CATEGORIES)
            tracing = True
        page.evaluate(RECORD, frames == "raf")
        tap(page, "#hand .card.legal", 0.15)
        page.wait_for_selector("[data-testid=play]:not([disabled])")
        tap(page, "[data-testid=play]")
        page.wait_for_function(
            "() => window.twentynine.game.hold === 'trick'", timeout=60_000, polling=250
        )
        page.wait_for_timeout(900)
        st = page.evaluate(STATE) or {}
        if st.get("hold") == "trick":
            tap(page, "[data-testid=next-trick]")
        page.wait_for_timeout(900)
        raw = page.evaluate(STOP)
        trace = browser.stop_tracing() if tracing else None
        tracing = False
    finally:
        if tracing:
            browser.stop_tracing()
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": 1})
        cdp.detach()
    out: dict[str, Any] = {
        "throttle": throttle,
        "way": frames,
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
    if trace is not None:
        shown = presented_frames(trace)
        if not shown["frames"]:
            raise RuntimeError("no frame of a motion was reported")
        return {**out, **shown}
    deltas = sorted(raw["frames"])
    if not deltas:
        raise RuntimeError("no animation frame was drawn")
    mean = statistics.fmean(deltas)
    return {
        **out,
        "frames": len(deltas),
        "fps": 1000 / mean,
        "median_ms": statistics.median(deltas),
        "p95_ms": deltas[min(len(deltas) - 1, int(0.95 * len(deltas)))],
        "worst_ms": deltas[-1],
        "long_frames": sum(1 for f in deltas if f > 1000 / 30),
    }


def measure(url: str, chromium: str, args: list[str], throttle: float = 4.0) -> dict[str, Any]:
    """A game against bots on the server at ``url``, at a phone's size: the first trick's
    frames as presented, the second's on the page's thread (``"raf"``)."""
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
            presented = measure_trick(page, throttle, "presented")
            to_next_play(page)
            return {"presented": presented, "raf": measure_trick(page, throttle, "raf")}
        finally:
            browser.close()
