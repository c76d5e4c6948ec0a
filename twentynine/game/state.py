"""The fields of a deal: every slot ``engine.Deal`` keeps, with its type.

One class declares them so that the parts of the deal kept in modules of their
own (``auction``, ``pair``, ``refusals``) and the engine share one layout and
one set of names; ``Deal.__init__`` gives them their first values.
"""

from __future__ import annotations

from .actions import Action
from .rules import Rules

# A finished trick: leader, cards, the seats that played them, winner, points.
Trick = tuple[int, tuple[int, ...], tuple[int, ...], int, int]


class DealState:
    """The slots of a deal (no behaviour)."""

    __slots__ = (
        "_next",
        "asked",
        "auction",
        "bid",
        "bidder",
        "dealer",
        "delta",
        "double_offers",
        "doubler",
        "doubling",
        "duel_challenge",
        "duel_challenger",
        "duel_defender",
        "duel_index",
        "duel_order",
        "forced",
        "hands",
        "held",
        "high_bid",
        "high_bidder",
        "leader",
        "log",
        "pair_seat",
        "pair_trick",
        "passes",
        "phase",
        "points",
        "result",
        "revealed_in_trick",
        "revealer",
        "rules",
        "second_batch",
        "seventh",
        "single",
        "single_offers",
        "stake",
        "target",
        "to_act",
        "trick_cards",
        "trick_seats",
        "tricks",
        "trump",
    )

    # the deal
    rules: Rules
    dealer: int
    hands: tuple[tuple[int, ...], ...]  # the eight cards dealt to each seat, in order
    held: list[int]  # the cards each seat holds now, as masks
    second_batch: bool
    log: list[Action]
    _next: list[int]  # the seat after each seat, in the rules' direction
    phase: str
    to_act: int
    # the auction
    auction: list[tuple[int, int]]  # (seat, bid); 0 is a pass
    high_bid: int
    high_bidder: int
    passes: int
    duel_order: tuple[int, int, int, int]
    duel_index: int
    duel_defender: int
    duel_challenger: int
    duel_challenge: int
    forced: bool
    # the contract
    bidder: int
    bid: int
    trump: int
    seventh: bool
    single: int
    single_offers: int
    double_offers: list[int]
    doubler: int
    doubling: str | None
    target: int
    # the play
    leader: int
    trick_cards: list[int]
    trick_seats: list[int]
    tricks: list[Trick]
    points: list[int]
    revealed_in_trick: int  # 1-based; 0 while hidden
    revealer: int
    asked: int
    pair_seat: int
    pair_trick: int
    # the score
    result: str
    stake: int | None
    delta: list[int]
