"""The rule-of-thumb players: ``novice`` and ``casual``.

They are deliberately different people, not one algorithm at two settings.
The novice knows the rank order and little else; the casual player counts
cards, remembers who showed out of which suit, gives points to a partner
who is winning, and keeps the king and queen of trumps together.
"""

from __future__ import annotations

import random

from ..game.actions import (
    BID,
    DOUBLE,
    PAIR,
    PASS,
    PLAY,
    REDOUBLE,
    REVEAL,
    SET,
    SEVENTH,
    SINGLE,
    TRUMP,
    Action,
)
from ..game.cards import JACK, KING, NINE, POINTS, QUEEN, SUIT_MASK, mask_of
from ..game.engine import partner_of
from ..game.observation import Observation
from .base import Bot
from .knowledge import Knowledge, analyse
from .signals import slammed_suit

AVERAGE_FOUR_CARD_POINTS = 3.5  # 28 points spread over 32 cards, four in hand
TEAM_SHARE = 14.0  # half the card points: what a team takes on average


def kinds(obs: Observation) -> set[str]:
    return {a.kind for a in obs.legal}


def find(obs: Observation, kind: str, value: int | None = None) -> Action | None:
    for a in obs.legal:
        if a.kind == kind and (value is None or a.value == value):
            return a
    return None


def pass_action(obs: Observation) -> Action:
    a = find(obs, PASS)
    assert a is not None
    return a


def suit_score(hand: int, suit: int) -> float:
    """How good ``suit`` would be as trumps for this hand (cards and top cards)."""
    cards = hand & SUIT_MASK[suit]
    base = suit * 8
    score = 1.5 * cards.bit_count()
    if cards >> (base + JACK) & 1:
        score += 2.0
    if cards >> (base + NINE) & 1:
        score += 1.2
    return score + sum(POINTS[c] for c in range(base, base + 8) if cards >> c & 1) * 0.3


def best_trump(hand: int) -> int:
    return max(range(4), key=lambda s: (suit_score(hand, s), -s))


def estimate_team_points(hand: int) -> float:
    """A rough forecast of the points a bidder's team takes with this first batch."""
    points = sum(POINTS[c] for c in range(32) if hand >> c & 1)
    trump = best_trump(hand)
    trumps = hand & SUIT_MASK[trump]
    tops = sum(1 for r in (JACK, NINE) if trumps >> (trump * 8 + r) & 1)
    return (
        TEAM_SHARE
        + 1.2 * (points - AVERAGE_FOUR_CARD_POINTS)
        + 1.5 * (trumps.bit_count() - 1)
        + 1.0 * tops
    )


def certain_single_hand(hand: int) -> bool:
    """Every card held is part of an unbroken run from the top of its suit."""
    for suit in range(4):
        cards = (hand & SUIT_MASK[suit]) >> (suit * 8)
        if cards and cards != (0xFF << (8 - cards.bit_count())) & 0xFF:
            return False
    return True


def routine(obs: Observation, k: set[str], hand: int) -> Action | None:
    """Decisions every thinking level takes the same way, or None.

    No seventh card (a blind trump is worse than a chosen one), a single hand
    only when it cannot lose, and the pair always shown.
    """
    if SEVENTH in k:
        return pass_action(obs)
    if SINGLE in k:
        return (find(obs, SINGLE) if certain_single_hand(hand) else None) or pass_action(obs)
    if PAIR in k:
        return find(obs, PAIR) or pass_action(obs)
    return None


def lowest(cards: int, avoid: int = 0) -> int:
    """The cheapest card to give away: fewest points, then lowest rank."""
    pool = cards & ~avoid or cards
    return min(_bits(pool), key=lambda c: (POINTS[c], c & 7, c))


def highest(cards: int) -> int:
    return max(_bits(cards), key=lambda c: (c & 7, POINTS[c], -c))


def _bits(mask: int) -> list[int]:
    return [c for c in range(32) if mask >> c & 1]


def play(obs: Observation, card: int) -> Action:
    a = find(obs, PLAY, card)
    assert a is not None, card
    return a


def playable(obs: Observation) -> int:
    return mask_of(a.value for a in obs.legal if a.kind == PLAY and a.value is not None)


class NoviceBot(Bot):
    """Knows the rank order: plays its best card when it can win, else its worst."""

    level = "novice"

    def decide(self, obs: Observation, rng: random.Random, budget: float | None) -> Action:
        k = kinds(obs)
        hand = mask_of(obs.hand)
        if BID in k:
            has_jack = any(c & 7 == JACK for c in obs.hand)
            bids = [a for a in obs.legal if a.kind == BID]
            if has_jack and not any(b for _, b in obs.auction) and bids:
                return min(bids, key=lambda a: a.value or 0)
            return pass_action(obs)
        if TRUMP in k:
            a = find(obs, TRUMP, best_trump(hand))
            assert a is not None
            return a
        if PAIR in k:
            return find(obs, PAIR) or pass_action(obs)
        if REVEAL in k:
            return find(obs, REVEAL) or pass_action(obs)
        if k & {SINGLE, DOUBLE, REDOUBLE, SET}:
            return pass_action(obs)
        legal = playable(obs)
        if not obs.trick:
            return play(obs, highest(legal))
        know = analyse(obs)
        assert know.winning_card is not None
        best = know.winning_card
        beating = [c for c in _bits(legal) if c >> 3 == best >> 3 and c > best]
        if beating:
            return play(obs, max(beating))
        return play(obs, lowest(legal))


class CasualBot(Bot):
    """A club player: counts cards, reads voids, feeds a winning partner."""

    level = "casual"

    def decide(self, obs: Observation, rng: random.Random, budget: float | None) -> Action:
        k = kinds(obs)
        hand = mask_of(obs.hand)
        if BID in k:
            return self.bid(obs, hand)
        if TRUMP in k:
            a = find(obs, TRUMP, best_trump(hand))
            assert a is not None
            return a
        fixed = routine(obs, k, hand)
        if fixed is not None:
            return fixed
        if DOUBLE in k:
            return self.double(obs, hand)
        if REDOUBLE in k or SET in k:
            strong = estimate_team_points(hand) >= (obs.target or 0) + 3
            flag = find(obs, REDOUBLE) or find(obs, SET)
            return flag if strong and flag is not None else pass_action(obs)
        know = analyse(obs)
        if REVEAL in k and self.wants_reveal(obs, know):
            return find(obs, REVEAL) or pass_action(obs)
        return play(obs, self.card(obs, know))

    # -- auction --------------------------------------------------------------
    def bid(self, obs: Observation, hand: int) -> Action:
        limit = estimate_team_points(hand) - 4 * self.style.boldness
        partner = partner_of(obs.seat or 0)
        if any(s == partner and b for s, b in obs.auction):
            limit -= 1  # do not outbid a partner who already spoke for the team
        bids = sorted((a for a in obs.legal if a.kind == BID), key=lambda a: a.value or 0)
        if bids and (bids[0].value or 0) <= limit:
            return bids[0]
        return pass_action(obs)

    def double(self, obs: Observation, hand: int) -> Action:
        points = sum(POINTS[c] for c in obs.hand)
        jacks = sum(1 for c in obs.hand if c & 7 == JACK)
        bid = obs.bid or 0
        if jacks >= 3 or (jacks >= 2 and points >= 10 and bid >= 20):
            return find(obs, DOUBLE) or pass_action(obs)
        return pass_action(obs)

    # -- play -------------------------------------------------------------------
    def wants_reveal(self, obs: Observation, know: Knowledge) -> bool:
        """Ask for trumps when the opponents are taking a trick worth having."""
        assert obs.seat is not None and know.winner is not None
        if know.winner == partner_of(obs.seat):
            return False
        points = sum(POINTS[c] for _, c in obs.trick)
        return points >= 2 or obs.seat == obs.bidder

    def protected(self, obs: Observation, know: Knowledge) -> int:
        """K and Q of trumps while they can still make the pair."""
        if obs.pair is not None or know.trump is None or obs.rules.pair == "off":
            return 0
        kq = (1 << (know.trump * 8 + KING)) | (1 << (know.trump * 8 + QUEEN))
        return kq if know.hand & kq == kq else 0

    def card(self, obs: Observation, know: Knowledge) -> int:
        legal = playable(obs)
        keep = self.protected(obs, know)
        seat = obs.seat
        assert seat is not None
        if not obs.trick:
            return self.lead(obs, know, legal, keep)
        assert know.winner is not None and know.winning_card is not None and know.led is not None
        partner_wins = know.winner == partner_of(seat)
        last = len(obs.trick) == (2 if obs.single is not None else 3)
        best = know.winning_card
        following = bool(legal & SUIT_MASK[know.led])
        trumps_on = know.trumps_active and know.trump is not None
        if partner_wins and (last or know.master(best) or best >> 3 == know.trump):
            return self.feed(legal, keep)
        if following:
            if best >> 3 == know.led:
                beating = [c for c in _bits(legal) if c > best]
                if beating:
                    cheap = min(beating)
                    if last or know.master(max(beating)):
                        return max(beating) if not last else cheap
            return lowest(legal, keep)
        if trumps_on:
            assert know.trump is not None
            trumps = legal & SUIT_MASK[know.trump] & ~keep
            table_points = sum(POINTS[c] for _, c in obs.trick)
            if trumps and table_points >= 1 and not partner_wins:
                if best >> 3 == know.trump:
                    over = [c for c in _bits(trumps) if c > best]
                    if over:
                        return min(over)
                else:
                    return min(_bits(trumps), key=lambda c: (POINTS[c], c))
        if partner_wins:
            return self.feed(legal, keep)
        return lowest(legal, keep | (SUIT_MASK[know.trump] if know.trump is not None else 0))

    def feed(self, legal: int, keep: int) -> int:
        """Give the partner the most points that cost nothing later."""
        pool = legal & ~keep or legal
        return max(_bits(pool), key=lambda c: (POINTS[c], -(c & 7)))

    def lead(self, obs: Observation, know: Knowledge, legal: int, keep: int) -> int:
        seat = obs.seat
        assert seat is not None
        opponents = [(seat + 1) % 4, (seat + 3) % 4]
        candidates = _bits(legal & ~keep) or _bits(legal)
        trump = know.trump if know.trumps_active else None
        asked = slammed_suit(obs)
        if asked is not None:  # the partner asked for this suit: lead its best card back
            wanted = [c for c in _bits(legal) if c >> 3 == asked]
            if wanted:
                top = max(wanted)
                return top if know.master(top) else min(wanted)

        def safe(c: int) -> bool:
            suit = c >> 3
            if trump is not None and suit != trump:
                return not any(
                    know.is_void(o, suit) and not know.is_void(o, trump) for o in opponents
                )
            return True

        masters = [c for c in candidates if know.master(c) and POINTS[c] > 0 and safe(c)]
        if masters:
            return max(masters, key=lambda c: (POINTS[c], c & 7))
        if trump is not None and obs.bidder is not None and (obs.bidder & 1) == (seat & 1):
            trumps = [c for c in candidates if c >> 3 == trump]
            if len(trumps) >= 3:
                return max(trumps)
        low = [c for c in candidates if POINTS[c] == 0 and safe(c)] or candidates
        return min(low, key=lambda c: (POINTS[c], c & 7))
