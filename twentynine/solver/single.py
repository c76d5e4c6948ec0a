"""Exact values of a single hand, where the declarer plays alone against two.

The general solver plays four-card tricks with a partner; a single hand has
three-card tricks, no trumps, and ends at the first trick the declarer loses,
so it gets this small search of its own. The declarer leads every trick while
it plays on, the two opponents follow in the order of play, and the value is
the card points the declarer's team still takes.

Two facts keep the search small. An opponent able to beat the declarer's card
does so: the deal stops there and the declarer gains nothing more, the least
it can get. And a declarer that wins every trick left whatever the opponents
do takes every point left, the most it can get. In between, cards of one suit
with nothing still in play between them and the same points are the same
card to play, so only one of them is tried.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..game.cards import POINTS, SUIT_MASK

TRICKS = 8
Hands = tuple[int, int, int]  # the declarer's, then the two opponents' in playing order


@dataclass(frozen=True)
class SinglePosition:
    """A single hand in play: the three hands, the trick on the table, what is done.

    ``hands`` are in playing order: the declarer (who leads while it plays on),
    then the opponent after it, then the other one. ``trick`` holds the cards
    already played to the trick in progress, in that order.
    """

    hands: Hands
    trick: tuple[int, ...] = ()
    tricks_played: int = 0

    @property
    def to_move(self) -> int:
        """0 the declarer, 1 and 2 the opponents in order."""
        return len(self.trick)

    def legal_cards(self) -> list[int]:
        return _cards(_playable(self.hands, self.trick))


class SingleSolver:
    """Memoised minimax over single-hand positions; ``last_trick_point`` as the rules say."""

    def __init__(self, last_trick_point: bool = False) -> None:
        self.last_trick_point = last_trick_point
        self._points: dict[tuple[Hands, tuple[int, ...], int], tuple[int, int]] = {}
        self._sweep: dict[tuple[Hands, tuple[int, ...], int], bool] = {}

    def points(self, pos: SinglePosition) -> int:
        """Card points the declarer's team still takes with best play by all three."""
        return self._value(pos.hands, pos.trick, pos.tricks_played)

    def sweeps(self, pos: SinglePosition) -> bool:
        """Whether the declarer wins every trick left against any defence."""
        return self._wins_all(pos.hands, pos.trick, pos.tricks_played)

    def move_points(self, pos: SinglePosition) -> dict[int, int]:
        """``points`` after each legal card of the seat to move."""
        out = {}
        for c in pos.legal_cards():
            hands, trick, done, gained, stopped = self._advance(
                pos.hands, pos.trick, pos.tricks_played, c
            )
            out[c] = gained + (0 if stopped else self._value(hands, trick, done))
        return out

    def move_sweeps(self, pos: SinglePosition) -> dict[int, bool]:
        """``sweeps`` after each legal card of the seat to move."""
        out = {}
        for c in pos.legal_cards():
            hands, trick, done, _gained, stopped = self._advance(
                pos.hands, pos.trick, pos.tricks_played, c
            )
            out[c] = not stopped and self._wins_all(hands, trick, done)
        return out

    # -- search ------------------------------------------------------------------------

    def _value(self, hands: Hands, trick: tuple[int, ...], done: int) -> int:
        return self._search(hands, trick, done, -1, _left(hands, trick) + 2)

    def _search(
        self, hands: Hands, trick: tuple[int, ...], done: int, alpha: int, beta: int
    ) -> int:
        """Fail-soft alpha-beta on the declarer's points to come: exact inside the
        window ``(alpha, beta)``, a bound on the same side of it otherwise. The table
        keeps a lower and an upper bound per position, whatever the window was."""
        if done == TRICKS:
            return 0
        key = (hands, trick, done)
        top = _left(hands, trick) + (1 if self.last_trick_point else 0)
        low, high = self._points.get(key, (0, top))
        if low == high or low >= beta:
            return low
        if high <= alpha:
            return high
        if _beaten_now(hands, trick):
            self._points[key] = (0, 0)
            return 0
        if self._wins_all(hands, trick, done):
            self._points[key] = (top, top)
            return top
        a, b = max(alpha, low), min(beta, high)
        first_a, first_b = a, b
        declarer = not trick
        best = -1 if declarer else top + 1
        for c in _choices(hands, trick, cheapest_first=not declarer):
            nh, nt, nd, gained, stopped = self._advance(hands, trick, done, c)
            v = 0 if stopped else gained + self._search(nh, nt, nd, a - gained, b - gained)
            if declarer:
                best = max(best, v)
                a = max(a, best)
            else:
                best = min(best, v)
                b = min(b, best)
            if a >= b:
                break
        if best <= first_a:
            high = min(high, best)
        elif best >= first_b:
            low = max(low, best)
        else:
            low = high = best
        self._points[key] = (low, high)
        return best

    def _wins_all(self, hands: Hands, trick: tuple[int, ...], done: int) -> bool:
        if done == TRICKS:
            return True
        if _beaten_now(hands, trick):
            return False
        key = (hands, trick, done)
        found = self._sweep.get(key)
        if found is not None:
            return found
        mover = len(trick)
        answer = mover != 0
        for c in _choices(hands, trick):
            nh, nt, nd, _gained, stopped = self._advance(hands, trick, done, c)
            ok = not stopped and self._wins_all(nh, nt, nd)
            if ok and mover == 0:
                answer = True
                break
            if not ok and mover != 0:
                answer = False
                break
        self._sweep[key] = answer
        return answer

    def _advance(
        self, hands: Hands, trick: tuple[int, ...], done: int, card: int
    ) -> tuple[Hands, tuple[int, ...], int, int, bool]:
        """Play ``card``: the new hands, trick and tricks done, the points the declarer
        gains by it, and whether the deal stopped (the declarer lost the trick)."""
        mover = len(trick)
        new = list(hands)
        new[mover] &= ~(1 << card)
        nh: Hands = (new[0], new[1], new[2])
        cards = (*trick, card)
        if len(cards) < 3:
            return nh, cards, done, 0, False
        if _winner(cards) != 0:
            return nh, (), done + 1, 0, True
        gained = sum(POINTS[c] for c in cards)
        if self.last_trick_point and done + 1 == TRICKS:
            gained += 1
        return nh, (), done + 1, gained, False


def after(pos: SinglePosition, card: int) -> SinglePosition | None:
    """The position once the seat to move plays ``card`` (None: that card ended the
    trick with the declarer beaten, which ends the single hand)."""
    mover = len(pos.trick)
    hands = list(pos.hands)
    hands[mover] &= ~(1 << card)
    trick = (*pos.trick, card)
    new: Hands = (hands[0], hands[1], hands[2])
    if len(trick) < 3:
        return SinglePosition(new, trick, pos.tricks_played)
    if _winner(trick) != 0:
        return None
    return SinglePosition(new, (), pos.tricks_played + 1)


def sweeps_by_guards(pos: SinglePosition) -> bool:
    """Whether the declarer wins every trick left against opponents who keep their guards.

    A quick test, not the search: each opponent is assumed never to part with a card
    it could later beat the declarer with except to follow suit, following with its
    lowest card of the suit led and keeping its highest. Then the suits are separate,
    and the declarer's best order in each is from the top down: its k-th lead of a suit
    (from 0) is beaten exactly when an opponent held more than k cards of it, the
    highest above the card led. The test finishes the trick on the table that way too
    (an opponent to play beats the lead if it can, else follows low). A position this
    test sweeps is swept against any defence (``sweeps`` agrees); one it does not may
    still be, when an opponent must throw a guard for want of other cards (a squeeze),
    which only the search sees.
    """
    hands = list(pos.hands)
    trick = pos.trick
    if trick:
        lead = trick[0]
        suit = SUIT_MASK[lead >> 3]
        if any(c > lead for c in trick[1:] if c >> 3 == lead >> 3):
            return False
        for mover in range(len(trick), 3):
            follow = hands[mover] & suit
            if follow >> (lead + 1) << (lead + 1):  # a card of the suit above the lead
                return False
            if follow:
                hands[mover] &= ~(follow & -follow)  # its lowest of the suit
    declarer = hands[0]
    for suit in range(4):
        mine = declarer & SUIT_MASK[suit]
        guards = [hands[i] & SUIT_MASK[suit] for i in (1, 2)]
        k = 0
        while mine:
            card = mine.bit_length() - 1  # the highest left
            for held in guards:
                if held.bit_count() > k and held.bit_length() - 1 > card:
                    return False
            mine &= ~(1 << card)
            k += 1
    return True


def _cards(mask: int) -> list[int]:
    return [c for c in range(32) if mask >> c & 1]


def _playable(hands: Hands, trick: tuple[int, ...]) -> int:
    hand = hands[len(trick)]
    if trick:
        follow = hand & SUIT_MASK[trick[0] >> 3]
        if follow:
            return follow
    return hand


def _winner(cards: tuple[int, ...]) -> int:
    led = cards[0] >> 3
    return max(range(len(cards)), key=lambda i: cards[i] if cards[i] >> 3 == led else -1)


def _beaten_now(hands: Hands, trick: tuple[int, ...]) -> bool:
    """An opponent to play holds a card above the declarer's lead: the deal stops here."""
    if not trick or _winner(trick) != 0:
        return bool(trick)
    lead = trick[0]
    above = SUIT_MASK[lead >> 3] & ~((2 << lead) - 1)
    return any(hands[i] & above for i in range(len(trick), 3))


def _left(hands: Hands, trick: tuple[int, ...]) -> int:
    return sum(POINTS[c] for c in _cards(hands[0] | hands[1] | hands[2])) + sum(
        POINTS[c] for c in trick
    )


def _choices(hands: Hands, trick: tuple[int, ...], cheapest_first: bool = False) -> list[int]:
    """The playable cards, one per run of equivalent cards: the richest first, or the
    cheapest first (the order a side tries them in: it finds the cut-offs early)."""
    mover = len(trick)
    hand = _playable(hands, trick)
    in_play = hands[0] | hands[1] | hands[2]
    for c in trick:
        in_play |= 1 << c
    out = []
    for c in reversed(_cards(hand)):
        above = in_play & SUIT_MASK[c >> 3] & ~((2 << c) - 1)
        nxt = (above & -above).bit_length() - 1 if above else -1
        if nxt >= 0 and hands[mover] >> nxt & 1 and hand >> nxt & 1 and POINTS[nxt] == POINTS[c]:
            continue  # the next card up is ours and worth the same: it was tried
        out.append(c)
    out.sort(key=lambda c: (POINTS[c], c & 7), reverse=not cheapest_first)
    return out
