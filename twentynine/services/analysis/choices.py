"""What a decision's choices are worth: the answer of the seat's-view valuations.

A ``SeatView`` holds every legal choice of one decision with the probability
that the contract makes after it, the bidding team's expected card points, and
the expected game points of the deciding seat's team, and says which choice
was best and what another one gave up against it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...game.actions import Action
from ...game.engine import contract_stake
from ...game.observation import Observation


@dataclass(frozen=True)
class ChoiceValue:
    """One legal choice from the deciding seat's view.

    ``p_make``: probability the bidding side's contract makes after it (for a
    single hand, that the declarer wins every trick); None for a pass in the
    auction. ``points``: the bidding team's expected card points (None where it
    means nothing: a pass in the auction, a single-hand declaration).
    ``score``: expected game points of the deciding seat's team.
    """

    action: Action
    p_make: float | None
    points: float | None
    score: float

    def to_json(self) -> dict[str, Any]:
        label = {k: v for k, v in self.action.to_json().items() if k != "seat"}
        return {
            **label,
            "p_make": None if self.p_make is None else round(self.p_make, 4),
            "points": None if self.points is None else round(self.points, 2),
            "score": round(self.score, 4),
        }


@dataclass(frozen=True)
class SeatView:
    """Every legal choice of one decision, valued from the deciding seat's view.

    ``source`` is ``"worlds"`` (``worlds`` sampled deals solved exactly) or
    ``"model"`` (the bidding model; ``worlds`` is 0).
    """

    seat: int
    bidders: bool  # the deciding seat is on the bidding side
    choices: tuple[ChoiceValue, ...]
    source: str
    worlds: int

    def value_of(self, action: Action) -> ChoiceValue:
        for c in self.choices:
            if c.action == action:
                return c
        raise KeyError(f"{action} is not a legal choice here")

    def _key(self, c: ChoiceValue) -> tuple[float, float]:
        pts = c.points if c.points is not None else 0.0
        return (round(c.score, 9), pts if self.bidders else -pts)

    @property
    def best(self) -> ChoiceValue:
        """The choice with the highest expected score (then the most points for the
        seat's team); the first of equals in the legal order."""
        return max(self.choices, key=self._key)

    def cost(self, action: Action) -> dict[str, float | None]:
        """What ``action`` gave up against the best choice, from the seat's side:
        expected game points, make probability (its own side's chance: lower for
        the bidders, higher for the defenders) and card points."""
        chosen, best = self.value_of(action), self.best
        p = None
        if chosen.p_make is not None and best.p_make is not None:
            p = (best.p_make - chosen.p_make) * (1 if self.bidders else -1)
        pts = None
        if chosen.points is not None and best.points is not None:
            pts = (best.points - chosen.points) * (1 if self.bidders else -1)
        return {"score": max(0.0, best.score - chosen.score), "p_make": p, "points": pts}

    def to_json(self, action: Action | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "source": self.source,
            "worlds": self.worlds,
            "choices": [c.to_json() for c in self.choices],
            "best": self.choices.index(self.best),
        }
        if action is not None:
            chosen = self.value_of(action)
            cost = self.cost(action)
            out["chosen"] = self.choices.index(chosen)
            out["p_make"] = None if chosen.p_make is None else round(chosen.p_make, 4)
            out["cost_score"] = round(cost["score"] or 0.0, 4)
            out["cost_p_make"] = None if cost["p_make"] is None else round(cost["p_make"], 4)
            out["cost_points"] = None if cost["points"] is None else round(cost["points"], 2)
        return out


def table_position(obs: Observation, seat: int) -> int:
    """Steps from the first leader of the deal to ``seat`` in the order of play
    (the bidding model's notion of a seat's place)."""
    s, steps = obs.rules.next_seat(obs.dealer), 0
    while s != seat:
        s = obs.rules.next_seat(s)
        steps += 1
    return steps


def stake_of(obs: Observation, bid: int, multiplier: int) -> int:
    """Game points a contract at ``bid`` is worth (an under-half loss counts as a
    plain one: the expected score compares choices, it does not settle the deal)."""
    return contract_stake(obs.rules, bid, multiplier, False)
