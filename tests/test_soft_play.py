"""Play valued by what a solved margin is worth at the table (``soft_play``), and the
count that table comes from (``bench contracts --run DIR --odds``)."""

from __future__ import annotations

import random

import pytest

from twentynine.benchmarks.odds import monotone
from twentynine.bots import make_bot
from twentynine.bots.expert import ExpertBot
from twentynine.bots.knowledge import analyse
from twentynine.bots.odds import MARGIN_LIMIT, PLAY_ODDS, made_chance, played_value
from twentynine.bots.solving import goal_of, position_of, solver
from twentynine.game.actions import PLAY
from twentynine.game.dealing import deal_hands
from twentynine.game.engine import OVER, Deal
from twentynine.game.observation import observe_deal
from twentynine.game.rules import PROFILES
from twentynine.solver import Value


def test_the_table_rises_with_the_margin_and_sharpens_trick_by_trick():
    for row in PLAY_ODDS:
        assert len(row) == 2 * MARGIN_LIMIT + 1
        assert list(row) == sorted(row) and row[0] >= 0 and row[-1] <= 100
    # the closer to the end, the surer a margin of no point and a miss by one
    made_by_none = [row[MARGIN_LIMIT] for row in PLAY_ODDS]
    missed_by_one = [row[MARGIN_LIMIT - 1] for row in PLAY_ODDS]
    assert made_by_none == sorted(made_by_none) and made_by_none[-1] >= 95
    assert missed_by_one == sorted(missed_by_one, reverse=True) and missed_by_one[-1] <= 5
    assert made_chance(20, 1) == made_chance(MARGIN_LIMIT, 1)
    assert made_chance(-20, 3) == made_chance(-MARGIN_LIMIT, 3)
    # from the last trick on a margin is made or not
    assert made_chance(0, 8) == 1.0 and made_chance(-1, 8) == 0.0 and made_chance(0, 9) == 1.0
    assert played_value(None, 4) == 0.0
    assert played_value(0, 3) == pytest.approx(2 * PLAY_ODDS[2][MARGIN_LIMIT] / 100 - 1)


def test_monotone_pools_neighbours_out_of_order_and_keeps_the_weighted_mean():
    values, weights = [0.1, 0.5, 0.3, 0.2, 0.9], [1.0, 1.0, 2.0, 1.0, 3.0]
    out = monotone(values, weights)
    assert out == sorted(out) and len(out) == len(values)
    assert out[1] == out[2] == out[3] == pytest.approx((0.5 + 0.6 + 0.2) / 4)
    total = sum(v * w for v, w in zip(values, weights, strict=True))
    assert sum(v * w for v, w in zip(out, weights, strict=True)) == pytest.approx(total)
    assert monotone([0.2, 0.4], [1.0, 1.0]) == [0.2, 0.4]


def _at_trick(seed: int, tricks: int) -> Deal:
    rules = PROFILES["pagat"]
    deal = Deal(rules, seed % 4, deal_hands(seed, seed % 4, rules.clockwise))
    driver = [make_bot("casual", seed=s) for s in range(4)]
    while deal.phase != OVER and not (deal.phase == "play" and len(deal.tricks) >= tricks):
        deal.apply(driver[deal.to_act].act(observe_deal(deal, deal.to_act)))
    return deal


def _soft(seed: int = 0) -> ExpertBot:
    bot = ExpertBot(seed=seed)
    bot.soft_play = True
    return bot


def test_each_world_values_a_move_by_the_chance_of_the_margin_it_leaves():
    bot = _soft()
    checked = 0
    for seed in range(30):
        deal = _at_trick(seed, 3)
        if deal.phase != "play":
            continue
        obs = observe_deal(deal, deal.to_act)
        plays = {a.value: a for a in obs.legal if a.kind == PLAY}
        if len(plays) < 2:
            continue
        world = bot.sample(obs, analyse(obs), random.Random(seed))
        goal = goal_of(obs)
        sign = 1 if obs.seat & 1 == goal.team else -1
        outcome, points = bot.evaluate(obs, world, goal, plays, None, sign)
        after = len(obs.tricks) + 1 + (len(obs.trick) == 3)
        for move, value in solver().moves_exact(position_of(obs, world), goal).items():
            if move.reveal:
                continue
            a = plays[move.card]
            assert outcome[a] == pytest.approx(sign * played_value(value.margin, after))
            assert points[a] == (0 if value.margin is None else sign * value.margin)
        checked += 1
    assert checked >= 5


def test_a_wide_margin_in_most_worlds_beats_a_bare_one_in_all(monkeypatch):
    """Card X keeps the contract by no point in every world; card Y by eight points but
    misses by one in the first world of every ten. Made-or-failed plays X; valued by
    what those margins are worth at the table at the third trick (no point 62%, eight
    points 99%, a miss by one 28%), Y. The seat is one of the bidders."""
    for seed in range(60):
        deal = _at_trick(seed, 2)
        if deal.phase != "play":
            continue
        obs = observe_deal(deal, deal.to_act)
        plays = [a.value for a in obs.legal if a.kind == PLAY]
        if len(plays) >= 2 and obs.seat & 1 == goal_of(obs).team:
            break
    else:
        pytest.fail("no bidder to play with two cards at the third trick")
    x, y = plays[0], plays[1]
    s = solver()
    real = s.moves_exact
    calls = [0]

    def crafted(pos, goal, guess=None):
        calls[0] += 1
        wide = -1 if calls[0] % 10 == 1 else 8
        margins = {x: 0, y: wide}
        return {m: Value(margins.get(m.card, -10)) for m in real(pos, goal, guess)}

    monkeypatch.setattr(s, "moves_exact", crafted)

    def played(soft: bool) -> int | None:
        bot = ExpertBot(seed=3)
        bot.soft_play = soft
        bot.wall_guard = None
        bot.weight = lambda obs, know, world: 1.0  # every world alike
        calls[0] = 0
        action = bot.act(obs)
        assert calls[0] >= 6
        return action.value

    assert played(False) == x
    assert played(True) == y
