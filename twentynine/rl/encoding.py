"""Fixed action ids and the flat information-state tensor of one seat.

Learning code wants the same shapes for every variant, so both the action
space and the tensor are fixed across every profile and option: a variant
only changes which ids are ever legal and what the ``rules`` slice says.
The tensor is built from an ``Observation`` (the engine's single door for
hidden information) plus the seat's own first batch, so whatever it holds
the seat was allowed to see.

Seats inside the tensor are *relative*: 0 is the observer, 1 the next
player in the order of play, 2 the partner, 3 the player before. The same
table position then means the same thing in clockwise and anticlockwise
profiles, and from every seat.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence

import numpy as np

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
from ..game.cards import NUM_CARDS, SUITS, card_text
from ..game.engine import MULTIPLIER, contract_stake
from ..game.observation import Observation
from ..game.rules import ABSOLUTE_MAX_BID, Rules

# ----------------------------------------------------------------- action ids
PLAY_BASE = 0  # 0..31: play card c (the engine's card number)
BID_BASE = NUM_CARDS - 1  # 32..60: bid b is 31 + b, b = 1..29
PASS_ID = BID_BASE + ABSOLUTE_MAX_BID + 1  # 61: every kind of pass
TRUMP_BASE = PASS_ID + 1  # 62..65: trumps S H D C
SEVENTH_ID = TRUMP_BASE + 4  # 66
SINGLE_ID = SEVENTH_ID + 1  # 67
DOUBLE_ID = SINGLE_ID + 1  # 68
REDOUBLE_ID = DOUBLE_ID + 1  # 69
SET_ID = REDOUBLE_ID + 1  # 70
PAIR_ID = SET_ID + 1  # 71
REVEAL_ID = PAIR_ID + 1  # 72
NUM_ACTIONS = REVEAL_ID + 1  # 73

_FLAG_IDS = {
    PASS: PASS_ID,
    SEVENTH: SEVENTH_ID,
    SINGLE: SINGLE_ID,
    DOUBLE: DOUBLE_ID,
    REDOUBLE: REDOUBLE_ID,
    SET: SET_ID,
    PAIR: PAIR_ID,
    REVEAL: REVEAL_ID,
}
_ID_FLAGS = {v: k for k, v in _FLAG_IDS.items()}


def action_id(action: Action) -> int:
    """The fixed id of an engine action (the seat is not part of the id)."""
    kind = action.kind
    if kind == PLAY:
        assert action.value is not None
        return PLAY_BASE + action.value
    if kind == BID:
        assert action.value is not None
        return BID_BASE + action.value
    if kind == TRUMP:
        assert action.value is not None
        return TRUMP_BASE + action.value
    return _FLAG_IDS[kind]


def to_action(seat: int, aid: int) -> Action:
    """The engine action of ``seat`` for id ``aid`` (0 <= aid < NUM_ACTIONS)."""
    return _ACTIONS[seat][aid]


def _make_action(seat: int, aid: int) -> Action:
    if aid < BID_BASE + 1:
        return Action.play(seat, aid - PLAY_BASE)
    if aid < PASS_ID:
        return Action.bid(seat, aid - BID_BASE)
    if TRUMP_BASE <= aid < SEVENTH_ID:
        return Action.trump(seat, aid - TRUMP_BASE)
    return Action.flag(seat, _ID_FLAGS[aid])


_ACTIONS = tuple(tuple(_make_action(s, a) for a in range(NUM_ACTIONS)) for s in range(4))


def action_name(aid: int) -> str:
    """Short text of an action id: ``play JS``, ``bid 17``, ``pass``, ``trump H``."""
    if not 0 <= aid < NUM_ACTIONS:
        return f"{aid} (not an action id)"
    if aid < BID_BASE + 1:
        return f"play {card_text(aid)}"
    if aid < PASS_ID:
        return f"bid {aid - BID_BASE}"
    if TRUMP_BASE <= aid < SEVENTH_ID:
        return f"trump {SUITS[aid - TRUMP_BASE]}"
    return _ID_FLAGS[aid]


def legal_ids(legal: Iterable[Action]) -> list[int]:
    return [action_id(a) for a in legal]


# The engine hands out interned actions (``Action.play(seat, card)`` is always the
# same object), so the id of a legal action is one lookup by identity.
_ID_OF = {id(to_action(seat, aid)): aid for seat in range(4) for aid in range(NUM_ACTIONS)}


def action_mask(legal: Iterable[Action]) -> np.ndarray:
    """The int8 mask over the fixed action ids of these legal actions."""
    m = bytearray(NUM_ACTIONS)
    ids = _ID_OF
    for a in legal:
        aid = ids.get(id(a))
        m[action_id(a) if aid is None else aid] = 1
    return np.frombuffer(m, np.int8)


# ------------------------------------------------------------- tensor layout
RULE_FEATURES = (
    "min_bid/29",
    "max_bid/29",
    "auction duel",
    "all_pass dealer_forced",
    "all_pass first_forced",
    "all_pass redeal",
    "reveal ask",
    "seventh_card",
    "single_hand allowed",
    "doubling",
    "double_by bidder_right",
    "allow_set",
    "pair standard",
    "pair bangladesh",
    "last_trick_point",
    "unrevealed score",
    "under_half",
    "auto_double_from/29 (0: none)",
    "early_end",
    "match (a match_target is set)",
    "anticlockwise",
)
PHASES = ("auction", "trump", "single", "double", "redouble", "set", "play", "pair", "over")
BIDS = ABSOLUTE_MAX_BID  # one-hot slots for bid values 1..29
MULTIPLIERS = (1, 2, 4, 6)

# (name, size, meaning); the order is the order in the tensor.
SLICES: tuple[tuple[str, int, str], ...] = (
    ("rules", len(RULE_FEATURES), "the options of the game (constant in an episode)"),
    ("seat", 4, "my absolute seat, one-hot"),
    ("phase", len(PHASES), "phase of the deal as I see it, one-hot"),
    ("to_act", 4, "relative seat to act (all zero when the table waits on a private pair call)"),
    ("dealer", 4, "relative seat of the dealer"),
    ("hand", 32, "cards I hold now"),
    ("first_batch", 32, "the four cards I held during the auction"),
    ("played_by", 4 * 32, "card c played by relative seat r (row r), this deal"),
    ("played_in", 8 * 32, "card c played in trick t (row t, from 0), this deal"),
    ("trick_winner", 8 * 4, "relative seat that won trick t (row t)"),
    ("table", 4 * 32, "cards on the table in the current trick, by relative seat"),
    ("trick_leader", 4, "relative seat leading the current trick"),
    ("led_suit", 4, "suit led in the current trick"),
    ("bids", 4 * BIDS, "relative seat r bid b (row r, column b-1)"),
    ("passed", 4, "relative seat's latest call was a pass (duel auction: it is out)"),
    ("standing_bid", BIDS, "highest bid so far (the contract's bid after the auction)"),
    ("high_bidder", 4, "relative seat holding the highest bid"),
    ("duel_defender", 4, "duel auction: relative seat defending the standing bid"),
    ("duel_challenger", 4, "duel auction: relative seat challenging now"),
    ("duel_challenge", BIDS, "duel auction: the challenger's bid the defender may match"),
    ("bidder", 4, "relative seat of the bidder (after the auction)"),
    ("bid", BIDS, "the contract's bid"),
    ("forced", 1, "the bid was forced by the all_pass rule"),
    ("target", BIDS, "the bidding team's target (bid, moved by the pair)"),
    ("trump", 4, "trump suit, when I know it"),
    ("trump_revealed", 1, "trumps are revealed (active)"),
    ("revealed_in", 8, "trick in which trumps were revealed"),
    ("revealer", 4, "relative seat that revealed (or whose turn caused it)"),
    ("asked", 4, "relative seat that asked for the reveal in this trick (reveal=ask)"),
    ("seventh", 1, "the bidder called the seventh card"),
    ("single", 4, "relative seat of the single-hand declarer"),
    ("doubling", len(MULTIPLIERS), "stake multiplier 1, 2, 4, 6, one-hot"),
    ("doubler", 4, "relative seat that doubled"),
    ("pair", 4, "relative seat that declared the pair"),
    ("pair_trick", 8, "tricks played when the pair was declared (1..8 -> 0..7)"),
    ("points", 2, "card points of my team, of the other team, over total points"),
    ("score", 2, "match score of my team, of the other team, over match_target"),
)


def _offsets() -> dict[str, tuple[int, int]]:
    out: dict[str, tuple[int, int]] = {}
    at = 0
    for name, size, _ in SLICES:
        out[name] = (at, size)
        at += size
    return out


OFFSETS = _offsets()
TENSOR_SIZE = sum(size for _, size, _ in SLICES)


def offset(name: str) -> int:
    return OFFSETS[name][0]


def tensor_slice(name: str) -> slice:
    """Where slice ``name`` sits in the flat tensor."""
    start, size = OFFSETS[name]
    return slice(start, start + size)


def max_stake(rules: Rules) -> int:
    """The most game points one deal can move under ``rules``."""
    best = contract_stake(rules, rules.max_bid, max(MULTIPLIER.values()), rules.under_half)
    return max(best, rules.single_hand_stake)


def score_bound(rules: Rules) -> float:
    """Largest |score| / match_target an observation can show: one deal past the line."""
    if rules.match_target is None:
        return 1.0
    return (rules.match_target - 1 + max_stake(rules)) / rules.match_target


def tensor_bounds(rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds of every entry, for a ``Box`` space."""
    low = np.zeros(TENSOR_SIZE, np.float32)
    high = np.ones(TENSOR_SIZE, np.float32)
    s = tensor_slice("score")
    bound = score_bound(rules)
    low[s] = -bound
    high[s] = bound
    return low, high


def rules_features(rules: Rules) -> list[float]:
    return [
        rules.min_bid / BIDS,
        rules.max_bid / BIDS,
        float(rules.auction == "duel"),
        float(rules.all_pass == "dealer_forced"),
        float(rules.all_pass == "first_forced"),
        float(rules.all_pass == "redeal"),
        float(rules.reveal == "ask"),
        float(rules.seventh_card),
        float(bool(rules.single_hand)),
        float(rules.doubling),
        float(rules.double_by == "bidder_right" and rules.doubling),
        float(rules.allow_set and rules.doubling),
        float(rules.pair == "standard"),
        float(rules.pair == "bangladesh"),
        float(rules.last_trick_point),
        float(rules.unrevealed == "score"),
        float(rules.under_half),
        (rules.auto_double_from or 0) / BIDS,
        float(rules.early_end),
        float(rules.match_target is not None),
        float(not rules.clockwise),
    ]


_PHASE_INDEX = {p: i for i, p in enumerate(PHASES)}
_MULT_INDEX = {m: i for i, m in enumerate(MULTIPLIERS)}


class _History:
    """What one seat's tensor has accumulated of a deal so far.

    Cards played, trick winners and bids only ever accumulate during a deal,
    so an environment that walks forward keeps them per seat and adds the
    new ones at each step instead of re-encoding the whole deal.
    """

    __slots__ = ("arr", "calls", "high", "high_seat", "in_trick", "key", "last", "out", "tricks")

    def __init__(self, key: object, arr: array) -> None:
        self.key = key
        self.arr = arr  # float32 entries, copied out at each call
        self.tricks = 0  # completed tricks encoded
        self.in_trick = 0  # cards of the trick on the table encoded
        self.calls = 0  # auction calls encoded
        self.high = 0
        self.high_seat = -1
        self.last: dict[int, int] = {}  # seat -> its latest call (0: pass)
        self.out: set[int] = set()  # seats that passed


# Offsets as plain names: the encoder runs at every environment step.
_SEAT, _PHASE, _TO_ACT, _DEALER = (OFFSETS[n][0] for n in ("seat", "phase", "to_act", "dealer"))
_HAND, _FIRST, _PLAYED_BY, _PLAYED_IN = (
    OFFSETS[n][0] for n in ("hand", "first_batch", "played_by", "played_in")
)
_WINNER, _TABLE, _LEADER, _LED = (
    OFFSETS[n][0] for n in ("trick_winner", "table", "trick_leader", "led_suit")
)
_BIDS, _PASSED, _STANDING, _HIGH = (
    OFFSETS[n][0] for n in ("bids", "passed", "standing_bid", "high_bidder")
)
_DEFENDER, _CHALLENGER, _CHALLENGE = (
    OFFSETS[n][0] for n in ("duel_defender", "duel_challenger", "duel_challenge")
)
_BIDDER, _BID, _FORCED, _TARGET = (OFFSETS[n][0] for n in ("bidder", "bid", "forced", "target"))
_TRUMP, _REVEALED, _REVEALED_IN, _REVEALER, _ASKED, _SEVENTH = (
    OFFSETS[n][0]
    for n in ("trump", "trump_revealed", "revealed_in", "revealer", "asked", "seventh")
)
_SINGLE, _DOUBLING, _DOUBLER, _PAIR, _PAIR_TRICK = (
    OFFSETS[n][0] for n in ("single", "doubling", "doubler", "pair", "pair_trick")
)
_POINTS, _SCORE = OFFSETS["points"][0], OFFSETS["score"][0]


class Encoder:
    """Builds the tensor of one seat under one set of rules.

    ``encode(obs, first_batch)`` is a pure function of its arguments. With a
    ``key`` naming the deal (an environment walking forward through it), the
    history part is kept per seat between calls; the result is the same.
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.base = np.zeros(TENSOR_SIZE, np.float32)
        self.base[tensor_slice("rules")] = rules_features(rules)
        self._base = array("f", self.base.tobytes())
        step = 1 if rules.clockwise else 3
        # rel[me][s]: how many turns after ``me`` seat ``s`` plays.
        self.rel = tuple(tuple(((s - me) * step) % 4 for s in range(4)) for me in range(4))
        self.total = rules.total_points
        self.target = rules.match_target
        self.duel = rules.auction == "duel"
        self._kept: list[_History | None] = [None, None, None, None]

    def _history(self, obs: Observation, first_batch: Sequence[int], key: object) -> _History:
        me = obs.seat
        assert me is not None
        h = self._kept[me] if key is not None else None
        if h is None or h.key != key:
            arr = array("f", self._base)
            arr[_SEAT + me] = 1.0
            arr[_DEALER + self.rel[me][obs.dealer]] = 1.0
            for c in first_batch:
                arr[_FIRST + c] = 1.0
            h = _History(key, arr)
            if key is not None:
                self._kept[me] = h
        return h

    def encode(
        self, obs: Observation, first_batch: Sequence[int], key: object = None
    ) -> np.ndarray:
        """The tensor of ``obs.seat`` (which must be a seat, not the public view)."""
        me = obs.seat
        assert me is not None
        rel = self.rel[me]
        h = self._history(obs, first_batch, key)
        arr = h.arr
        tricks = obs.tricks
        if len(tricks) > h.tricks:
            for t in range(h.tricks, len(tricks)):
                _leader, cards, seats, winner, _pts = tricks[t]
                row = _PLAYED_IN + 32 * t
                skip = h.in_trick if t == h.tricks else 0
                for s, c in zip(seats[skip:], cards[skip:], strict=True):
                    arr[_PLAYED_BY + 32 * rel[s] + c] = 1.0
                    arr[row + c] = 1.0
                arr[_WINNER + 4 * t + rel[winner]] = 1.0
            h.tricks = len(tricks)
            h.in_trick = 0
        trick = obs.trick
        if len(trick) > h.in_trick:
            row = _PLAYED_IN + 32 * len(tricks)
            for s, c in trick[h.in_trick :]:
                arr[_PLAYED_BY + 32 * rel[s] + c] = 1.0
                arr[row + c] = 1.0
            h.in_trick = len(trick)
        auction = obs.auction
        if len(auction) > h.calls:
            for s, b in auction[h.calls :]:
                h.last[s] = b
                if b:
                    arr[_BIDS + BIDS * rel[s] + b - 1] = 1.0
                    if b >= h.high:
                        h.high, h.high_seat = b, s
                else:
                    h.out.add(s)
            h.calls = len(auction)
        # What changes from one step to the next, on a copy.
        x = array("f", arr)
        x[_PHASE + _PHASE_INDEX[obs.phase]] = 1.0
        if obs.to_act is not None:
            x[_TO_ACT + rel[obs.to_act]] = 1.0
        for c in obs.hand:
            x[_HAND + c] = 1.0
        if trick:
            for s, c in trick:
                x[_TABLE + 32 * rel[s] + c] = 1.0
            x[_LED + (trick[0][1] >> 3)] = 1.0
        if obs.trick_leader is not None:
            x[_LEADER + rel[obs.trick_leader]] = 1.0
        if self.duel:
            for s in h.out:
                x[_PASSED + rel[s]] = 1.0
        else:
            for s, b in h.last.items():
                if not b:
                    x[_PASSED + rel[s]] = 1.0
        high, high_seat = h.high, h.high_seat
        if obs.bid is not None and obs.bidder is not None:
            high, high_seat = obs.bid, obs.bidder
            x[_BIDDER + rel[obs.bidder]] = 1.0
            x[_BID + obs.bid - 1] = 1.0
            if obs.forced:
                x[_FORCED] = 1.0
        if high:
            x[_STANDING + high - 1] = 1.0
            x[_HIGH + rel[high_seat]] = 1.0
        duel = obs.duel
        if duel is not None:
            d = duel["defender"]
            if d is not None:
                x[_DEFENDER + rel[d]] = 1.0
            ch = duel["challenger"]
            if ch is not None:
                x[_CHALLENGER + rel[ch]] = 1.0
            cb = duel["challenger_bid"]
            if cb:
                x[_CHALLENGE + cb - 1] = 1.0
        if obs.target is not None:
            x[_TARGET + obs.target - 1] = 1.0
        if obs.trump is not None:
            x[_TRUMP + obs.trump] = 1.0
        if obs.trump_revealed:
            x[_REVEALED] = 1.0
        if obs.revealed_in_trick is not None:
            x[_REVEALED_IN + obs.revealed_in_trick - 1] = 1.0
        if obs.revealer is not None:
            x[_REVEALER + rel[obs.revealer]] = 1.0
        if obs.asked is not None:
            x[_ASKED + rel[obs.asked]] = 1.0
        if obs.seventh:
            x[_SEVENTH] = 1.0
        if obs.single is not None:
            x[_SINGLE + rel[obs.single]] = 1.0
        x[_DOUBLING + _MULT_INDEX[obs.doubling]] = 1.0
        if obs.doubler is not None:
            x[_DOUBLER + rel[obs.doubler]] = 1.0
        if obs.pair is not None:
            x[_PAIR + rel[obs.pair[0]]] = 1.0
            x[_PAIR_TRICK + max(0, obs.pair[2] - 1)] = 1.0
        team = me & 1
        points = obs.points
        x[_POINTS] = points[team] / self.total
        x[_POINTS + 1] = points[1 - team] / self.total
        if self.target is not None:
            score = obs.score
            x[_SCORE] = score[team] / self.target
            x[_SCORE + 1] = score[1 - team] / self.target
        return np.frombuffer(x, np.float32)


def mask_of_ids(ids: Iterable[int]) -> np.ndarray:
    m = np.zeros(NUM_ACTIONS, np.int8)
    m[list(ids)] = 1
    return m
