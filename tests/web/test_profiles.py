"""Every profile loads, and every decision a profile can ask for has a working control.

For each decision a seed is found by playing in-process (the server's own
game and bots) until the human faces it; the browser then plays the same
game up to that point, checks the control is there and enabled, uses it,
and checks the table shows its effect.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from twentynine.game.rules import PROFILES

from .driver import Choices, Obs, find_seed, play_until, start_game

RANDOM_BOTS = ["pip", "pip", "pip"]


def kinds(obs: Obs) -> set[str]:
    return {next(k for k in a if k != "seat") for a in obs["legal"]}


def mine(obs: Obs | None) -> bool:
    return bool(obs) and obs["to_act"] == obs["seat"] and bool(obs["legal"])  # type: ignore[index]


@dataclass
class Scenario:
    name: str
    profile: str
    decision: Callable[[Obs], bool]  # the observation where the control is tested
    control: str  # data-testid of the control
    event: dict[str, Any]  # what the table's events must show after using it
    options: dict[str, Any] = field(default_factory=dict)
    choices: dict[str, Any] = field(default_factory=dict)


SCENARIOS = [
    Scenario("pagat-bid", "pagat", lambda o: "bid" in kinds(o), "bid", {"type": "bid"}),
    Scenario(
        "pagat-pass",
        "pagat",
        lambda o: "bid" in kinds(o) and "pass" in kinds(o),
        "pass",
        {"type": "pass", "stage": "auction"},
    ),
    Scenario(
        "pagat-trump",
        "pagat",
        lambda o: "trump" in kinds(o),
        "trump-*",
        {"type": "trump_chosen"},
        choices={"bid": "min"},
    ),
    Scenario(
        "pagat-pair",
        "pagat",
        lambda o: "pair" in kinds(o),
        "pair",
        {"type": "pair"},
        choices={"bid": "min"},
    ),
    Scenario(
        "arcade-play",
        "arcade",
        lambda o: o["phase"] == "play",
        "play",
        {"type": "play"},
    ),
    Scenario(
        "bangladesh-match",
        "bangladesh",
        lambda o: bool(o["duel"]) and o["duel"]["defender"] == o["seat"] and "bid" in kinds(o),
        "bid",
        {"type": "bid"},
        choices={"bid": "min"},
    ),
    Scenario(
        "bangladesh-pair",
        "bangladesh",
        lambda o: "pair" in kinds(o),
        "pair",
        {"type": "pair"},
        choices={"bid": "min"},
    ),
    Scenario(
        "modern-double", "modern", lambda o: "double" in kinds(o), "double", {"type": "double"}
    ),
    Scenario(
        "modern-redouble",
        "modern",
        lambda o: "redouble" in kinds(o),
        "redouble",
        {"type": "redouble"},
        choices={"bid": "min"},
    ),
    Scenario(
        "modern-set",
        "modern",
        lambda o: "set" in kinds(o),
        "set",
        {"type": "set"},
        options={"allow_set": True},
        choices={"double": True},
    ),
    Scenario(
        "bhoos-reveal",
        "bhoos",
        lambda o: "reveal" in kinds(o),
        "reveal",
        {"type": "reveal", "asked": True},
    ),
    Scenario(
        "pagat-seventh",
        "pagat",
        lambda o: "seventh" in kinds(o),
        "seventh",
        {"type": "trump_chosen", "seventh": True},
        options={"seventh_card": True},
        choices={"bid": "min"},
    ),
    Scenario(
        "pagat-single",
        "pagat",
        lambda o: "single" in kinds(o),
        "single",
        {"type": "single"},
        options={"single_hand": 3},
    ),
]


@pytest.mark.parametrize("sc", SCENARIOS, ids=lambda sc: sc.name)
def test_each_decision_has_a_working_control(page: Page, sc: Scenario) -> None:
    setup = {
        "profile": sc.profile,
        "length": "single",
        "options": sc.options,
        "seats": [{"human": True}, *({"bot": b} for b in RANDOM_BOTS)],
        "auto_pair": False,
    }
    seed = find_seed(setup, lambda: Choices(**sc.choices), sc.decision)
    start_game(
        page, profile=sc.profile, seed=seed, length="single", seats=RANDOM_BOTS, options=sc.options
    )
    snap = play_until(
        page,
        Choices(**sc.choices),
        stop=lambda s: mine(s["obs"]) and sc.decision(s["obs"]),
    )
    obs = snap["obs"]
    if sc.control == "trump-*":
        control = page.locator("[data-testid^=trump-]").first
    elif sc.control == "play":
        card = next(a["play"] for a in obs["legal"] if "play" in a)
        page.click(f"[data-testid=card-{card}]")
        control = page.locator("[data-testid=play]")
    else:
        control = page.locator(f"[data-testid={sc.control}]")
    expect(control).to_be_visible()
    expect(control).to_be_enabled()
    v = snap["v"]
    control.click()
    page.wait_for_function(f"() => window.twentynine.game.v > {v}")
    events = page.evaluate("window.twentynine.game.events[0]")
    wanted = {**sc.event, "seat": 0}
    assert any(all(e.get(k) == x for k, x in wanted.items()) for e in events), (wanted, events)


@pytest.mark.parametrize("profile", list(PROFILES))
def test_each_profile_loads_with_its_rules(page: Page, profile: str) -> None:
    start_game(page, profile=profile, seed=3, length="single", seats=RANDOM_BOTS)
    expect(page.locator("#status")).to_contain_text("Contract")
    expect(page.locator("#hand [data-card]")).to_have_count(4)
    page.click("[data-testid=btn-rules]")
    rules = page.locator("#dlg-rules")
    expect(rules).to_be_visible()
    names = {"pagat": "Classic", "arcade": "Arcade", "bangladesh": "Bangladesh"}
    names |= {"modern": "Modern", "bhoos": "Contest"}
    expect(rules).to_contain_text(names[profile])
    options = PROFILES[profile]
    if options.auction == "duel":
        expect(rules).to_contain_text("challenges by bidding higher")
    if options.doubling:
        expect(rules).to_contain_text("may double the stake")
    if options.reveal == "ask":
        expect(rules).to_contain_text("may ask for trumps")
    if options.pair == "off":
        expect(rules).to_contain_text("no special effect")
    page.keyboard.press("Escape")
    expect(rules).to_be_hidden()
