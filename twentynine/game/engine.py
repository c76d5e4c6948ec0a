"""The rules engine: one deal of 29 as a pure state machine.

``Deal`` walks one deal through its phases (auction, trump, single hand,
doubling, play with its reveal and pair windows) to its score; ``match``
chains deals into a match. Its small API: ``legal_actions()``,
``apply(action)`` (returning the events it caused), ``clone()``, ``to_act``,
``is_over()``. Parts of it live in modules of their own below this one: the
auction's steps (``auction``), the pair and the early end (``pair``), the
explanations of refused actions (``refusals``), the deal's fields (``state``),
and the contract's names and arithmetic (``contract``).

Nothing here reads a clock, a file or global random state. Hidden
information leaves only through ``observation`` (the module above this one:
``observe(match, seat)``, ``observe_deal(deal, seat)`` and ``event_view``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .actions import (
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
from .auction import Auction
from .cards import (
    NUM_CARDS,
    POINTS,
    SUIT_MASK,
    SUITS,
    card_text,
    mask_points,
)
from .contract import (
    AUCTION,
    CANCELLED,
    DOUBLING,
    FAILED,
    IN_PROGRESS,
    MADE,
    MULTIPLIER,
    OVER,
    PAIR_WINDOW,
    PLAYING,
    REDOUBLING,
    SETTING,
    SEVENTH_CARD_INDEX,
    SINGLE_FAILED,
    SINGLE_HAND,
    SINGLE_MADE,
    TRICKS,
    TRUMP_CHOICE,
    contract_stake,
    partner_of,
    team_of,
)
from .dealing import FIRST_BATCH, HAND_SIZE
from .pair import Pair
from .refusals import IllegalAction, Refusals
from .rules import Rules
from .state import DealState

__all__ = [
    "AUCTION",
    "CANCELLED",
    "DOUBLING",
    "FAILED",
    "IN_PROGRESS",
    "MADE",
    "MULTIPLIER",
    "OVER",
    "PAIR_WINDOW",
    "PLAYING",
    "REDOUBLING",
    "SETTING",
    "SEVENTH_CARD_INDEX",
    "SINGLE_FAILED",
    "SINGLE_HAND",
    "SINGLE_MADE",
    "TRICKS",
    "TRUMP_CHOICE",
    "Deal",
    "IllegalAction",
    "contract_stake",
    "partner_of",
    "play_actions",
    "remaining_points",
    "team_of",
]


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


class Deal(Auction, Pair, Refusals):
    """One deal of 29, from the first batch to the score."""

    __slots__ = ()

    def __init__(self, rules: Rules, dealer: int, hands: Sequence[Sequence[int]]) -> None:
        _check_hands(hands)
        if not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer <= 3:
            raise ValueError(f"dealer must be a seat 0..3, not {dealer!r}")
        self.rules = rules
        self.dealer = dealer
        self.hands = tuple(tuple(h) for h in hands)
        self.held = [_mask(h[:FIRST_BATCH]) for h in self.hands]
        self.second_batch = False
        self.log = []
        nxt = [rules.next_seat(s) for s in range(4)]
        self._next = nxt
        self.phase = AUCTION
        self.to_act = nxt[dealer]
        self.auction = []
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
        self.double_offers = []
        self.doubler = -1
        self.doubling = None
        self.target = 0
        self.leader = -1
        self.trick_cards = []
        self.trick_seats = []
        self.tricks = []
        self.points = [0, 0]
        self.revealed_in_trick = 0
        self.revealer = -1
        self.asked = -1
        self.pair_seat = -1
        self.pair_trick = 0
        self.result = IN_PROGRESS
        self.stake = None
        self.delta = [0, 0]

    # ------------------------------------------------------------------ basics
    def clone(self) -> Deal:
        new = Deal.__new__(Deal)
        for name in DealState.__slots__:
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
