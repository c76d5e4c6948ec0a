"""How the others' calls weigh a world: loosely, or closely by the model bidders' rule.

A world's first batches are weighed by how well they explain each seat's calls.
``BiddingModel.auction_likelihood`` reads them loosely: a seat bids about what
its first batch is worth, give or take 2.5 points. That suits a seat whose
calls the model cannot predict, such as the expert itself, whose calls weigh
what passing leaves to the others. The model bidders (``strong`` and
``expert-v1``, ``BiddingModel.would_bid``) follow a rule that can be read
exactly: the lowest bid allowed when the model's chance of making it is at
least one half (0.15 more over the partner's contract), else a pass.

``CallReading`` reads each opponent as a mixture: with the share ``close`` it
is a model bidder, read by that rule, each call judged by the model's chance
at the level it had, within a spread of ``SHARPNESS``; else it is read loosely
as before. The level a pass declined is the lowest bid the seat could have
made then, which the auction's mechanics decide (in the duel auction a
defender's is the match), so the public auction is replayed to find it. The
partner's calls are read loosely: a seat plays with a partner of its own
kind, whose calls the rule does not describe.

Over two arena runs of the expert against ``strong`` (305 pagat and 95 bhoos
deals; docs/bots.md, *The opponents' calls read closely*), each seat's calls
with its true first batch: ``strong``'s have a log-likelihood of -0.18 (pagat)
and -0.15 (bhoos) a seat by the rule, -0.32 and -0.28 read loosely; the
expert's own -2.5 and -4.8 by the rule, -0.76 and -0.98 loosely.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..game.actions import BID, Action
from ..game.engine import Deal
from ..game.observation import Observation
from ..game.refusals import IllegalAction
from ..game.rules import Rules
from .bidding import PARTNER_NEED, BiddingModel, calls_by_seat, partner_holds, place_of

# How far from the rule's need (on the scale of the model's chance) a model bidder's
# call may stray: a seat at 0.45 that bid is read with a likelihood of 0.16.
SHARPNESS = 0.05
NEED = 0.5  # the model bidders' chance to bid
# Every hand of a placeholder deal: the auction's mechanics do not look at the cards.
_PLACEHOLDER = tuple(tuple(range(8 * s, 8 * s + 8)) for s in range(4))


@dataclass(frozen=True)
class Call:
    """One public call as a model bidder would have weighed it."""

    seat: int
    level: int  # the bid made, or for a pass the lowest bid the seat could have made
    bid: bool
    need: float  # the model's chance the rule asks for at that turn


def placeholder_deal(obs: Observation) -> Deal:
    """A deal of ``obs``'s rules and dealer with placeholder cards, before any call:
    the auction's mechanics do not look at the cards."""
    return Deal(obs.rules, obs.dealer, _PLACEHOLDER)


def call_action(seat: int, amount: int) -> Action:
    """A call of the public auction (``Observation.auction``: the bid, 0 for a pass) as
    the action that made it."""
    return Action.bid(seat, amount) if amount else Action.pass_(seat)


def replay_auction(deal: Deal, auction: Sequence[tuple[int, int]]) -> Deal:
    """``deal`` with the calls of ``auction`` applied (``IllegalAction`` at a call the
    rules do not allow)."""
    for seat, amount in auction:
        deal.apply(call_action(seat, amount))
    return deal


def public_calls(obs: Observation) -> list[Call]:
    """The calls of the auction so far, each with the level it was made or declined at.

    The auction is replayed into a deal of placeholder cards (the mechanics need
    none); a turn with no bid open to the seat (a pass it had to make) is left out."""
    deal = placeholder_deal(obs)
    out: list[Call] = []
    for i, (seat, amount) in enumerate(obs.auction):
        bids = [a.value for a in deal.legal_actions() if a.kind == BID and a.value is not None]
        need = NEED + (PARTNER_NEED if partner_holds(obs.auction[:i], seat) else 0.0)
        try:
            deal.apply(call_action(seat, amount))
        except IllegalAction:
            return out  # not an auction the rules allow: read what came before
        if amount:
            out.append(Call(seat, amount, True, need))
        elif bids:
            out.append(Call(seat, min(bids), False, need))
    return out


def rule_likelihood(
    model: BiddingModel,
    first_batch: int,
    calls: Sequence[Call],
    rules: Rules,
    place: int,
    sharpness: float = SHARPNESS,
) -> float:
    """How likely a model bidder holding ``first_batch`` made ``calls``: each bid
    where the model's chance at its level reached the need, each pass where it did
    not, within ``sharpness``."""
    suit, _ = model.best_trump(first_batch, place)
    like = 1.0
    for call in calls:
        chance = model.make_probability(first_batch, suit, place, call.level, rules)
        above = 0.5 * math.erfc(-(chance - call.need) / (sharpness * math.sqrt(2)))
        like *= above if call.bid else 1.0 - above
    return like


class CallReading:
    """The weight of a world's first batches by the other seats' calls (see above).

    With ``close`` 0 it is exactly the loose reading every weighed world had."""

    def __init__(
        self,
        obs: Observation,
        model: BiddingModel,
        close: float = 0.0,
        sharpness: float = SHARPNESS,
    ) -> None:
        assert obs.seat is not None
        self.rules = obs.rules
        self.model = model
        self.close = close
        self.sharpness = sharpness
        self.seat = obs.seat
        self.loose = {s: c for s, c in calls_by_seat(obs).items() if s != obs.seat}
        self.places = {s: place_of(obs, s) for s in self.loose}
        self.rule_calls: dict[int, list[Call]] = {}
        if close > 0:
            for call in public_calls(obs):
                if call.seat & 1 != self.seat & 1:
                    self.rule_calls.setdefault(call.seat, []).append(call)

    def __bool__(self) -> bool:
        return bool(self.loose)

    def weight(self, first: Sequence[int]) -> float:
        """How well the first batches ``first`` (by seat) explain the others' calls."""
        w = 1.0
        for seat, call in self.loose.items():
            place = self.places[seat]
            like = self.model.auction_likelihood(first[seat], call, self.rules, place)
            calls = self.rule_calls.get(seat)
            if calls:
                rule = rule_likelihood(
                    self.model, first[seat], calls, self.rules, place, self.sharpness
                )
                like = (1 - self.close) * like + self.close * rule
            w *= like
        return w


__all__ = [
    "SHARPNESS",
    "Call",
    "CallReading",
    "call_action",
    "placeholder_deal",
    "public_calls",
    "replay_auction",
    "rule_likelihood",
]
