"""A hint for the seat to act: what the expert would do, and why, in one line.

``hint_for(obs)`` takes only the seat's ``Observation`` (never a hidden card)
and asks ``value_choices`` for every legal choice's worth; the hint is the best
one and the one or two that come next, with the reason a player can check:
the share of the deals the seat cannot rule out in which the contract then
makes (or is beaten, for a defender), or, when the choices do not differ in
that (a double changes the stake, not the cards), the game points each is
expected to bring. The browser words it from its catalog (``to_json``), the
terminal with ``hint_line``.

``advice_for(obs)`` is the bidding advisor: the bidding table of the seat's
first four cards (``bidding_table``), for the auction only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...game.cards import SUIT_SYMBOLS, SUITS
from ...game.observation import Observation
from ...solver import Solver
from .auction import bidding_table
from .choices import ChoiceValue
from .seatview import DEFAULT_WORLDS, value_choices
from .table import label_text

# Why the best choice is best, in the words the hint uses.
MAKES = "makes"  # the seat's side is the bidding side: the share of deals it makes in
BEATS = "beats"  # a defender: the share of deals the contract is beaten in
POINTS = "points"  # the same chance either way: the bidding side's card points decide
SCORE = "score"  # the choices differ in expected game points only (a double, a pass)
MODEL = "model"  # the bidding model's make probability for these four cards
MODEL_PASS = "model-pass"  # no bid the four cards make often enough: pass
RUNNERS_UP = 2
SAME = 0.005  # make chances closer than this are no reason to prefer a choice


class HintError(ValueError):
    """No hint can be given for this observation (no decision of the seat's to take)."""


@dataclass(frozen=True)
class Hint:
    """The best choice of one decision and the next best, with the reason."""

    seat: int
    phase: str
    reason: str
    best: ChoiceValue
    others: tuple[ChoiceValue, ...]
    source: str
    worlds: int

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "phase": self.phase,
            "reason": self.reason,
            "source": self.source,
            "worlds": self.worlds,
            "best": self.best.to_json(),
            "others": [c.to_json() for c in self.others],
        }


def hint_for(
    obs: Observation,
    worlds: int = DEFAULT_WORLDS,
    seed: int = 0,
    solver: Solver | None = None,
) -> Hint:
    """The expert's choice for the seat's decision, from its observation alone."""
    if obs.seat is None or not obs.legal:
        raise HintError("there is no decision of this seat's to give a hint for")
    view = value_choices(obs, worlds=worlds, seed=seed, solver=solver)
    best = view.best
    ranked = sorted(view.choices, key=view._key, reverse=True)
    others = tuple(c for c in ranked if c.action != best.action)[:RUNNERS_UP]
    return Hint(
        seat=obs.seat,
        phase=obs.phase,
        reason=_reason(view.source, view.bidders, best, others),
        best=best,
        others=others,
        source=view.source,
        worlds=view.worlds,
    )


def _reason(source: str, bidders: bool, best: ChoiceValue, others: tuple[ChoiceValue, ...]) -> str:
    if source == "model":
        if best.p_make is None:
            return MODEL_PASS if any(c.p_make is not None for c in others) else SCORE
        return MODEL
    if best.p_make is None:
        return SCORE
    rivals = [c.p_make for c in others if c.p_make is not None]
    if rivals and all(abs(p - best.p_make) < SAME for p in rivals):
        # the same chance either way: the card points decide, or else the stake
        if best.points is not None and all(c.points is not None for c in others):
            return POINTS
        return SCORE
    return MAKES if bidders else BEATS


def side_chance(hint: Hint, choice: ChoiceValue) -> float | None:
    """The chance the reason speaks of for ``choice``: to make, or to beat."""
    if choice.p_make is None:
        return None
    return 1.0 - choice.p_make if hint.reason == BEATS else choice.p_make


def _pct(p: float | None) -> str:
    return "" if p is None else f"{round(100 * p)}%"


def hint_line(hint: Hint) -> str:
    """The hint in one line for the terminal: ``J♠: makes in 72% of the deals you
    cannot rule out; 9♠ 61%``."""
    best = label_text(hint.best.to_json())
    others = list(hint.others)

    def chance(c: ChoiceValue) -> str:
        return _pct(side_chance(hint, c))

    def also(cell: Any) -> str:
        shown = [f"{label_text(c.to_json())} {cell(c)}".rstrip() for c in others]
        return "; " + ", ".join(shown) if shown else ""

    reason = hint.reason
    if reason == MAKES:
        return f"{best}: makes in {chance(hint.best)} of the deals you cannot rule out" + also(
            chance
        )
    if reason == BEATS:
        head = f"{best}: the contract fails in {chance(hint.best)} of the deals you cannot rule out"
        return head + also(chance)
    if reason == MODEL:
        return f"{best}: your four cards make it in {chance(hint.best)} of deals" + also(chance)
    if reason == MODEL_PASS:
        bids = [c for c in others if c.p_make is not None]
        return f"{best}: your four cards make the next bid in only {chance(bids[0])} of deals" + (
            "; " + ", ".join(f"{label_text(c.to_json())} {chance(c)}" for c in bids)
        )
    if reason == POINTS:
        head = (
            f"{best}: makes in {chance(hint.best)} whatever you play; the bidders take"
            f" {hint.best.points:.1f} card points"
        )
        return head + also(lambda c: f"{c.points:.1f}")
    return f"{best}: {hint.best.score:+.2f} game points expected" + also(
        lambda c: f"{c.score:+.2f}"
    )


def advice_for(obs: Observation) -> dict[str, Any]:
    """The bidding advisor: for the seat's first four cards, per trump, the chance to
    make each bid. Only while the seat is to bid (its turn in the auction)."""
    if obs.seat is None or obs.phase != "auction" or not obs.legal:
        raise HintError("the bidding advisor is for a seat whose turn it is to bid")
    table = bidding_table(obs)
    bids = sorted(
        {a.value for a in obs.legal if a.kind == "bid" and a.value is not None},
    )
    return {"seat": obs.seat, "legal_bids": bids, **table}


def advice_lines(advice: dict[str, Any]) -> list[str]:
    """The advisor's table for the terminal: a row per trump, a column per bid."""
    bids = list(advice["suits"][0]["p_make"])
    shown = [b for b in bids if not advice["legal_bids"] or int(b) in advice["legal_bids"]]
    shown = shown or bids
    lines = ["trump  expect  " + " ".join(f"{b:>4}" for b in shown)]
    for s in advice["suits"]:
        mark = "*" if s["trump"] == advice["best_trump"] else " "
        cells = " ".join(f"{round(100 * s['p_make'][b]):3d}%" for b in shown)
        symbol = SUIT_SYMBOLS[SUITS.index(s["trump"])]
        lines.append(f"{symbol}{mark}     {s['expected']:5.1f}  {cells}")
    even = advice["highest_even_bid"]
    lines.append(
        "even chance up to " + (str(even) if even is not None else "no bid") + " (* best trump)"
    )
    return lines
