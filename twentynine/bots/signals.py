"""Table signals for bots: when to make one honestly, and how to read them.

At a table that allows signals, a player may attach *slam* ("partner, lead
this suit next time") or *drop* ("I have no more of this suit") to a card.
Signals never change the rules. Our bots only ever signal the truth:

- *drop* when following suit with their last card of the led suit, so the
  partner knows the suit is out (they still hold cards, else it says nothing);
- *slam* when they lead a suit whose highest card still out they hold after
  this card, so a lead back to them is won.

A person may signal anything, so a bot reads a signal as information only
when it agrees with the cards: a *drop* from a seat that later follows that
suit is ignored, and a drop is dropped again when no deal of the unseen cards
fits it (see ``consistent_drops``).
"""

from __future__ import annotations

from ..game.actions import PLAY, Action
from ..game.cards import SUIT_MASK
from ..game.engine import partner_of
from ..game.observation import Observation
from .knowledge import Knowledge

SLAM = "slam"
DROP = "drop"


def _plays(obs: Observation) -> list[tuple[int, int]]:
    """Every (seat, card) played in this deal, in order."""
    out = [
        (s, c) for _l, cards, seats, _w, _p in obs.tricks for s, c in zip(seats, cards, strict=True)
    ]
    out.extend(obs.trick)
    return out


def choose_signal(obs: Observation, action: Action) -> str | None:
    """An honest signal to go with ``action``, or None."""
    if action.kind != PLAY or action.value is None or obs.seat is None:
        return None
    card = action.value
    suit = card >> 3
    rest = [c for c in obs.hand if c != card]
    if not rest:
        return None
    same = [c for c in rest if c >> 3 == suit]
    if obs.trick:  # following
        if obs.trick[0][1] >> 3 == suit and not same:
            return DROP
        return None
    if not same or len(rest) < 2:
        return None
    played = {c for _s, c in _plays(obs)} | {card}
    out = [c for c in range(32) if SUIT_MASK[suit] >> c & 1 and c not in played]
    if out and max(out) in same:
        return SLAM
    return None


def slammed_suit(obs: Observation) -> int | None:
    """The suit the partner last asked this seat to lead, if it still holds one."""
    if obs.seat is None:
        return None
    partner = partner_of(obs.seat)
    for seat, card, kind in reversed(obs.signals):
        if seat == partner and kind == SLAM:
            suit = card >> 3
            if any(c >> 3 == suit for c in obs.hand):
                return suit
            return None
    return None


def drops(obs: Observation) -> list[tuple[int, int]]:
    """(seat, suit) of the others' drop signals that no later card contradicts."""
    if not obs.signals or obs.seat is None:
        return []
    order = _plays(obs)
    out = []
    for seat, card, kind in obs.signals:
        if kind != DROP or seat == obs.seat:
            continue
        suit = card >> 3
        try:
            at = order.index((seat, card))
        except ValueError:
            continue
        if any(s == seat and c >> 3 == suit for s, c in order[at + 1 :]):
            continue  # the seat followed the suit later: the signal was not true
        out.append((seat, suit))
    return out


def consistent_drops(know: Knowledge, found: list[tuple[int, int]]) -> list[int]:
    """The voids ``know`` would have with the drops that fit the unseen cards.

    A drop fits when the unseen cards of its suit can still all be placed with
    the seats not void in it (counting each seat's free places): a lie that
    leaves cards with nowhere to go is ignored.
    """
    voids = list(know.voids)
    for seat, suit in found:
        trial = list(voids)
        trial[seat] |= 1 << suit
        if _fits(know, trial):
            voids = trial
    return voids


def _fits(know: Knowledge, voids: list[int]) -> bool:
    others = [s for s in range(4) if s != know.seat and know.counts[s] > 0]
    for suit in range(4):
        unseen = (know.out & SUIT_MASK[suit]).bit_count()
        room = sum(know.counts[s] for s in others if not voids[s] >> suit & 1)
        if unseen > room:
            return False
    # every seat must be able to fill its hand from the suits it may hold
    for s in others:
        allowed = sum(
            (know.out & SUIT_MASK[u]).bit_count() for u in range(4) if not voids[s] >> u & 1
        )
        if allowed < know.counts[s]:
            return False
    return True
