"""The αμ search (``bots/alphamu.py``): the seat's own later cards chosen once for
the worlds it cannot tell apart, against the worlds solved one by one."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from twentynine.bots import make_bot
from twentynine.bots.alphamu import AlphaMu, TooBig, front
from twentynine.bots.expert import ExpertBot
from twentynine.bots.solving import solver
from twentynine.game.cards import cards_of, mask_of, parse_cards
from twentynine.game.dealing import deal_hands
from twentynine.game.engine import OVER, Deal
from twentynine.game.observation import observe_deal
from twentynine.game.rules import PROFILES
from twentynine.solver import Goal, Position


def hands(*texts: str) -> tuple[int, int, int, int]:
    a, b, c, d = (mask_of(parse_cards(t)) for t in texts)
    return a, b, c, d


def late_position(seed: int, tricks_left: int) -> Position:
    """A random deal with trumps revealed, played at random to ``tricks_left`` tricks."""
    rng = random.Random(seed)
    deck = list(range(32))
    rng.shuffle(deck)
    dealt = tuple(mask_of(deck[i * 8 : i * 8 + 8]) for i in range(4))
    p = Position(hands=dealt, leader=rng.randrange(4), trump=rng.randrange(4), revealed=True)  # type: ignore[arg-type]
    while p.tricks_played < 8 - tricks_left:
        p = p.advance(rng.choice(p.legal_moves()))
    for _ in range(rng.randrange(4)):
        p = p.advance(rng.choice(p.legal_moves()))
    return p


def worlds_of(p: Position, count: int, seed: int) -> list[Position]:
    """``p`` and other deals of the unseen cards, alike for the seat to move."""
    rng = random.Random(seed)
    seat = p.to_move
    others = [s for s in range(4) if s != seat]
    pool = [c for s in others for c in cards_of(p.hands[s])]
    out = [p]
    for _ in range(count - 1):
        rng.shuffle(pool)
        dealt = list(p.hands)
        k = 0
        for s in others:
            n = p.hands[s].bit_count()
            dealt[s] = mask_of(pool[k : k + n])
            k += n
        out.append(replace(p, hands=tuple(dealt)))
    return out


def test_the_front_keeps_the_vectors_no_other_beats_everywhere():
    got = front([(1, -1), (-1, 1), (1, 1), (0, 1), (1, -1), (-1, -1)])
    assert got == [(1, 1)]
    got = front([(1, -1, 0), (-1, 1, 0), (0, 0, 0), (1, -1, -1)])
    assert sorted(got) == [(-1, 1, 0), (0, 0, 0), (1, -1, 0)]
    assert front([]) == []


def test_a_card_that_needs_the_seat_to_see_the_world_later_is_valued_as_at_the_table():
    # West leads with diamonds trumps, needing 25 with 16 won and three tricks to
    # come. In both worlds West can make it, but after the trump lead only by
    # guessing its next card right, and the two worlds want different cards there;
    # after a heart lead one plan makes it in both.
    both = ("8S 9S 9H", "KH AH QD", "AS 7H QH", "8H JH 9D")
    other = ("9S AH 9H", "8S KH QD", "AS 7H QH", "8H JH 9D")
    common = {"leader": 3, "points": (1, 16), "tricks_played": 5, "trump": 2, "revealed": True}
    worlds = [Position(hands=hands(*both), **common), Position(hands=hands(*other), **common)]  # type: ignore[arg-type]
    search = AlphaMu(3, Goal(1, 25))
    by_world = {str(m): v for m, v in search.values(worlds, [1, 1], 1).items()}
    at_table = {str(m): v for m, v in search.values(worlds, [1, 1], 2).items()}
    assert by_world == {"8H": 1.0, "JH": 1.0, "9D": 1.0}
    assert at_table == {"8H": 1.0, "JH": 1.0, "9D": 0.0}  # made in one world, failed in one


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 4), st.integers(0, 40))
def test_depth_one_is_the_worlds_solved_one_by_one_and_more_depth_never_gains(
    seed, tricks_left, need
):
    p = late_position(seed, tricks_left)
    seat = p.to_move
    target = p.points[seat & 1] + need % (p.remaining_points + 1)
    goal = Goal(seat & 1, target)
    worlds = worlds_of(p, 6, seed)
    weights = [1.0, 2.0, 0.5, 1.0, 1.5, 1.0]
    search = AlphaMu(seat, goal, limit=10**6)
    one = search.values(worlds, weights, 1)
    s = solver()
    solved = [s.moves_outcome(w, goal) for w in worlds]
    for move, value in one.items():
        mean = sum(w * int(o[move]) for w, o in zip(weights, solved, strict=True)) / sum(weights)
        assert value == pytest.approx(mean)
    two = search.values(worlds, weights, 2)
    three = search.values(worlds, weights, 3)
    assert two.keys() == one.keys() == three.keys()
    for move in one:
        assert three[move] <= two[move] + 1e-9 <= one[move] + 2e-9


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 4), st.integers(0, 40))
def test_with_one_world_nothing_is_hidden_and_every_depth_is_the_solution(seed, tricks_left, need):
    p = late_position(seed, tricks_left)
    seat = p.to_move
    goal = Goal(seat & 1, p.points[seat & 1] + need % (p.remaining_points + 1))
    solved = {m: int(o) * 1.0 for m, o in solver().moves_outcome(p, goal).items()}
    for depth in (1, 2, 3):
        assert AlphaMu(seat, goal, limit=10**6).values([p], [1.0], depth) == solved


def test_a_search_past_its_count_of_solved_positions_stops_and_says_so():
    p = late_position(4, 4)
    worlds = worlds_of(p, 8, 4)
    with pytest.raises(TooBig):
        AlphaMu(p.to_move, Goal(0, 10), limit=20).values(worlds, [1.0] * 8, 2)


def test_bad_calls_are_refused_with_a_reason():
    p = late_position(5, 3)
    with pytest.raises(ValueError, match="depth"):
        AlphaMu(p.to_move, Goal(0, 10)).values([p], [1.0], 0)
    with pytest.raises(ValueError, match="not to move"):
        AlphaMu((p.to_move + 1) % 4, Goal(0, 10)).values([p], [1.0], 2)
    with pytest.raises(ValueError, match="weights"):
        AlphaMu(p.to_move, Goal(0, 10)).values([p], [0.0], 2)


def test_the_expert_with_alphamu_plays_whole_deals_and_uses_the_search(monkeypatch):
    used = {"chosen": 0, "declined": 0}
    real = ExpertBot.alphamu_play

    def counting(self, obs, rng):
        got = real(self, obs, rng)
        used["chosen" if got is not None else "declined"] += 1
        if got is not None:
            assert got in obs.legal
        return got

    monkeypatch.setattr(ExpertBot, "alphamu_play", counting)
    for profile in ("pagat", "bhoos"):
        rules = PROFILES[profile]
        for seed in range(2):
            deal = Deal(rules, seed, deal_hands(seed, seed, rules.clockwise))
            bots = [
                make_bot("expert[alphamu=2,alphamu_from=4]", seed=s, budget=0.02) for s in range(4)
            ]
            while deal.phase != OVER:
                deal.apply(bots[deal.to_act].act(observe_deal(deal, deal.to_act)))
    assert used["chosen"] >= 10
    # a defender before the reveal, whose worlds hold different trumps, is left to the
    # worlds solved one by one, as are searches too big for the count
    assert used["chosen"] + used["declined"] >= 20


def test_deepening_keeps_the_deepest_search_the_count_allowed():
    p = late_position(4, 5)
    worlds = worlds_of(p, 10, 4)
    weights = [1.0] * 10
    seat = p.to_move
    goal = Goal(seat & 1, p.points[seat & 1] + 10)
    two = AlphaMu(seat, goal, limit=10**6)
    want = two.values(worlds, weights, 2)
    cost = two.solved
    depth, got = AlphaMu(seat, goal, limit=cost + 1).deepest(worlds, weights, 4)
    assert (depth, got) == (2, want)
    depth, got = AlphaMu(seat, goal, limit=10**7).deepest(worlds, weights, 3)
    assert depth == 3 and got == AlphaMu(seat, goal, limit=10**7).values(worlds, weights, 3)
    with pytest.raises(TooBig):
        AlphaMu(seat, goal, limit=cost - 1).deepest(worlds, weights, 3)
