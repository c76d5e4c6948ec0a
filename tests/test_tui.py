"""The terminal game driven by keystrokes with Textual's Pilot, at 80×24.

A whole deal is played by pressing keys only (B, P, S, Y, digits, Enter), the
help and the quit confirmation are opened, hot-seat hides a hand until its
owner takes the keyboard, and the screen shows only what South may see.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable

import pytest
from loops import run_async
from textual.pilot import Pilot
from textual.widgets import Static

from twentynine.game.cards import card_symbol
from twentynine.game.rules import resolve
from twentynine.tui.app import PlayApp
from twentynine.tui.screens import ConfirmScreen, HelpScreen
from twentynine.tui.session import Table, seat_plan
from twentynine.tui.text import Glyphs

SIZE = (80, 24)


def run(test: Callable[[], Awaitable[None]]) -> None:
    run_async(test())  # type: ignore[arg-type]


async def settle(app: PlayApp, pilot: Pilot[int]) -> None:
    """Wait until a person must act (or the deal is over) and the bots are idle."""
    for _ in range(2000):
        await pilot.pause()
        t = app.table
        if (t.deal_over or t.human_to_act is not None) and not app.thinking:
            await pilot.pause()
            return
        await asyncio.sleep(0.005)
    raise AssertionError("the bots did not hand the turn back")


def screen_text(app: PlayApp) -> str:
    parts = []
    for wid in ("title", "status", "auction", "table", "hand", "prompt"):
        content = app.query_one(f"#{wid}", Static).content
        parts.append(str(content))
    return "\n".join(parts)


def keys_for(app: PlayApp, state: dict[str, int]) -> list[str]:
    """The keys a simple player presses at this decision."""
    obs = app.table.observation(app.table.human_to_act)
    kinds = {a.kind for a in obs.legal}
    if obs.phase == "auction":
        state["bids"] += 1
        if state["bids"] == 1 and "bid" in kinds:
            return ["up", "down", "b"]  # the lowest bid, after moving the value about
        return ["p"] if "pass" in kinds else ["b"]
    if obs.phase == "trump":
        return ["s"]
    if obs.phase == "pair":
        return ["y"]
    if obs.phase in ("single", "double", "redouble", "set"):
        return ["p"]
    state["cards"] += 1
    return ["1", "enter"] if state["cards"] % 2 else ["right", "enter"]


@pytest.mark.parametrize(
    ("profile", "options", "seed"),
    [
        ("pagat", {}, 5),
        ("modern", {"seventh_card": "yes", "single_hand": 3}, 11),
        ("bhoos", {}, 3),
    ],
)
def test_a_whole_deal_by_keystrokes(profile: str, options: dict[str, str], seed: int) -> None:
    async def go() -> None:
        table = Table(resolve(profile, options), seed, seat_plan(1, bots=["pip"]))
        app = PlayApp(table, glyphs=Glyphs(True), delay=0)
        async with app.run_test(size=SIZE) as pilot:
            state = {"bids": 0, "cards": 0}
            for _ in range(200):
                await settle(app, pilot)
                if table.deal_over:
                    break
                text = screen_text(app)
                seat = table.human_to_act
                assert seat == 0
                # only South's own cards are on screen (plus cards already played)
                obs = table.observation(0)
                played = {c for t in obs.tricks for c in t[1]} | {c for _, c in obs.trick}
                for other in (1, 2, 3):
                    for c in table.match.deal.hands[other]:
                        held_by_other = table.match.deal.held[other] >> c & 1
                        if held_by_other and c not in played:
                            assert card_symbol(c) not in str(
                                app.query_one("#hand", Static).content
                            ), f"seat {other}'s {card_symbol(c)} shown"
                assert "Your turn" in text
                for key in keys_for(app, state):
                    await pilot.press(key)
            assert table.deal_over, "the deal did not finish"
            await pilot.pause()
            text = screen_text(app)
            assert any(w in text for w in ("needed", "void", "cancelled", "single hand")), text
            assert "next deal" in text or "win the match" in text
            await pilot.press("n")
            await settle(app, pilot)
            assert table.deal_index == 1 and not table.deal_over

    run(go)


def test_help_and_quit_confirmation() -> None:
    async def go() -> None:
        table = Table(resolve("pagat", {}), 5, seat_plan(1, bots=["pip"]))
        app = PlayApp(table, delay=0)
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            await pilot.press("question_mark")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            await pilot.press("escape")
            await pilot.pause()
            assert not isinstance(app.screen, HelpScreen)
            await pilot.press("q")
            await pilot.pause()
            assert isinstance(app.screen, ConfirmScreen)
            await pilot.press("n")
            await pilot.pause()
            assert not isinstance(app.screen, ConfirmScreen) and app.is_running
            await pilot.press("q")
            await pilot.pause()
            await pilot.press("y")
            await pilot.pause()
        assert app.return_code == 0

    run(go)


def test_hotseat_hides_the_hand_until_its_owner_takes_the_keyboard() -> None:
    async def go() -> None:
        table = Table(resolve("pagat", {}), 8, seat_plan(2, bots=["pip"]))
        app = PlayApp(table, delay=0)
        async with app.run_test(size=SIZE) as pilot:
            seen = set()
            for _ in range(12):
                await settle(app, pilot)
                if table.deal_over or table.match.deal.phase != "auction":
                    break
                seat = table.human_to_act
                assert seat in (0, 1)
                assert app.holder is None
                hand = str(app.query_one("#hand", Static).content)
                assert "hidden" in hand
                await pilot.press("enter")
                await pilot.pause()
                assert app.holder == seat
                hand = str(app.query_one("#hand", Static).content)
                own = table.observation(seat).hand
                assert all(card_symbol(c) in hand for c in own)
                seen.add(seat)
                await pilot.press("p")
            assert seen == {0, 1}

    run(go)


def test_watching_four_bots_plays_on_by_itself() -> None:
    async def go() -> None:
        table = Table(resolve("arcade", {}), 2, seat_plan(0, bots=["pip"]))
        app = PlayApp(table, delay=0, max_deals=2)
        async with app.run_test(size=SIZE) as pilot:
            for _ in range(3000):
                await pilot.pause()
                if table.deal_index == 1 and table.deal_over:
                    break
                await asyncio.sleep(0.002)
            assert table.deal_index == 1 and table.deal_over
            assert "watching" in screen_text(app)

    run(go)


def finish_deal(table: Table, seed: int = 0) -> None:
    """Play the current deal to its end, the person's moves chosen at random."""
    rng = random.Random(seed)
    while not table.deal_over:
        if table.bot_to_act:
            table.step_bot()
        else:
            legal = list(table.observation(table.to_act).legal)
            table.act(legal[rng.randrange(len(legal))])


@pytest.mark.parametrize("mid_deal", [True, False])
def test_q_asks_before_leaving_a_match_mid_deal_and_between_deals(mid_deal: bool) -> None:
    async def go() -> None:
        table = Table(resolve("pagat", {}), 5, seat_plan(1, bots=["pip"]))
        if not mid_deal:
            finish_deal(table)
            assert not table.match_over
        app = PlayApp(table, delay=0)
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            await pilot.press("q")
            await pilot.pause()
            assert isinstance(app.screen, ConfirmScreen)
            assert "Leave this match?" in str(app.screen.query_one("#confirm-text", Static).content)
            await pilot.press("n")
            await pilot.pause()
            assert app.is_running and not isinstance(app.screen, ConfirmScreen)

    run(go)


def test_q_leaves_at_once_when_nothing_is_lost() -> None:
    async def go() -> None:
        # single deals between deals, and the last deal of --deals N
        for rules, max_deals in ((resolve("arcade", {}), None), (resolve("pagat", {}), 1)):
            table = Table(rules, 5, seat_plan(1, bots=["pip"]))
            finish_deal(table)
            app = PlayApp(table, delay=0, max_deals=max_deals)
            async with app.run_test(size=SIZE) as pilot:
                await settle(app, pilot)
                await pilot.press("q")
                await pilot.pause()
                assert not isinstance(app.screen, ConfirmScreen)
            assert app.return_code == 0

    run(go)
