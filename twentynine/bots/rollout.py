"""A call judged by what follows it: the rest of the auction played out per world.

``contract.simulated_bid`` weighs bidding now against the standing contract
as if the auction ended with the seat's call. It seldom does: in the duel
auction a defender may match a challenge, a pass leaves the seat out while
the holder defends against the next players, and in either auction a bid
can be overcalled. Here each world of the ``ContractJudge`` is dealt into an
engine ``Deal``, the public auction so far is replayed into it, and the
seat's candidate call (pass, or the lowest bid allowed) is followed by the
rest of the auction:

- every other seat calls as the fitted model of its first batch *in that
  world* says (``BiddingModel.bid``'s rule: the lowest bid when the model's
  chance of making it is at least one half, more when the partner holds);
- the seat itself, when its turn comes again, calls by the same rule with
  its own suit, and never over its partner (solving each later level in
  every world would double the decision's time).

Where the auction ends, the contract is solved in that world (a redeal is
worth nothing), and the call is worth the mean over the weighed worlds, in
game points for the seat's side. The engine applies the auction's own
mechanics, so this is the same for the open and the duel auction and for
every ``all_pass`` rule.

Only the seat's own cards and the public auction go in: the worlds are the
judge's, and a replay of the auction needs no hidden card.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ..game.actions import BID, PASS, Action
from ..game.cards import cards_of
from ..game.engine import AUCTION, OVER, SEVENTH_CARD_INDEX, Deal
from ..game.observation import Observation
from .bidding import BiddingModel, place_of
from .calls import replay_auction
from .contract import (
    FIRST_BATCH,
    AuctionWorld,
    ContractJudge,
    MakeRate,
    MoreWorlds,
    stake,
    weighted_mean,
)
from .heuristic import find, pass_action


def world_deal(obs: Observation, world: AuctionWorld) -> Deal:
    """``world`` as an engine deal with the public auction so far replayed into it."""
    assert obs.seat is not None
    hands: list[list[int]] = []
    for seat in range(4):
        first = cards_of(world.first[seat])
        second = cards_of(world.hands[seat] & ~world.first[seat])
        if seat == obs.seat:
            # the seat's own first batch in the order it holds them, its seventh card in
            # the place the rules read it from
            first = list(obs.hand[:FIRST_BATCH])
            second.remove(world.seventh)
            second.insert(SEVENTH_CARD_INDEX - FIRST_BATCH, world.seventh)
        hands.append(first + second)
    return replay_auction(Deal(obs.rules, obs.dealer, hands), obs.auction)


class AuctionRollout:
    """The rest of the auction after a call, in each of a judge's worlds."""

    def __init__(self, obs: Observation, model: BiddingModel, judge: ContractJudge) -> None:
        assert obs.seat is not None
        self.obs = obs
        self.model = model
        self.judge = judge
        self.seat = obs.seat
        self.places = [place_of(obs, s) for s in range(4)]
        self.suit = -1  # the seat's own trump, set by ``values``
        # each world's values of the calls, by world, suit and calls: a world added to
        # the judge is played out once
        self._seen: dict[tuple[int, int, tuple[Action, ...]], list[float]] = {}

    def values(self, suit: int | Callable[[int], int], calls: list[Action]) -> list[float]:
        """Each call's worth to the seat's side, in game points, naming ``suit`` if it
        ends up holding the contract (or ``suit(i)`` in world i)."""
        per_world = self.world_values(suit, calls)
        weights = self.judge.weights
        return [weighted_mean([v[k] for v in per_world], weights) for k in range(len(calls))]

    def world_values(
        self, suit: int | Callable[[int], int], calls: list[Action]
    ) -> list[list[float]]:
        """Each call's worth in each of the judge's worlds (0 in a world of no weight),
        the seat naming ``suit`` (or ``suit(i)`` in world i)."""
        out: list[list[float]] = []
        for i, world in enumerate(self.judge.worlds):
            self.suit = suit(i) if callable(suit) else suit
            key = (i, self.suit, tuple(calls))
            found = self._seen.get(key)
            if found is None:
                found = [0.0 for _ in calls]
                if self.judge.weights[i] > 0:
                    base = world_deal(self.obs, world)
                    for k, call in enumerate(calls):
                        deal = base.clone()
                        deal.apply(call)
                        found[k] = self._finish(i, world, deal)
                self._seen[key] = found
            out.append(found)
        return out

    # -- one world ---------------------------------------------------------------------
    def _finish(self, index: int, world: AuctionWorld, deal: Deal) -> float:
        while deal.phase == AUCTION:
            deal.apply(self._call(world, deal))
        if deal.phase == OVER or deal.bidder < 0:
            return 0.0  # redealt: nobody plays
        bidder, bid = deal.bidder, deal.bid
        if bidder == self.seat:
            trump = self.suit
        else:
            trump = self.model.best_trump(world.first[bidder], self.places[bidder])[0]
        value = stake(self.obs, bid) * self.judge.result(index, bidder, trump, bid)
        return value if bidder & 1 == self.seat & 1 else -value

    def _call(self, world: AuctionWorld, deal: Deal) -> Action:
        seat = deal.to_act
        legal = deal.legal_actions()
        bids = sorted((a for a in legal if a.kind == BID), key=lambda a: a.value or 0)
        passing = next((a for a in legal if a.kind == PASS), None)
        if not bids:
            assert passing is not None
            return passing
        lowest = bids[0]
        if passing is None:
            return lowest
        partner_holds = deal.high_bid > 0 and deal.high_bidder == seat ^ 2
        assert lowest.value is not None
        if seat == self.seat and partner_holds:
            return passing  # the seat never bids over its partner later on
        place = self.places[seat]
        first = world.first[seat]
        suit = self.suit if seat == self.seat else self.model.best_trump(first, place)[0]
        rules = self.obs.rules
        return (
            lowest
            if self.model.would_bid(first, suit, place, lowest.value, rules, partner_holds)
            else passing
        )


def rollout_bid(
    obs: Observation,
    model: BiddingModel,
    rng: random.Random,
    worlds: int,
    margin: float,
    weigh_calls: bool = True,
    make_rate: MakeRate | None = None,
    pool: int = 1,
    more: MoreWorlds | None = None,
    close_calls: float = 0.0,
    held_out: bool = False,
) -> Action:
    """Bid the lowest bid allowed when, with the rest of the auction played out in each
    world, that is worth more than passing by ``margin`` game points (with more worlds
    while that is in doubt: ``more``; the opponents' calls read by the model bidders'
    rule too: ``close_calls``; the seat's suit in each world chosen on the other
    worlds: ``held_out``, ``ContractJudge.held_out_suits``)."""
    bids = sorted((a for a in obs.legal if a.kind == BID), key=lambda a: a.value or 0)
    if not bids:
        return pass_action(obs)
    if find(obs, PASS) is None:
        return bids[0]
    lowest = bids[0].value
    assert lowest is not None
    judge = ContractJudge(obs, model, rng, worlds, weigh_calls, make_rate, pool, close_calls)
    rollout = AuctionRollout(obs, model, judge)
    calls = [bids[0], pass_action(obs)]
    while True:
        suit = judge.held_out_suits(lowest) if held_out else judge.best_suit(lowest)[0]
        if more is None:
            break
        gains = [bid - passed for bid, passed in rollout.world_values(suit, calls)]
        if more.settled(gains, judge.weights, margin):
            break
        judge.extend(more.more(len(judge.worlds)))
    bidding, passing = rollout.values(suit, calls)
    return bids[0] if bidding > passing + margin else pass_action(obs)


__all__ = ["AuctionRollout", "rollout_bid", "world_deal"]
