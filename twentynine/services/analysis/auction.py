"""The auction and the trump choice from the seat's view: the bidding model.

The expert bids with a model of what a first batch of four cards is worth
(``bots.bidding``): for a hand, a trump suit and a place at the table, the
expected points of the bidder's team and a make probability. The same model
values each bid and each trump here, and gives the bidding advisor its table
and the analysis each seat's prospects.
"""

from __future__ import annotations

from typing import Any

from ...bots.bidding import BiddingModel, default_model
from ...game.actions import BID, TRUMP
from ...game.cards import SUIT_MASK, SUITS, mask_of
from ...game.engine import partner_of
from ...game.observation import Observation
from ...game.rules import Rules
from .choices import ChoiceValue, SeatView, stake_of, table_position

# The ordinary first batch and what the seventh card can be: 4 cards seen, 28 not.
FIRST_BATCH = 4
UNSEEN_AT_TRUMP = 28
LAST_TRICK_BONUS = 0.6  # the bidding model's allowance for the last-trick point
# The expert asks this much more make probability of a bid over its partner's.
PARTNER_HOLDS_MARGIN = 0.15


def model_values(obs: Observation, model: BiddingModel | None = None) -> SeatView:
    """The auction and the trump choice, as the expert bids them: by the model."""
    assert obs.seat is not None
    model = model or default_model()
    hand = mask_of(obs.hand[:FIRST_BATCH]) if not obs.second_batch else mask_of(obs.hand)
    place = table_position(obs, obs.seat)
    bonus = LAST_TRICK_BONUS if obs.rules.last_trick_point else 0.0
    choices = []
    if obs.phase == "auction":
        suit, expected = model.best_trump(hand, place)
        # A pass leaves the contract to others: worth nothing, unless the partner holds
        # the standing bid, which the expert outbids only when it is much surer.
        standing = max((b for _, b in obs.auction), default=0)
        partner = any(s == partner_of(obs.seat) and b == standing and b for s, b in obs.auction)
        passing = 2 * PARTNER_HOLDS_MARGIN if partner else 0.0
        for a in obs.legal:
            if a.kind == BID and a.value is not None:
                p = model.make_probability(hand, suit, place, a.value, obs.rules)
                score = stake_of(obs, a.value, 1) * (2 * p - 1)
                choices.append(ChoiceValue(a, p, expected + bonus, score))
            else:
                choices.append(ChoiceValue(a, None, None, passing))
        return SeatView(obs.seat, True, tuple(choices), "model", 0)
    assert obs.bid is not None
    bid = obs.bid
    per_suit = [
        (
            model.make_probability(hand, s, place, bid, obs.rules),
            model.expected(hand, s, place) + bonus,
        )
        for s in range(4)
    ]
    stake = stake_of(obs, bid, 1)
    for a in obs.legal:
        if a.kind == TRUMP and a.value is not None:
            p, pts = per_suit[a.value]
        else:  # the seventh card: its suit is the suit of one of the 28 cards unseen
            held = [(hand & SUIT_MASK[s]).bit_count() for s in range(4)]
            odds = [(8 - held[s]) / UNSEEN_AT_TRUMP for s in range(4)]
            p = sum(o * v[0] for o, v in zip(odds, per_suit, strict=True))
            pts = sum(o * v[1] for o, v in zip(odds, per_suit, strict=True))
        choices.append(ChoiceValue(a, p, pts, stake * (2 * p - 1)))
    return SeatView(obs.seat, True, tuple(choices), "model", 0)


def bidding_table(obs: Observation, model: BiddingModel | None = None) -> dict[str, Any]:
    """For the seat's first four cards: per trump, the expected points and the chance
    to make each bid from ``min_bid`` to ``max_bid`` (the bidding advisor's table)."""
    if obs.seat is None:
        raise ValueError("the bidding table is for a seat")
    return seat_potential(
        obs.rules, mask_of(obs.hand[:FIRST_BATCH]), table_position(obs, obs.seat), model
    )


def seat_potential(
    rules: Rules, hand: int, place: int, model: BiddingModel | None = None
) -> dict[str, Any]:
    """A first batch's prospects by the bidding model: per trump the expected points
    and the make probability of every bid; the best trump and the highest bid the
    model gives at least an even chance."""
    model = model or default_model()
    bonus = LAST_TRICK_BONUS if rules.last_trick_point else 0.0
    per_suit: list[dict[int, float]] = [
        {
            b: round(model.make_probability(hand, s, place, b, rules), 4)
            for b in range(rules.min_bid, rules.max_bid + 1)
        }
        for s in range(4)
    ]
    suits = [
        {
            "trump": SUITS[s],
            "expected": round(model.expected(hand, s, place) + bonus, 2),
            "p_make": {str(b): p for b, p in per_suit[s].items()},
        }
        for s in range(4)
    ]
    best_suit, _ = model.best_trump(hand, place)
    even = [b for b, p in per_suit[best_suit].items() if p >= 0.5]
    return {
        "suits": suits,
        "best_trump": SUITS[best_suit],
        "highest_even_bid": max(even) if even else None,
    }
