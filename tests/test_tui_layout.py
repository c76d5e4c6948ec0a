"""The terminal game at the sizes players' windows have: 40×12 up to 160×50.

Each game moment (the auction, the choice of trumps, a trick with eight cards
in hand, the end of the deal) is drawn with Textual's Pilot at each size and
read back as the rows of the screen: nothing that matters is cut (the title,
both status lines, every card of the hand, the question), the log keeps a
readable width, and a roomy terminal gets a larger table. Below the least
usable size the game says which size it needs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len
from tui_pilot import drive, run, shown, south_to

from twentynine.game.observation import Observation
from twentynine.game.rules import resolve
from twentynine.tui.app import PlayApp
from twentynine.tui.board import Board
from twentynine.tui.layout import MIN_HEIGHT, MIN_WIDTH, NORMAL_TABLE, layout_for
from twentynine.tui.screens import ConfirmScreen, GameLog
from twentynine.tui.session import Table, seat_plan
from twentynine.tui.text import Glyphs, Namer

SIZES = [(40, 12), (60, 20), (80, 24), (160, 50)]


MOMENTS: dict[str, Callable[[Table], bool]] = {
    "auction": south_to("auction"),
    "trump": south_to("trump"),
    "play": south_to("play"),  # the first trick: eight cards in hand
    "over": lambda t: t.deal_over,
}


def table_at(moment: str) -> Table:
    rules = resolve("modern", {"seventh_card": "yes"})
    table = Table(rules, 11, seat_plan(1, bots=["pip"]))
    drive(table, MOMENTS[moment])
    return table


@pytest.mark.parametrize("moment", list(MOMENTS))
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_nothing_that_matters_is_cut_at_any_size(size: tuple[int, int], moment: str) -> None:
    _width, height = size

    async def go() -> None:
        table = table_at(moment)
        app = PlayApp(table, glyphs=Glyphs(True), delay=0)
        async with app.run_test(size=size) as pilot:
            rows = await shown(app, pilot)
            assert len(rows) == height
            text = "\n".join(rows)
            title = rows[0].strip()
            assert title.startswith("29 · modern") and "deal 1" in title and "…" not in title
            # both status lines: the contract and trumps, then the points (never pushed off)
            assert "…" not in rows[1] and "…" not in rows[2], rows[1:3]
            assert "N-S" in rows[2] and "E-W" in rows[2] and "±6" in rows[2], rows[2]
            obs = table.observation(0)
            g = Glyphs(True)
            if obs.trump is not None:
                assert g.suit(obs.trump) in rows[1], rows[1]
            else:
                assert any(w in rows[1] for w in ("not chosen", "hidden")), rows[1]
            if not table.deal_over:
                for card in obs.hand:  # every card of the hand, whole
                    assert g.card(card) in text, (g.card(card), text)
                assert "Your turn" in text
            else:
                assert any(w in text for w in ("made", "failed", "Cancelled", "Single")), text
            # all four seats are on the table, by name or letter
            for seat in ("North", "West", "East"):
                assert seat in text or f" {seat[0]} " in text, (seat, text)
            log = app.query_one("#log", GameLog)
            assert log.size.height >= 2 and log.size.width >= 30, log.size
            last = log.entries[-1].plain
            assert last[:20] in text, (last, text)  # the latest entry can be read
            if size == (160, 50):
                assert app.query_one("#table").size.width > NORMAL_TABLE + 20
                if obs.trick:
                    assert "╭───╮" in text  # the cards drawn as cards

    run(go)


def test_the_status_line_fits_80_columns_and_keeps_the_points_line() -> None:
    async def go() -> None:
        table = table_at("play")
        app = PlayApp(table, glyphs=Glyphs(True), delay=0)
        async with app.run_test(size=(80, 24)) as pilot:
            await shown(app, pilot)
            real = table.observation(0)
            busy = replace(
                real,
                bidder=0,
                bid=17,
                target=15,
                pair=(2, real.trump or 2, 2),
                trump=2,
                trump_revealed=True,
                revealed_in_trick=3,
                doubling=2,
            )
            app.obs = lambda: busy  # type: ignore[method-assign]
            app.refresh_all()
            rows = await shown(app, pilot)
            assert rows[1].startswith(" Contract") and "Target 15" in rows[1], rows[1]
            assert "♦ diamonds" in rows[1] and "3" in rows[1] and "…" not in rows[1], rows[1]
            assert rows[2].startswith(" Points") and "E-W" in rows[2], rows[2]
            assert rows[3].startswith(" Auction"), rows[3]

    run(go)


@pytest.mark.parametrize("size", [(39, 12), (40, 11), (20, 6)])
def test_a_terminal_too_small_says_which_size_is_needed(size: tuple[int, int]) -> None:
    async def go() -> None:
        table = table_at("auction")
        app = PlayApp(table, glyphs=Glyphs(True), delay=0)
        async with app.run_test(size=size) as pilot:
            text = "".join(await shown(app, pilot)).replace(" ", "")
            assert f"{MIN_WIDTH}×{MIN_HEIGHT}" in text and "--plain" in text, text
            await pilot.press("p")  # unseen keys do not play
            await pilot.pause()
            assert table.human_to_act == 0 and table.observation(0).phase == "auction"
            await pilot.press("q")  # mid-match: Q still asks first
            await pilot.pause()
            assert isinstance(app.screen, ConfirmScreen)
            await pilot.press("y")
            await pilot.pause()
        assert app.return_code == 0

    run(go)


def test_a_resized_terminal_is_laid_out_again_with_the_log_rewrapped() -> None:
    async def go() -> None:
        table = table_at("play")
        app = PlayApp(table, glyphs=Glyphs(True), delay=0)
        async with app.run_test(size=(160, 50)) as pilot:
            await shown(app, pilot)
            assert app.lay is not None and app.lay.mode == "roomy"
            for size in ((40, 12), (60, 20), (80, 24)):
                await pilot.resize_terminal(*size)
                rows = await shown(app, pilot)
                assert app.lay.width == size[0] and app.lay.mode in ("compact", "normal")
                log = app.query_one("#log", GameLog)
                room = log.scrollable_content_region.width
                assert all(line.cell_length <= room for line in log.lines), size
                assert "N-S" in rows[2]

    run(go)


@given(st.integers(MIN_WIDTH, 320), st.integers(MIN_HEIGHT, 120))
def test_every_size_from_the_least_usable_one_up_adds_up(width: int, height: int) -> None:
    lay = layout_for(width, height)
    assert lay.mode != "small"
    assert lay.fixed_rows + lay.middle_rows == height
    assert lay.table_rows >= 3 and lay.log_rows >= 2
    assert lay.table_inner >= 30 and lay.line_width >= MIN_WIDTH - 2
    if lay.log_beside:
        assert width - lay.table_width >= 36  # the log keeps 32 columns of text
    assert (lay.mode == "compact") == (width < 80 or height < 24)
    assert (lay.mode == "roomy") == (width >= 110 and height >= 32)


@given(st.integers(1, 200), st.integers(1, 100))
def test_below_the_least_usable_size_the_layout_is_the_message(width: int, height: int) -> None:
    lay = layout_for(width, height)
    assert (lay.mode == "small") == (width < MIN_WIDTH or height < MIN_HEIGHT)


def board_moments() -> list[Observation]:
    """South's view at a few moments of two deals (one with cards on the table)."""
    out = []
    for moment in ("auction", "trump", "play", "over"):
        out.append(table_at(moment).observation(0))
    table = table_at("play")
    drive(table, lambda t: bool(t.observation(0).trick) and len(t.observation(0).tricks) >= 2)
    out.append(table.observation(0))
    return out


BOARD_MOMENTS = board_moments()
BOARD = Board([p.label for p in table_at("auction").players], Namer(["x"] * 4, 0), Glyphs(True))


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from(BOARD_MOMENTS),
    st.integers(30, 200),
    st.integers(3, 60),
    st.booleans(),
    st.sampled_from([None, 1, 2, 3]),
)
def test_the_table_drawn_at_any_size_stays_inside_it_with_every_seat(
    obs: Observation, width: int, rows: int, boxes: bool, thinking: int | None
) -> None:
    drawn = BOARD.draw(obs, width, rows, boxes, thinking).plain.split("\n")
    assert len(drawn) <= rows
    assert all(cell_len(line) <= width for line in drawn), (width, drawn)
    text = "\n".join(drawn)
    for seat in ("North", "West", "East"):
        assert seat in text or f" {seat[0]} " in text or f"{seat[0]} " in text, (seat, text)
    g = Glyphs(True)
    packed = text.replace(" ", "")
    for _seat, card in obs.trick:  # every card on the table is shown (a large card
        # has its rank and its suit on rows of their own)
        rank, suit = g.rank(card), g.suit(card >> 3)
        assert g.card(card) in packed or (f"│{rank}│" in packed and f"│{suit}│" in packed), text
