"""The rules engine: one deal of 29 as a pure state machine.

``Deal`` walks one deal through its phases (auction, trump, single hand,
doubling, play with its reveal and pair windows) to its score; ``match``
chains deals into a match. Its small API: ``legal_actions()``,
``apply(action)`` (returning the events it caused), ``clone()``, ``to_act``,
``is_over()``.

Nothing here reads a clock, a file or global random state. Hidden
information leaves only through ``observation`` (the module above this one:
``observe(match, seat)``, ``observe_deal(deal, seat)`` and ``event_view``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .actions import (
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
    Action,
)
from .cards import (
    KING,
    NUM_CARDS,
    POINTS,
    QUEEN,
    SUIT_MASK,
    SUIT_NAMES,
    SUITS,
    TOTAL_POINTS,
    card_text,
    mask_points,
)
from .dealing import FIRST_BATCH, HAND_SIZE
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


class IllegalAction(ValueError):
    """An action the rules do not allow now. The state is left exactly as it was."""


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


def _build_play_tables() -> tuple[tuple[tuple[tuple[Action, ...], ...], ...], ...]:
    tables = []
    for seat in range(4):
        per_suit = []
        for suit in range(4):
            rows = []
            for bits in range(256):
                rows.append(
                    tuple(Action.play(seat, suit * 8 + r) for r in range(8) if bits >> r & 1)
                )
            per_suit.append(tuple(rows))
        tables.append(tuple(per_suit))
    return tuple(tables)


# _PLAYS[seat][suit][byte] -> the play actions for those cards of that suit.
_PLAYS = _build_play_tables()


def play_actions(seat: int, mask: int) -> list[Action]:
    out: list[Action] = []
    table = _PLAYS[seat]
    for suit in range(4):
        bits = (mask >> (suit * 8)) & 0xFF
        if bits:
            out.extend(table[suit][bits])
    return out


class Deal:
    """One deal of 29, from the first batch to the score."""

    __slots__ = (
        "_next",
        "asked",
        # auction
        "auction",
        "bid",
        # contract
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
        # play
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

    def __init__(self, rules: Rules, dealer: int, hands: Sequence[Sequence[int]]) -> None:
        _check_hands(hands)
        if not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer <= 3:
            raise ValueError(f"dealer must be a seat 0..3, not {dealer!r}")
        self.rules = rules
        self.dealer = dealer
        self.hands: tuple[tuple[int, ...], ...] = tuple(tuple(h) for h in hands)
        self.held = [_mask(h[:FIRST_BATCH]) for h in self.hands]
        self.second_batch = False
        self.log: list[Action] = []
        nxt = [rules.next_seat(s) for s in range(4)]
        self._next = nxt
        self.phase = AUCTION
        self.to_act = nxt[dealer]
        self.auction: list[tuple[int, int]] = []  # (seat, bid); 0 is a pass
        self.high_bid = 0
        self.high_bidder = -1
        self.passes = 0
        first = nxt[dealer]
        self.duel_order = (first, nxt[first], nxt[nxt[first]], dealer)
        self.duel_index = 0
        self.duel_defender = -1
        self.duel_challenger = -1
        self.duel_challenge = 0
        self.forced = False
        self.bidder = -1
        self.bid = 0
        self.trump = -1
        self.seventh = False
        self.single = -1
        self.single_offers = 0
        self.double_offers: list[int] = []
        self.doubler = -1
        self.doubling: str | None = None
        self.target = 0
        self.leader = -1
        self.trick_cards: list[int] = []
        self.trick_seats: list[int] = []
        self.tricks: list[tuple[int, tuple[int, ...], tuple[int, ...], int, int]] = []
        self.points = [0, 0]
        self.revealed_in_trick = 0  # 1-based; 0 while hidden
        self.revealer = -1
        self.asked = -1
        self.pair_seat = -1
        self.pair_trick = 0
        self.result = IN_PROGRESS
        self.stake: int | None = None
        self.delta = [0, 0]

    # ------------------------------------------------------------------ basics
    def clone(self) -> Deal:
        new = Deal.__new__(Deal)
        for name in Deal.__slots__:
            setattr(new, name, getattr(self, name))
        new.held = self.held[:]
        new.log = self.log[:]
        new.auction = self.auction[:]
        new.double_offers = self.double_offers[:]
        new.trick_cards = self.trick_cards[:]
        new.trick_seats = self.trick_seats[:]
        new.tricks = self.tricks[:]
        new.points = self.points[:]
        new.delta = self.delta[:]
        return new

    def is_over(self) -> bool:
        return self.phase == OVER

    @property
    def revealed(self) -> bool:
        return self.revealed_in_trick > 0

    @property
    def trumps_active(self) -> bool:
        return self.revealed_in_trick > 0

    @property
    def bidding_team(self) -> int:
        return self.bidder & 1 if self.bidder >= 0 else -1

    @property
    def tricks_played(self) -> int:
        return len(self.tricks)

    @property
    def led_suit(self) -> int:
        return self.trick_cards[0] >> 3 if self.trick_cards else -1

    def knows_trump(self, seat: int | None) -> bool:
        """Whether ``seat`` may see the trump suit (None: the public)."""
        if self.trump < 0:
            return False
        if self.revealed_in_trick or self.phase == OVER:
            return True
        if seat is None or seat != self.bidder:
            return False
        return not self.seventh or self.second_batch

    # --------------------------------------------------------------- legality
    def legal_actions(self) -> list[Action]:
        seat = self.to_act
        phase = self.phase
        if phase == PLAYING:
            out = play_actions(seat, self._playable(seat))
            if self._may_ask(seat):
                out.append(Action.flag(seat, REVEAL))
            return out
        if phase == AUCTION:
            return self._auction_actions(seat)
        if phase == TRUMP_CHOICE:
            out = [Action.trump(seat, s) for s in range(4)]
            if self.rules.seventh_card:
                out.append(Action.flag(seat, SEVENTH))
            return out
        if phase == SINGLE_HAND:
            return [Action.flag(seat, SINGLE), Action.pass_(seat)]
        if phase == DOUBLING:
            return [Action.flag(seat, DOUBLE), Action.pass_(seat)]
        if phase == REDOUBLING:
            return [Action.flag(seat, REDOUBLE), Action.pass_(seat)]
        if phase == SETTING:
            return [Action.flag(seat, SET), Action.pass_(seat)]
        if phase == PAIR_WINDOW:
            return [Action.flag(seat, PAIR), Action.pass_(seat)]
        return []

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

    def _playable(self, seat: int) -> int:
        """Mask of the cards ``seat`` may play now."""
        hand = self.held[seat]
        if self.trick_cards:
            follow = hand & SUIT_MASK[self.trick_cards[0] >> 3]
            if follow:
                return follow
            if self.asked == seat:
                return self._obligation(seat, hand)
        return hand

    def _obligation(self, seat: int, hand: int) -> int:
        """Cards allowed to a seat that asked for the reveal (``reveal: ask``)."""
        trumps = hand & SUIT_MASK[self.trump]
        if not trumps:
            return hand
        best_card, best_seat = self._best_on_table()
        if best_card >> 3 == self.trump and partner_of(seat) == best_seat:
            return trumps
        if best_card >> 3 == self.trump:
            beating = trumps & ~((2 << best_card) - 1)
        else:
            beating = trumps
        return beating or trumps

    def _best_on_table(self) -> tuple[int, int]:
        cards = self.trick_cards
        mask = 0
        for c in cards:
            mask |= 1 << c
        trumps = mask & SUIT_MASK[self.trump] if self.revealed_in_trick and self.trump >= 0 else 0
        best = (trumps or mask & SUIT_MASK[cards[0] >> 3]).bit_length() - 1
        return best, self.trick_seats[cards.index(best)]

    def _may_ask(self, seat: int) -> bool:
        return (
            self.rules.reveal == "ask"
            and not self.revealed_in_trick
            and self.single < 0
            and self.asked != seat
            and bool(self.trick_cards)
            and not self.held[seat] & SUIT_MASK[self.trick_cards[0] >> 3]
        )

    # ------------------------------------------------------------------ apply
    def apply(self, action: Action) -> list[dict[str, Any]]:
        """Play ``action``; return the events it caused. Illegal: raise, change nothing."""
        if self.phase == OVER:
            raise IllegalAction("the deal is over")
        seat = action.seat
        if seat != self.to_act:
            if self.phase == PAIR_WINDOW:  # naming the seat would show who holds the pair
                raise IllegalAction(f"it is not seat {seat}'s turn: the table is waiting")
            raise IllegalAction(f"it is seat {self.to_act}'s turn, not seat {seat}'s")
        kind = action.kind
        phase = self.phase
        if phase == PLAYING:
            if kind == PLAY:
                card = action.value
                if card is None or not 0 <= card < NUM_CARDS:
                    raise IllegalAction(f"{card!r} is not a card")
                if not self._playable(seat) >> card & 1:
                    raise IllegalAction(self._why_not_play(seat, card))
                self.log.append(action)
                return self._play(seat, card)
            if kind == REVEAL:
                if not self._may_ask(seat):
                    raise IllegalAction(self._why_not_reveal(seat))
                self.log.append(action)
                return self._reveal(seat, asked=True)
            raise IllegalAction(self._wrong_kind(action))
        if action not in self.legal_actions():
            raise IllegalAction(self._why_not(action))
        self.log.append(action)
        if phase == AUCTION:
            return self._auction(seat, action)
        if phase == TRUMP_CHOICE:
            return self._choose_trump(seat, action)
        if phase == SINGLE_HAND:
            return self._single(seat, kind == SINGLE)
        if phase in (DOUBLING, REDOUBLING, SETTING):
            return self._double(seat, kind)
        return self._pair(seat, kind == PAIR)

    # ---- explanations of illegal actions (cold path) ----------------------
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

    # ---- auction ------------------------------------------------------------
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

    # ---- trump, single hand, doubling ------------------------------------------
    def _choose_trump(self, seat: int, action: Action) -> list[dict[str, Any]]:
        if action.kind == SEVENTH:
            self.seventh = True
            self.trump = self.hands[seat][SEVENTH_CARD_INDEX] >> 3
        else:
            assert action.value is not None
            self.trump = action.value
        ev: dict[str, Any] = {
            "type": "trump_chosen",
            "seat": seat,
            "seventh": self.seventh,
            "_secret": {} if self.seventh else {seat: {"trump": SUITS[self.trump]}},
        }
        self.second_batch = True
        self.held = [_mask(h) for h in self.hands]
        batch: dict[str, Any] = {
            "type": "second_batch",
            "_secret": {
                s: {"cards": [card_text(c) for c in self.hands[s][FIRST_BATCH:]]} for s in range(4)
            },
        }
        if self.seventh:
            batch["_secret"][seat]["trump"] = SUITS[self.trump]
        events = [ev, batch]
        if self.rules.single_hand:
            self.phase = SINGLE_HAND
            self.to_act = self._next[self.dealer]
        else:
            self._start_doubling()
        return events

    def _single(self, seat: int, declares: bool) -> list[dict[str, Any]]:
        if declares:
            self.single = seat
            self._start_play(seat)
            return [{"type": "single", "seat": seat}]
        self.single_offers += 1
        events: list[dict[str, Any]] = [{"type": "pass", "seat": seat, "stage": SINGLE_HAND}]
        if self.single_offers == 4:
            self._start_doubling()
        else:
            self.to_act = self._next[seat]
        return events

    def _start_doubling(self) -> None:
        r = self.rules
        if not r.doubling:
            self._start_play(self._next[self.dealer])
            return
        right = (self.bidder + 3) % 4
        if r.double_by == "bidder_right":
            self.double_offers = [right]
        else:
            first = self._next[self.bidder]
            self.double_offers = [first, partner_of(first)]
        self.phase = DOUBLING
        self.to_act = self.double_offers.pop(0)

    def _double(self, seat: int, kind: str) -> list[dict[str, Any]]:
        phase = self.phase
        if kind == PASS:
            events: list[dict[str, Any]] = [{"type": "pass", "seat": seat, "stage": phase}]
            if phase == DOUBLING and self.double_offers:
                self.to_act = self.double_offers.pop(0)
            else:
                self._start_play(self._next[self.dealer])
            return events
        self.doubling = kind
        if kind == DOUBLE:
            self.doubler = seat
            self.phase, self.to_act = REDOUBLING, self.bidder
        elif kind == REDOUBLE and self.rules.allow_set:
            self.phase, self.to_act = SETTING, self.doubler
        else:
            self._start_play(self._next[self.dealer])
        return [{"type": kind, "seat": seat, "multiplier": MULTIPLIER[kind]}]

    # ---- play -------------------------------------------------------------------
    def _start_play(self, leader: int) -> None:
        self.phase = PLAYING
        self.leader = leader
        self.to_act = leader

    def _next_in_play(self, seat: int) -> int:
        n = self._next[seat]
        if self.single >= 0 and n == partner_of(self.single):
            n = self._next[n]
        return n

    def _reveal(self, seat: int, asked: bool) -> list[dict[str, Any]]:
        self.revealed_in_trick = len(self.tricks) + 1
        self.revealer = seat
        if asked:
            self.asked = seat
        return [
            {
                "type": "reveal",
                "seat": seat,
                "asked": asked,
                "trick": self.revealed_in_trick,
                "trump": SUITS[self.trump],
                "seventh": self.seventh,
            }
        ]

    def _play(self, seat: int, card: int) -> list[dict[str, Any]]:
        self.held[seat] &= ~(1 << card)
        self.trick_cards.append(card)
        self.trick_seats.append(seat)
        events: list[dict[str, Any]] = [{"type": "play", "seat": seat, "card": card}]
        size = 3 if self.single >= 0 else 4
        if len(self.trick_cards) < size:
            nxt = self._next_in_play(seat)
            self.to_act = nxt
            if (
                not self.revealed_in_trick
                and self.rules.reveal == "auto"
                and self.single < 0
                and not self.held[nxt] & SUIT_MASK[self.trick_cards[0] >> 3]
            ):
                events.extend(self._reveal(nxt, asked=False))
            return events
        return self._finish_trick(events)

    def _finish_trick(self, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        cards = self.trick_cards
        seats = self.trick_seats
        mask = 0
        pts = 0
        for c in cards:
            mask |= 1 << c
            pts += POINTS[c]
        trumps = (
            mask & SUIT_MASK[self.trump]
            if self.revealed_in_trick and self.trump >= 0 and self.single < 0
            else 0
        )
        best = (trumps or mask & SUIT_MASK[cards[0] >> 3]).bit_length() - 1
        winner = seats[cards.index(best)]
        number = len(self.tricks) + 1
        if number == TRICKS and self.rules.last_trick_point:
            pts += 1
        self.tricks.append((self.leader, tuple(cards), tuple(seats), winner, pts))
        self.points[winner & 1] += pts
        self.trick_cards = []
        self.trick_seats = []
        self.asked = -1
        events.append(
            {
                "type": "trick",
                "trick": number,
                "leader": self.leader,
                "cards": list(cards),
                "winner": winner,
                "points": pts,
            }
        )
        self.leader = self.to_act = winner
        if self.single >= 0:
            if winner != self.single:
                self._finish(SINGLE_FAILED, events)
            elif number == TRICKS:
                self._finish(SINGLE_MADE, events)
            return events
        if number == TRICKS:
            self._finish(None, events)
            return events
        holder = self._pair_window(winner & 1)
        if self.rules.early_end and self._settled(holder >= 0, events):
            return events
        if holder >= 0:
            self.phase = PAIR_WINDOW
            self.to_act = holder
        return events

    def pair_holder(self) -> int:
        """The seat holding both K and Q of trumps while the pair is undeclared, else -1."""
        if self.pair_seat >= 0 or self.trump < 0 or self.rules.pair == "off" or self.single >= 0:
            return -1
        base = self.trump * 8
        need = (1 << (base + KING)) | (1 << (base + QUEEN))
        for s in range(4):
            if self.held[s] & need == need:
                return s
        return -1

    def _pair_window(self, team: int) -> int:
        """The seat asked about the pair after a trick won by ``team``, or -1."""
        if not self.revealed_in_trick:
            return -1
        holder = self.pair_holder()
        return holder if holder >= 0 and holder & 1 == team else -1

    def _pair(self, seat: int, declares: bool) -> list[dict[str, Any]]:
        events: list[dict[str, Any]]
        if declares:
            self.pair_seat = seat
            self.pair_trick = len(self.tricks)
            if seat & 1 == self.bidder & 1:
                self.target = lowered_target(self.rules, self.bid)
            else:
                self.target = raised_target(self.rules, self.bid)
            events = [
                {
                    "type": "pair",
                    "seat": seat,
                    "team": seat & 1,
                    "target": self.target,
                    "trump": SUITS[self.trump],
                }
            ]
        else:
            events = [{"type": "pass", "seat": seat, "stage": PAIR_WINDOW, "_to": seat}]
        self.phase = PLAYING
        self.to_act = self.leader
        if self.rules.early_end:
            self._settled(False, events)
        return events

    def target_range(self, window_open: bool) -> tuple[int, int]:
        """Lowest and highest targets the bidding team may still face."""
        holder = self.pair_holder()
        if holder < 0 or not (window_open or len(self.tricks) <= 5):
            return self.target, self.target
        if holder & 1 == self.bidder & 1:
            other = lowered_target(self.rules, self.bid)
        else:
            other = raised_target(self.rules, self.bid)
        return min(self.target, other), max(self.target, other)

    def _settled(self, window_open: bool, events: list[dict[str, Any]] | None = None) -> bool:
        """End the deal early if its result and stake can no longer change."""
        r = self.rules
        if r.unrevealed == "cancel" and not self.revealed_in_trick:
            return False
        tmin, tmax = self.target_range(window_open)
        mine = self.points[self.bidder & 1]
        left = TOTAL_POINTS - self.points[0] - self.points[1] + (1 if r.last_trick_point else 0)
        if mine >= tmax:
            result = MADE
        elif mine + left < tmin:
            if r.under_half and 2 * (mine + left) >= self.bid and 2 * mine < self.bid:
                return False
            result = FAILED
        else:
            return False
        self._finish(result, events)
        return True

    # ---- scoring ------------------------------------------------------------------
    def _finish(self, result: str | None, events: list[dict[str, Any]] | None) -> None:
        r = self.rules
        team = self.bidder & 1
        if self.single >= 0:
            assert result is not None
            self.stake = r.single_hand_stake
            sign = 1 if result == SINGLE_MADE else -1
            self.delta[self.single & 1] = sign * self.stake
        elif r.unrevealed == "cancel" and not self.revealed_in_trick:
            result = CANCELLED
            self.stake = 0
        else:
            if result is None:
                result = MADE if self.points[team] >= self.target else FAILED
            under_half = result == FAILED and r.under_half and 2 * self.points[team] < self.bid
            stake = contract_stake(r, self.bid, MULTIPLIER[self.doubling], under_half)
            self.stake = stake
            self.delta[team] = stake if result == MADE else -stake
        self.result = result
        self.phase = OVER
        self.to_act = -1
        if events is not None:
            events.append(self._end_event())

    def _end_event(self) -> dict[str, Any]:
        return {
            "type": "deal_end",
            "result": self.result,
            "stake": self.stake,
            "delta": self.delta[:],
            "points": self.points[:],
        }

    # ------------------------------------------------------------ views
    def trick_winner_of(self, index: int) -> int:
        return self.tricks[index][3]

    def verdict(self) -> dict[str, Any]:
        """This deal as the verdict object of the rules (section 7)."""
        over = self.phase == OVER
        has_contract = self.bidder >= 0
        pair = None
        if self.pair_seat >= 0:
            pair = {"seat": self.pair_seat, "team": self.pair_seat & 1, "trick": self.pair_trick}
        target: int | None = self.target if has_contract and self.single < 0 else None
        if self.result == CANCELLED and not has_contract:
            target = None
        return {
            "dealer": self.dealer,
            "bidder": self.bidder if has_contract else None,
            "bid": self.bid if has_contract else None,
            "trump": SUITS[self.trump] if self.trump >= 0 else None,
            "seventh": self.seventh,
            "single": self.single if self.single >= 0 else None,
            "doubling": MULTIPLIER[self.doubling],
            "revealed_in_trick": self.revealed_in_trick or None,
            "pair": pair,
            "target": target,
            "points": self.points[:],
            "tricks_played": len(self.tricks),
            "result": self.result,
            "stake": self.stake if over else None,
            "delta": self.delta[:],
            "tricks": [
                {
                    "leader": leader,
                    "cards": [card_text(c) for c in cards],
                    "winner": winner,
                    "points": pts,
                }
                for leader, cards, _seats, winner, pts in self.tricks
            ],
        }

    def to_record(self) -> dict[str, Any]:
        return {
            "dealer": self.dealer,
            "hands": [[card_text(c) for c in h] for h in self.hands],
            "actions": [a.to_json() for a in self.log],
        }


def _mask(cards: Sequence[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def _check_hands(hands: Sequence[Sequence[int]]) -> None:
    if len(hands) != 4:
        raise ValueError(f"a deal needs 4 hands, not {len(hands)}")
    seen: set[int] = set()
    for s, h in enumerate(hands):
        if len(h) != HAND_SIZE:
            raise ValueError(f"hand of seat {s} has {len(h)} cards, not {HAND_SIZE}")
        for c in h:
            if not isinstance(c, int) or isinstance(c, bool) or not 0 <= c < NUM_CARDS:
                raise ValueError(f"hand of seat {s} holds {c!r}, which is not a card")
            if c in seen:
                raise ValueError(f"{card_text(c)} is dealt twice")
            seen.add(c)


def remaining_points(deal: Deal) -> int:
    """Points not yet won in ``deal`` (the last-trick point while the 8th trick is unplayed)."""
    held = 0
    for m in deal.held:
        held |= m
    extra = 1 if deal.rules.last_trick_point and len(deal.tricks) < TRICKS else 0
    return mask_points(held) + extra + sum(POINTS[c] for c in deal.trick_cards)
