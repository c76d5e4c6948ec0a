"""Contract decisions by simulation: what a bid or a trump is worth, solved.

At bid time a seat knows four cards. It deals the 28 it cannot see at
random (its own second batch included), weighs each such world by how well
the others' first batches in it explain their calls so far, and solves the
whole deal exactly for each trump suit it could name: made, cancelled or
failed. A bid is then worth its stake times the expected result with the
best suit for the seat's four cards, and passing is worth what the standing
contract is worth to the seat's side, solved in the same worlds with the
suit the holder would most likely name. The seat bids when bidding is worth
more. The trump choice and the seventh card use the same worlds.

Only the seat's own cards and the public auction go in: see ``AuctionWorld``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..game.actions import BID, PASS, SEVENTH, TRUMP, Action
from ..game.cards import FULL_DECK, mask_of
from ..game.contract import contract_stake, lowered_target, raised_target
from ..game.engine import AUCTION
from ..game.observation import Observation
from ..game.refusals import IllegalAction
from ..game.rules import Rules
from ..solver import Goal, Outcome, Position
from .bidding import BiddingModel, place_of
from .calls import CallReading, placeholder_deal, replay_auction
from .heuristic import find, pass_action
from .proxy import proxy
from .solving import solver

FIRST_BATCH = 4
SEVENTH_INDEX = 2  # the seventh card is the third of the second batch
# Trumps solved at bid time: those the model values within this many points of the best.
SUIT_WINDOW = 1.5


# How often a contract is made at the table, by its solved margin (below).
COMFORTABLE = 3  # a margin of this many card points or more
NEAR_MISS = -3  # a margin this far below the target or less far


@dataclass(frozen=True)
class MakeRate:
    """The expected result at the table of a contract, from its solved margin.

    A whole deal solved with every card known says by how many card points the
    bidders' side makes or misses its target with perfect play on both sides;
    at the table, with three hands hidden, bots miss contracts the solution
    makes and make some it fails. Over 1,952 pagat contracts of ``expert`` and
    ``strong`` (docs/bots.md, *A solved margin is not a made contract*) the
    bidders made 93% with a solved margin of 3 or more, 57% from 0 to 2, 27%
    from -3 to -1 and 5% below. The margin is placed in one of those four
    ranges with two null-window searches (made or not, then the range's edge),
    not solved exactly: an exact margin costs seven times as many nodes.
    The values are the expected results, +1 made and -1 failed.
    """

    comfortable: float = 0.86
    thin: float = 0.14
    near_miss: float = -0.45
    missed: float = -0.91

    def value(self, pos: Position, goal: Goal) -> float:
        outcome = solver().outcome(pos, goal)
        if outcome == Outcome.CANCELLED:
            return 0.0
        if outcome == Outcome.REACHED:
            wide = solver().can_reach(pos, shifted(goal, COMFORTABLE))
            return self.comfortable if wide else self.thin
        near = solver().can_reach(pos, shifted(goal, NEAR_MISS))
        return self.near_miss if near else self.missed


def shifted(goal: Goal, by: int) -> Goal:
    """``goal`` with every target ``by`` card points higher."""

    def up(target: int | None) -> int | None:
        return None if target is None else target + by

    return Goal(goal.team, goal.target + by, up(goal.target_own_pair), up(goal.target_their_pair))


@dataclass(frozen=True)
class AuctionWorld:
    """A whole deal the seat cannot rule out at bid time."""

    hands: tuple[int, int, int, int]  # all eight cards of each seat, as masks
    first: tuple[int, int, int, int]  # the first batches
    seventh: int  # the seat's own seventh card in this world


def auction_world(obs: Observation, rng: random.Random) -> AuctionWorld:
    """Deal the cards the seat has not seen: four more to it, eight to each other seat."""
    assert obs.seat is not None
    mine = mask_of(obs.hand[:FIRST_BATCH])
    unseen = [c for c in range(32) if (FULL_DECK & ~mine) >> c & 1]
    rng.shuffle(unseen)
    hands = [0, 0, 0, 0]
    first = [0, 0, 0, 0]
    seventh = -1
    i = 0
    for seat in range(4):
        if seat == obs.seat:
            second = unseen[i : i + 4]
            i += 4
            hands[seat] = mine | mask_of(second)
            first[seat] = mine
            seventh = second[SEVENTH_INDEX]
            continue
        cards = unseen[i : i + 8]
        i += 8
        hands[seat] = mask_of(cards)
        first[seat] = mask_of(cards[:FIRST_BATCH])
    return AuctionWorld(
        (hands[0], hands[1], hands[2], hands[3]), (first[0], first[1], first[2], first[3]), seventh
    )


def opening_position(rules: Rules, dealer: int, hands: Sequence[int], trump: int) -> Position:
    """A whole deal before the first lead, for the solver: trumps hidden, the pair
    still to come where the rules have it."""
    return Position(
        hands=(hands[0], hands[1], hands[2], hands[3]),
        leader=rules.next_seat(dealer),
        trump=trump,
        revealed=False,
        reveal=rules.reveal,  # type: ignore[arg-type]
        unrevealed=rules.unrevealed,  # type: ignore[arg-type]
        last_trick_point=rules.last_trick_point,
        pair_pending=rules.pair != "off",
        clockwise=rules.clockwise,
    )


def contract_goal(rules: Rules, bidder: int, bid: int) -> Goal:
    """What the bidder's side plays for with ``bid``, a pair of either side included."""
    return Goal(bidder & 1, bid, lowered_target(rules, bid), raised_target(rules, bid))


class ContractJudge:
    """Worlds for one contract decision and the solved value of contracts in them."""

    def __init__(
        self,
        obs: Observation,
        model: BiddingModel,
        rng: random.Random,
        worlds: int,
        weigh_calls: bool = True,
        make_rate: MakeRate | None = None,
        pool: int = 1,
        close_calls: float = 0.0,
        control: int = 0,
    ) -> None:
        assert obs.seat is not None
        self.obs = obs
        # unsolved worlds that steady a mean of solved ones (``controlled``); 0: none
        self.control = control
        self._cheap: list[tuple[AuctionWorld, float]] | None = None
        # None: a world's result is the solution's own, +1 made or -1 failed
        self.make_rate = make_rate
        self.model = model
        self.worlds: list[AuctionWorld] = []
        self.weights: list[float] = []
        # the others' calls, read loosely and, with ``close_calls``, the opponents' by
        # the model bidders' rule as well (``calls.CallReading``)
        reading = CallReading(obs, model, close_calls) if weigh_calls else None

        def likelihood(world: AuctionWorld) -> float:
            return reading.weight(world.first) if reading else 1.0

        self._rng = rng
        self._likelihood = likelihood
        # With others' calls to weigh, each world solved is drawn from ``pool`` dealt
        # ones in proportion to their likelihood and carries their mean (importance
        # resampling): the worlds solved follow the calls instead of half of them
        # counting for little, and the mean stays unbiased.
        self._draws = pool if reading else 1
        self._cache: dict[tuple[int, int, int, int], float] = {}
        self.extend(worlds)

    def extend(self, worlds: int) -> None:
        """Deal ``worlds`` more worlds (those already dealt, and their solves, stay)."""
        draws = self._draws
        for _ in range(worlds):
            dealt = [auction_world(self.obs, self._rng) for _ in range(draws)]
            weights = [self._likelihood(world) for world in dealt]
            total = sum(weights)
            if draws == 1 or total <= 0:
                chosen = 0
            else:
                chosen = self._rng.choices(range(draws), weights)[0]
            self.worlds.append(dealt[chosen])
            self.weights.append(total / draws)

    # -- one solve ---------------------------------------------------------------------
    def result(self, index: int, bidder: int, trump: int, bid: int) -> float:
        """+1 made, 0 cancelled, -1 failed: the contract ``bid`` of ``bidder``'s side
        with ``trump``, both sides playing the whole deal of world ``index`` perfectly.
        With a ``make_rate``, the expected result at the table instead, from the
        range of the solved margin."""
        key = (index, bidder & 1, trump, bid)
        found = self._cache.get(key)
        if found is not None:
            return found
        rules = self.obs.rules
        pos = opening_position(rules, self.obs.dealer, self.worlds[index].hands, trump)
        goal = contract_goal(rules, bidder, bid)
        value: float
        if self.make_rate is None:
            value = int(solver().outcome(pos, goal))
        else:
            value = self.make_rate.value(pos, goal)
        self._cache[key] = value
        return value

    def results(self, bidder: int, bid: int, trump_of: Callable[[int], int]) -> list[float]:
        """The result of ``bidder``'s contract in each world, named ``trump_of(i)`` in
        world i (0 for a world of no weight, which is not solved)."""
        return [
            self.result(i, bidder, trump_of(i), bid) if w > 0 else 0.0
            for i, w in enumerate(self.weights)
        ]

    def expected(self, bidder: int, bid: int, trump_of: Callable[[int], int]) -> float:
        """The weighted mean result of ``bidder``'s contract, named ``trump_of(i)`` in world i
        (steadied by ``controlled`` when the judge has unsolved worlds for it)."""
        return self.mean(bidder, self.results(bidder, bid, trump_of), trump_of)

    def mean(self, bidder: int, results: Sequence[float], trump_of: Callable[[int], int]) -> float:
        """The weighted mean of ``results`` (``bidder``'s contract in each world, named
        ``trump_of(i)`` in world i), steadied by ``controlled`` when the judge has
        unsolved worlds for it."""
        if self.control:
            return self.controlled(bidder, results, trump_of)
        return weighted_mean(results, self.weights)

    def controlled(
        self, bidder: int, results: Sequence[float], trump_of: Callable[[int], int]
    ) -> float:
        """The mean of ``results`` (``bidder``'s contract in each solved world, named
        ``trump_of(i)`` in world i) with ``proxy`` as a control variate: the proxy's mean
        over ``control`` unsolved worlds, weighed alike, plus the solved worlds' mean
        difference from it. ``trump_of`` is asked of an unsolved world by its index
        after the solved ones (``world``)."""
        solved = len(self.worlds)
        scores = [proxy(w.hands, bidder, trump_of(i)) for i, w in enumerate(self.worlds)]
        off = weighted_mean([r - g for r, g in zip(results, scores, strict=True)], self.weights)
        cheap = self.cheap_worlds()
        level = weighted_mean(
            [proxy(w.hands, bidder, trump_of(solved + i)) for i, (w, _) in enumerate(cheap)],
            [weight for _, weight in cheap],
        )
        return off + level

    def world(self, index: int) -> AuctionWorld:
        """World ``index``: a solved one, or past them an unsolved one of ``controlled``."""
        if index < len(self.worlds):
            return self.worlds[index]
        return self.cheap_worlds()[index - len(self.worlds)][0]

    def cheap_worlds(self) -> list[tuple[AuctionWorld, float]]:
        """The ``control`` unsolved worlds and their weights, dealt once."""
        if self._cheap is None:
            rng = random.Random(self._rng.getrandbits(64))
            dealt = [auction_world(self.obs, rng) for _ in range(self.control)]
            self._cheap = [(w, self._likelihood(w)) for w in dealt]
        return self._cheap

    # -- the seat's own choices ----------------------------------------------------------
    def best_suit(self, bid: int) -> tuple[int, float]:
        """The trump the seat's four cards should name for ``bid``, and its expected result."""
        value, suit = self.ranked_suits(bid)[0]
        return suit, value

    def ranked_suits(self, bid: int, among: Sequence[int] | None = None) -> list[tuple[float, int]]:
        """The suits worth solving for ``bid`` with their expected results, best first
        (ties to the suit the model rates higher, then the lower suit); ``among``: over
        those worlds only (their plain weighted mean), not all of them."""
        seat = self.obs.seat
        assert seat is not None
        hand = mask_of(self.obs.hand[:FIRST_BATCH])
        prior = self.model.suit_values(hand, place_of(self.obs, seat))
        # Suits the model rates far below the best are not worth solving.
        top = max(prior)
        suits = [s for s in range(4) if prior[s] >= top - SUIT_WINDOW]
        scored = []
        for suit in suits:
            if among is None:
                value = self.expected(seat, bid, _always(suit))
            else:
                results = self.results(seat, bid, _always(suit))
                value = weighted_mean([results[i] for i in among], [self.weights[i] for i in among])
            scored.append((value, prior[suit], -suit, suit))
        scored.sort(reverse=True)
        return [(value, suit) for value, _, _, suit in scored]

    def held_out_suits(self, bid: int) -> Callable[[int], int]:
        """The seat's suit for ``bid`` in each world, chosen on the other worlds: a world
        of even index names the best suit of the odd ones, and the other way round
        (past the solved worlds, the best suit of all).

        The suit that does best over a set of worlds owes part of its lead to the luck
        of those worlds, so its mean there overrates it: with two suits or more within
        reach, by 0.07 to 0.13 game points a bid (docs/bots.md, *The best suit
        overrated*). A suit chosen on other worlds carries no such luck, and its mean
        is what naming it is worth, choosing included."""
        ranked = self.ranked_suits(bid)
        best = ranked[0][1]
        count = len(self.worlds)
        if len(ranked) == 1 or count < 2:
            return _always(best)
        even, odd = range(0, count, 2), range(1, count, 2)
        chosen = (self.ranked_suits(bid, odd)[0][1], self.ranked_suits(bid, even)[0][1])
        return lambda i: chosen[i % 2] if i < count else best

    def seventh_value(self, bid: int) -> float:
        seat = self.obs.seat
        assert seat is not None
        return self.expected(seat, bid, lambda i: self.world(i).seventh >> 3)

    def holder_results(self, holder: int, bid: int) -> list[float]:
        """The result in each world of the standing contract of ``holder``, whose suit
        there is the one its first batch makes most attractive."""
        return self.results(holder, bid, self.holder_trump(holder))

    def holder_trump(self, holder: int) -> Callable[[int], int]:
        """The suit ``holder``'s first batch makes most attractive, in world i."""
        place = place_of(self.obs, holder)
        return lambda i: self.model.best_trump(self.world(i).first[holder], place)[0]


def weighted_mean(values: Sequence[float], weights: Sequence[float]) -> float:
    total = sum(weights)
    if total <= 0:
        return 0.0
    return sum(w * v for v, w in zip(values, weights, strict=True)) / total


@dataclass(frozen=True)
class MoreWorlds:
    """When a call's worlds leave it in doubt, deal more of them.

    A call is judged by the weighted mean, over the worlds, of what bidding is
    worth more than passing, against a margin. With 40 worlds valued +1 or -1
    that mean has a standard error of about 0.15 game points, more than the
    margin itself, so a call near the margin is a coin toss while most calls are
    clear after a few worlds. Here a call whose mean is within ``z`` standard
    errors of the margin gets ``step`` more worlds, up to ``most`` in all.
    """

    most: int
    z: float = 1.5
    step: int = 20

    def settled(self, gains: Sequence[float], weights: Sequence[float], margin: float) -> bool:
        """Whether the call is clear: enough worlds, or a mean ``z`` standard errors
        away from ``margin`` (the weighted mean's error, from the worlds' spread)."""
        if len(gains) >= self.most:
            return True
        total = sum(weights)
        if total <= 0:
            return True
        mean = weighted_mean(gains, weights)
        var = sum(w * w * (g - mean) ** 2 for g, w in zip(gains, weights, strict=True))
        return abs(mean - margin) > self.z * math.sqrt(var) / total

    def more(self, dealt: int) -> int:
        return min(self.step, self.most - dealt)


def _always(suit: int) -> Callable[[int], int]:
    return lambda _world: suit


def stake(obs: Observation, bid: int) -> int:
    return contract_stake(obs.rules, bid, 1, False)


def simulated_bid(
    obs: Observation,
    model: BiddingModel,
    rng: random.Random,
    worlds: int,
    margin: float,
    pass_weight: float = 1.0,
    weigh_calls: bool = True,
    make_rate: MakeRate | None = None,
    pool: int = 1,
    more: MoreWorlds | None = None,
    close_calls: float = 0.0,
    forced: bool = False,
    control: int = 0,
    held_out: bool = False,
) -> Action:
    """Bid the lowest bid allowed when that is worth more than passing, by ``margin``.

    Passing is worth the standing contract to the seat's side, times
    ``pass_weight``: 1 when the pass may end the auction there, less where
    the auction goes on without the seat (the duel, where others still
    challenge the holder). ``weigh_calls``: the worlds weighed by the others'
    calls so far (off: every world as likely); ``make_rate``: worlds valued by the
    chance of making at the table rather than by the solution's made or failed; ``pool``:
    dealt worlds per world solved (``ContractJudge``); ``more``: more worlds while
    the call is in doubt (``MoreWorlds``; None: ``worlds`` decide); ``close_calls``:
    the opponents' calls read by the model bidders' rule too (``calls.CallReading``);
    ``forced``: where nobody has bid and a pass would leave a seat forced to take
    the contract (``forced_after_pass``), passing is worth that contract (off: 0);
    ``control``: unsolved worlds steadying both means (``ContractJudge.controlled``);
    ``held_out``: the bid valued with the suit each world's other half of the worlds
    chose (``ContractJudge.held_out_suits``; off: the best suit of all, and its mean)."""
    seat = obs.seat
    assert seat is not None
    bids = sorted((a for a in obs.legal if a.kind == BID), key=lambda a: a.value or 0)
    if not bids:
        return pass_action(obs)
    lowest = bids[0].value
    assert lowest is not None
    if find(obs, PASS) is None:
        return bids[0]
    judge = ContractJudge(
        obs, model, rng, worlds, weigh_calls, make_rate, pool, close_calls, control
    )
    holder, standing = standing_bid(obs)
    if holder is None and forced:
        holder, standing = forced_after_pass(obs) or (None, 0)
    while True:
        suit, value = judge.best_suit(lowest)  # the bid's expected result with that suit
        trump_of = judge.held_out_suits(lowest) if held_out else _always(suit)
        bid_results = judge.results(seat, lowest, trump_of)
        if held_out:
            value = judge.mean(seat, bid_results, trump_of)
        held = [0.0] * len(bid_results)
        side = 0
        if holder is not None and standing:
            side = 1 if holder & 1 == seat & 1 else -1
            held = judge.holder_results(holder, standing)
        up, down = stake(obs, lowest), pass_weight * side * stake(obs, standing)
        if more is None:
            break
        gains = [up * b - down * h for b, h in zip(bid_results, held, strict=True)]
        if more.settled(gains, judge.weights, margin):
            break
        judge.extend(more.more(len(judge.worlds)))
    passing = 0.0
    if side:
        assert holder is not None
        passing = down * judge.mean(holder, held, judge.holder_trump(holder))
    return bids[0] if up * value > passing + margin else pass_action(obs)


def standing_bid(obs: Observation) -> tuple[int | None, int]:
    """The seat holding the highest bid so far and that bid (None, 0 before any bid)."""
    holder, standing = None, 0
    for s, b in obs.auction:
        if b and b >= standing:
            holder, standing = s, b
    return holder, standing


def forced_after_pass(obs: Observation) -> tuple[int, int] | None:
    """The seat and bid a pass by the seat to act would leave holding the contract
    when nobody has bid yet and the rules then force one (``all_pass``): the dealer
    when the seat is the last to speak before it, or the first speaker when the
    dealer passes last; None where the auction could still go either way."""
    assert obs.seat is not None
    if any(amount for _, amount in obs.auction):
        return None
    try:
        deal = replay_auction(placeholder_deal(obs), obs.auction)
        deal.apply(Action.pass_(obs.seat))
    except IllegalAction:
        return None
    if deal.phase == AUCTION:
        legal = deal.legal_actions()
        if any(a.kind == PASS for a in legal):
            return None
        bids = [a.value for a in legal if a.kind == BID and a.value is not None]
        return (deal.to_act, min(bids)) if bids else None
    if deal.bidder >= 0 and deal.bid:
        return deal.bidder, deal.bid
    return None


def simulated_trump(
    obs: Observation,
    model: BiddingModel,
    rng: random.Random,
    worlds: int,
    make_rate: MakeRate | None = None,
    pool: int = 1,
    more: MoreWorlds | None = None,
    close_calls: float = 0.0,
    control: int = 0,
) -> Action:
    """Name the suit (or call the seventh card) that makes the contract most often;
    with ``more``, more worlds while the best suit's lead over the next is in doubt;
    ``control``: unsolved worlds steadying each suit's mean (``ContractJudge.controlled``)."""
    assert obs.bid is not None
    seat = obs.seat
    assert seat is not None
    bid = obs.bid
    judge = ContractJudge(
        obs,
        model,
        rng,
        worlds,
        make_rate=make_rate,
        pool=pool,
        close_calls=close_calls,
        control=control,
    )
    while True:
        ranked = judge.ranked_suits(bid)
        if more is None or len(ranked) < 2:
            break
        best, second = (judge.results(seat, bid, _always(s)) for _, s in ranked[:2])
        gains = [a - b for a, b in zip(best, second, strict=True)]
        if more.settled(gains, judge.weights, 0.0):
            break
        judge.extend(more.more(len(judge.worlds)))
    value, suit = ranked[0]
    seventh = find(obs, SEVENTH)
    if seventh is not None and judge.seventh_value(bid) > value:
        return seventh
    chosen = find(obs, TRUMP, suit)
    assert chosen is not None
    return chosen


__all__ = [
    "AuctionWorld",
    "ContractJudge",
    "MakeRate",
    "MoreWorlds",
    "auction_world",
    "contract_goal",
    "opening_position",
    "simulated_bid",
    "simulated_trump",
]
