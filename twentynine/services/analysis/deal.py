"""The analysis of a finished deal, action by action, and of a record's deals.

``analyse_deal`` replays a finished deal with the engine and values each action
twice: with every hand known (``allhands``) and from the acting seat's view at
that moment (``seatview``, which sees only that seat's observation). From
those come the deal's turning points: the decisions that threw away a result
the team could still force with every card known, and those that gave up a
large share of the expected result as the seat itself could see it.

``analyse_record`` does the same for the deals of a ``29-record/1`` record,
refusing what it cannot analyse with an ``AnalysisError`` that says why.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from ...game.actions import Action
from ...game.cards import card_text
from ...game.engine import OVER, PLAYING, TRUMP_CHOICE, Deal
from ...game.match import Match
from ...game.observation import observe_deal
from ...game.record import EXIT_ILLEGAL, EXIT_MALFORMED, RecordError, load, replay_record
from ...solver import Solver
from .allhands import AllHands, DDDecision
from .auction import seat_potential
from .choices import SeatView, table_position
from .seatview import DEFAULT_WORLDS, value_choices

FORMAT = "29-analysis/1"
ALL_HANDS = "all-hands"
SEAT_VIEW = "seat-view"
# A decision is a turning point from the seat's view when it cost at least this
# many expected game points (half a stake: a quarter of the make probability).
TURNING_SCORE = 0.5


class AnalysisError(ValueError):
    """What cannot be analysed, and the exit status the command line should use."""

    def __init__(self, message: str, exit_status: int = EXIT_MALFORMED) -> None:
        super().__init__(message)
        self.exit_status = exit_status


@dataclass
class ActionAnalysis:
    """One action of the record and what it was worth."""

    index: int
    action: Action
    stage: str  # the deal's phase when the action was taken
    trick: int | None  # for plays, reveals and pairs: the trick number (from 1)
    legal: int  # how many choices the seat had
    dd: DDDecision | None  # with every hand known (None: the solver has no say)
    view: SeatView | None  # from the seat's view (None: one choice, or not asked)
    turning: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "index": self.index,
            "seat": self.action.seat,
            "action": self.action.to_json(),
            "stage": self.stage,
            "trick": self.trick,
            "forced": self.legal == 1,
        }
        if self.dd is not None:
            out.update(self.dd.to_json())
        out["seat_view"] = None if self.view is None else self.view.to_json(self.action)
        out["turning"] = self.turning
        return out


@dataclass
class DealAnalysis:
    """A finished deal's analysis: every action, the auction's prospects, the par."""

    index: int
    deal: Deal
    actions: list[ActionAnalysis]
    auction: list[dict[str, Any]]
    par: dict[str, Any] | None
    seconds: dict[str, float]

    @property
    def turning_points(self) -> list[ActionAnalysis]:
        return [a for a in self.actions if a.turning]

    def to_json(self) -> dict[str, Any]:
        d = self.deal
        verdict = d.verdict()
        return {
            "deal": self.index + 1,
            "dealer": d.dealer,
            "bidder": verdict["bidder"],
            "bid": verdict["bid"],
            "trump": verdict["trump"],
            "single": verdict["single"],
            "target": verdict["target"],
            "result": verdict["result"],
            "points": verdict["points"],
            "actions": [a.to_json() for a in self.actions],
            "turning_points": [
                {"index": a.index, "seat": a.action.seat, "kinds": a.turning}
                for a in self.turning_points
            ],
            "auction": self.auction,
            "par": self.par,
            "seconds": {k: round(v, 3) for k, v in self.seconds.items()},
        }


def analyse_deal(
    deal: Deal,
    index: int = 0,
    *,
    seat_view: bool = True,
    worlds: int = DEFAULT_WORLDS,
    seed: int = 0,
    solver: Solver | None = None,
    effort: float = 1.0,
) -> DealAnalysis:
    """Value every action of a finished ``deal`` (see the module's docstring).

    ``seat_view=False`` leaves out the seat's-view values (the quick part is the
    all-hands one). ``worlds``, ``seed`` and ``effort`` go to ``value_choices``.
    """
    if deal.phase != OVER:
        raise AnalysisError(_unfinished(index), EXIT_ILLEGAL)
    solver = solver or Solver()
    hands = AllHands(deal, solver)
    replay = Deal(deal.rules, deal.dealer, deal.hands)
    actions: list[ActionAnalysis] = []
    clock = _Clock()
    later: list[tuple[int, Deal]] = []
    for i, action in enumerate(deal.log):
        stage = replay.phase
        legal = len(replay.legal_actions())
        dd = None
        if stage == TRUMP_CHOICE:
            # valued after the play: the first lead tells what the chosen trump is worth
            later.append((i, replay.clone()))
        else:
            with clock("all_hands"):
                dd = hands.decision(replay, action)
        view = None
        if seat_view and legal > 1:
            with clock("seat_view"):
                obs = observe_deal(replay, action.seat, deal_index=index)
                view = value_choices(obs, worlds=worlds, seed=seed, solver=solver, effort=effort)
        trick = None
        if stage in (PLAYING, "pair"):
            trick = len(replay.tricks) + (0 if stage == "pair" else 1)
        entry = ActionAnalysis(i, action, stage, trick, legal, dd, view)
        actions.append(entry)
        replay.apply(action)
    with clock("all_hands"):
        for i, state in later:
            actions[i].dd = hands.decision(state, actions[i].action)
        par = hands.par() if deal.bidder >= 0 else None
    for entry in actions:
        if entry.dd is not None and entry.dd.outcome_lost:
            entry.turning.append(ALL_HANDS)
        if (
            entry.view is not None
            and (entry.view.cost(entry.action)["score"] or 0) >= TURNING_SCORE
        ):
            entry.turning.append(SEAT_VIEW)
    return DealAnalysis(index, deal, actions, auction_prospects(deal), par, clock.spent)


class _Clock:
    """Wall and CPU seconds spent per part of the work (``name`` and ``name_cpu``)."""

    def __init__(self) -> None:
        self.spent = {
            "all_hands": 0.0,
            "all_hands_cpu": 0.0,
            "seat_view": 0.0,
            "seat_view_cpu": 0.0,
        }
        self._part = ""

    def __call__(self, part: str) -> _Clock:
        self._part = part
        return self

    def __enter__(self) -> None:
        self._wall, self._cpu = time.perf_counter(), time.process_time()

    def __exit__(self, *exc: object) -> None:
        self.spent[self._part] += time.perf_counter() - self._wall
        self.spent[self._part + "_cpu"] += time.process_time() - self._cpu


def auction_prospects(deal: Deal) -> list[dict[str, Any]]:
    """Per seat, what its first four cards promised by the bidding model (the model
    the expert bids with), and what it bid."""
    rules = deal.rules
    obs = observe_deal(Deal(rules, deal.dealer, deal.hands), 0)
    out = []
    for seat in range(4):
        first = 0
        for c in deal.hands[seat][:4]:
            first |= 1 << c
        bids = [b for s, b in deal.auction if s == seat and b]
        entry = seat_potential(rules, first, table_position(obs, seat))
        entry["seat"] = seat
        entry["first_batch"] = [card_text(c) for c in deal.hands[seat][:4]]
        entry["highest_bid"] = max(bids) if bids else None
        out.append(entry)
    return out


# ---------------------------------------------------------------------- records


@dataclass
class RecordAnalysis:
    rules: dict[str, Any]
    deals: list[DealAnalysis]
    skipped: list[int]  # deals of the record left out because they are unfinished

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "rules": self.rules,
            "deals": [d.to_json() for d in self.deals],
            "skipped": [i + 1 for i in self.skipped],
        }


def read_match(text: str | bytes | dict[str, Any]) -> Match:
    """The match of a record, or an ``AnalysisError`` saying what is wrong with it."""
    try:
        obj = text if isinstance(text, dict) else load(text)
        match, fault = replay_record(obj)
    except RecordError as e:
        raise AnalysisError(f"not a valid game record: {e}", EXIT_MALFORMED) from None
    if fault is not None:
        where = f"deal {(fault.deal or 0) + 1}"
        if fault.action is not None:
            where += f", action {fault.action}"
        raise AnalysisError(f"the record is faulty at {where}: {fault}", EXIT_ILLEGAL)
    if not match.deals:
        raise AnalysisError("the record holds no deal", EXIT_ILLEGAL)
    return match


def chosen_deals(match: Match, number: int | None) -> tuple[list[int], list[int]]:
    """The indexes of the deals to analyse and of those skipped (unfinished).

    ``number`` picks one deal, counting from 1 as people do (the record's first
    deal is deal 1); None takes every finished deal.
    """
    count = len(match.deals)
    if number is not None:
        if not 1 <= number <= count:
            span = "only deal 1" if count == 1 else f"deals 1 to {count}"
            raise AnalysisError(f"deal {number} does not exist: the record has {span}")
        if match.deals[number - 1].phase != OVER:
            raise AnalysisError(_unfinished(number - 1), EXIT_ILLEGAL)
        return [number - 1], []
    done = [i for i, d in enumerate(match.deals) if d.phase == OVER]
    left = [i for i, d in enumerate(match.deals) if d.phase != OVER]
    if not done:
        raise AnalysisError(_unfinished(left[0]), EXIT_ILLEGAL)
    return done, left


def _unfinished(index: int) -> str:
    return f"deal {index + 1} is not finished: only a finished deal can be analysed"


def analyse_record(
    text: str | bytes | dict[str, Any],
    number: int | None = None,
    *,
    seat_view: bool = True,
    worlds: int = DEFAULT_WORLDS,
    seed: int = 0,
    solver: Solver | None = None,
    effort: float = 1.0,
) -> RecordAnalysis:
    """Analyse the finished deals of a record, or deal ``number`` alone (from 1)."""
    match = read_match(text)
    wanted, skipped = chosen_deals(match, number)
    solver = solver or Solver()
    deals = [
        analyse_deal(
            match.deals[i],
            i,
            seat_view=seat_view,
            worlds=worlds,
            seed=seed,
            solver=solver,
            effort=effort,
        )
        for i in wanted
    ]
    return RecordAnalysis(match.rules.to_json(), deals, skipped)
