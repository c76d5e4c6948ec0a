"""The expert as it stood before bidding by simulation: kept unchanged as the
frozen baseline (level ``expert-v1``) that every claim about ``expert`` is
measured against in the same run.

It is ``strong`` (sampled worlds, each solved exactly) plus inference: each
world is weighed by how well it explains the auction, the trump choice and
the discards, the hidden trump is sampled from that same reasoning, the
number of worlds adapts to the time allowed and the search stops once one
move is clearly best. Bidding, the trump choice and doubling are the fitted
model's (``bidding.BiddingModel``).

Do not improve this module: a test replays its decisions against a stored
record. Improvements go to ``expert``.
"""

from __future__ import annotations

import math
import random

from ..game.actions import Action
from ..game.cards import POINTS, SUIT_MASK
from ..game.observation import Observation
from .bidding import calls_by_seat, place_of
from .knowledge import Knowledge, analyse
from .sampling import Impossible, World, deal_world
from .search import StrongBot
from .signals import consistent_drops, drops


class ExpertV1Bot(StrongBot):
    """Strong play plus inference from the auction and discards, and adaptive sampling."""

    level = "expert-v1"
    default_budget = 0.45
    min_worlds = 6
    max_worlds = 160
    weighted = True

    temperature = 1.5  # how firmly a bidder is assumed to pick its best suit

    def knowledge(self, obs: Observation, rng: random.Random) -> Knowledge:
        """What the cards say, plus the others' drop signals where the cards agree."""
        know = analyse(obs)
        found = drops(obs)
        if found:
            plain = know.voids
            know.voids = consistent_drops(know, found)
            if know.voids != plain:
                try:
                    deal_world(know, random.Random(rng.random()), know.trump)
                except Impossible:
                    know.voids = plain
        return know

    def sample(self, obs: Observation, know: Knowledge, rng: random.Random) -> World:
        """A world with guessed first batches, so the auction can be weighed."""
        assert obs.seat is not None and obs.bidder is not None
        hands = deal_world(know, rng, know.trump)
        first = [0, 0, 0, 0]
        for seat in range(4):
            if seat == obs.seat:
                continue
            cards = [c for c in range(32) if (hands[seat] | know.played_by[seat]) >> c & 1]
            first[seat] = sum(1 << c for c in rng.sample(cards, min(4, len(cards))))
        trump = know.trump
        if trump is None:
            bidder = obs.bidder
            if obs.seventh:
                whole = hands[bidder] | know.played_by[bidder]
                second = [c for c in range(32) if (whole & ~first[bidder]) >> c & 1]
                trump = rng.choice(second) >> 3
            else:
                trump = rng.choices(range(4), self.trump_odds(obs, first[bidder]))[0]
        return World(hands, trump, (first[0], first[1], first[2], first[3]))

    def trump_odds(self, obs: Observation, first_batch: int) -> list[float]:
        assert obs.bidder is not None
        values = self.model.suit_values(first_batch, place_of(obs, obs.bidder))
        top = max(values)
        return [math.exp((v - top) / self.temperature) for v in values]

    def weight(self, obs: Observation, know: Knowledge, world: World) -> float:
        """How well this world explains the auction, the trump choice and the discards."""
        assert obs.seat is not None and obs.bidder is not None
        if world.first is None:
            return 1.0
        w = 1.0
        for seat, call in calls_by_seat(obs).items():
            if seat != obs.seat:
                pos = place_of(obs, seat)
                w *= self.model.auction_likelihood(world.first[seat], call, obs.rules, pos)
        if know.trump is not None and obs.bidder != obs.seat and not obs.seventh:
            assert world.trump is not None
            odds = self.trump_odds(obs, world.first[obs.bidder])
            w *= odds[world.trump] / sum(odds)
        if world.trump is not None:
            w *= _discard_likelihood(obs, know, world)
        return w

    def clearly_decided(self, totals: dict[Action, float], weight_sum: float, worlds: int) -> bool:
        """Stop once the leader cannot be caught by the worlds still to come."""
        if worlds < self.min_worlds or len(totals) < 2 or weight_sum <= 0:
            return False
        ranked = sorted(totals.values(), reverse=True)
        mean_w = weight_sum / worlds
        remaining = (self.max_worlds - worlds) * mean_w
        if ranked[0] - ranked[1] > 2 * remaining:
            return True
        # A lead of more than three standard errors after a fair number of worlds.
        gap = (ranked[0] - ranked[1]) / weight_sum
        return worlds >= 24 and gap > 3.0 / math.sqrt(worlds)


def _discard_likelihood(obs: Observation, know: Knowledge, world: World) -> float:
    """A player who threw points to the opponents while trumps were live, instead of
    trumping, probably had no trump then."""
    assert world.trump is not None
    w = 1.0
    if obs.revealed_in_trick is None:
        return w
    trumps = SUIT_MASK[world.trump]
    for n, (_leader, cards, seats, winner, _pts) in enumerate(obs.tricks, start=1):
        if n < obs.revealed_in_trick:
            continue
        led = cards[0] >> 3
        for seat, card in zip(seats, cards, strict=True):
            if seat == obs.seat or card >> 3 == led or card >> 3 == world.trump:
                continue
            if POINTS[card] >= 2 and (winner & 1) != (seat & 1):
                # Trumps it held then: those it still holds or played in a later trick.
                later = 0
                for _l, cs, ss, _w, _p in obs.tricks[n:]:
                    later |= sum(1 << c for s, c in zip(ss, cs, strict=True) if s == seat)
                later |= sum(1 << c for s, c in obs.trick if s == seat)
                if (world.hands[seat] | later) & trumps:
                    w *= 0.3
    return w
