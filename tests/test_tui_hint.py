"""The hint (I), the bid chances (T) and the analysis of a finished deal (A) in the
terminal game, and the same as the plain mode's commands ``hint`` and ``analyse``."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from tui_pilot import drive, run, shown, south_to

from twentynine.game.rules import resolve
from twentynine.tui.app import PlayApp, ReportScreen
from twentynine.tui.session import Table, seat_plan
from twentynine.tui.text import Glyphs

SIZE = (100, 30)
SINGLE = {"match_target": None}


def table_at(until: Callable[[Table], bool], options: dict[str, Any] = SINGLE) -> Table:
    table = Table(resolve("pagat", options), 5, seat_plan(1, bots=["pip"]))
    drive(table, until)
    return table


async def settle(app: PlayApp, pilot: Any, seconds: float = 60.0) -> list[str]:
    """The screen once the worker started by the last key has finished."""
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while loop.time() < end:
        await pilot.pause(0.1)
        if not any(w.group == "advice" and not w.is_finished for w in app.workers):
            break
    return await shown(app, pilot)


def test_i_shows_the_expert_s_card_and_why_in_the_prompt() -> None:
    async def go() -> None:
        table = table_at(lambda t: south_to("play")(t) and len(t.observation(0).legal) > 1)
        app = PlayApp(table, glyphs=Glyphs(True), delay=0)
        async with app.run_test(size=SIZE) as pilot:
            rows = await shown(app, pilot)
            assert "I hint" in rows[-1], rows[-1]
            await pilot.press("i")
            rows = await settle(app, pilot)
            text = "\n".join(rows[-3:-1])
            assert "Hint: " in text and "%" in text, text

    run(go)


def test_t_shows_the_bid_chances_in_the_auction() -> None:
    async def go() -> None:
        table = table_at(south_to("auction"))
        app = PlayApp(table, glyphs=Glyphs(True), delay=0)
        async with app.run_test(size=SIZE) as pilot:
            rows = await shown(app, pilot)
            assert "T bid chances" in rows[-1], rows[-1]
            await pilot.press("t")
            rows = await settle(app, pilot)
            assert isinstance(app.screen, ReportScreen)
            screen = "\n".join(rows)
            assert "Chance to make each bid" in screen and "expect" in screen

    run(go)


def test_no_hint_key_in_a_match_that_counts() -> None:
    async def go() -> None:
        table = table_at(south_to("play"), options={"match_target": 6})
        app = PlayApp(table, glyphs=Glyphs(True), delay=0)
        async with app.run_test(size=SIZE) as pilot:
            rows = await shown(app, pilot)
            assert "I hint" not in rows[-1] and "T bid" not in rows[-1]
            await pilot.press("i")
            rows = await settle(app, pilot)
            assert "no hints in a match that counts" in "\n".join(rows[-3:-1])

    run(go)


def test_a_after_the_deal_shows_its_turning_points_and_your_cards_cost() -> None:
    async def go() -> None:
        table = table_at(lambda t: t.deal_over)
        app = PlayApp(table, glyphs=Glyphs(True), delay=0, max_deals=1)
        async with app.run_test(size=SIZE) as pilot:
            rows = await shown(app, pilot)
            assert "A analysis of the deal" in rows[-1] or "A analyse" in rows[-1], rows[-1]
            await pilot.press("a")
            rows = await settle(app, pilot, 120)
            assert isinstance(app.screen, ReportScreen)
            screen = "\n".join(rows)
            assert "Turning points" in screen and "Your cards" in screen
            assert "trick 1:" in screen

    run(go)


def plain_run(stdin: str, options: dict[str, Any]) -> str:
    import io

    from twentynine.tui.plain import PlainGame

    out = io.StringIO()
    table = Table(resolve("pagat", options), 5, seat_plan(1, bots=["pip"]))
    PlainGame(table, inp=io.StringIO(stdin), out=out, glyphs=Glyphs(False)).run()
    return out.getvalue()


def test_plain_hint_chances_and_analyse_commands() -> None:
    text = plain_run("hint\nchances\n" + "p\ns\n1\n" * 40 + "analyse\nq\n", SINGLE)
    assert "Hint: " in text and "your four cards" in text
    assert "Chance to make each bid with your four cards:" in text
    assert "Turning points:" in text and "Your cards" in text


def test_plain_hint_is_refused_in_a_match_that_counts() -> None:
    text = plain_run("hint\nq\n", {"match_target": 6})
    assert "no hints in a match that counts" in text and "Hint: " not in text
