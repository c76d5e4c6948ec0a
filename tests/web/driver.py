"""Playing the browser table from a test: a policy, a simulator, a driver.

A *policy* chooses the human's action from its observation (the JSON the
page holds). The *simulator* plays a whole game in-process with the server's
own ``Game`` and bots, so a test can search for a seed where the human meets
a given decision before driving a browser there. The *driver* reads the
page's state, asks the policy, and acts through the page's own controls
(mouse or keyboard), exactly as a player would.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from twentynine.bots.characters import BY_ID
from twentynine.game.actions import Action
from twentynine.game.engine import PAIR_WINDOW
from twentynine.server.game import Game
from twentynine.server.setup import parse_setup

Obs = dict[str, Any]
Policy = Callable[[Obs], dict[str, Any]]

HAND_SUIT_ORDER = "SHCD"  # the page's hand order: colours alternate
RANK_ORDER = "J9ATKQ87"


def display_order(cards: list[str]) -> list[str]:
    """The hand as the page shows it: S H C D, each from the highest card down."""
    return sorted(cards, key=lambda c: (HAND_SUIT_ORDER.index(c[-1]), RANK_ORDER.index(c[0])))


def legal_of(obs: Obs) -> list[dict[str, Any]]:
    return list(obs["legal"])


def plays(obs: Obs) -> list[str]:
    legal = {a["play"] for a in obs["legal"] if "play" in a}
    return [c for c in display_order(obs["hand"]) if c in legal]


def longest_suit(obs: Obs) -> str:
    counts = {s: sum(1 for c in obs["hand"] if c.endswith(s)) for s in "SHDC"}
    return max("SHDC", key=lambda s: (counts[s], -"SHDC".index(s)))


@dataclass
class Choices:
    """A simple, deterministic human: what to do at each kind of decision."""

    # "pass", "min" (lowest legal bid at the first chance), "always_min", "max" (the
    # highest legal bid at the first chance: the auction is won there)
    bid: str = "pass"
    trump: str = "longest"  # "longest" or "seventh"
    single: bool = False
    double: bool = False
    redouble: bool = False
    set: bool = False
    pair: bool = True
    reveal: bool = False
    bids_made: int = field(default=0)

    def __call__(self, obs: Obs) -> dict[str, Any]:
        seat = obs["seat"]
        kinds = {next(k for k in a if k != "seat") for a in obs["legal"]}
        if "play" in kinds or "reveal" in kinds:
            if "reveal" in kinds and self.reveal:
                return {"seat": seat, "reveal": True}
            return {"seat": seat, "play": plays(obs)[0]}
        if "bid" in kinds:
            bids = sorted(a["bid"] for a in obs["legal"] if "bid" in a)
            if self.bid == "max" and self.bids_made == 0:
                self.bids_made += 1
                return {"seat": seat, "bid": bids[-1]}
            wants = self.bid == "always_min" or (self.bid == "min" and self.bids_made == 0)
            if wants or "pass" not in kinds:
                self.bids_made += 1
                return {"seat": seat, "bid": bids[0]}
            return {"seat": seat, "pass": True}
        if "trump" in kinds:
            if self.trump == "seventh" and "seventh" in kinds:
                return {"seat": seat, "seventh": True}
            return {"seat": seat, "trump": longest_suit(obs)}
        for kind in ("single", "double", "redouble", "set", "pair"):
            if kind in kinds:
                return (
                    {"seat": seat, kind: True}
                    if getattr(self, kind)
                    else {"seat": seat, "pass": True}
                )
        raise AssertionError(f"no choice for {kinds}")


# ---------------------------------------------------------------------------- simulation


@dataclass
class Simulation:
    game: Game
    decisions: list[tuple[Obs, dict[str, Any]]]  # the human's observations and actions
    stopped: bool  # stop() said yes


def simulate(
    setup: dict[str, Any],
    policy_factory: Callable[[], Policy],
    stop: Callable[[Obs], bool] | None = None,
    max_deals: int = 30,
    auto_pair: bool | None = None,
) -> Simulation:
    """Play a game as the server would (same deals, same bots), the humans by ``policy``."""
    raw = dict(setup)
    raw.pop("pace", None)
    parsed = parse_setup(raw)
    game = Game(parsed)
    humans = parsed.human_seats
    policies = {s: policy_factory() for s in humans}
    auto = parsed.auto_pair if auto_pair is None else auto_pair
    decisions: list[tuple[Obs, dict[str, Any]]] = []
    while True:
        if game.match_over:
            return Simulation(game, decisions, False)
        if game.deal_over:
            if game.deal_index + 1 >= max_deals:
                return Simulation(game, decisions, False)
            game.next_deal()
            continue
        seat = game.to_act
        if seat in humans:
            if auto and game.match.deal.phase == PAIR_WINDOW:
                game.apply(Action.flag(seat, "pair"))
                continue
            obs = game.view(seat)
            if stop is not None and stop(obs):
                return Simulation(game, decisions, True)
            action = policies[seat](obs)
            decisions.append((obs, action))
            game.apply(Action.from_json(action))
        else:
            character = parsed.seats[seat].character
            assert character is not None
            bot = BY_ID[character].make(game.bot_seed(seat))
            game.apply(bot.act(game.observation(seat)))


def find_seed(
    setup: dict[str, Any],
    policy_factory: Callable[[], Policy],
    stop: Callable[[Obs], bool],
    seeds: range = range(1, 400),
) -> int:
    for seed in seeds:
        if simulate({**setup, "seed": seed}, policy_factory, stop, max_deals=1).stopped:
            return seed
    raise AssertionError("no seed in range reaches the decision")


# ---------------------------------------------------------------------------- the page

SNAPSHOT = """() => {
  const tw = window.twentynine;
  if (!tw) return null;
  const g = tw.game;
  return {
    obs: tw.obs(), view: tw.view(), hold: g.hold, holdAt: g.holdAt, over: g.over, v: g.v,
    seats: g.seats, handover: tw.ui.handover, viewer: tw.ui.viewer, idle: tw.idle(),
    canUndo: g.canUndo,
  };
}"""

READY = """() => {
  const tw = window.twentynine;
  if (!tw || !tw.game.setup || !tw.idle()) return false;
  const o = tw.obs();
  const mine = o && o.to_act === o.seat && o.legal.length > 0;
  return mine || tw.game.hold !== null || tw.ui.handover !== null;
}"""


def snapshot(page: Page) -> dict[str, Any]:
    snap: dict[str, Any] = page.evaluate(SNAPSHOT)
    return snap


def wait_ready(page: Page, timeout: float = 30_000) -> dict[str, Any]:
    """Wait until the human must act (or a trick/deal is on show, or a hand-over)."""
    page.wait_for_function(READY, timeout=timeout)
    return snapshot(page)


STILL = """() => document.getAnimations().every(
  (a) => a.playState !== "running" || a.effect.getTiming().iterations === Infinity)"""


def wait_still(page: Page, timeout: float = 10_000) -> None:
    """Wait until every animation that ends has ended (a blinking dot may go on)."""
    page.wait_for_function(STILL, timeout=timeout)


WHERE = """() => { const t = window.twentynine, n = t.net(), o = t.obs();
  return { v: n.v, hold: t.game.hold, busy: t.ui.busy, selected: t.ui.selected,
    pending: [...n.pending.values()].map((p) => p.msg.type), ...t.connection(),
    obs: o && { phase: o.phase, to_act: o.to_act, legal: o.legal.length },
    pointer: window.__pointer || [] }; }"""


def wait_version_after(page: Page, v: int) -> None:
    """Wait for a version past ``v``; on a timeout, say where the page stood."""
    try:
        page.wait_for_function(f"() => window.twentynine && window.twentynine.game.v > {v}")
    except PlaywrightTimeout:
        raise AssertionError(f"no version past {v}: {page.evaluate(WHERE)}") from None


def open_table(page: Page) -> None:
    """Open the page at the new-game form (a game in this tab is rejoined first: leave it)."""
    page.goto(page.base_url + "/")  # type: ignore[attr-defined]
    page.wait_for_selector("[data-testid=start-game], body[data-screen=table]")
    if page.locator("body[data-screen=table]").count():
        page.click("[data-testid=btn-new]")
    page.wait_for_selector("[data-testid=start-game]")


def start_game(
    page: Page,
    *,
    profile: str = "pagat",
    seed: int | None = None,
    length: str = "single",
    target: int | None = None,
    seats: list[str] | None = None,
    options: dict[str, Any] | None = None,
    auto_pair: bool = False,
    undo: bool | None = None,
    hint: bool | None = None,
) -> None:
    """Fill the new-game form as a player would and start."""
    open_table(page)
    page.check(f"[data-testid=profile-{profile}]")
    if options or seed is not None:
        page.click("[data-testid=setup-options] > summary")
    for name, value in (options or {}).items():
        control = page.locator(f"[data-option={name}] input, [data-option={name}] select").first
        tag = control.evaluate("e => e.tagName.toLowerCase() + ':' + (e.type || '')")
        if tag.startswith("input:checkbox"):
            control.set_checked(bool(value))
        elif tag.startswith("select"):
            control.select_option("" if value is None or value is False else str(value))
        else:
            control.fill(str(value))
            control.dispatch_event("change")
    if seed is not None:
        page.fill("[data-testid=setup-seed]", str(seed))
    page.check(f"[data-testid=length-{length}]")
    if target is not None:
        page.fill("[data-testid=setup-target]", str(target))
        page.dispatch_event("[data-testid=setup-target]", "change")
    for i, who in enumerate(seats or [], start=1):
        page.select_option(f"[data-testid=seat-{i}]", who)
    auto = page.locator("[data-testid=setup-autopair]")
    if auto.is_enabled():
        auto.set_checked(auto_pair)
    if undo is not None and page.locator("[data-testid=setup-undo]").is_enabled():
        page.locator("[data-testid=setup-undo]").set_checked(undo)
    if hint is not None and page.locator("[data-testid=setup-hint]").is_enabled():
        page.locator("[data-testid=setup-hint]").set_checked(hint)
    page.click("[data-testid=start-game]")
    page.wait_for_function("() => window.twentynine && window.twentynine.game.setup")


def game_handle(page: Page) -> dict[str, str]:
    saved: dict[str, str] = json.loads(page.evaluate("sessionStorage.getItem('twentynine.game')"))
    return saved


def fetch_record(page: Page) -> dict[str, Any]:
    handle = game_handle(page)
    url = f"{page.base_url}/api/games/{handle['id']}/record?token={handle['token']}"  # type: ignore[attr-defined]
    response = page.request.get(url)
    assert response.ok, response.status
    record: dict[str, Any] = response.json()
    return record


def click_action(page: Page, action: dict[str, Any]) -> None:
    """Do ``action`` with the page's controls (pointer)."""
    kind = next(k for k in action if k != "seat")
    if kind == "play":
        page.click(f"[data-testid=card-{action['play']}]")
        page.click("[data-testid=play]")
    elif kind == "bid":
        bid_input = page.locator("[data-testid=bid-input]")
        if bid_input.count():
            bid_input.fill(str(action["bid"]))
            bid_input.dispatch_event("change")
        page.click("[data-testid=bid]")
    elif kind == "trump":
        page.click(f"[data-testid=trump-{action['trump']}]")
    else:
        page.click(f"[data-testid={kind}]")


KEYS = {"pass": "p", "seventh": "v", "single": "a", "double": "d", "redouble": "r", "set": "s"}


def key_action(page: Page, action: dict[str, Any], obs: Obs) -> None:
    """Do ``action`` with the keyboard only."""
    kind = next(k for k in action if k != "seat")
    kb = page.keyboard
    if kind == "play":
        legal = plays(obs)
        target = action["play"]
        kb.press("ArrowRight")
        for _ in range(legal.index(target)):
            kb.press("ArrowRight")
        kb.press("Enter")
    elif kind == "bid":
        bids = sorted(a["bid"] for a in obs["legal"] if "bid" in a)
        for _ in range(action["bid"] - bids[0]):
            kb.press("ArrowUp")
        kb.press("b")
    elif kind == "trump":
        kb.press(action["trump"].lower())
    elif kind == "pair":
        kb.press("k")
    elif kind == "reveal":
        kb.press("r")
    else:
        kb.press(KEYS[kind])


def play_until(
    page: Page,
    policy: Policy,
    *,
    stop: Callable[[dict[str, Any]], bool] | None = None,
    keyboard: bool = False,
    on_step: Callable[[dict[str, Any]], None] | None = None,
    deals: int | None = 1,
    max_steps: int = 2000,
) -> dict[str, Any]:
    """Play through the page until ``stop(snapshot)``, the end of ``deals`` deals or the match."""
    finished = 0
    for _ in range(max_steps):
        snap = wait_ready(page)
        if on_step is not None:
            on_step(snap)
            snap = wait_ready(page)
        if stop is not None and stop(snap):
            return snap
        if snap["handover"] is not None:
            page.click("[data-testid=claim-seat]")
            page.wait_for_function("() => window.twentynine.ui.handover === null")
            continue
        obs = snap["obs"]
        if snap["hold"] == "deal":
            finished += 1
            if snap["over"] or (deals is not None and finished >= deals):
                return snap
            v = snap["v"]
            if keyboard:
                page.keyboard.press("Enter")
            else:
                page.click("[data-testid=next-deal]")
            wait_version_after(page, v)
            continue
        mine = obs is not None and obs["to_act"] == obs["seat"] and obs["legal"]
        if snap["hold"] == "trick" and not (mine and obs["phase"] == "pair"):
            v = snap["v"]
            if keyboard:
                page.keyboard.press("n")
            else:
                page.click("[data-testid=next-trick]")
            wait_version_after(page, v)
            continue
        assert mine, snap
        action = policy(obs)
        v = snap["v"]
        if keyboard:
            key_action(page, action, obs)
        else:
            click_action(page, action)
        wait_version_after(page, v)
    raise AssertionError("the game did not finish")
