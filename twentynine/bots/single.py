"""The single hand by simulation: whether to declare one, and the cards of one.

A seat offered the single hand (``single_hand`` rules) knows its eight cards.
In each world consistent with what it has seen it asks two questions: does
it win all eight tricks alone, leading every trick, against the two
opponents holding those hands, when they keep every card that could beat
it (``solver.single.sweeps_by_guards``: a sound and quick test, which
misses only the sweeps that squeeze an opponent out of a guard); and, if
it does not declare, is the contract made, cancelled or failed with
perfect play from the first lead (the solver). Declaring is worth the
single-hand stake times (won − lost) over the weighed worlds; passing is
worth the contract's stake times its mean result, for the seat's side
(negative when the opponents hold it). The seat declares when that is
better by ``margin`` game points.

In the play of a single hand every seat does the same with its legal cards:
the declarer plays the card after which that test sweeps in the most
weight of worlds, an opponent the card after which it does not (a guard
thrown away shows in the test at once).

Only the seat's observation goes in: the worlds are the bot's own samples.
"""

from __future__ import annotations

from ..game.actions import PLAY, SINGLE, Action
from ..game.engine import contract_stake, partner_of
from ..game.observation import Observation
from ..game.rules import Rules
from ..solver.single import SinglePosition, after, sweeps_by_guards
from .sampling import World
from .solving import goal_of, position_of, solver

# the worlds of one decision, each with its weight (an empty list: none could be drawn)
Worlds = list[tuple[World, float]]


def single_order(rules: Rules, declarer: int) -> tuple[int, int, int]:
    """The declarer, then the two opponents in the order they play."""
    first = rules.next_seat(declarer)
    second = rules.next_seat(first)
    if second == partner_of(declarer):
        second = rules.next_seat(second)
    return declarer, first, second


def single_start(rules: Rules, world: World, declarer: int) -> SinglePosition:
    a, b, c = single_order(rules, declarer)
    return SinglePosition((world.hands[a], world.hands[b], world.hands[c]))


def single_now(obs: Observation, world: World) -> SinglePosition:
    """The single hand in play as the observation has it, in ``world``."""
    assert obs.single is not None
    a, b, c = single_order(obs.rules, obs.single)
    return SinglePosition(
        (world.hands[a], world.hands[b], world.hands[c]),
        tuple(card for _, card in obs.trick),
        len(obs.tricks),
    )


def offer_values(obs: Observation, worlds: Worlds) -> tuple[float, float]:
    """Game points for the seat's side of declaring the single hand and of passing,
    the weighed means over ``worlds``."""
    assert obs.seat is not None and obs.bidder is not None and obs.bid is not None
    rules = obs.rules
    leader = rules.next_seat(obs.dealer)
    goal = goal_of(obs)
    sweeps = contract = total = 0.0
    for world, w in worlds:
        if w <= 0:
            continue
        total += w
        if sweeps_by_guards(single_start(rules, world, obs.seat)):
            sweeps += w
        contract += w * int(solver().outcome(position_of(obs, world, leader), goal))
    if total <= 0:
        return -float(rules.single_hand_stake), 0.0
    declaring = rules.single_hand_stake * (2 * sweeps / total - 1)
    ours = 1 if obs.bidder & 1 == obs.seat & 1 else -1
    passing = ours * contract_stake(rules, obs.bid, 1, False) * contract / total
    return declaring, passing


def single_offer(obs: Observation, worlds: Worlds, margin: float, passing: Action) -> Action:
    """Declare the single hand when it is worth ``margin`` more than ``passing``."""
    declare = next((a for a in obs.legal if a.kind == SINGLE), None)
    if declare is None or not worlds:
        return passing
    declaring, stay = offer_values(obs, worlds)
    return declare if declaring > stay + margin else passing


def single_card_values(obs: Observation, worlds: Worlds) -> dict[Action, float]:
    """Each card of a single hand in play, by the weight of the worlds where it keeps
    the sweep (for the declarer) or stops it (for an opponent)."""
    assert obs.seat is not None and obs.single is not None
    plays = {a.value: a for a in obs.legal if a.kind == PLAY}
    declarer = obs.seat == obs.single
    totals = dict.fromkeys(plays.values(), 0.0)
    for world, w in worlds:
        if w <= 0:
            continue
        now = single_now(obs, world)
        for card, action in plays.items():
            assert card is not None
            nxt = after(now, card)
            swept = nxt is not None and sweeps_by_guards(nxt)
            if swept == declarer:
                totals[action] += w
    return totals


__all__ = ["offer_values", "single_card_values", "single_offer", "single_order", "single_start"]
