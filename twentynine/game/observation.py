"""What one seat may know: the single door for hidden information.

``observe(match, seat)`` builds an immutable snapshot from the engine's state
holding only what that seat has seen at the table: its own cards, every
public action, and the trump suit only once it is revealed or when the seat
is the bidder who chose it (or saw its seventh card). ``seat=None`` is the
public view for spectators. ``event_view`` does the same for single events.

One subtlety: a pair decision is asked privately. Showing the others whose
turn it is would tell them who holds the king and queen of trumps, so to
everyone else the table simply waits (``to_act`` is ``None``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .actions import Action
from .cards import SUITS, card_text, cards_of, sort_hand
from .engine import MULTIPLIER, OVER, PAIR_WINDOW, PLAYING, Deal
from .rules import Rules

if TYPE_CHECKING:
    from .match import Match

Trick = tuple[int, tuple[int, ...], tuple[int, ...], int, int]


@dataclass(frozen=True, slots=True)
class Observation:
    """A seat's view of the game (``seat`` None: the public view)."""

    seat: int | None
    rules: Rules
    deal_index: int
    dealer: int
    phase: str
    to_act: int | None
    legal: tuple[Action, ...]
    hand: tuple[int, ...]
    second_batch: bool
    auction: tuple[tuple[int, int], ...]
    duel: dict[str, int | None] | None
    bidder: int | None
    bid: int | None
    forced: bool
    trump: int | None
    trump_revealed: bool
    revealed_in_trick: int | None
    revealer: int | None
    asked: int | None
    seventh: bool
    single: int | None
    doubling: int
    doubler: int | None
    target: int | None
    pair: tuple[int, int, int] | None
    tricks: tuple[Trick, ...]
    trick_leader: int | None
    trick: tuple[tuple[int, int], ...]
    points: tuple[int, int]
    score: tuple[int, int]
    winner: int | None
    result: str
    stake: int | None
    delta: tuple[int, int]
    hands: tuple[tuple[int, ...], ...] | None = field(default=None)
    # Table signals of this deal, (seat, card, "slam" | "drop"), when the table allows
    # them: what the players chose to say, never a rule and never proof of anything.
    signals: tuple[tuple[int, int, str], ...] = field(default=())

    @property
    def is_my_turn(self) -> bool:
        return self.seat is not None and self.to_act == self.seat

    @property
    def led_suit(self) -> int | None:
        return self.trick[0][1] >> 3 if self.trick else None

    def played_by(self, seat: int) -> list[int]:
        """Cards ``seat`` has played in this deal, in order."""
        out = [c for t in self.tricks for s, c in zip(t[2], t[1], strict=True) if s == seat]
        out.extend(c for s, c in self.trick if s == seat)
        return out

    def to_json(self) -> dict[str, Any]:
        """The wire form: cards as text, suits as letters."""

        def trick_json(t: Trick) -> dict[str, Any]:
            leader, cards, seats, winner, pts = t
            return {
                "leader": leader,
                "cards": [card_text(c) for c in cards],
                "seats": list(seats),
                "winner": winner,
                "points": pts,
            }

        return {
            "seat": self.seat,
            "rules": self.rules.to_json(),
            "deal_index": self.deal_index,
            "dealer": self.dealer,
            "phase": self.phase,
            "to_act": self.to_act,
            "legal": [a.to_json() for a in self.legal],
            "hand": [card_text(c) for c in self.hand],
            "second_batch": self.second_batch,
            "auction": [{"seat": s, "bid": b} for s, b in self.auction],
            "duel": self.duel,
            "bidder": self.bidder,
            "bid": self.bid,
            "forced": self.forced,
            "trump": SUITS[self.trump] if self.trump is not None else None,
            "trump_revealed": self.trump_revealed,
            "revealed_in_trick": self.revealed_in_trick,
            "revealer": self.revealer,
            "asked": self.asked,
            "seventh": self.seventh,
            "single": self.single,
            "doubling": self.doubling,
            "doubler": self.doubler,
            "target": self.target,
            "pair": None
            if self.pair is None
            else {"seat": self.pair[0], "team": self.pair[1], "trick": self.pair[2]},
            "tricks": [trick_json(t) for t in self.tricks],
            "trick_leader": self.trick_leader,
            "trick": [{"seat": s, "card": card_text(c)} for s, c in self.trick],
            "points": list(self.points),
            "score": list(self.score),
            "winner": self.winner,
            "result": self.result,
            "stake": self.stake,
            "delta": list(self.delta),
            "hands": None
            if self.hands is None
            else [[card_text(c) for c in h] for h in self.hands],
            "signals": [{"seat": s, "card": card_text(c), "signal": k} for s, c, k in self.signals],
        }


def observe_deal(
    deal: Deal,
    seat: int | None,
    deal_index: int = 0,
    score: tuple[int, int] = (0, 0),
    winner: int | None = None,
) -> Observation:
    if seat is not None and (isinstance(seat, bool) or seat not in (0, 1, 2, 3)):
        raise ValueError(f"seat must be 0..3 or None, not {seat!r}")
    over = deal.phase == OVER
    phase: str = deal.phase
    to_act: int | None = deal.to_act
    if phase == PAIR_WINDOW and seat != to_act:
        phase, to_act = PLAYING, None
    legal = tuple(deal.legal_actions()) if seat is not None and seat == to_act else ()
    has_contract = deal.bidder >= 0
    duel = None
    if deal.rules.auction == "duel" and phase == "auction":
        challenger = deal.duel_order[deal.duel_index] if deal.duel_defender >= 0 else None
        duel = {
            "defender": deal.duel_defender if deal.duel_defender >= 0 else None,
            "challenger": challenger if deal.duel_index < 4 else None,
            "defender_bid": deal.high_bid or None,
            "challenger_bid": deal.duel_challenge or None,
        }
    pair = None
    if deal.pair_seat >= 0:
        pair = (deal.pair_seat, deal.pair_seat & 1, deal.pair_trick)
    hand: tuple[int, ...] = ()
    if seat is not None:
        hand = tuple(sort_hand(cards_of(deal.held[seat])))
    return Observation(
        seat=seat,
        rules=deal.rules,
        deal_index=deal_index,
        dealer=deal.dealer,
        phase=phase,
        to_act=to_act if to_act is not None and to_act >= 0 else None,
        legal=legal,
        hand=hand,
        second_batch=deal.second_batch,
        auction=tuple(deal.auction),
        duel=duel,
        bidder=deal.bidder if has_contract else None,
        bid=deal.bid if has_contract else None,
        forced=deal.forced,
        trump=deal.trump if deal.knows_trump(seat) else None,
        trump_revealed=deal.revealed_in_trick > 0,
        revealed_in_trick=deal.revealed_in_trick or None,
        revealer=deal.revealer if deal.revealer >= 0 else None,
        asked=deal.asked if deal.asked >= 0 else None,
        seventh=deal.seventh,
        single=deal.single if deal.single >= 0 else None,
        doubling=MULTIPLIER[deal.doubling],
        doubler=deal.doubler if deal.doubler >= 0 else None,
        target=deal.target if has_contract and deal.single < 0 else None,
        pair=pair,
        tricks=tuple(deal.tricks),
        trick_leader=deal.leader if deal.phase in (PLAYING, PAIR_WINDOW) else None,
        trick=tuple(zip(deal.trick_seats, deal.trick_cards, strict=True)),
        points=(deal.points[0], deal.points[1]),
        score=score,
        winner=winner,
        result=deal.result,
        stake=deal.stake if over else None,
        delta=(deal.delta[0], deal.delta[1]),
        hands=deal.hands if over else None,
    )


def observe(match: Match, seat: int | None) -> Observation:
    return observe_deal(
        match.deal,
        seat,
        deal_index=len(match.deals) - 1,
        score=(match.score[0], match.score[1]),
        winner=match.winner,
    )


def event_view(event: dict[str, Any], seat: int | None) -> dict[str, Any] | None:
    """The event as ``seat`` may see it (None: the public), or None if hidden from it."""
    to = event.get("_to")
    if to is not None and to != seat:
        return None
    out = {k: v for k, v in event.items() if not k.startswith("_")}
    secret = event.get("_secret")
    if secret and seat in secret:
        out.update(secret[seat])
    if "card" in out and isinstance(out["card"], int):
        out["card"] = card_text(out["card"])
    if "cards" in out and out["cards"] and isinstance(out["cards"][0], int):
        out["cards"] = [card_text(c) for c in out["cards"]]
    return out
