"""Helpers of the terminal app's Pilot tests: set a game at a moment, read the screen."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable

from loops import run_async
from textual.pilot import Pilot

from twentynine.tui.app import PlayApp
from twentynine.tui.session import Table


def run(test: Callable[[], Awaitable[None]]) -> None:
    run_async(test())  # type: ignore[arg-type]


def screen_rows(app: PlayApp) -> list[str]:
    """The screen as text, one string a row (Textual has no public text dump)."""
    strips = app.screen._compositor.render_strips()
    return ["".join(seg.text for seg in strip) for strip in strips]


async def shown(app: PlayApp, pilot: Pilot[int]) -> list[str]:
    """The screen once the keys and the bots' moves so far have been drawn."""
    for _ in range(3):
        await pilot.pause()
    return screen_rows(app)


def drive(table: Table, until: Callable[[Table], bool], seed: int = 1, bid: bool = True) -> None:
    """Play on until ``until``: the people bid the most they may (or pass, with
    ``bid`` False) and then play at random."""
    rng = random.Random(seed)
    while not until(table):
        assert not table.deal_over, "the moment never came"
        if table.bot_to_act:
            table.step_bot()
            continue
        legal = list(table.observation(table.to_act).legal)
        bids = [a for a in legal if a.kind == "bid"]
        passes = [a for a in legal if a.kind == "pass"]
        if bids and bid:
            table.act(bids[-1])
        elif table.observation(table.to_act).phase == "auction" and passes:
            table.act(passes[0])
        else:
            table.act(legal[rng.randrange(len(legal))])


def south_to(phase: str, kind: str | None = None) -> Callable[[Table], bool]:
    """The moment South must act in ``phase`` (and may do ``kind``)."""

    def moment(t: Table) -> bool:
        if t.human_to_act != 0:
            return False
        obs = t.observation(0)
        return obs.phase == phase and (kind is None or any(a.kind == kind for a in obs.legal))

    return moment
