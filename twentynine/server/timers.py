"""A room's clocks as the store keeps them, and as a restart sets them going again.

A room has three kinds of timer: the pause after a trick (the table goes on
by itself), the turn clock of a decision, and the grace of a player who
left (after it a stand-in bot plays for them). The monotonic instants the
session runs them on mean nothing to another process, so what is kept is
each timer's *time left* when it was last written, written whenever the
set of timers changes (a player leaves or returns, a stand-in takes over, a
new decision goes on the clock, a clock pauses or runs out).

On a restart (``restored``) the downtime counts against nobody:

- a player who was away keeps the grace they had left; a stand-in that
  played for them plays on at once; a player who was connected when the
  server stopped is away from the restart with the full grace (they could
  not come back to a server that was not there);
- the decision on the clock keeps the time it had left, paused while its
  player is away, as a clock always is;
- a finished trick's pause starts again from the restart (its length is
  the table's, nothing is kept of it), so a room killed during its pause
  goes on by itself.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .protocol import TRICK


@dataclass
class Clocks:
    """A session's timers as plain values: what ``restored`` gives back to it.

    ``away``: seat -> the monotonic instant its player left (so that its grace
    ends ``grace`` seconds later); ``turn``: the (seat, log length) of the
    decision on the clock, with ``turn_left`` (paused) or ``turn_deadline``.
    """

    away: dict[int, float] = field(default_factory=dict)
    standin: set[int] = field(default_factory=set)
    turn: tuple[int, int] | None = None
    turn_left: float | None = None
    turn_deadline: float | None = None
    timed_out: int | None = None


def shape(clocks: Clocks) -> tuple[Any, ...]:
    """What changes when a timer starts, stops, pauses or runs out (not as time passes)."""
    return (
        tuple(sorted(clocks.away)),
        tuple(sorted(clocks.standin)),
        clocks.turn,
        clocks.turn_deadline is None,
        clocks.timed_out,
    )


def to_json(clocks: Clocks, grace: float, now: float) -> dict[str, Any]:
    """The timers as the store keeps them (``now``: the session's monotonic clock)."""
    turn = None
    if clocks.turn is not None:
        if clocks.turn_deadline is not None:
            left = clocks.turn_deadline - now
        else:
            left = clocks.turn_left or 0.0
        turn = {"seat": clocks.turn[0], "at": clocks.turn[1], "left": round(max(0.0, left), 3)}
    return {
        "as_of": round(time.time(), 3),
        "away": {
            str(seat): round(max(0.0, since + grace - now), 3)
            for seat, since in clocks.away.items()
            if seat not in clocks.standin
        },
        "standin": sorted(clocks.standin),
        "turn": turn,
        "timed_out": clocks.timed_out,
    }


def _seat(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | str):
        return None
    try:
        seat = int(value)
    except ValueError:
        return None
    return seat if 0 <= seat <= 3 else None


def _seconds(value: Any, most: float) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return min(max(0.0, float(value)), most)


def restored(
    raw: Any,
    humans: Iterable[int],
    grace: float,
    clock: float,
    turn_now: tuple[int, int] | None,
    now: float,
) -> Clocks:
    """The timers of a restarted room (see the module's words).

    ``turn_now``: the (seat, log length) of the decision due now, if a person
    makes it; a clock kept for another decision is not restored. Anything in
    ``raw`` that does not read is left out, as if that timer had not run.
    """
    people = sorted(set(humans))
    out = Clocks(away={seat: now for seat in people})
    if not isinstance(raw, Mapping):
        return out
    standin = raw.get("standin")
    for value in standin if isinstance(standin, list) else []:
        seat = _seat(value)
        if seat in people:
            out.standin.add(seat)
            out.away[seat] = now - grace
    away = raw.get("away")
    for key, value in away.items() if isinstance(away, Mapping) else ():
        seat, left = _seat(key), _seconds(value, grace)
        if seat in people and seat not in out.standin and left is not None:
            out.away[seat] = now - (grace - left)
    turn = raw.get("turn")
    if isinstance(turn, Mapping) and turn_now is not None and clock > 0:
        seat, at, left = _seat(turn.get("seat")), turn.get("at"), _seconds(turn.get("left"), clock)
        if (seat, at) == turn_now and left is not None and seat not in out.standin:
            out.turn, out.turn_left = turn_now, left
            timed_out = _seat(raw.get("timed_out"))
            if timed_out == seat:
                out.timed_out = seat
    return out


class TableClocks:
    """A room's timers on a game session: a part of ``GameSession``, which holds the
    attributes below and gives the methods at the end."""

    game: Any
    table: Any
    hold: str | None
    hold_at: int
    away: dict[int, float]
    standin: set[int]
    turn: tuple[int, int] | None
    turn_left: float | None
    turn_deadline: float | None
    timed_out: int | None

    def clocks(self) -> Clocks:
        return Clocks(
            away=dict(self.away),
            standin=set(self.standin),
            turn=self.turn,
            turn_left=self.turn_left,
            turn_deadline=self.turn_deadline,
            timed_out=self.timed_out,
        )

    def restore_clocks(self, raw: Any) -> None:
        """A restarted room's timers, from what the store kept of them (``timers``)."""
        assert self.table is not None
        seat = self.game.to_act
        due = None
        if self.hold is None and not self.over and seat in self.human_seats:
            due = (seat, len(self.game.log))
        got = restored(raw, self.human_seats, self.table.grace, self.table.clock, due, self._now())
        self.away, self.standin, self.timed_out = got.away, got.standin, got.timed_out
        self.turn, self.turn_left, self.turn_deadline = got.turn, got.turn_left, got.turn_deadline

    def resume(self) -> None:
        """After a restart, a room's timers run again and its bots go on, whether or not
        anyone comes back (a game of one device waits for its player, as it always did;
        no-op without an event loop)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return
        if self.table is None:
            return
        if self.hold == TRICK:
            self._release_later(self.hold_at)
        self._reschedule()
        self.kick()

    # what the session gives
    @property
    def human_seats(self) -> tuple[int, ...]:
        raise NotImplementedError

    @property
    def over(self) -> bool:
        raise NotImplementedError

    def _now(self) -> float:
        raise NotImplementedError

    def _release_later(self, at: int) -> None:
        raise NotImplementedError

    def _reschedule(self) -> None:
        raise NotImplementedError

    def kick(self) -> None:
        raise NotImplementedError


__all__ = ["Clocks", "TableClocks", "restored", "shape", "to_json"]
