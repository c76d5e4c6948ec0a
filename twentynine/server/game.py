"""One game as the server owns it: a match, its log, and nothing else.

A game is fully determined by its setup (rules, seats, seed, first dealer)
and its *log*: the canonical action objects of the game record, in order,
with one extra kind of entry, ``{"next_deal": true}``, where a player asked
for the next deal. ``Game(setup, log)`` rebuilds any game, which is how undo
works here and how a later storage layer can restore games after a restart.

The deals are dealt by the server from ``derive_seed(seed, i)``, exactly as a
seeded ``Match`` would deal them, but each next deal starts only when asked,
so a finished deal stays on the table (with its result) until then.

Nothing in this module talks to a client. What leaves a game for a player
goes through ``observation`` and ``event_views``: the engine's one door.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from ..game.actions import PLAY, Action, ActionError
from ..game.dealing import deal_hands, derive_seed, first_dealer
from ..game.engine import OVER, PAIR_WINDOW, IllegalAction
from ..game.match import RECORD_FORMAT, Match
from ..game.observation import Observation, event_view, observe
from .setup import GameSetup

NEXT_DEAL = "next_deal"
BOT_SEED_SALT = 0xB07
SIGNAL = "signal"
# Table signals a player may attach to a card: they never change the rules or the result.
SIGNALS = ("slam", "drop")


class GameError(ValueError):
    """A request the game cannot honour now (not an illegal move of the rules)."""


def is_marker(entry: dict[str, Any]) -> bool:
    return entry.get(NEXT_DEAL) is True


class Game:
    """A match built from a setup and replayed from a log."""

    def __init__(self, setup: GameSetup, log: Iterable[dict[str, Any]] = ()) -> None:
        self.setup = setup
        self.rules = setup.rules
        self.seed = setup.seed
        self.first_dealer = (
            setup.first_dealer if setup.first_dealer is not None else first_dealer(setup.seed)
        )
        self.match = Match(self.rules, dealer=self.first_dealer)
        self.log: list[dict[str, Any]] = []
        self.deal_events: list[dict[str, Any]] = []
        self._start_deal()
        for entry in log:
            if is_marker(entry):
                self.next_deal()
            else:
                signal = entry.get(SIGNAL)
                if signal is not None:
                    entry = {k: v for k, v in entry.items() if k != SIGNAL}
                self.apply(Action.from_json(entry), signal)

    # ------------------------------------------------------------------ state
    @property
    def deal_index(self) -> int:
        return len(self.match.deals) - 1

    @property
    def to_act(self) -> int:
        """The seat the engine waits for (-1: nobody). Server-side only: never sent."""
        return self.match.to_act

    @property
    def deal_over(self) -> bool:
        return self.match.deal.phase == OVER

    @property
    def match_over(self) -> bool:
        return self.match.winner is not None

    @property
    def pair_pending(self) -> bool:
        return self.match.deal.phase == PAIR_WINDOW

    def bot_seed(self, seat: int) -> int:
        return derive_seed(self.seed, BOT_SEED_SALT, seat)

    # ------------------------------------------------------------------ changes
    def _start_deal(self) -> list[dict[str, Any]]:
        index = len(self.match.deals)
        dealer = self.match.next_dealer
        hands = deal_hands(derive_seed(self.seed, index), dealer, self.rules.clockwise)
        self.match.start_deal(hands)
        self.deal_events = [{"type": "deal_start", "deal": index, "dealer": dealer}]
        self.signals: list[tuple[int, int, str]] = []  # this deal's (seat, card, signal)
        return list(self.deal_events)

    def apply(self, action: Action, signal: str | None = None) -> list[dict[str, Any]]:
        """Apply one action of the rules; raise ``IllegalAction`` and change nothing if illegal.

        ``signal`` (``slam`` or ``drop``) goes with a played card: it is kept in the
        log and shown in the card's event, and changes nothing else.
        """
        if self.match.winner is not None:
            raise IllegalAction("the match is over")
        if self.deal_over:
            raise IllegalAction("the deal is over: start the next deal first")
        if signal is not None:
            if signal not in SIGNALS:
                raise GameError(f"unknown signal {signal!r}; signals are: {', '.join(SIGNALS)}")
            if action.kind != PLAY:
                raise GameError("a signal goes with a card you play")
        events = self.match.apply(action)
        entry = action.to_json()
        if signal is not None:
            entry[SIGNAL] = signal
            for e in events:
                if e.get("type") == "play" and e.get("seat") == action.seat:
                    e[SIGNAL] = signal
            assert action.value is not None  # a card
            self.signals.append((action.seat, action.value, signal))
        self.log.append(entry)
        self.deal_events.extend(events)
        return events

    def next_deal(self) -> list[dict[str, Any]]:
        if self.match.winner is not None:
            raise GameError("the match is over; start a new game")
        if not self.deal_over:
            raise GameError("the current deal is not finished")
        events = self._start_deal()
        self.log.append({NEXT_DEAL: True})
        return events

    # ------------------------------------------------------------------ undo
    def _last_card_index(self, seats: Sequence[int]) -> int:
        """Index in the log of the last card played by ``seats`` in the current deal, or -1."""
        for i in range(len(self.log) - 1, -1, -1):
            entry = self.log[i]
            if is_marker(entry):
                return -1
            if PLAY in entry and entry.get("seat") in seats:
                return i
        return -1

    def can_undo(self, seat: int) -> bool:
        return (
            self.setup.undo_allowed
            and seat in self.setup.human_seats
            and not self.deal_over
            and self._last_card_index((seat,)) >= 0
        )

    def undo_last_card(self, seat: int) -> None:
        """Take back ``seat``'s last card of this deal and everything after it."""
        if not self.setup.undo_allowed:
            raise GameError("undo is off in this game")
        if self.deal_over:
            raise GameError("the deal is over; its cards can no longer be taken back")
        index = self._last_card_index((seat,))
        if index < 0:
            raise GameError("you have played no card in this deal yet")
        rebuilt = Game(self.setup, self.log[:index])
        self.match = rebuilt.match
        self.log = rebuilt.log
        self.deal_events = rebuilt.deal_events
        self.signals = rebuilt.signals

    # ------------------------------------------------------------------ views
    def observation(self, seat: int | None) -> Observation:
        obs = observe(self.match, seat)
        if self.signals:
            obs = replace(obs, signals=tuple(self.signals))
        return obs

    def view(self, seat: int | None) -> dict[str, Any]:
        return self.observation(seat).to_json()

    def event_views(
        self, events: Iterable[dict[str, Any]], seat: int | None
    ) -> list[dict[str, Any]]:
        out = []
        for e in events:
            v = event_view(e, seat)
            if v is not None:
                out.append(v)
        return out

    def legal_for(self, seat: int) -> list[Action]:
        return self.match.legal_actions() if self.match.to_act == seat else []

    # ------------------------------------------------------------------ records
    def record(self) -> dict[str, Any]:
        """The game record of the finished deals (a deal in progress would show hidden hands)."""
        deals = [d.to_record() for d in self.match.deals if d.phase == OVER]
        names = [s.public()["name"] for s in self.setup.seats]
        return {
            "format": RECORD_FORMAT,
            "rules": self.rules.to_json(),
            "deals": deals,
            "meta": {"players": names, "first_dealer": self.first_dealer},
        }


def parse_action(obj: Any) -> Action:
    """An action from the wire: the canonical JSON of the record, read strictly."""
    try:
        return Action.from_json(obj)
    except ActionError as e:
        raise GameError(str(e)) from None
