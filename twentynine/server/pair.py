"""The pair window as a table shows it: the same wait after every trick that could open one.

After a trick won by a team holding K and Q of trumps, the holder may show
the pair (RULES.md, 9). Only the holder may know the window is open: the
engine hides whose turn it is from the others (``observation``), but a
table that waited differently in a window (``to_act`` null, no clock, an
extra frame for a private pass, the holder's thinking time) would tell them
anyway. So the table waits the same way after every trick that *could*
open a window, judged on what everyone sees (``could_open``):

- the pause after such a trick is a *pair pause*, of one length whether
  anyone holds the pair or not, and nobody but an undecided holder sees
  whose turn it is during it (``masked``);
- the holder decides within it: a person's choice is noted (only they hear
  of it), a bot decides as the pause begins; nothing of it is applied until
  the pause ends, in the one change that ends it, so the others see the
  same frames either way (the pair itself is public once shown);
- a person who has not decided when the pause ends passes, which keeps the
  pair for a later trick their team wins (in a game of one device, whose
  player is the holder or sees the holder's hand anyway, the window simply
  stays open for them, as before).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..game.actions import PAIR, PASS, Action, ActionError
from ..game.cards import KING, QUEEN
from ..game.engine import PAIR_WINDOW, PLAYING, IllegalAction
from . import protocol as P
from .game import Game, GameError

log = logging.getLogger("twentynine.server")


def could_open(game: Game) -> bool:
    """After a trick: whether a pair window may be open now, from public facts only.

    True when the deal goes on, the table plays with a pair, trumps are
    shown, no pair was declared and no single hand, and neither K nor Q of
    trumps has been played. (Who holds them, and whether it is the team
    that won the trick, is exactly what the others may not learn.)
    """
    deal = game.match.deal
    if deal.phase not in (PLAYING, PAIR_WINDOW) or game.match_over:
        return False
    if deal.rules.pair == "off" or not deal.revealed_in_trick or deal.trump < 0:
        return False
    if deal.pair_seat >= 0 or deal.single >= 0:
        return False
    base = deal.trump * 8
    need = (1 << (base + KING)) | (1 << (base + QUEEN))
    unplayed = deal.held[0] | deal.held[1] | deal.held[2] | deal.held[3]
    return unplayed & need == need


def masked(view: dict[str, Any]) -> dict[str, Any]:
    """A seat's view during a pair pause: the table waits, nobody's turn is shown."""
    if view.get("phase") == PAIR_WINDOW:
        view = {**view, "phase": PLAYING}
    return {**view, "to_act": None, "legal": []}


@dataclass(eq=False)
class PairPause:
    """The pair pause under way (``on``), and the holder's decision while it lasts."""

    on: bool = False
    choice: Action | None = None  # a person's choice, noted: applied when the pause ends
    early: asyncio.Task[Action | None] | None = None  # a bot's choice, asked at its start

    def stop(self) -> None:
        if self.early is not None and not self.early.done():
            self.early.cancel()

    def to_json(self) -> dict[str, Any] | None:
        return self.choice.to_json() if self.choice is not None else None

    @staticmethod
    def read_choice(raw: Any) -> Action | None:
        """A noted choice read back from the store (None if it does not read)."""
        try:
            action = Action.from_json(raw)
        except (ActionError, TypeError, ValueError, KeyError):
            return None
        return action if action.kind in (PAIR, PASS) else None

    async def bot_choice(self, seat: int) -> Action | None:
        """The choice the bot asked at the pause's start made for ``seat``, if it did."""
        task = self.early
        if task is None or task.cancelled():
            return None
        try:
            action = await task
        except Exception:  # the bot is asked again, at the end
            return None
        return action if action is not None and action.seat == seat else None


class PairTable:
    """The pair pause of a game session: a part of ``GameSession``, which holds its state
    (the attributes below) and the methods it calls (the stubs at the end)."""

    ident: str
    game: Game
    hold: str | None
    hold_at: int
    version: int
    auto_pair: bool
    pairing: PairPause
    table: Any
    pool: Any
    clients: dict[Any, Any]

    def _view(self, seat: int | None) -> dict[str, Any]:
        """A seat's view; during a pair pause nobody's turn shows, but an undecided
        holder's own (see ``pair``)."""
        view = self.game.view(seat)
        if self.hold != P.TRICK or not self.pairing.on:
            return view
        game = self.game
        if game.pair_pending and seat == game.to_act and self.pairing.choice is None:
            return view
        return masked(view)

    def _start_pause(self) -> None:
        """A trick is over: a pair pause if a window could be open (see ``pair``); a bot
        holder is asked now, its answer kept until the pause ends."""
        self.pairing.stop()
        self.pairing = PairPause(on=could_open(self.game))
        seat = self.game.to_act
        if not (self.pairing.on and self.game.pair_pending):
            return
        character = self.bot_plays(seat)
        if character is None or character == "url":
            return
        obs, seed = self.game.observation(seat), self.game.bot_seed(seat)

        async def ask() -> Action | None:
            action, _signal = await self.pool.decide(character, seed, obs)
            return action

        with contextlib.suppress(RuntimeError):  # no loop: asked at the end instead
            self.pairing.early = asyncio.get_running_loop().create_task(ask())

    def restore_pause(self, choice: Any) -> None:
        """After a restart, a trick's pause as it was: a pair pause or not, a noted choice."""
        if self.hold == P.TRICK:
            self.pairing = PairPause(on=could_open(self.game))
            if self.pairing.on and self.game.pair_pending:
                self.pairing.choice = PairPause.read_choice(choice)

    async def _note_pair_choice(self, action: Action) -> bool:
        """A person's pair decision during a room's pair pause: noted, heard by them only,
        applied when the pause ends. False if the action is not that."""
        game = self.game
        if not (self.table is not None and self.hold == P.TRICK and self.pairing.on):
            return False
        if not (game.pair_pending and action.seat == game.to_act and is_pair_choice(action)):
            return False
        if action not in game.legal_for(action.seat):
            raise IllegalAction(f"{action} is not a pair decision of seat {action.seat} now")
        self.pairing.choice = action
        self._save_settings(bump=0)
        for conn, seating in list(self.clients.items()):
            if action.seat in seating.seats:  # the holder's own view: decided, waiting
                self._send(conn, self.state_message(seating))
        return True

    async def _pair_decision(self) -> Action | None:
        """The holder's decision as a pair pause ends (None: a person of a game of one
        device decides after it, as the window stays open for them)."""
        seat = self.game.to_act
        choice = self.pairing.choice
        if choice is not None and choice.seat == seat:
            return choice
        character = self.bot_plays(seat)
        if character is None:
            if self.auto_pair:
                return Action.flag(seat, PAIR)
            return Action.pass_(seat) if self.table is not None else None
        if character == "url":  # no contest profile plays the pair
            return Action.pass_(seat)
        early = await self.pairing.bot_choice(seat)
        if early is not None:
            return early
        try:
            action, _signal = await self.pool.decide(
                character, self.game.bot_seed(seat), self.game.observation(seat)
            )
        except Exception:  # a bot that cannot decide passes: the pair stays for later
            log.exception("game %s: the pair decision of seat %d failed", self.ident, seat)
            return Action.pass_(seat)
        return action

    async def _end_pause(self) -> None:
        """A trick's pause is over: the pair decision it held, if any, is applied and the
        table plays on, in one visible change."""
        events: list[dict[str, Any]] = []
        if self.pairing.on and self.game.pair_pending:
            action = await self._pair_decision()
            if action is not None:
                try:
                    events = self.game.apply(action)
                    self._save()
                except (IllegalAction, GameError) as e:  # the window stays open; play on
                    log.error("game %s: the pair decision %s failed: %s", self.ident, action, e)
                    events = []
        self.pairing.stop()
        self.pairing = PairPause()
        if self.game.deal_over:
            self.hold, self.hold_at = P.DEAL, self.version + 1
        else:
            self._release()
        await self._changed(events)

    # what the session gives
    @property
    def human_seats(self) -> tuple[int, ...]:
        raise NotImplementedError

    def bot_plays(self, seat: int) -> str | None:
        raise NotImplementedError

    def state_message(self, seating: Any, ident: str | None = None) -> dict[str, Any]:
        raise NotImplementedError

    def _send(self, conn: Any, data: dict[str, Any]) -> None:
        raise NotImplementedError

    async def _changed(
        self, events: list[dict[str, Any]], reset: bool = False, arrived: Any = None
    ) -> None:
        raise NotImplementedError

    if TYPE_CHECKING:  # the session's store writes (``durable.Keeping``)

        def _save(self) -> None: ...

        def _save_settings(self, bump: int = 1) -> None: ...

    def _release(self) -> None:
        raise NotImplementedError


def is_pair_choice(action: Action) -> bool:
    return action.kind in (PAIR, PASS)


__all__ = ["PairPause", "PairTable", "could_open", "is_pair_choice", "masked"]
