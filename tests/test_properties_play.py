"""Property tests of the course of a deal over random games (RULES.md 2.2-2.9 and 8).

The auction, the trump choice, the single hand and the doubling follow the turn
order; in the play each seat follows suit, the reveal comes when the rules say
and obliges a trump after a request, each trick goes to the highest active
trump else the highest card of the suit led, and the pair is asked for after
each trick won by the holder's team. Each test plays seeded matches with random
legal actions and checks the engine against an independent model written here.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from rule_strategies import (
    SETTINGS,
    Chooser,
    Policy,
    beats,
    card_points,
    choose,
    choosers,
    nxt,
    play,
    rules_strategy,
    seeds,
    steps,
    winning_index,
)

from twentynine.game import record
from twentynine.game.actions import Action
from twentynine.game.cards import card_text
from twentynine.game.engine import Deal
from twentynine.game.match import Match
from twentynine.game.rules import REVEALS, Rules


def trump_discarder(match: Match, legal: list[Action], ch: Chooser) -> Action:
    """Random play that, unable to follow, often asks for the reveal or discards a
    trump: it brings about the rarer cases of the reveal on request."""
    deal = match.deal
    kinds = {a.kind for a in legal}
    if "reveal" in kinds and ch.random() < 0.35:
        return Action.flag(deal.to_act, "reveal")
    plays = [a for a in legal if a.kind == "play" and a.value is not None]
    if deal.phase == "play" and deal.trick_cards and deal.trump >= 0 and ch.random() < 0.9:
        trumps = [a for a in plays if a.value is not None and a.value >> 3 == deal.trump]
        if trumps:
            return ch.pick(trumps)
    return choose(legal, ch)


# ----------------------------------------------------------------- trick winners
def check_deal_tricks(rules: Rules, rec: dict[str, Any], v: dict[str, Any]) -> None:
    """Re-check a finished deal: leaders, following suit, reveal, winners, points."""
    held = [set(h) for h in rec["hands"]]
    trump = v["trump"]
    single = v["single"]
    revealed_in = v["revealed_in_trick"]
    # who asked for the reveal (reveal: ask), and in which trick
    plays: list[tuple[int, str]] = []
    asks: dict[int, int] = {}  # trick number -> seat that asked
    for a in rec["actions"]:
        if "play" in a:
            plays.append((a["seat"], a["play"]))
        elif "reveal" in a:
            asks[len(plays) // (3 if single is not None else 4) + 1] = a["seat"]
    size = 3 if single is not None else 4
    leader = single if single is not None else nxt(rules, v["dealer"])
    first_void: int | None = None
    first_void_seat: int | None = None
    for n, t in enumerate(v["tricks"], start=1):
        assert t["leader"] == leader, (n, t)
        seats = [leader]
        while len(seats) < size:
            s = nxt(rules, seats[-1])
            if single is not None and s == (single + 2) % 4:
                s = nxt(rules, s)
            seats.append(s)
        cards = t["cards"]
        assert len(cards) == size
        assert plays[(n - 1) * size : n * size] == list(zip(seats, cards, strict=True))
        led = cards[0][1]
        for i, (s, c) in enumerate(zip(seats, cards, strict=True)):
            assert c in held[s], f"trick {n}: seat {s} plays {c} it does not hold"
            can_follow = any(h[1] == led for h in held[s])
            if i > 0 and can_follow:
                assert c[1] == led, f"trick {n}: seat {s} must follow {led}, played {c}"
            if i > 0 and not can_follow and first_void is None:
                first_void, first_void_seat = n, s
            if asks.get(n) == s and not can_follow:
                # RULES.md section 8, reveal on request: the obligation to trump
                assert trump is not None
                my_trumps = [h for h in held[s] if h[1] == trump]
                table = cards[:i]
                if my_trumps:
                    assert c[1] == trump, f"trick {n}: seat {s} asked and must play a trump"
                    w = winning_index(table, trump)
                    partner_wins = seats[w] == (s + 2) % 4 and table[w][1] == trump
                    if not partner_wins:
                        best = table[w]
                        beating = [h for h in my_trumps if best[1] != trump or beats(h, best)]
                        if beating:
                            assert c in beating, f"trick {n}: seat {s} must overtrump {best}"
            held[s].discard(c)
        active = (
            trump if (single is None and revealed_in is not None and n >= revealed_in) else None
        )
        w = winning_index(cards, active)
        assert t["winner"] == seats[w], f"trick {n}: {cards} trump {active}: winner {seats[w]}"
        pts = card_points(cards) + (1 if n == 8 and rules.last_trick_point else 0)
        assert t["points"] == pts
        leader = seats[w]
    # the reveal: automatic at the first seat that cannot follow, else on request
    if single is not None:
        assert revealed_in is None
    elif rules.reveal == "auto":
        assert revealed_in == first_void, (revealed_in, first_void)
        if first_void is not None:
            assert v["trump"] is not None
            assert first_void_seat is not None
    else:
        assert revealed_in == (min(asks) if asks else None)


@SETTINGS
@given(rules=rules_strategy(reveal=st.sampled_from(REVEALS)), seed=seeds, ch=choosers)
def test_trick_winner_is_highest_active_trump_else_highest_of_suit_led(
    rules: Rules, seed: int, ch: Chooser
) -> None:
    match = play(rules, seed, ch)
    rec = json.loads(record.dumps(match))
    for d, drec in zip(match.deals, rec["deals"], strict=True):
        if d.is_over():
            check_deal_tricks(rules, drec, d.verdict())


# ------------------------------------------------------------ the pair window
def check_pair_windows(rules: Rules, rec: dict[str, Any], v: dict[str, Any]) -> None:
    """RULES.md 2.9 and 8: after each trick won by team X once trumps are revealed, the
    seat of team X holding K and Q of trumps (pair undeclared) declares or passes."""
    if v["single"] is not None or v["bidder"] is None:
        assert not any("pair" in a for a in rec["actions"])
        return
    actions = rec["actions"]
    start = next((i for i, a in enumerate(actions) if "play" in a), len(actions))
    held = [set(h) for h in rec["hands"]]
    trump = v["trump"]
    revealed_in = v["revealed_in_trick"]
    trick: list[tuple[int, str]] = []
    tricks_done = 0
    declared: dict[str, int] | None = None
    expect: int | None = None  # the seat that must now decide about the pair
    for idx in range(start, len(actions)):
        a = actions[idx]
        decision = "pair" in a or "pass" in a
        if expect is not None:
            assert decision and a["seat"] == expect, (
                f"action {idx}: seat {expect} should be asked about the pair, got {a}"
            )
            expect = None
            if "pair" in a:
                declared = {"seat": a["seat"], "team": a["seat"] % 2, "trick": tricks_done}
            continue
        assert not decision, f"action {idx}: {a} outside a pair window"
        if "play" not in a:
            continue
        held[a["seat"]].discard(a["play"])
        trick.append((a["seat"], a["play"]))
        if len(trick) < 4:
            continue
        tricks_done += 1
        cards = [c for _, c in trick]
        active = trump if revealed_in is not None and tricks_done >= revealed_in else None
        winner = trick[winning_index(cards, active)][0]
        trick = []
        revealed = revealed_in is not None and revealed_in <= tricks_done
        if rules.pair == "off" or declared is not None or not revealed or tricks_done == 8:
            continue
        for s in range(4):
            if "K" + trump in held[s] and "Q" + trump in held[s] and s % 2 == winner % 2:
                expect = s
    assert v["pair"] == declared


@SETTINGS
@given(rules=rules_strategy(), seed=seeds, ch=choosers)
def test_pair_is_asked_after_each_trick_won_by_the_holders_team(
    rules: Rules, seed: int, ch: Chooser
) -> None:
    match = play(rules, seed, ch)
    rec = json.loads(record.dumps(match))
    for d, drec in zip(match.deals, rec["deals"], strict=True):
        if d.is_over():
            check_pair_windows(rules, drec, d.verdict())


# ------------------------------------------------ auction, trump, single, doubling
class FrontModel:
    """An independent model of a deal up to the first card (RULES.md 2.2-2.6, 8).

    ``legal()`` is the set of actions allowed now, or None once play starts.
    """

    def __init__(self, rules: Rules, dealer: int) -> None:
        self.r = rules
        self.dealer = dealer
        self.first = nxt(rules, dealer)
        self.phase = "auction"
        self.to_act = self.first
        self.high = 0
        self.holder: int | None = None  # standing bidder (duel: the defender)
        self.passes = 0  # open auction: passes in a row
        order = [self.first]
        while len(order) < 4:
            order.append(nxt(rules, order[-1]))
        self.pending = order  # duel: who has not yet opened or challenged
        self.challenge = 0
        self.bidder: int | None = None
        self.bid: int | None = None
        self.forced = False
        self.void = False
        self.offers: list[int] = []
        self.singles = 0
        self.doubler: int | None = None
        self.leader: int | None = None

    def legal(self) -> set[Action] | None:
        r, s = self.r, self.to_act
        if self.phase == "auction":
            if r.auction == "duel" and s == self.holder and self.challenge:
                return {Action.pass_(s), Action.bid(s, self.challenge)}
            low = max(r.min_bid, self.high + 1)
            return {Action.pass_(s)} | {Action.bid(s, b) for b in range(low, r.max_bid + 1)}
        if self.phase == "trump":
            out = {Action.trump(s, t) for t in range(4)}
            if r.seventh_card:
                out.add(Action.flag(s, "seventh"))
            return out
        if self.phase in ("single", "double", "redouble", "set"):
            return {Action.flag(s, self.phase), Action.pass_(s)}
        return None

    def _win(self, seat: int, bid: int, forced: bool = False) -> None:
        self.bidder, self.bid, self.forced = seat, bid, forced
        self.phase, self.to_act = "trump", seat

    def _all_passed(self, count: int) -> bool:
        r = self.r
        if r.all_pass == "dealer_forced" and count == 3:
            self._win(self.dealer, r.min_bid, forced=True)
            return True
        if count == 4:
            if r.all_pass == "first_forced":
                self._win(self.first, r.min_bid, forced=True)
            else:
                self.void, self.phase = True, "over"
            return True
        return False

    def apply(self, a: Action) -> None:
        r, s = self.r, a.seat
        if self.phase == "auction" and r.auction == "open":
            if a.kind == "bid":
                assert a.value is not None
                self.high, self.holder, self.passes = a.value, s, 0
                if a.value == r.max_bid:
                    return self._win(s, a.value)
            else:
                self.passes += 1
                if self.holder is not None and self.passes == 3:
                    return self._win(self.holder, self.high)
                if self.holder is None and self._all_passed(self.passes):
                    return None
            self.to_act = nxt(r, s)
        elif self.phase == "auction":
            self._duel(a)
        elif self.phase == "trump":
            if r.single_hand:
                self.phase, self.to_act = "single", self.first
            else:
                self._doubling()
        elif self.phase == "single":
            if a.kind == "single":
                self.phase, self.leader = "play", s
            else:
                self.singles += 1
                if self.singles == 4:
                    self._doubling()
                else:
                    self.to_act = nxt(r, s)
        elif self.phase == "double":
            if a.kind == "double":
                assert self.bidder is not None
                self.doubler = s
                self.phase, self.to_act = "redouble", self.bidder
            elif self.offers:
                self.to_act = self.offers.pop(0)
            else:
                self._play()
        elif self.phase == "redouble":
            if a.kind == "redouble" and r.allow_set:
                assert self.doubler is not None
                self.phase, self.to_act = "set", self.doubler
            else:
                self._play()
        elif self.phase == "set":
            self._play()
        return None

    def _duel(self, a: Action) -> None:
        r, s = self.r, a.seat
        amount = a.value if a.kind == "bid" else 0
        assert amount is not None
        if self.holder is None:  # opening
            self.pending.pop(0)
            if amount:
                self.holder, self.high = s, amount
                if amount == r.max_bid:
                    return self._win(s, amount)
            elif self._all_passed(4 - len(self.pending)):
                return None
        elif s == self.holder:  # the defender answers
            if amount:  # matches
                self.high, self.challenge = amount, 0
                if amount == r.max_bid:
                    return self._win(s, amount)
                self.to_act = self.pending[0]
                return None
            self.holder, self.high, self.challenge = self.pending.pop(0), self.challenge, 0
            if self.high == r.max_bid:
                return self._win(self.holder, self.high)
        else:  # a challenger
            if amount:
                self.challenge = amount
                self.to_act = self.holder
                return None
            self.pending.pop(0)
        if not self.pending:
            assert self.holder is not None
            return self._win(self.holder, self.high)
        self.to_act = self.pending[0]
        return None

    def _doubling(self) -> None:
        r = self.r
        assert self.bidder is not None
        if not r.doubling:
            return self._play()
        if r.double_by == "bidder_right":
            self.offers = [(self.bidder + 3) % 4]
        else:
            first = nxt(r, self.bidder)
            self.offers = [first, (first + 2) % 4]
        self.phase, self.to_act = "double", self.offers.pop(0)
        return None

    def _play(self) -> None:
        self.phase, self.leader = "play", self.first


Key = tuple[int, str, Any]


def key_of(a: Action) -> Key:
    """An action as (seat, key, value) from its record form: no engine card encoding."""
    js = a.to_json()
    (name,) = (k for k in js if k != "seat")
    return js["seat"], name, js[name]


class TableModel(FrontModel):
    """The front model, continued through the play (RULES.md 2.7-2.9 and 8).

    Tracks hands, tricks, the reveal and the pair window by itself, from the
    record's text; it does not decide when a deal ends early (the engine
    does, and other tests check that).
    """

    def __init__(self, rules: Rules, dealer: int, hands: list[list[str]]) -> None:
        super().__init__(rules, dealer)
        self.hands = hands
        self.held = [set(h[:4]) for h in hands]
        self.trump_suit: str | None = None
        self.single: int | None = None
        self.trick: list[tuple[int, str]] = []
        self.tricks_done = 0
        self.revealed_in: int | None = None
        self.asked: int | None = None
        self.declared = False
        self.window: int | None = None

    def keys(self) -> set[Key] | None:
        front = self.legal()
        if front is not None:
            return {key_of(a) for a in front}
        if self.phase != "play":
            return None
        if self.window is not None:
            return {(self.window, "pair", True), (self.window, "pass", True)}
        s = self.to_act
        hand = self.held[s]
        cards = set(hand)
        can_follow = True
        if self.trick:
            led = self.trick[0][1][1]
            follow = {c for c in hand if c[1] == led}
            can_follow = bool(follow)
            if follow:
                cards = follow
            elif self.asked == s:
                cards = self.obligation(s)
        out: set[Key] = {(s, "play", c) for c in cards}
        if (
            self.r.reveal == "ask"
            and self.revealed_in is None
            and self.single is None
            and self.trick
            and not can_follow
            and self.asked != s
        ):
            out.add((s, "reveal", True))
        return out

    def obligation(self, s: int) -> set[str]:
        """RULES.md 8: after asking, a trump that beats the table, else any trump."""
        hand = self.held[s]
        trumps = {c for c in hand if c[1] == self.trump_suit}
        if not trumps:
            return set(hand)
        cards = [c for _, c in self.trick]
        w = winning_index(cards, self.trump_suit)
        best = cards[w]
        if best[1] == self.trump_suit and self.trick[w][0] == (s + 2) % 4:
            return trumps
        beating = {c for c in trumps if best[1] != self.trump_suit or beats(c, best)}
        return beating or trumps

    def apply(self, a: Action) -> None:
        if self.phase == "trump":
            self.trump_suit = (
                self.hands[a.seat][6][1] if a.kind == "seventh" else key_of(a)[2]
            )  # the seventh card is the third of the second batch
            self.held = [set(h) for h in self.hands]
        if self.phase != "play":
            super().apply(a)
            if self.phase == "play":
                if a.kind == "single":
                    self.single = a.seat
                assert self.leader is not None
                self.to_act = self.leader
            return
        _, name, value = key_of(a)
        if name in ("pair", "pass"):
            self.declared = self.declared or name == "pair"
            self.window = None
            assert self.leader is not None
            self.to_act = self.leader
            return
        if name == "reveal":
            self.revealed_in, self.asked = self.tricks_done + 1, a.seat
            return
        self.held[a.seat].discard(value)
        self.trick.append((a.seat, value))
        size = 4 if self.single is None else 3
        if len(self.trick) < size:
            n = nxt(self.r, a.seat)
            if self.single is not None and n == (self.single + 2) % 4:
                n = nxt(self.r, n)
            self.to_act = n
            led = self.trick[0][1][1]
            if (
                self.r.reveal == "auto"
                and self.revealed_in is None
                and self.single is None
                and not any(c[1] == led for c in self.held[n])
            ):
                self.revealed_in = self.tricks_done + 1
            return
        self.tricks_done += 1
        cards = [c for _, c in self.trick]
        active = self.trump_suit if self.revealed_in is not None else None
        winner = self.trick[winning_index(cards, active)][0]
        self.trick, self.asked = [], None
        self.leader = self.to_act = winner
        if self.single is not None or self.revealed_in is None or self.declared:
            return
        if self.r.pair == "off" or self.tricks_done == 8:
            return
        pair = {"K" + self.trump_suit, "Q" + self.trump_suit}
        for s in range(4):
            if pair <= self.held[s] and s % 2 == winner % 2:
                self.window = self.to_act = s


def run_table_model(
    rules: Rules, seed: int, ch: Chooser, play_phase: bool, policy: Policy | None = None
) -> None:
    """Compare the engine's turn and legal actions with the model at every step."""
    model: TableModel | None = None
    current: Deal | None = None
    for match, action in steps(rules, seed, ch, max_deals=8, policy=policy):
        deal = match.deal
        if deal is not current:
            hands = [[card_text(c) for c in h] for h in deal.hands]
            current, model = deal, TableModel(rules, deal.dealer, hands)
        assert model is not None
        expected = model.keys()
        assert expected is not None
        if (model.phase == "play") == play_phase:
            got = [key_of(a) for a in deal.legal_actions()]
            where = (model.phase, [key_of(a) for a in deal.log])
            assert deal.to_act == model.to_act, where
            assert set(got) == expected, where
            assert len(got) == len(expected), "an action is listed twice"
        match.apply(action)
        model.apply(action)
        if deal.is_over():
            if model.void:
                assert deal.result == "cancelled" and deal.bidder < 0
            continue
        if model.bidder is not None:
            assert (deal.bidder, deal.bid, deal.forced) == (model.bidder, model.bid, model.forced)
        if model.trump_suit is not None and deal.trump >= 0:
            assert "SHDC"[deal.trump] == model.trump_suit
        if model.phase == "play":
            assert deal.single == (-1 if model.single is None else model.single)
            assert (deal.revealed_in_trick or None) == model.revealed_in


@SETTINGS
@given(rules=rules_strategy(), seed=seeds, ch=choosers)
def test_auction_trump_single_and_doubling_follow_the_turn_order(
    rules: Rules, seed: int, ch: Chooser
) -> None:
    run_table_model(rules, seed, ch, play_phase=False)


@SETTINGS
@given(rules=rules_strategy(reveal=st.sampled_from(REVEALS)), seed=seeds, ch=choosers)
def test_play_must_follow_suit_and_asked_reveal_must_trump(
    rules: Rules, seed: int, ch: Chooser
) -> None:
    run_table_model(rules, seed, ch, play_phase=True)


@SETTINGS
@given(
    rules=rules_strategy(reveal=st.just("ask"), single_hand=st.just(False)),
    seed=seeds,
    ch=choosers,
)
def test_asked_reveal_obliges_a_trump_that_beats_the_table(
    rules: Rules, seed: int, ch: Chooser
) -> None:
    run_table_model(rules, seed, ch, play_phase=True, policy=trump_discarder)
