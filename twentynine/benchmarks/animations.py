"""The table's motion measured in chromium: frames per second over a trick, and for
each kind of motion over a whole deal.

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

``measure_kinds`` counts presented frames for each kind of motion
(``KINDS``: the deal, a card played, the hand closing up, the trick's winner,
the sweep, the trump revealed, the pair, a double, the result and the
score): a deal from the new-game form to its result, played through the
page's controls, cut into the stretches from a tap or an update to the end
of the motions it started (see the section's text below).
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
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


def frame_reports(trace: bytes | str) -> list[tuple[float, str, bool]]:
    """The page's frames in a Chrome trace: (begin time in µs of the trace's clock, best
    state, whether a motion ran in it), in order of time.

    Each begin-frame of a compositor has one or more ``PipelineReporter``
    reports (a frame forked for the page's thread has two); the best state
    stands for the frame, and it moved when any report says a compositor or a
    main-thread animation ran.
    """
    data = json.loads(trace)
    events = data["traceEvents"] if isinstance(data, dict) else data
    frames: dict[tuple[Any, ...], tuple[float, str, bool]] = {}
    for e in events:
        if e.get("name") != "PipelineReporter" or e.get("ph") != "b":
            continue
        report = (e.get("args") or {}).get("frame_reporter")
        if not report:
            continue
        key = (e.get("pid"), report.get("layer_tree_host_id"), report.get("frame_sequence"))
        state = report.get("state", "")
        moving = bool(report.get("has_compositor_animation") or report.get("has_main_animation"))
        ts = float(e.get("ts", 0))
        old = frames.get(key)
        if old is None:
            frames[key] = (ts, state, moving)
            continue
        best = state if RANK.get(state, 0) > RANK.get(old[1], 0) else old[1]
        frames[key] = (min(ts, old[0]), best, moving or old[2])
    return sorted(frames.values())


def count_frames(frames: list[tuple[float, str, bool]]) -> dict[str, Any]:
    """Of ``frames`` (``frame_reports``): those a motion wanted, and how many were shown.

    A frame counts when a motion ran in it (a compositor or a main-thread
    animation) and it was not idle. ``fps`` is the refresh rate times the
    share shown; ``partial`` frames were shown without the page thread's
    latest changes (a motion the compositor runs still moved).
    """
    wanted = [state for _, state, moving in frames if moving and state in RANK]
    shown = sum(1 for state in wanted if state in SHOWN)
    return {
        "frames": len(wanted),
        "shown": shown,
        "partial": sum(1 for state in wanted if state == "STATE_PRESENTED_PARTIAL"),
        "dropped": len(wanted) - shown,
        "fps": 60 * shown / len(wanted) if wanted else 0.0,
    }


def presented_frames(trace: bytes | str) -> dict[str, Any]:
    """The page's frames in a Chrome trace that a motion wanted, and how many were shown
    (``count_frames`` over the whole trace)."""
    return count_frames(frame_reports(trace))


class Trace:
    """What a traced stretch recorded: the trace's text once the stretch is over."""

    text: str | bytes | None = None


@contextmanager
def throttled(page: Any, throttle: float, categories: list[str] | None) -> Iterator[Trace]:
    """The page's CPU slowed ``throttle`` times for the ``with`` block, the browser
    tracing ``categories`` meanwhile (none: no trace); both undone however it ends."""
    browser = page.context.browser
    cdp = page.context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": throttle})
    out = Trace()
    tracing = False
    try:
        if categories:
            browser.start_tracing(page=page, categories=categories)
            tracing = True
        yield out
        if tracing:
            out.text = browser.stop_tracing()
            tracing = False
    finally:
        if tracing:
            browser.stop_tracing()
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": 1})
        cdp.detach()


def measure_trick(page: Any, throttle: float = 4.0, frames: str = "raf") -> dict[str, Any]:
    """Play one card and watch its trick to the sweep, under ``throttle`` times CPU slowdown.

    The page must be at the player's turn to play (``to_next_play``).
    ``frames`` is ``"raf"`` or ``"presented"`` (see the module's text).
    """
    if frames not in ("raf", "presented"):
        raise ValueError(f"frames is 'raf' or 'presented', not {frames!r}")
    # the cards dealt or moved before are still: a tap lands where the card is drawn
    page.wait_for_function("() => window.twentynine.motion().running === 0")
    page.wait_for_timeout(300)
    with throttled(page, throttle, FRAME_CATEGORIES if frames == "presented" else None) as traced:
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
    trace = traced.text
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


# ---------------------------------------------------------------------------- each kind of motion
#
# A game of one deal against the quick bots, played through the page's own
# controls from the new-game form to the result, the CPU throttled and the
# browser tracing the whole way. The page is watched (``WATCH``, run before the
# page's own scripts): every animation started (``Element.animate``, which is
# how motion.js starts each motion, the sweep's copies included), every
# message of the server, every tap, every layout shift, with their times. A
# *stretch* begins with the player's tap, or the server's update, that starts
# a motion (the tap when the motion came with the first message after it,
# else the message it came with), and ends when the last animation started in
# it has finished (``motion().running`` is 0 and the sweep's copies, which
# ``running`` does not count, are gone); the kinds ``motion().played`` gained
# meanwhile ran in it. A motion started while a stretch is on joins it. The
# trace's frames are counted in each stretch, and they stand for every kind
# that ran in it. The player taps only when nothing moves (a card is tapped
# where it is drawn), so a tap never falls inside a stretch.

KINDS = ("deal", "play", "hand", "trick", "sweep", "reveal", "pair", "double", "result", "score")
PROFILE = "modern"  # doubling (double, redouble), the pair, the trump revealed by the play
SUIT_ORDER, RANK_ORDER = "SHCD", "J9ATKQ87"  # the hand's order on the page

WATCH = """(() => {
  const bench = { on: false, live: 0, open: null, done: [], shifts: [], tap: null,
    message: -1, messages: 0, ended: -1, overflow: false };
  window.__bench = bench;
  const played = () => (window.twentynine ? window.twentynine.motion().played : []);
  const running = () => (window.twentynine ? window.twentynine.motion().running : 0);
  const Socket = window.WebSocket;
  window.WebSocket = class extends Socket {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", () => {
        bench.message = performance.now();
        bench.messages++;
      });
    }
  };
  bench.tapped = (by) => {
    bench.tap = { at: performance.now(), by, messages: bench.messages };
  };
  const close = () => {
    const s = bench.open;
    if (!s || bench.live) return;
    if (running()) return void setTimeout(close, 50);
    const kinds = played();
    if (kinds.length >= 200) bench.overflow = true; // motion.js keeps the last 200 only
    bench.done.push({ ...s, end: bench.ended, kinds: kinds.slice(s.from) });
    bench.open = null;
  };
  const watch = (anim) => {
    const now = performance.now();
    if (!bench.open) {
      // the tap it answers (no other update came between), else the update that started it
      const tap = bench.tap;
      let start = bench.message > bench.ended ? bench.message : now;
      let by = "update";
      if (tap && tap.at > bench.ended && bench.messages - tap.messages <= 1) {
        start = tap.at;
        by = tap.by;
      }
      bench.tap = null;
      bench.open = { start, by, from: played().length };
    }
    bench.live++;
    let over = false;
    const done = () => {
      if (over) return;
      over = true;
      bench.live--;
      bench.ended = performance.now();
      if (!bench.live) setTimeout(close, 0);
    };
    anim.addEventListener("finish", done);
    anim.addEventListener("cancel", done);
  };
  const animate = Element.prototype.animate;
  Element.prototype.animate = function (...args) {
    const anim = animate.apply(this, args);
    if (bench.on) watch(anim);
    return anim;
  };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      bench.shifts.push({
        value: e.value,
        input: e.hadRecentInput,
        at: e.startTime,
        nodes: (e.sources || []).map((s) =>
          s.node ? `${s.node.nodeName}#${s.node.id}.${s.node.className}` : "?"),
      });
  }).observe({ type: "layout-shift", buffered: true });
})()"""

BEGIN = """() => {
  performance.mark("twentynine-bench");
  window.__bench.on = true;
  return performance.getEntriesByName("twentynine-bench").pop().startTime;
}"""

# the page waits for the player (their turn, or a trick or the deal on show) and nothing moves
READY = """() => {
  const tw = window.twentynine, b = window.__bench;
  if (!tw || !tw.game.setup || !tw.idle() || b.open || b.live) return null;
  const o = tw.obs();
  const mine = !!o && o.to_act === o.seat && o.legal.length > 0;
  if (!mine && !tw.game.hold) return null;
  return { obs: o, mine, hold: tw.game.hold, v: tw.game.v };
}"""


def hand_order(cards: list[str]) -> list[str]:
    return sorted(cards, key=lambda c: (SUIT_ORDER.index(c[-1]), RANK_ORDER.index(c[0])))


def choose(obs: dict[str, Any]) -> dict[str, Any] | None:
    """The player's action: the first legal card in the hand's order, a pair shown, a double
    or redouble taken, every bid passed; ``None`` where it would have to bid."""
    seat, legal = obs["seat"], obs["legal"]
    kinds = {next(k for k in a if k != "seat") for a in legal}
    if "play" in kinds:
        cards = {a["play"] for a in legal if "play" in a}
        return {"seat": seat, "play": next(c for c in hand_order(obs["hand"]) if c in cards)}
    for kind in ("pair", "double", "redouble"):
        if kind in kinds:
            return {"seat": seat, kind: True}
    if "pass" in kinds:
        return {"seat": seat, "pass": True}
    return None


def setup_of(seed: int) -> dict[str, Any]:
    seats = [{"human": True}, *({"bot": who} for who in QUICK_BOTS)]
    return {"profile": PROFILE, "length": "single", "seed": seed, "seats": seats}


def simulate(seed: int) -> tuple[int, set[str]] | None:
    """The deal of ``seed`` as the server plays it (its own game and bots), the player by
    ``choose``: the cards the player plays and the kinds of event the player sees, or
    ``None`` if the player would have to bid."""
    from ..bots.characters import BY_ID
    from ..game.actions import Action
    from ..server.game import Game
    from ..server.setup import parse_setup

    setup = parse_setup({**setup_of(seed), "auto_pair": False})
    game = Game(setup)
    seen = {e["type"] for e in game.deal_events}
    plays = 0
    while not game.deal_over:
        seat = game.to_act
        if seat == 0:
            action = choose(game.view(0))
            if action is None:
                return None
            plays += "play" in action
            events = game.apply(Action.from_json(action))
        else:
            character = setup.seats[seat].character
            assert character is not None
            events = game.apply(
                BY_ID[character].make(game.bot_seed(seat)).act(game.observation(seat))
            )
        seen |= {e["type"] for e in game.event_views(events, 0)}
    return plays, seen


def find_seed(seeds: range = range(1, 400)) -> int:
    """The seed whose first deal shows the trump revealed, a pair and a double (or
    redouble) with the fewest cards of the player's: the shortest deal with every kind."""
    found = []
    for seed in seeds:
        done = simulate(seed)
        if done is None:
            continue
        plays, seen = done
        if {"reveal", "pair", "deal_end"} <= seen and seen & {"double", "redouble", "set"}:
            found.append((plays, seed))
    if not found:
        raise RuntimeError(f"no seed in {seeds} deals a reveal, a pair and a double")
    return min(found)[1]


def _wait(page: Any, script: str, arg: Any = None, timeout_s: float = 60) -> Any:
    """``script``'s answer once it is truthy, asked every 100 ms (not at every frame, as
    Playwright's waits do: a loop of ``requestAnimationFrame`` asks for frames)."""
    handle = page.wait_for_function(script, arg=arg, polling=100, timeout=timeout_s * 1000)
    return handle.json_value()


def _tap(page: Any, selector: str, by: str, across: float = 0.5) -> None:
    page.evaluate("(by) => window.__bench.tapped(by)", by)
    tap(page, selector, across)


def play_deal(page: Any, max_steps: int = 300) -> None:
    """Play the deal through the page's controls (``choose``) to its result on show."""
    for _ in range(max_steps):
        st = _wait(page, READY)
        obs = st["obs"]
        legal = obs["legal"] if st["mine"] else []
        if st["hold"] == "deal":
            return
        if any("pair" in a for a in legal):
            _tap(page, "[data-testid=pair]", "pair")
        elif st["hold"] == "trick":
            _tap(page, "[data-testid=next-trick]", "next-trick")
        else:
            action = choose(obs)
            if action is None:
                raise RuntimeError("the player would have to bid: the deal is not the one found")
            kind = next(k for k in action if k != "seat")
            if kind == "play":
                _tap(page, f"[data-testid=card-{action['play']}]", "card", 0.15)
                _wait(page, "() => !document.querySelector('[data-testid=play]')?.disabled")
                _tap(page, "[data-testid=play]", "play")
            else:
                _tap(page, f"[data-testid={kind}]", kind)
        _wait(page, f"() => window.twentynine.game.v > {st['v']}")
    raise RuntimeError("the deal did not end")


def start_game(page: Any, seed: int) -> None:
    """The new-game form filled (Playwright's own inputs: the form is not measured)."""
    page.wait_for_selector("[data-testid=start-game]")
    page.check(f"[data-testid=profile-{PROFILE}]")
    page.click("[data-testid=setup-options] > summary")
    page.fill("[data-testid=setup-seed]", str(seed))
    page.check("[data-testid=length-single]")
    for i, who in enumerate(QUICK_BOTS, start=1):
        page.select_option(f"[data-testid=seat-{i}]", who)
    auto = page.locator("[data-testid=setup-autopair]")
    if auto.is_enabled():
        auto.set_checked(False)


def stretch_figures(
    raw: dict[str, Any], frames: list[tuple[float, str, bool]], zero_us: float
) -> list[dict[str, Any]]:
    """Each stretch with its frames (``count_frames``) and layout shift; ``zero_us`` is the
    trace's time of the page's time 0."""
    out = []
    for s in raw["done"]:
        lo, hi = zero_us + s["start"] * 1000, zero_us + s["end"] * 1000
        inside = [f for f in frames if lo <= f[0] <= hi]
        shifts = [x for x in raw["shifts"] if s["start"] <= x["at"] <= s["end"]]
        out.append(
            {
                "by": s["by"],
                "ms": s["end"] - s["start"],
                "kinds": {k: s["kinds"].count(k) for k in sorted(set(s["kinds"]))},
                **count_frames(inside),
                "layout_shift": sum(x["value"] for x in shifts if not x["input"]),
                "layout_shift_after_input": sum(x["value"] for x in shifts if x["input"]),
                "shifts": shifts,
            }
        )
    return out


def by_kind(stretches: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The stretches' figures summed for each kind that ran in them (a stretch where several
    kinds ran counts for each: ``shared`` says in how many)."""
    out: dict[str, dict[str, Any]] = {}
    for kind in KINDS:
        mine = [s for s in stretches if kind in s["kinds"]]
        frames = sum(s["frames"] for s in mine)
        shown = sum(s["shown"] for s in mine)
        out[kind] = {
            "stretches": len(mine),
            "shared": sum(1 for s in mine if len(s["kinds"]) > 1),
            "motions": sum(s["kinds"][kind] for s in mine),
            "ms": sum(s["ms"] for s in mine),
            "frames": frames,
            "shown": shown,
            "partial": sum(s["partial"] for s in mine),
            "dropped": frames - shown,
            "fps": 60 * shown / frames if frames else 0.0,
            "layout_shift": sum(s["layout_shift"] for s in mine),
            "layout_shift_after_input": sum(s["layout_shift_after_input"] for s in mine),
        }
    return out


def measure_kinds_once(page: Any, url: str, seed: int, throttle: float) -> dict[str, Any]:
    """One game of the deal of ``seed`` on ``page`` (new, with ``WATCH``), every stretch."""
    page.goto(url + "/")
    start_game(page, seed)
    with throttled(page, throttle, [*FRAME_CATEGORIES, "blink.user_timing"]) as traced:
        zero_ms = page.evaluate(BEGIN)
        _tap(page, "[data-testid=start-game]", "start-game")
        play_deal(page)
        page.wait_for_timeout(300)
        _wait(page, "() => !window.__bench.open && !window.__bench.live")
        raw = page.evaluate("() => { window.__bench.on = false; return window.__bench; }")
    trace = traced.text
    assert trace is not None
    if raw["overflow"]:
        raise RuntimeError("over 200 motions in the deal: motion.js forgot the first ones")
    data = json.loads(trace)
    events = data["traceEvents"] if isinstance(data, dict) else data
    mark = next((e for e in events if e.get("name") == "twentynine-bench"), None)
    if mark is None:
        raise RuntimeError("the trace has not the bench's mark (blink.user_timing)")
    zero_us = float(mark["ts"]) - zero_ms * 1000
    stretches = stretch_figures(raw, frame_reports(trace), zero_us)
    return {"stretches": stretches, "kinds": by_kind(stretches)}


def median_kinds(runs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each kind's figures, the median over ``runs`` (``measure_kinds_once``)."""
    out = {}
    for kind in KINDS:
        figures = [r["kinds"][kind] for r in runs]
        out[kind] = {key: statistics.median(f[key] for f in figures) for key in figures[0]}
    return out


def measure_kinds(
    url: str, chromium: str, args: list[str], throttle: float = 4.0, runs: int = 1
) -> dict[str, Any]:
    """Each kind of motion, at a phone's size, under ``throttle`` times CPU slowdown: ``runs``
    games of the deal ``find_seed`` finds against the quick bots on the server at ``url``;
    the medians over the runs, and each run's stretches."""
    from playwright.sync_api import sync_playwright

    seed = find_seed()
    done = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, args=args)
        try:
            for _ in range(runs):
                context = browser.new_context(
                    viewport={"width": 390, "height": 844}, service_workers="block"
                )
                context.add_init_script(WATCH)
                page = context.new_page()
                page.set_default_timeout(60_000)
                done.append(measure_kinds_once(page, url, seed, throttle))
                context.close()
        finally:
            browser.close()
    for what, key in (("no motion", "stretches"), ("no frame measured", "frames")):
        missing = [k for k in KINDS if any(not r["kinds"][k][key] for r in done)]
        if missing:
            raise RuntimeError(
                f"{what} of the kind {', '.join(missing)} in the deal of seed {seed} "
                f"({PROFILE}): the table's motion or the deal is not what the bench expects"
            )
    return {
        "throttle": throttle,
        "profile": PROFILE,
        "seed": seed,
        "runs": done,
        "kinds": median_kinds(done),
    }
