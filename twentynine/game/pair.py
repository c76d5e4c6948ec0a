"""The pair (king and queen of trumps): who holds it, the window to show it
after a trick, the target it moves, and the early end once the result can no
longer change.

``Pair`` is a part of ``engine.Deal``: its state lives in the deal's slots,
declared here for the type checker only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .cards import KING, QUEEN, SUITS, TOTAL_POINTS
from .contract import FAILED, MADE, PAIR_WINDOW, PLAYING, lowered_target, raised_target
from .state import DealState


class Pair(DealState):
    """The pair's window and the early end, as a part of ``Deal``."""

    __slots__ = ()

    if TYPE_CHECKING:

        def _finish(self, result: str | None, events: list[dict[str, Any]] | None) -> None: ...

    def pair_holder(self) -> int:
        """The seat holding both K and Q of trumps while the pair is undeclared, else -1."""
        if self.pair_seat >= 0 or self.trump < 0 or self.rules.pair == "off" or self.single >= 0:
            return -1
        base = self.trump * 8
        need = (1 << (base + KING)) | (1 << (base + QUEEN))
        for s in range(4):
            if self.held[s] & need == need:
                return s
        return -1

    def _pair_window(self, team: int) -> int:
        """The seat asked about the pair after a trick won by ``team``, or -1."""
        if not self.revealed_in_trick:
            return -1
        holder = self.pair_holder()
        return holder if holder >= 0 and holder & 1 == team else -1

    def _pair(self, seat: int, declares: bool) -> list[dict[str, Any]]:
        events: list[dict[str, Any]]
        if declares:
            self.pair_seat = seat
            self.pair_trick = len(self.tricks)
            if seat & 1 == self.bidder & 1:
                self.target = lowered_target(self.rules, self.bid)
            else:
                self.target = raised_target(self.rules, self.bid)
            events = [
                {
                    "type": "pair",
                    "seat": seat,
                    "team": seat & 1,
                    "target": self.target,
                    "trump": SUITS[self.trump],
                }
            ]
        else:
            events = [{"type": "pass", "seat": seat, "stage": PAIR_WINDOW, "_to": seat}]
        self.phase = PLAYING
        self.to_act = self.leader
        if self.rules.early_end:
            self._settled(False, events)
        return events

    def target_range(self, window_open: bool) -> tuple[int, int]:
        """Lowest and highest targets the bidding team may still face."""
        holder = self.pair_holder()
        if holder < 0 or not (window_open or len(self.tricks) <= 5):
            return self.target, self.target
        if holder & 1 == self.bidder & 1:
            other = lowered_target(self.rules, self.bid)
        else:
            other = raised_target(self.rules, self.bid)
        return min(self.target, other), max(self.target, other)

    def _settled(self, window_open: bool, events: list[dict[str, Any]] | None = None) -> bool:
        """End the deal early if its result and stake can no longer change."""
        r = self.rules
        if r.unrevealed == "cancel" and not self.revealed_in_trick:
            return False
        tmin, tmax = self.target_range(window_open)
        mine = self.points[self.bidder & 1]
        left = TOTAL_POINTS - self.points[0] - self.points[1] + (1 if r.last_trick_point else 0)
        if mine >= tmax:
            result = MADE
        elif mine + left < tmin:
            if r.under_half and 2 * (mine + left) >= self.bid and 2 * mine < self.bid:
                return False
            result = FAILED
        else:
            return False
        self._finish(result, events)
        return True
