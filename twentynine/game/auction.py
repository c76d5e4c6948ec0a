"""The auction: the bids open to a seat, and each step of the open and the duel
auction up to the contract (or to a redeal when nobody bids).

``Auction`` is a part of ``engine.Deal``: its state lives in the deal's slots,
declared here for the type checker only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .actions import BID, Action
from .contract import AUCTION, CANCELLED, OVER, TRUMP_CHOICE
from .state import DealState


class Auction(DealState):
    """The auction's steps, as a part of ``Deal``."""

    __slots__ = ()

    if TYPE_CHECKING:

        def _end_event(self) -> dict[str, Any]: ...

    def _auction_actions(self, seat: int) -> list[Action]:
        r = self.rules
        out = [Action.pass_(seat)]
        if r.auction == "open" or self.duel_defender < 0:
            low = max(r.min_bid, self.high_bid + 1)
        elif seat == self.duel_defender:  # answering a challenge: match only
            return [Action.pass_(seat), Action.bid(seat, self.duel_challenge)]
        else:
            low = self.high_bid + 1
        out.extend(Action.bid(seat, b) for b in range(low, r.max_bid + 1))
        return out

    def _auction(self, seat: int, action: Action) -> list[dict[str, Any]]:
        r = self.rules
        is_bid = action.kind == BID
        amount = action.value if is_bid else 0
        assert amount is not None
        self.auction.append((seat, amount))
        events: list[dict[str, Any]] = [
            {"type": "bid", "seat": seat, "bid": amount}
            if is_bid
            else {"type": "pass", "seat": seat, "stage": AUCTION}
        ]
        if r.auction == "open":
            self._open_step(seat, amount)
        else:
            self._duel_step(seat, amount)
        if self.phase != AUCTION:
            events.extend(self._after_auction())
        return events

    def _open_step(self, seat: int, amount: int) -> None:
        r = self.rules
        if amount:
            self.high_bid, self.high_bidder, self.passes = amount, seat, 0
            if amount >= r.max_bid:
                self._win_auction(seat, amount)
                return
        else:
            self.passes += 1
            if self.high_bidder >= 0:
                if self.passes == 3:
                    self._win_auction(self.high_bidder, self.high_bid)
                    return
            elif self._all_passed(self.passes):
                return
        self.to_act = self._next[seat]

    def _all_passed(self, passes: int) -> bool:
        """Apply ``all_pass`` after ``passes`` opening passes; True if the auction ended."""
        r = self.rules
        if r.all_pass == "dealer_forced" and passes == 3:
            self._win_auction(self.dealer, r.min_bid, forced=True)
            return True
        if passes == 4:
            if r.all_pass == "first_forced":
                self._win_auction(self._next[self.dealer], r.min_bid, forced=True)
            else:
                self.phase = OVER
                self.result = CANCELLED
                self.stake = 0
                self.to_act = -1
            return True
        return False

    def _duel_step(self, seat: int, amount: int) -> None:
        r = self.rules
        order = self.duel_order
        if self.duel_defender < 0:  # opening
            self.duel_index += 1
            if amount:
                self.duel_defender, self.high_bid, self.high_bidder = seat, amount, seat
                if amount >= r.max_bid:
                    self._win_auction(seat, amount)
                    return
            elif self._all_passed(self.duel_index):
                return
        elif seat == self.duel_defender:  # answering a challenge
            challenger = order[self.duel_index]
            if amount:
                self.high_bid = amount
                self.duel_challenge = 0
                if amount >= r.max_bid:
                    self._win_auction(seat, amount)
                    return
                self.to_act = challenger
                return
            self.duel_defender = self.high_bidder = challenger
            self.high_bid = self.duel_challenge
            self.duel_challenge = 0
            self.duel_index += 1
            if self.high_bid >= r.max_bid:
                self._win_auction(challenger, self.high_bid)
                return
        else:  # a challenger speaks
            if amount:
                self.duel_challenge = amount
                self.to_act = self.duel_defender
                return
            self.duel_index += 1
        if self.duel_index >= 4:
            self._win_auction(self.duel_defender, self.high_bid)
            return
        self.to_act = order[self.duel_index]

    def _win_auction(self, seat: int, bid: int, forced: bool = False) -> None:
        self.bidder, self.bid, self.target, self.forced = seat, bid, bid, forced
        self.high_bid, self.high_bidder = bid, seat
        self.phase = TRUMP_CHOICE
        self.to_act = seat

    def _after_auction(self) -> list[dict[str, Any]]:
        if self.phase == OVER:
            return [{"type": "redeal", "dealer": self.dealer}, self._end_event()]
        return [{"type": "contract", "bidder": self.bidder, "bid": self.bid, "forced": self.forced}]
