"""The keys of the terminal game: the footer offers what the rules allow at this
moment, the question says what is due, and typed bids are never dropped."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable

import pytest
from textual.widgets import RichLog
from tui_pilot import drive, run, shown, south_to

from twentynine.game.cards import SUIT_NAMES
from twentynine.game.rules import resolve
from twentynine.tui.app import ConfirmScreen, GameLog, HelpScreen, LogScreen, PlayApp
from twentynine.tui.plain import PlainGame
from twentynine.tui.session import Table, seat_plan
from twentynine.tui.text import Glyphs, legal_plays

SIZE = (80, 24)


def table_at(
    profile: str, options: dict[str, str], seed: int, until: Callable[[Table], bool], bid: bool
) -> Table:
    table = Table(resolve(profile, options), seed, seat_plan(1, bots=["pip"]))
    drive(table, until, bid=bid)
    return table


async def footer_and_prompt(app: PlayApp, pilot: object, *keys: str) -> tuple[str, str]:
    for key in keys:
        await pilot.press(key)  # type: ignore[attr-defined]
    rows = await shown(app, pilot)  # type: ignore[arg-type]
    return rows[-1], "\n".join(rows[-3:-1])


CASES = [
    # profile, options, seed, moment, South bids, keys that must show, keys that must not
    ("pagat", {}, 5, south_to("trump"), True, ["S H D C"], ["V ", "seventh"]),
    ("modern", {"seventh_card": "yes"}, 11, south_to("trump"), True, ["V seventh"], []),
    ("pagat", {}, 5, south_to("play"), True, ["Enter play"], ["R ", "ask", "Esc"]),
    ("bhoos", {}, 0, south_to("play", "reveal"), False, ["R ask for trumps"], ["Esc"]),
    ("pagat", {}, 5, south_to("auction"), True, ["B", "P pass"], ["V ", "R ", "Y "]),
]


@pytest.mark.parametrize(
    ("profile", "options", "seed", "moment", "bid", "shown_keys", "hidden_keys"),
    CASES,
    ids=["pagat-trump", "seventh-trump", "pagat-play", "bhoos-reveal", "pagat-auction"],
)
def test_the_footer_lists_only_the_keys_the_rules_allow_now(
    profile: str,
    options: dict[str, str],
    seed: int,
    moment: Callable[[Table], bool],
    bid: bool,
    shown_keys: list[str],
    hidden_keys: list[str],
) -> None:
    async def go() -> None:
        table = table_at(profile, options, seed, moment, bid)
        app = PlayApp(table, glyphs=Glyphs(True), delay=0)
        async with app.run_test(size=SIZE) as pilot:
            footer, prompt = await footer_and_prompt(app, pilot)
            for key in shown_keys:
                assert key in footer, (key, footer)
            for key in hidden_keys:
                assert key not in footer.replace("? help · Q quit", ""), (key, footer)
                assert key not in prompt.split("\n")[1], (key, prompt)
            obs = table.observation(0)
            if obs.phase == "play":
                n = len(legal_plays(obs))
                assert (f"1-{n} ←→ pick" if n > 1 else "Enter play it") in footer, footer
                assert "1-8" not in footer or n == 8
                footer, _ = await footer_and_prompt(app, pilot, "1")
                assert "Esc unpick" in footer, footer  # only once a card is picked

    run(go)


def test_the_footer_of_a_play_with_one_possible_card_says_so() -> None:
    async def go() -> None:
        def one_card(t: Table) -> bool:
            return south_to("play")(t) and len(legal_plays(t.observation(0))) == 1

        table = table_at("pagat", {}, 5, one_card, True)
        app = PlayApp(table, glyphs=Glyphs(True), delay=0)
        async with app.run_test(size=SIZE) as pilot:
            footer, _ = await footer_and_prompt(app, pilot)
            assert "Enter play" in footer and "1-" not in footer and "←→" not in footer, footer

    run(go)


@pytest.mark.parametrize(
    ("profile", "options", "present", "absent"),
    [
        ("pagat", {}, ["pair"], ["seventh", "ask for trumps", "double", "alone"]),
        ("bhoos", {}, ["ask for trumps"], ["seventh", "pair", "double", "alone"]),
        (
            "modern",
            {"seventh_card": "yes", "single_hand": "3"},
            ["seventh", "double", "redouble", "alone", "pair"],
            ["ask for trumps", "set (S)"],
        ),
    ],
)
def test_the_help_lists_the_keys_of_these_rules(
    profile: str, options: dict[str, str], present: list[str], absent: list[str]
) -> None:
    async def go() -> None:
        table = Table(resolve(profile, options), 5, seat_plan(1, bots=["pip"]))
        app = PlayApp(table, glyphs=Glyphs(True), delay=0)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("question_mark")
            await shown(app, pilot)
            assert isinstance(app.screen, HelpScreen)
            keys = app.screen.keys_text
            for word in present:
                assert word in keys, (word, keys)
            for word in absent:
                assert word not in keys, (word, keys)

    run(go)


def test_l_shows_the_whole_log_even_when_the_screen_is_small() -> None:
    async def go() -> None:
        table = table_at("pagat", {}, 5, south_to("play"), True)
        app = PlayApp(table, glyphs=Glyphs(True), delay=0)
        async with app.run_test(size=(40, 12)) as pilot:
            rows = await shown(app, pilot)
            assert "Deal 1: North deals." not in "\n".join(rows)  # scrolled away
            assert "? help" in rows[0]  # no footer at 40×12: the title offers help
            await pilot.press("l")
            rows = await shown(app, pilot)
            assert isinstance(app.screen, LogScreen)
            log = app.screen.query_one("#full-log", RichLog)
            assert len(log.lines) >= len(app.query_one("#log", GameLog).entries)
            await pilot.press("escape")
            await shown(app, pilot)
            assert not isinstance(app.screen, LogScreen)

    run(go)


def asked_table() -> Table:
    """bhoos, South unable to follow while trumps are hidden: R may be pressed."""
    return table_at("bhoos", {}, 0, south_to("play", "reveal"), False)


def test_after_r_the_question_says_a_trump_is_due() -> None:
    async def go() -> None:
        table = asked_table()
        led = table.observation(0).led_suit
        assert led is not None
        app = PlayApp(table, glyphs=Glyphs(True), delay=0)
        async with app.run_test(size=SIZE) as pilot:
            _, prompt = await footer_and_prompt(app, pilot)
            assert f"no {SUIT_NAMES[led]}" in prompt, prompt
            footer, prompt = await footer_and_prompt(app, pilot, "r")
            obs = table.observation(0)
            assert obs.asked == 0 and obs.trump is not None
            question = prompt.split("\n")[0]
            assert f"to {SUIT_NAMES[led]}" not in question, question
            held = [c for c in obs.hand if c >> 3 == obs.trump]
            if held:
                assert "trump" in question and SUIT_NAMES[obs.trump] in question, question
            else:
                assert "hold none" in question and "any card" in question, question
            assert "R ask" not in footer  # asked once: no second time

    run(go)


def test_the_plain_prompt_after_reveal_says_a_trump_is_due() -> None:
    table = asked_table()
    out = io.StringIO()
    PlainGame(table, inp=io.StringIO("reveal\n"), out=out, glyphs=Glyphs(False)).run()
    text = out.getvalue()
    obs = table.observation(0)
    assert obs.asked == 0 and obs.trump is not None
    after = text.split("ask for trumps", 1)[1]
    assert "you asked for trumps" in after.lower(), after


def test_typed_bid_digits_are_kept_however_slowly_they_come() -> None:
    async def go() -> None:
        table = table_at("pagat", {}, 5, south_to("auction"), True)
        bids = [a.value for a in table.observation(0).legal if a.kind == "bid"]
        assert 26 in bids and bids[0] != 26
        app = PlayApp(table, glyphs=Glyphs(True), delay=0)
        async with app.run_test(size=SIZE) as pilot:
            _, prompt = await footer_and_prompt(app, pilot, "2")
            assert "2_" in prompt, prompt  # the first digit waits, and shows
            await asyncio.sleep(1.3)
            _, prompt = await footer_and_prompt(app, pilot, "6")
            assert " 26 " in prompt and app.bid_value == 26, prompt
            await footer_and_prompt(app, pilot, "b")
            assert (0, 26) in table.observation(0).auction

    run(go)


def test_a_typed_bid_that_cannot_be_says_why_and_backspace_clears_a_digit() -> None:
    async def go() -> None:
        table = table_at("pagat", {}, 5, south_to("auction"), True)
        bids = [a.value for a in table.observation(0).legal if a.kind == "bid"]
        low, high = bids[0], bids[-1]
        assert (low, high) == (24, 28)
        app = PlayApp(table, glyphs=Glyphs(True), delay=0)
        async with app.run_test(size=SIZE) as pilot:
            _, prompt = await footer_and_prompt(app, pilot, "3")
            assert "no bid starts with 3" in prompt and f"{low}–{high}" in prompt, prompt
            _, prompt = await footer_and_prompt(app, pilot, "2", "1")
            assert "21 is not possible" in prompt, prompt
            footer, prompt = await footer_and_prompt(app, pilot, "2")
            assert "2_" in prompt and "Backspace" in footer, (prompt, footer)
            _, prompt = await footer_and_prompt(app, pilot, "enter")
            assert "second digit" in prompt and table.observation(0).auction[-1][0] != 0, prompt
            _, prompt = await footer_and_prompt(app, pilot, "backspace")
            assert "2_" not in prompt and f" {low} " in prompt, prompt
            assert app.digits == ""

    run(go)


def test_help_and_the_quit_question_fit_a_small_terminal_and_help_scrolls() -> None:
    async def go() -> None:
        table = Table(resolve("pagat", {}), 5, seat_plan(1, bots=["pip"]))
        app = PlayApp(table, glyphs=Glyphs(True), delay=0)
        async with app.run_test(size=(40, 12)) as pilot:
            await pilot.press("question_mark")
            await shown(app, pilot)
            box = app.screen.query_one("#help-box")
            assert box.region.width <= 40 and box.region.height <= 12, box.region
            assert box.max_scroll_y > 0
            await pilot.press("down", "down", "pagedown")
            await shown(app, pilot)
            assert box.scroll_y > 0  # the arrows read the rest of the help
            await pilot.press("escape")
            await pilot.press("q")
            rows = await shown(app, pilot)
            assert isinstance(app.screen, ConfirmScreen)
            box = app.screen.query_one("#confirm-box")
            assert box.region.width <= 40, box.region
            assert any("Leave this match?" in row for row in rows), rows

    run(go)


def test_ctrl_q_and_ctrl_c_ask_before_leaving_a_match_as_q_does() -> None:
    async def go() -> None:
        table = Table(resolve("pagat", {}), 5, seat_plan(1, bots=["pip"]))
        app = PlayApp(table, glyphs=Glyphs(True), delay=0)
        async with app.run_test(size=SIZE) as pilot:
            for key in ("ctrl+q", "ctrl+c"):
                await pilot.press(key)
                await shown(app, pilot)
                assert isinstance(app.screen, ConfirmScreen), key
                await pilot.press("n")
                await shown(app, pilot)
                assert app.is_running and not isinstance(app.screen, ConfirmScreen)

    run(go)


def test_a_second_enter_with_the_last_card_does_not_skip_the_result() -> None:
    async def go() -> None:
        def last_card(t: Table) -> bool:
            return south_to("play")(t) and len(t.observation(0).hand) == 1

        table = table_at("pagat", {}, 5, last_card, True)
        app = PlayApp(table, glyphs=Glyphs(True), delay=0)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("enter")  # plays the only card; the bots end the deal
            for _ in range(100):
                await pilot.pause()
                if table.deal_over:
                    break
            assert table.deal_over
            await pilot.press("enter")  # the same key again, at once
            rows = await shown(app, pilot)
            assert table.deal_index == 0 and "needed" in rows[-3], rows[-3]
            await asyncio.sleep(0.7)
            await pilot.press("enter")  # now it deals again
            await shown(app, pilot)
            assert table.deal_index == 1

    run(go)


def test_a_single_possible_bid_is_asked_as_such() -> None:
    async def go() -> None:
        table = Table(resolve("modern", {}), 11, seat_plan(1, bots=["pip"]))
        while True:  # South bids the lowest until only the highest bid is left
            if table.bot_to_act:
                table.step_bot()
                continue
            bids = [a for a in table.observation(0).legal if a.kind == "bid"]
            assert bids, "no such moment in this deal"
            if len(bids) == 1:
                break
            table.act(bids[0])
        app = PlayApp(table, glyphs=Glyphs(True), delay=0)
        async with app.run_test(size=SIZE) as pilot:
            footer, prompt = await footer_and_prompt(app, pilot)
            only = bids[0].value
            assert f"bid {only} (the highest) or pass" in prompt, prompt
            assert f"{only}–{only}" not in prompt and "↑↓" not in prompt + footer, prompt
            assert f"B/Enter bid {only}" in footer, footer

    run(go)
