"""The terms of a deal's contract: its phases and results, what doubling
multiplies, the targets after a pair is shown, and the stake.

Names and arithmetic only, shared by the engine, the bots and the tools that
value a contract; no state lives here.
"""

from __future__ import annotations

from .actions import DOUBLE, REDOUBLE, SET
from .rules import Rules

# Phases of a deal.
AUCTION = "auction"
TRUMP_CHOICE = "trump"
SINGLE_HAND = "single"
DOUBLING = "double"
REDOUBLING = "redouble"
SETTING = "set"
PLAYING = "play"
PAIR_WINDOW = "pair"
OVER = "over"

# Results of a deal (as in the verdict).
MADE = "made"
FAILED = "failed"
CANCELLED = "cancelled"
SINGLE_MADE = "single-made"
SINGLE_FAILED = "single-failed"
IN_PROGRESS = "in-progress"

MULTIPLIER = {None: 1, DOUBLE: 2, REDOUBLE: 4, SET: 6}
BANGLADESH_PAIR_FLOOR = 16
PAIR_SHIFT = 4
TRICKS = 8
SEVENTH_CARD_INDEX = 6  # the third card of the second batch


def team_of(seat: int) -> int:
    return seat & 1


def partner_of(seat: int) -> int:
    return (seat + 2) % 4


def lowered_target(rules: Rules, bid: int) -> int:
    """The bidding team's target after it shows the pair."""
    if rules.pair == "bangladesh":
        if bid <= BANGLADESH_PAIR_FLOOR + 2:
            return bid
        if bid <= BANGLADESH_PAIR_FLOOR + PAIR_SHIFT:
            return max(BANGLADESH_PAIR_FLOOR, rules.min_bid)
        return max(bid - PAIR_SHIFT, rules.min_bid)
    return max(bid - PAIR_SHIFT, rules.min_bid)


def raised_target(rules: Rules, bid: int) -> int:
    """The bidding team's target after the defenders show the pair."""
    return min(bid + PAIR_SHIFT, rules.max_bid)


def contract_stake(rules: Rules, bid: int, multiplier: int, under_half_loss: bool) -> int:
    """Game points a contract is worth: 1, or 2 from ``auto_double_from``; times the
    doubling multiplier; twice that again for a failure with under half the bid."""
    stake = 2 if rules.auto_double_from is not None and bid >= rules.auto_double_from else 1
    stake *= multiplier
    return stake * 2 if under_half_loss else stake
