"""How the terminal game words a deal's result: who needed how many points, how
many they took, made or failed and by how much, and what it did to the score."""

from __future__ import annotations

import io
from dataclasses import replace
from typing import Any

import pytest
from tui_pilot import drive, run, shown

from twentynine.game.rules import resolve
from twentynine.tui.app import PlayApp
from twentynine.tui.plain import PlainGame
from twentynine.tui.session import Table, seat_plan
from twentynine.tui.text import Glyphs, deal_end_text, read_action, result_words


def ended(profile: str = "pagat", seed: int = 5, **options: str) -> Table:
    table = Table(resolve(profile, options), seed, seat_plan(1, bots=["pip"]))
    drive(table, lambda t: t.deal_over, bid=False)
    return table


def end_event(table: Table) -> dict[str, Any]:
    return next(e for e in reversed(table.events) if e["type"] == "deal_end")


def test_a_made_contract_says_what_was_needed_and_the_spare() -> None:
    table = ended()
    obs = replace(table.observation(0), bidder=0, bid=17, target=15)
    ev = {"result": "made", "delta": [1, 0], "points": [21, 7], "stake": 1}
    words = result_words(ev, obs)
    assert words[0] == "N-S needed 15 and took 21: made, with 6 to spare · N-S +1"
    assert deal_end_text(ev, obs) == words[0] + "."
    assert all("of 15" not in w for w in words)
    exact = result_words({**ev, "points": [15, 13]}, obs)[0]
    assert "made, exactly" in exact


def test_a_failed_contract_says_by_how_much() -> None:
    table = ended()
    obs = replace(table.observation(0), bidder=1, bid=19, target=19)
    ev = {"result": "failed", "delta": [0, -1], "points": [12, 16], "stake": 1}
    words = result_words(ev, obs)
    assert words[0] == "E-W needed 19 and took 16: failed by 3 · E-W -1"
    assert words[1].startswith("Failed by 3: E-W took 16, needed 19")
    assert len(words[-1]) <= 38  # a compact screen's question line


def test_a_deal_stopped_early_says_so_rather_than_by_how_much() -> None:
    table = ended("modern", seed=5)
    obs = replace(table.observation(0), bidder=0, bid=20, target=20)
    failed = {"result": "failed", "delta": [-1, 0], "points": [6, 17], "stake": 1}
    words = result_words(failed, obs)
    assert "could no longer reach it" in words[0] and "failed by" not in words[0].lower()
    assert len(words[0]) <= 78  # fits the question line at 80 columns
    made = {"result": "made", "delta": [1, 0], "points": [21, 0], "stake": 1}
    assert "reached it (21 when play stopped): made" in result_words(made, obs)[0]


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        ("single-made", "single hand is made"),
        ("single-failed", "single hand is lost"),
    ],
)
def test_a_single_hand_says_whose_it_was(result: str, expected: str) -> None:
    table = ended()
    obs = replace(table.observation(0), single=3, bidder=None)
    ev = {"result": result, "delta": [0, 3 if "made" in result else -3], "points": [0, 0]}
    words = result_words(ev, obs)
    assert words[0].startswith("East's") and expected in words[0], words


def test_a_void_deal_says_why() -> None:
    table = ended()
    obs = replace(table.observation(0), bidder=0, trump_revealed=False)
    ev = {"result": "cancelled", "delta": [0, 0], "points": [10, 18]}
    assert "never shown" in result_words(ev, obs)[0]


def test_the_real_end_of_a_deal_is_worded_so_in_the_app_and_in_plain() -> None:
    table = ended()
    ev = end_event(table)
    obs = table.observation(0)
    expected = result_words(ev, obs)

    async def go() -> None:
        app = PlayApp(table, glyphs=Glyphs(True), delay=0)
        async with app.run_test(size=(80, 24)) as pilot:
            rows = await shown(app, pilot)
            prompt = rows[-3]
            assert prompt.strip() in expected, (prompt, expected)
            assert " of " not in prompt

    run(go)
    # the same game in --plain: South passes and plays its first playable card
    lines = []
    fresh = Table(resolve("pagat", {}), 5, seat_plan(1, bots=["pip"]))
    while not fresh.deal_over:
        if fresh.bot_to_act:
            fresh.step_bot()
            continue
        o = fresh.observation(0)
        word = "1" if o.phase == "play" else "pass"
        action = read_action(word, o)
        lines.append(word)
        fresh.act(action)
    out = io.StringIO()
    replay = Table(resolve("pagat", {}), 5, seat_plan(1, bots=["pip"]))
    PlainGame(replay, inp=io.StringIO("\n".join(lines) + "\n"), out=out, glyphs=Glyphs(True)).run()
    text = out.getvalue()
    assert replay.deal_over and "! " not in text
    sentence = deal_end_text(end_event(replay), replay.observation(0))
    assert sentence in text and ("needed" in sentence or "cancelled" in sentence), sentence
