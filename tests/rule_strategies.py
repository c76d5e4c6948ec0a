"""Random games for the property tests of the rules (RULES.md).

The strategies draw a profile with a valid random set of option overrides, a
deck seed and a stream of choices; ``steps`` and ``play`` play a seeded match
with random legal actions. The rule helpers (card order, trick winner, card
points) are written here independently of the engine: cards are compared as
text ("JS") and ranked with the order of RULES.md, not with the engine's
encoding.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from twentynine.game.actions import KINDS, Action
from twentynine.game.match import Match
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

SETTINGS = settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

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
