"""Why an action is refused: the error the rules raise, and the sentence that
says what was wrong (the phase, the turn, the bid, the card).

``Refusals`` is a part of ``engine.Deal``, on its cold path: nothing here runs
for a legal action.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .actions import BID, PLAY, SEVENTH, Action
from .cards import SUIT_MASK, SUIT_NAMES, card_text
from .contract import (
    AUCTION,
    DOUBLING,
    PAIR_WINDOW,
    PLAYING,
    REDOUBLING,
    SETTING,
    SINGLE_HAND,
    TRUMP_CHOICE,
)
from .state import DealState


class IllegalAction(ValueError):
    """An action the rules do not allow now. The state is left exactly as it was."""


class Refusals(DealState):
    """The explanations of illegal actions, as a part of ``Deal``."""

    __slots__ = ()

    if TYPE_CHECKING:

        def _obligation(self, seat: int, hand: int) -> int: ...

        def _best_on_table(self) -> tuple[int, int]: ...

    def _phase_words(self) -> str:
        return {
            AUCTION: "the auction is on (bid or pass)",
            TRUMP_CHOICE: "the bidder must choose trumps",
            SINGLE_HAND: "single hand is being offered (single or pass)",
            DOUBLING: "the defenders may double (double or pass)",
            REDOUBLING: "the bidder may redouble (redouble or pass)",
            SETTING: "the doubler may set (set or pass)",
            PLAYING: "cards are being played",
            PAIR_WINDOW: "the pair may be shown (pair or pass)",
        }.get(self.phase, "the deal is over")

    def _wrong_kind(self, action: Action) -> str:
        what = "play a card" if action.kind == PLAY else action.kind
        if action.kind == BID:
            what = "bid"
        return f"seat {action.seat} cannot {what} now: {self._phase_words()}"

    def _why_not(self, action: Action) -> str:
        r = self.rules
        if self.phase == AUCTION and action.kind == BID:
            b = action.value
            assert b is not None
            if self.duel_defender == action.seat and r.auction == "duel" and self.duel_challenge:
                return (
                    f"seat {action.seat} defends and may only match {self.duel_challenge} or pass"
                )
            if b < r.min_bid:
                return f"bid {b} is below the minimum {r.min_bid}"
            if b > r.max_bid:
                return f"bid {b} is above the maximum {r.max_bid}"
            return f"bid {b} does not beat the standing bid {self.high_bid}"
        if self.phase == TRUMP_CHOICE and action.kind == SEVENTH:
            return "the seventh card is not allowed by these rules (seventh_card=no)"
        return self._wrong_kind(action)

    def _why_not_play(self, seat: int, card: int) -> str:
        hand = self.held[seat]
        if not hand >> card & 1:
            return f"seat {seat} does not hold {card_text(card)}"
        led = self.trick_cards[0] >> 3
        if hand & SUIT_MASK[led]:
            return f"seat {seat} must follow {SUIT_NAMES[led]}"
        if self.asked == seat:
            allowed = self._obligation(seat, hand)
            best, _ = self._best_on_table()
            if allowed != hand & SUIT_MASK[self.trump] or best >> 3 != self.trump:
                return f"seat {seat} asked for the reveal and must play a trump that wins the trick"
            return f"seat {seat} asked for the reveal and must play a trump"
        return f"seat {seat} cannot play {card_text(card)} now"

    def _why_not_reveal(self, seat: int) -> str:
        if self.rules.reveal != "ask":
            return "trumps are revealed automatically under reveal=auto; nobody asks"
        if self.single >= 0:
            return "there are no trumps in a single hand"
        if self.revealed_in_trick:
            return "trumps are already revealed"
        if self.asked == seat:
            return f"seat {seat} has already asked for the reveal"
        if not self.trick_cards:
            return f"seat {seat} leads and cannot ask for the reveal"
        led = self.trick_cards[0] >> 3
        return f"seat {seat} can follow {SUIT_NAMES[led]} and cannot ask for the reveal"
