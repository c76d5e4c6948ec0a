"""Property tests over random games (RULES.md sections 1-3 and 6-8).

Each test draws a profile, a valid random set of option overrides, a deck
seed and a stream of choices, plays a seeded match with random legal actions
and checks one rule against an independent implementation written here.
Cards are compared as text ("JS") and ranked with the order of RULES.md, not
with the engine's encoding.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from twentynine.game import record
from twentynine.game.actions import KINDS, Action
from twentynine.game.cards import card_text
from twentynine.game.engine import Deal, IllegalAction
from twentynine.game.match import Match
from twentynine.game.observation import event_view, observe
from twentynine.game.rules import (
    ALL_PASS,
    AUCTIONS,
    DIRECTIONS,
    DOUBLE_BY,
    OPTION_NAMES,
    PAIRS,
    PROFILES,
    REVEALS,
    UNREVEALED,
    Rules,
    RulesError,
    resolve,
)

# --------------------------------------------------------------------------- rules
RANK_ORDER = "J9ATKQ87"  # high to low, as in RULES.md section 1
CARD_POINTS = {"J": 3, "9": 2, "A": 1, "T": 1, "K": 0, "Q": 0, "8": 0, "7": 0}
CARD_RE = re.compile(r"^[J9ATKQ87][SHDC]$")

SETTINGS = settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
# for the tests that look at every step from five seats
HEAVY = settings(SETTINGS, max_examples=40)

OPTION_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "direction": st.sampled_from(DIRECTIONS),
    "min_bid": st.integers(10, 29),
    "max_bid": st.integers(14, 30),
    "auction": st.sampled_from(AUCTIONS),
    "all_pass": st.sampled_from(ALL_PASS),
    "reveal": st.sampled_from(REVEALS),
    "seventh_card": st.booleans(),
    "single_hand": st.one_of(st.booleans(), st.integers(1, 5)),
    "doubling": st.booleans(),
    "double_by": st.sampled_from(DOUBLE_BY),
    "allow_set": st.booleans(),
    "pair": st.sampled_from(PAIRS),
    "last_trick_point": st.booleans(),
    "unrevealed": st.sampled_from(UNREVEALED),
    "under_half": st.booleans(),
    "auto_double_from": st.one_of(st.none(), st.integers(10, 29)),
    "early_end": st.booleans(),
    "match_target": st.one_of(st.none(), st.integers(1, 6)),
}
assert set(OPTION_VALUES) == set(OPTION_NAMES)


@st.composite
def rules_strategy(draw: st.DrawFn, **forced: st.SearchStrategy[Any]) -> Rules:
    """A profile with a random subset of overrides, keeping only valid ones.

    ``forced`` options are drawn last and always set, to aim a test at a rule
    (``auto_double_from`` is then moved into the bid range).
    """
    profile = draw(st.sampled_from(sorted(PROFILES)))
    order = draw(st.permutations(OPTION_NAMES))
    kept: dict[str, Any] = {}
    for name in order:
        if draw(st.integers(0, 9)) >= 3:  # each option is overridden 30% of the time
            continue
        value = draw(OPTION_VALUES[name])
        try:
            resolve(profile, {**kept, name: value})
        except RulesError:
            continue  # an invalid combination: skip this override
        kept[name] = value
    rules = resolve(profile, kept)
    applied: dict[str, Any] = {}
    for name, strategy in forced.items():
        value = draw(strategy)
        if name == "auto_double_from" and value is not None:
            value = rules.min_bid + value % (rules.max_bid - rules.min_bid + 1)
        applied[name] = value
        try:
            rules = rules.with_options(**{name: value})
        except RulesError:  # it contradicts a random override: drop those
            rules = resolve(profile, applied)
    return rules


class Chooser:
    """A stream of choices: Hypothesis-drawn numbers first, then a seeded RNG."""

    def __init__(self, prefix: list[int], seed: int) -> None:
        self.prefix = prefix
        self.seed = seed
        self.i = 0
        self.rng = random.Random(seed)

    def __repr__(self) -> str:
        return f"Chooser({self.prefix!r}, {self.seed})"

    def random(self) -> float:
        if self.i < len(self.prefix):
            self.i += 1
            return self.prefix[self.i - 1] / 1000
        return self.rng.random()

    def below(self, n: int) -> int:
        return min(int(self.random() * n), n - 1)

    def pick(self, items: list[Any]) -> Any:
        return items[self.below(len(items))]


choosers = st.builds(Chooser, st.lists(st.integers(0, 999), max_size=40), st.integers(0, 2**32 - 1))
seeds = st.integers(0, 2**32 - 1)

KIND_WEIGHTS = {"single": 0.15, "reveal": 0.5}


def choose(legal: list[Action], ch: Chooser) -> Action:
    kinds = sorted({a.kind for a in legal}, key=KINDS.index)
    weights = [KIND_WEIGHTS.get(k, 1.0) for k in kinds]
    x = ch.random() * sum(weights)
    kind = kinds[-1]
    for k, w in zip(kinds, weights, strict=True):
        if x < w:
            kind = k
            break
        x -= w
    of_kind = [a for a in legal if a.kind == kind]
    if kind == "bid" and ch.random() < 0.5:
        return min(of_kind, key=lambda a: a.value or 0)  # low bids get made more often
    return ch.pick(of_kind)


Policy = Callable[[Match, list[Action], Chooser], Action]


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


def steps(
    rules: Rules,
    seed: int,
    ch: Chooser,
    max_actions: int = 2000,
    max_deals: int = 25,
    policy: Policy | None = None,
) -> Iterator[tuple[Match, Action]]:
    """Play a seeded match; yield (match, action) before each action is applied.

    The caller may inspect the match, then the action is applied when the
    generator resumes. With ``match_target: null`` deals are started by hand.
    """
    match = Match(rules, seed=seed)
    done = 0
    while match.winner is None and done < max_actions:
        if match.needs_deal:
            if len(match.deals) >= max_deals:
                return
            match.start_deal()
            continue
        if len(match.deals) > max_deals:
            return
        legal = match.legal_actions()
        action = policy(match, legal, ch) if policy else choose(legal, ch)
        yield match, action
        done += 1


def play(rules: Rules, seed: int, ch: Chooser, **kw: Any) -> Match:
    match = None
    for match, action in steps(rules, seed, ch, **kw):
        match.apply(action)
    if match is None:  # no action at all (cannot happen: a deal starts with a turn)
        match = Match(rules, seed=seed)
    return match


def nxt(rules: Rules, seat: int) -> int:
    return (seat + 1) % 4 if rules.direction == "clockwise" else (seat + 3) % 4


def beats(a: str, b: str) -> bool:
    """``a`` ranks above ``b`` (same suit assumed)."""
    return RANK_ORDER.index(a[0]) < RANK_ORDER.index(b[0])


def best_of(cards: list[str]) -> str:
    best = cards[0]
    for c in cards[1:]:
        if beats(c, best):
            best = c
    return best


def winning_index(cards: list[str], trump: str | None) -> int:
    """Independent trick rule: highest trump if any (when active), else highest of suit led."""
    if trump is not None:
        trumps = [c for c in cards if c[1] == trump]
        if trumps:
            return cards.index(best_of(trumps))
    led = [c for c in cards if c[1] == cards[0][1]]
    return cards.index(best_of(led))


def card_points(cards: list[str]) -> int:
    return sum(CARD_POINTS[c[0]] for c in cards)


def pair_target(rules: Rules, bid: int, by_bidding_team: bool) -> int:
    """RULES.md section 2.9 and section 8 (bangladesh: 18 or below unchanged ...)."""
    if not by_bidding_team:
        return min(bid + 4, rules.max_bid)
    if rules.pair == "bangladesh":
        if bid <= 18:
            return bid
        if bid <= 20:
            return max(16, rules.min_bid)
        return max(bid - 4, rules.min_bid)
    return max(bid - 4, rules.min_bid)


def all_deals(match: Match) -> list[dict[str, Any]]:
    return [d.verdict() for d in match.deals]


# ----------------------------------------------------------------- 1. card points
@SETTINGS
@given(rules=rules_strategy(), seed=seeds, ch=choosers)
def test_card_points_add_up_to_28_or_29(rules: Rules, seed: int, ch: Chooser) -> None:
    match = play(rules, seed, ch)
    total = 28 + (1 if rules.last_trick_point else 0)
    for d in match.deals:
        v = d.verdict()
        pts = v["points"]
        assert pts[0] >= 0 and pts[1] >= 0
        assert sum(t["points"] for t in v["tricks"]) == sum(pts)
        for team in (0, 1):
            won = [t["points"] for t in v["tricks"] if t["winner"] % 2 == team]
            assert pts[team] == sum(won)
        assert v["tricks_played"] == len(v["tricks"])
        if v["result"] == "in-progress":
            assert sum(pts) <= total
        elif v["tricks_played"] == 8 and v["single"] is None:
            assert sum(pts) == total, v
        else:  # single hand, early end, redeal: stopped earlier
            assert v["tricks_played"] < 8 or v["single"] is not None
            assert sum(pts) <= total
            if v["tricks_played"] < 8:
                # nobody gets the last-trick point when the eighth trick is unplayed
                assert sum(pts) <= 28


# ----------------------------------------------------------------- 2. trick winners
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


# ------------------------------------------------------------ 3. stake and delta
def check_stake(rules: Rules, v: dict[str, Any]) -> None:
    result = v["result"]
    stake, delta = v["stake"], v["delta"]
    assert v["doubling"] in (1, 2, 4, 6)
    if not rules.doubling or v["single"] is not None:
        assert v["doubling"] == 1
    if v["doubling"] == 6:
        assert rules.allow_set
    if result == "cancelled":
        assert stake == 0 and delta == [0, 0]
        if v["bidder"] is None:
            assert rules.all_pass == "redeal"
        else:
            assert rules.unrevealed == "cancel" and v["revealed_in_trick"] is None
        return
    assert v["bidder"] is not None and v["bid"] is not None
    assert rules.min_bid <= v["bid"] <= rules.max_bid
    if v["single"] is not None:
        team = v["single"] % 2
        assert result in ("single-made", "single-failed")
        assert stake == rules.single_hand_stake > 0
        assert v["target"] is None
        sign = 1 if result == "single-made" else -1
        assert delta[team] == sign * stake and delta[1 - team] == 0
        winners = [t["winner"] for t in v["tricks"]]
        if result == "single-made":
            assert winners == [v["single"]] * 8
        else:  # ends at the first trick the declarer loses
            assert winners[:-1] == [v["single"]] * (len(winners) - 1)
            assert winners[-1] != v["single"]
        return
    if rules.unrevealed == "cancel":
        assert v["revealed_in_trick"] is not None
    team = v["bidder"] % 2
    bid = v["bid"]
    # the target: the bid, moved by the pair
    if v["pair"] is None:
        assert v["target"] == bid
    else:
        assert rules.pair != "off"
        by_bidders = v["pair"]["team"] == team
        assert v["pair"]["team"] == v["pair"]["seat"] % 2
        assert v["target"] == pair_target(rules, bid, by_bidders)
    points = v["points"][team]
    assert result in ("made", "failed")
    assert (result == "made") == (points >= v["target"]), v
    expected = 2 if rules.auto_double_from is not None and bid >= rules.auto_double_from else 1
    expected *= v["doubling"]
    if result == "failed" and rules.under_half and 2 * points < bid:
        expected *= 2
    assert stake == expected, (stake, expected, v)
    assert delta[1 - team] == 0, "the defenders' game points never change"
    assert delta[team] == (stake if result == "made" else -stake)
    if not rules.early_end:
        assert v["tricks_played"] == 8


@SETTINGS
@given(
    rules=rules_strategy(
        under_half=st.booleans(), auto_double_from=st.one_of(st.none(), st.integers(0, 3))
    ),
    seed=seeds,
    ch=choosers,
)
def test_stake_and_delta_follow_result(rules: Rules, seed: int, ch: Chooser) -> None:
    match = play(rules, seed, ch)
    for d in match.deals:
        v = d.verdict()
        if d.is_over():
            check_stake(rules, v)
        else:
            assert v["stake"] is None and v["delta"] == [0, 0]
            assert v["result"] == "in-progress"


# --------------------------------------------------------------- early end
def settled(
    rules: Rules,
    v: dict[str, Any],
    points: list[int],
    tricks_done: int,
    held: list[set[str]],
    revealed: bool,
    pair_declared: bool,
    target: int,
    window_open: bool,
) -> bool:
    """RULES.md section 8, early end: is the result (and the stake) settled now?"""
    if rules.unrevealed == "cancel" and not revealed:
        return False
    trump = v["trump"]
    team = v["bidder"] % 2
    bid = v["bid"]
    holder = None
    if rules.pair != "off" and not pair_declared:
        for s in range(4):
            if "K" + trump in held[s] and "Q" + trump in held[s]:
                holder = s
    targets = {target}
    if holder is not None and (window_open or tricks_done <= 5):
        targets.add(pair_target(rules, bid, holder % 2 == team))
    tmin, tmax = min(targets), max(targets)
    mine = points[team]
    left = 28 - points[0] - points[1]
    if rules.last_trick_point:
        left += 1 if tricks_done < 8 else 0
    if mine >= tmax:
        return True
    if mine + left >= tmin:
        return False
    # with under_half, whether the loss is doubled must be settled too
    return not (rules.under_half and 2 * (mine + left) >= bid and 2 * mine < bid)


def check_early_end(rules: Rules, rec: dict[str, Any], v: dict[str, Any]) -> None:
    """The deal stops at the first settled check point, and only then."""
    if v["bidder"] is None or v["single"] is not None or v["result"] == "cancelled":
        return
    held = [set(h) for h in rec["hands"]]
    points = [0, 0]
    trick: list[tuple[int, str]] = []
    tricks_done = 0
    pair_declared = False
    target = v["bid"]
    revealed_in = v["revealed_in_trick"]
    actions = rec["actions"]
    check_points: list[tuple[int, bool]] = []  # (index of the last action, settled)
    for idx, a in enumerate(actions):
        if "pair" in a or ("pass" in a and tricks_done > 0 and not trick):
            # a pair decision (the only pass possible between tricks)
            if "pair" in a:
                pair_declared = True
                target = pair_target(rules, v["bid"], a["seat"] % 2 == v["bidder"] % 2)
            revealed = revealed_in is not None and revealed_in <= tricks_done
            check_points.append(
                (
                    idx,
                    settled(
                        rules, v, points, tricks_done, held, revealed, pair_declared, target, False
                    ),
                )
            )
            continue
        if "play" not in a:
            continue
        held[a["seat"]].discard(a["play"])
        trick.append((a["seat"], a["play"]))
        if len(trick) < 4:
            continue
        tricks_done += 1
        cards = [c for _, c in trick]
        active = v["trump"] if revealed_in is not None and tricks_done >= revealed_in else None
        winner = trick[winning_index(cards, active)][0]
        points[winner % 2] += card_points(cards) + (
            1 if tricks_done == 8 and rules.last_trick_point else 0
        )
        trick = []
        if tricks_done == 8:
            break
        revealed = revealed_in is not None and revealed_in <= tricks_done
        window = False
        if revealed and rules.pair != "off" and not pair_declared:
            for s in range(4):
                if "K" + v["trump"] in held[s] and "Q" + v["trump"] in held[s]:
                    window = s % 2 == winner % 2
        check_points.append(
            (
                idx,
                settled(
                    rules, v, points, tricks_done, held, revealed, pair_declared, target, window
                ),
            )
        )
    assert points == v["points"]
    last = len(actions) - 1
    for idx, is_settled in check_points:
        if idx < last:
            assert not is_settled, f"the deal was settled at action {idx} but went on"
        else:
            assert is_settled, f"the deal ended at action {idx} before it was settled"


@SETTINGS
@given(
    rules=rules_strategy(
        min_bid=st.integers(6, 16),  # low bids: targets within reach of random play
        early_end=st.just(True),
        pair=st.sampled_from(PAIRS),
        under_half=st.booleans(),
    ),
    seed=seeds,
    ch=choosers,
)
def test_early_end_stops_exactly_when_result_and_stake_are_settled(
    rules: Rules, seed: int, ch: Chooser
) -> None:
    match = play(rules, seed, ch)
    rec = json.loads(record.dumps(match))
    for d, drec in zip(match.deals, rec["deals"], strict=True):
        if d.is_over():
            check_early_end(rules, drec, d.verdict())


# ------------------------------------------------------------ 4. match end
@SETTINGS
@given(
    rules=rules_strategy(match_target=st.one_of(st.none(), st.integers(1, 4))),
    seed=seeds,
    ch=choosers,
)
def test_match_ends_exactly_when_a_team_reaches_plus_or_minus_target(
    rules: Rules, seed: int, ch: Chooser
) -> None:
    match = play(rules, seed, ch, max_deals=60)
    target = rules.match_target
    score = [0, 0]
    expected_winner = None
    for i, d in enumerate(match.deals):
        if i > 0:  # the deal passes on, cancelled deals included
            assert d.dealer == nxt(rules, match.deals[i - 1].dealer)
        assert expected_winner is None, f"deal {i} was started after the match was decided"
        if not d.is_over():
            assert i == len(match.deals) - 1
            break
        score[0] += d.delta[0]
        score[1] += d.delta[1]
        if target is not None:
            for team in (0, 1):
                if score[team] >= target:
                    expected_winner = team
                elif score[team] <= -target:
                    expected_winner = 1 - team
    assert match.score == score
    assert match.winner == expected_winner
    if expected_winner is not None:
        assert match.is_over()
        assert match.legal_actions() == []
        assert match.to_act == -1
        with pytest.raises(IllegalAction):
            match.apply(Action.pass_(0))
        assert match.needs_deal is False
    elif target is not None:
        assert not match.is_over()
    verdict = record.replay_text(record.dumps(match)).data
    assert verdict["winner"] == expected_winner
    assert verdict["score"] == score


# ------------------------------------------------------------ 5. observations
def played_cards(deal: Deal) -> list[tuple[int, str]]:
    return [
        (a.seat, card_text(a.value)) for a in deal.log if a.kind == "play" and a.value is not None
    ]


def cards_in(obj: Any) -> set[str]:
    """Every string in a JSON value that is a card."""
    out: set[str] = set()
    if isinstance(obj, str):
        if CARD_RE.match(obj):
            out.add(obj)
    elif isinstance(obj, dict):
        for k, x in obj.items():
            out |= cards_in(k) | cards_in(x)
    elif isinstance(obj, list | tuple):
        for x in obj:
            out |= cards_in(x)
    return out


def check_observations(match: Match) -> None:
    deal = match.deal
    over = deal.is_over()
    plays = played_cards(deal)
    played = {c for _, c in plays}
    revealed = deal.revealed_in_trick > 0
    bidder = deal.bidder if deal.bidder >= 0 else None
    trump = "SHDC"[deal.trump] if deal.trump >= 0 else None
    for seat in (None, 0, 1, 2, 3):
        obs = observe(match, seat)
        js = obs.to_json()
        json.dumps(js)
        # the cards on the table are played cards, and all of them
        table = [card_text(c) for t in obs.tricks for c in t[1]] + [
            card_text(c) for _, c in obs.trick
        ]
        assert sorted(table) == sorted(played)
        if seat is None:
            assert obs.hand == ()
            assert obs.legal == ()
            own: set[str] = set()
        else:
            dealt = deal.hands[seat] if deal.second_batch else deal.hands[seat][:4]
            own = {card_text(c) for c in dealt} - {c for s, c in plays if s == seat}
            assert {card_text(c) for c in obs.hand} == own
            assert len(obs.hand) == len(own)
        if not over:
            assert obs.hands is None
            # nothing in the view names a card of another hand
            assert cards_in(js) <= own | played, cards_in(js) - own - played
        # the trump suit
        may_know = (
            revealed
            or over
            or (seat is not None and seat == bidder and (not deal.seventh or deal.second_batch))
        )
        if obs.trump is not None:
            assert may_know, f"seat {seat} sees the hidden trump"
            assert "SHDC"[obs.trump] == trump
        elif trump is not None:
            assert not may_know, f"seat {seat} should know the trump"
        if trump is not None and not may_know:
            assert js["trump"] is None
        # whose turn: a pair decision is private
        if deal.phase == "pair":
            if seat == deal.to_act:
                assert obs.to_act == seat and obs.phase == "pair"
                assert set(obs.legal) == set(deal.legal_actions())
            else:
                assert obs.to_act is None and obs.phase != "pair"
                assert obs.legal == ()
        elif not over:
            assert obs.to_act == deal.to_act
            if seat == deal.to_act:
                assert list(obs.legal) == deal.legal_actions()
            else:
                assert obs.legal == ()


@HEAVY
@given(rules=rules_strategy(), seed=seeds, ch=choosers)
def test_observation_shows_only_own_hand_and_known_trump(
    rules: Rules, seed: int, ch: Chooser
) -> None:
    for match, action in steps(rules, seed, ch, max_deals=4):
        check_observations(match)
        match.apply(action)
        if match.deals[-1].is_over():
            check_observations(match)


# ------------------------------------------------------------ 6. event views
def check_events(deal: Deal, events: list[dict[str, Any]], before_played: set[str]) -> None:
    bidder = deal.bidder if deal.bidder >= 0 else None
    revealed = deal.revealed_in_trick > 0
    played_now = before_played | {
        card_text(e["card"]) for e in events if e.get("type") == "play" and "card" in e
    }
    for ev in events:
        for seat in (None, 0, 1, 2, 3):
            view = event_view(ev, seat)
            if view is None:
                continue
            json.dumps(view)
            assert not any(k.startswith("_") for k in view)
            if seat is None:
                own: set[str] = set()
            else:
                own = {card_text(c) for c in deal.hands[seat]}
            assert cards_in(view) <= own | played_now, (ev["type"], seat, view)
            if ev["type"] == "second_batch":
                if seat is None:
                    assert "cards" not in view
                else:
                    assert view["cards"] == [card_text(c) for c in deal.hands[seat][4:]]
            if ev["type"] == "trump_chosen":
                if seat == bidder and not deal.seventh:
                    assert view["trump"] == "SHDC"[deal.trump]
                else:
                    assert "trump" not in view, f"seat {seat} sees the chosen trump"
            if ev["type"] == "second_batch" and deal.seventh:
                if seat == bidder:
                    assert view["trump"] == "SHDC"[deal.trump]
                else:
                    assert "trump" not in view
            if "trump" in view and ev["type"] not in ("reveal", "pair"):
                assert seat == bidder or revealed, (ev, seat)
            if ev["type"] == "pass" and ev.get("stage") == "pair":
                assert seat == ev["seat"], "a declined pair is shown to another seat"
        if ev["type"] == "pass" and ev.get("stage") == "pair":
            assert event_view(ev, None) is None


@SETTINGS
@given(rules=rules_strategy(), seed=seeds, ch=choosers)
def test_event_view_shows_second_batch_and_trump_only_to_their_owner(
    rules: Rules, seed: int, ch: Chooser
) -> None:
    for match, action in steps(rules, seed, ch, max_deals=6):
        deal = match.deal
        before = {c for _, c in played_cards(deal)}
        events = match.apply(action)
        check_events(deal, events, before)


# ------------------------------------------------------------ 7. replay
@SETTINGS
@given(rules=rules_strategy(), seed=seeds, ch=choosers, stop=st.integers(0, 700))
def test_replaying_the_record_reproduces_the_verdict(
    rules: Rules, seed: int, ch: Chooser, stop: int
) -> None:
    match = play(rules, seed, ch, max_actions=stop)
    text = record.dumps(match)
    verdict = record.replay_text(text)
    expected = {
        "ok": True,
        "deals": all_deals(match),
        "score": match.score,
        "winner": match.winner,
        "complete": all(d.is_over() for d in match.deals),
    }
    assert verdict.exit_status == 0
    assert verdict.data == expected
    assert json.loads(json.dumps(verdict.data)) == verdict.data
    # the replayed match is the same game: it continues the same way
    again = record.loads(text)
    assert again.legal_actions() == match.legal_actions()
    assert again.to_act == match.to_act
    assert again.score == match.score
    assert again.winner == match.winner


# ------------------------------------------------------------ 8. illegal actions
def candidate_actions() -> list[Action]:
    """Every action shape, most of them illegal at any given moment."""
    out: list[Action] = []
    for s in range(4):
        out.extend(Action.bid(s, b) for b in (-1, 0, 1, 9, 14, 15, 16, 20, 28, 29, 30, 35))
        out.extend(Action.play(s, c) for c in range(32))
        out.extend(Action.trump(s, t) for t in range(4))
        out.extend(Action.flag(s, k) for k in ("pass", "seventh", "single", "double"))
        out.extend(Action.flag(s, k) for k in ("redouble", "set", "pair", "reveal"))
        out.append(Action(s, "play", 32))
        out.append(Action(s, "play", None))
        out.append(Action(s, "nonsense"))
    return out


def off_suit_plays(deal: Deal) -> list[Action]:
    """Cards the seat to act holds but may not play because it must follow suit."""
    if deal.phase != "play" or not deal.trick_cards:
        return []
    seat = deal.to_act
    led = deal.trick_cards[0] >> 3
    held = [c for c in range(32) if deal.held[seat] >> c & 1]
    if not any(c >> 3 == led for c in held):
        return []
    return [Action.play(seat, c) for c in held if c >> 3 != led]


def fingerprint(match: Match) -> Any:
    deal = match.deal
    return (
        record.dumps(match),
        json.dumps(record.verdict_of(match)),
        tuple(match.legal_actions()),
        match.to_act,
        tuple(match.score),
        match.winner,
        len(match.deals),
        {name: repr(getattr(deal, name)) for name in Deal.__slots__},
    )


@SETTINGS
@given(rules=rules_strategy(), seed=seeds, ch=choosers, probe=choosers)
def test_illegal_action_raises_and_changes_nothing(
    rules: Rules, seed: int, ch: Chooser, probe: Chooser
) -> None:
    tried = 0
    for match, action in steps(rules, seed, ch, max_deals=3):
        if probe.random() < 0.15:
            legal = set(match.legal_actions())
            deal = match.deal
            off_suit = off_suit_plays(deal)
            pool = [a for a in candidate_actions() if a not in legal]
            bad = probe.pick(off_suit) if off_suit and probe.random() < 0.3 else probe.pick(pool)
            assert bad not in legal
            before = fingerprint(match)
            with pytest.raises(IllegalAction) as err:
                match.apply(bad)
            assert str(err.value)
            if deal.phase == "pair" and bad.seat != deal.to_act:
                # the refusal must not name the seat that holds the pair
                assert f"seat {deal.to_act}" not in str(err.value)
            assert fingerprint(match) == before, f"{bad} changed the state"
            tried += 1
        match.apply(action)
    # after the end of a match (or of a single deal) nothing is legal
    if match.winner is not None or match.deal.is_over():
        before = fingerprint(match)
        with pytest.raises(IllegalAction):
            match.apply(Action.pass_(0))
        assert fingerprint(match) == before


# ------------------------------------------------------------ 9. clone
@SETTINGS
@given(rules=rules_strategy(), seed=seeds, ch=choosers, probe=choosers)
def test_clone_is_independent_of_the_original(
    rules: Rules, seed: int, ch: Chooser, probe: Chooser
) -> None:
    for match, action in steps(rules, seed, ch, max_deals=3):
        if probe.random() < 0.1:
            before = fingerprint(match)
            twin = match.clone()
            assert fingerprint(twin) == before
            deal_twin = match.deal.clone()
            for _ in range(probe.below(60) + 1):
                if twin.winner is not None or twin.needs_deal:
                    break
                twin.apply(choose(twin.legal_actions(), probe))
            for _ in range(probe.below(60) + 1):
                if deal_twin.is_over():
                    break
                deal_twin.apply(choose(deal_twin.legal_actions(), probe))
            assert fingerprint(match) == before, "acting on a clone changed the original"
            # the same action on the original and a fresh clone gives the same state
            other = match.clone()
            events = match.apply(action)
            assert other.apply(action) == events
            assert fingerprint(other) == fingerprint(match)
            continue
        match.apply(action)
