"""The analysis of a deal as text for people: one line per action, then the
turning points, the par and what each seat's first four cards promised.

Card points are the bidding team's (the side that must make the contract),
whoever acts; a cost is always what the acting seat's own team gave up.
"""

from __future__ import annotations

from typing import Any

from ...game.account import SEAT_NAMES, TEAM_NAMES
from ...game.cards import SUIT_SYMBOLS, SUITS, card_symbol, parse_card
from .deal import ALL_HANDS, SEAT_VIEW, ActionAnalysis, DealAnalysis, RecordAnalysis

SEAT_LETTERS = "SWNE"
BEST_PHRASE = {
    "made": "the contract could be made",
    "failed": "the contract could be beaten",
    "cancelled": "the deal could end void",
}
AFTER_PHRASE = {"made": "it makes", "failed": "it fails", "cancelled": "it ends void"}


def suit_symbol(letter: str) -> str:
    return SUIT_SYMBOLS[SUITS.index(letter)]


def label_text(label: dict[str, Any]) -> str:
    """A choice in a few characters: ``J♠``, ``ask+7♣``, ``bid 17``, ``pass``..."""
    if "play" in label:
        card = card_symbol(parse_card(label["play"]))
        return f"ask+{card}" if label.get("reveal") else card
    if "bid" in label:
        return f"bid {label['bid']}"
    if "trump" in label:
        return f"trump {suit_symbol(label['trump'])}"
    kind = next((k for k in label if k not in ("seat", "p_make", "points", "score")), "?")
    return {"reveal": "ask", "seventh": "7th card"}.get(kind, kind)


def _pct(p: float | None) -> str:
    return "" if p is None else f"{round(100 * p):3d}%"


def _dd_cells(a: ActionAnalysis) -> str:
    dd = a.dd
    if dd is None:
        return " " * 34
    cost = f"-{dd.cost_points}" if dd.cost_points else ""
    result = dd.outcome_after
    if dd.outcome_lost:
        result = f"{dd.best_outcome}>{dd.outcome_after}"
    return f"{dd.points_after:5d} {dd.best_points:5d} {cost:>5}  {result:<16}"


def _view_cells(a: ActionAnalysis) -> str:
    view = a.view
    if view is None:
        return "forced" if a.legal == 1 else ""
    chosen = view.value_of(a.action)
    best = view.best
    cost = view.cost(a.action)["score"] or 0.0
    text = f"{_pct(chosen.p_make) or '   -':>4}"
    if best.action != a.action:
        label = label_text(best.action.to_json())
        text += f"  best {label} {_pct(best.p_make).strip() or f'{best.score:+.2f}'}"
        if cost >= 0.005:
            text += f" (-{cost:.2f})"
    return text


def action_line(a: ActionAnalysis) -> str:
    mark = " *" if a.turning else ""
    what = label_text(a.action.to_json())
    trick = f"t{a.trick}" if a.trick else ""
    return (
        f"{a.index:3d} {trick:>3} {SEAT_LETTERS[a.action.seat]}  {what:<10} "
        f"{_dd_cells(a)} {_view_cells(a)}{mark}"
    ).rstrip()


def deal_text(d: DealAnalysis) -> list[str]:
    deal = d.deal
    head = f"Deal {d.index + 1}: {SEAT_NAMES[deal.dealer]} deals."
    if deal.bidder >= 0:
        team = deal.bidder & 1
        trump = f", trumps {suit_symbol(SUITS[deal.trump])}" if deal.trump >= 0 else ""
        head += f" {SEAT_NAMES[deal.bidder]} bids {deal.bid}{trump}."
        if deal.single >= 0:
            head += f" {SEAT_NAMES[deal.single]} plays a single hand: {deal.result}."
        else:
            head += (
                f" {TEAM_NAMES[team]} took {deal.points[team]} of {deal.target} needed:"
                f" {deal.result}."
            )
    else:
        head += " Nobody bid: no contract."
    lines = [head, ""]
    lines.append("  #  tr seat action     --- all hands (bidders' points) ---  --- seat's view ---")
    lines.append("                      after  best  cost  result            p(make)")
    lines.extend(action_line(a) for a in d.actions)
    lines.append("")
    turning = d.turning_points
    if turning:
        lines.append("Turning points:")
        lines.extend(f"  {turning_text(a)}" for a in turning)
    else:
        lines.append("Turning points: none (no decision changed the result).")
    if d.par is not None:
        parts = []
        for t in d.par["teams"]:
            bid = t["highest_bid"]
            can = f"could make {bid}" if bid is not None else "no contract"
            parts.append(
                f"{TEAM_NAMES[t['team']]} {t['points']} with {suit_symbol(t['best_trump'])}"
                f" trumps ({can})"
            )
        lines.append("Par, every hand known: " + "; ".join(parts) + ".")
    lines.append("First four cards, by the bidding model:")
    for p in d.auction:
        even = p["highest_even_bid"]
        bid = p["highest_bid"]
        cards = " ".join(card_symbol(parse_card(c)) for c in p["first_batch"])
        lines.append(
            f"  {SEAT_NAMES[p['seat']]:<6} {cards}"
            f"  best trump {suit_symbol(p['best_trump'])},"
            f" even chance up to {even if even is not None else '-'};"
            f" bid {bid if bid is not None else 'nothing'}"
        )
    s = d.seconds
    lines.append(
        f"({s['all_hands']:.2f} s with every hand known,"
        f" {s['seat_view']:.2f} s from the seats' view)"
    )
    return lines


def turning_text(a: ActionAnalysis) -> str:
    seat = SEAT_NAMES[a.action.seat]
    what = label_text(a.action.to_json())
    parts = []
    if ALL_HANDS in a.turning and a.dd is not None:
        better = ", ".join(label_text(lb) for lb in a.dd.best_labels) or "?"
        parts.append(
            f"every hand known, {BEST_PHRASE[a.dd.best_outcome]}; after it,"
            f" {AFTER_PHRASE[a.dd.outcome_after]} (best: {better})"
        )
    if SEAT_VIEW in a.turning and a.view is not None:
        best = a.view.best
        chosen = a.view.value_of(a.action)
        parts.append(
            f"from {seat}'s view {label_text(best.action.to_json())} was worth"
            f" {best.score - chosen.score:.2f} game points more"
        )
    return f"{a.index:3d} {seat} {what}: " + "; ".join(parts) + "."


def record_text(r: RecordAnalysis) -> str:
    lines: list[str] = []
    for d in r.deals:
        lines.extend(deal_text(d))
        lines.append("")
    if r.skipped:
        lines.append(
            "Not analysed (unfinished): " + ", ".join(f"deal {i + 1}" for i in r.skipped) + "."
        )
    return "\n".join(lines).rstrip() + "\n"
