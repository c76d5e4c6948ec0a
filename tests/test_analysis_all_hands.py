"""The analysis of a finished deal with every hand known, and of a single hand.

The all-hands values are checked against positions this file builds itself from
the record (the dealt hands, then the record's cards played one by one with the
solver's readable rules): against the brute-force minimax on endings of up to
four tricks, against the solver at every card, and by playing each "free" card's
continuation out move by move. The trump choice and the pair are valued for
every choice; the single hand's search is checked against a plain minimax.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from analysis_helpers import finished
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from twentynine.game.actions import PLAY, REVEAL
from twentynine.game.cards import POINTS, card_text, parse_suit
from twentynine.game.contract import lowered_target, raised_target
from twentynine.game.engine import PAIR_WINDOW, Deal
from twentynine.services.analysis import ALL_HANDS, DealAnalysis, analyse_deal
from twentynine.solver import Goal, Move, Outcome, Position, Solver
from twentynine.solver.brute import brute_move_values
from twentynine.solver.single import SinglePosition, SingleSolver

OUTCOME = {Outcome.REACHED: "made", Outcome.CANCELLED: "cancelled", Outcome.MISSED: "failed"}


@pytest.fixture(scope="module")
def solver() -> Solver:
    return Solver()


# ---------------------------------------------------------------------- positions of our own


def points_positions(deal: Deal) -> Iterator[tuple[int, Position, Move]]:
    """For each card of the record: its index, the points-game position before it (built
    from the dealt hands with the solver's readable rules) and the move played. A card
    played after asking for the reveal is played from the position once asked."""
    rules = deal.rules
    hands = [0, 0, 0, 0]
    for seat, cards in enumerate(deal.hands):
        for c in cards:
            hands[seat] |= 1 << c
    pos: Position | None = None
    for i, action in enumerate(deal.log):
        if pos is None and action.kind == PLAY:
            pos = Position(
                hands=(hands[0], hands[1], hands[2], hands[3]),
                leader=rules.next_seat(deal.dealer),
                trump=deal.trump,
                reveal=rules.reveal,  # type: ignore[arg-type]
                unrevealed="score",
                last_trick_point=rules.last_trick_point,
                clockwise=rules.clockwise,
            )
        if pos is None:
            continue
        if action.kind == REVEAL:  # the seat asks, then plays by the ask rule
            pos = Position(**{**pos.__dict__, "revealed": True, "asked": True})
            continue
        if action.kind != PLAY:
            continue
        assert action.value is not None
        move = Move(action.value)
        yield i, pos, move
        pos = pos.play(move)


def contract_position(deal: Deal) -> Position:
    """The contract game as the engine's deal stands (pair and cancellation in force)."""
    rules = deal.rules
    pair_team = deal.pair_seat & 1 if deal.pair_seat >= 0 else None
    return Position(
        hands=(deal.held[0], deal.held[1], deal.held[2], deal.held[3]),
        leader=deal.leader,
        trick=tuple(deal.trick_cards),
        points=(deal.points[0], deal.points[1]),
        tricks_played=len(deal.tricks),
        trump=deal.trump,
        revealed=deal.revealed_in_trick > 0,
        reveal=rules.reveal,  # type: ignore[arg-type]
        asked=deal.asked == deal.to_act,
        unrevealed=rules.unrevealed,  # type: ignore[arg-type]
        last_trick_point=rules.last_trick_point,
        pair_pending=rules.pair != "off" and pair_team is None,
        pair_team=pair_team,
        clockwise=rules.clockwise,
    )


def goal_of(deal: Deal) -> Goal:
    team = deal.bidder & 1
    if deal.pair_seat >= 0:
        return Goal(team, deal.target, deal.target, deal.target)
    return Goal(
        team, deal.target, lowered_target(deal.rules, deal.bid), raised_target(deal.rules, deal.bid)
    )


def label(move: Move) -> dict[str, Any]:
    out: dict[str, Any] = {"play": card_text(move.card)}
    if move.reveal:
        out["reveal"] = True
    return out


def choices_of(entry: dict[str, Any]) -> dict[tuple[str, bool], dict[str, Any]]:
    return {(c["play"], bool(c.get("reveal"))): c for c in entry["dd_choices"]}


def card_rows(result: DealAnalysis) -> dict[int, dict[str, Any]]:
    return {a["index"]: a for a in result.to_json()["actions"] if "play" in a["action"]}


# Deals across the profiles' rules: hidden trumps revealed automatically or on
# request, cancellation, pairs of both kinds, the last-trick point, early ends.
DEALS = [
    ("pagat", 3, "casual"),
    ("arcade", 5, "casual"),
    ("bangladesh", 8, "random"),
    ("modern", 11, "casual"),
    ("bhoos", 2, "random"),
    ("bhoos", 13, "casual"),
]


@pytest.fixture(scope="module")
def analysed(solver: Solver) -> list[tuple[Deal, DealAnalysis]]:
    out = []
    for profile, seed, level in DEALS:
        deal = finished(profile, seed, level)
        out.append((deal, analyse_deal(deal, seat_view=False, solver=solver)))
    return out


# ---------------------------------------------------------------------- all hands known


def test_all_hands_card_points_agree_with_brute_force_on_the_last_four_tricks(
    analysed: list[tuple[Deal, DealAnalysis]],
) -> None:
    checked = 0
    for deal, result in analysed[:3]:
        rows = card_rows(result)
        team = deal.bidder & 1
        for i, pos, move in points_positions(deal):
            if pos.tricks_played < 4:
                continue
            brute = brute_move_values(pos, Goal(team, 0))
            row = rows[i]
            assert row["dd_points_after"] == brute[move].margin, (deal.rules.profile, i)
            best = max if deal.log[i].seat & 1 == team else min
            assert row["dd_best_points"] == best(
                v.margin for v in brute.values() if v.margin is not None
            )
            shown = choices_of(row)
            for m, v in brute.items():
                assert shown[(card_text(m.card), m.reveal)]["points"] == v.margin
            checked += 1
    assert checked >= 40


def test_all_hands_results_agree_with_brute_force_on_the_last_three_tricks(
    analysed: list[tuple[Deal, DealAnalysis]],
) -> None:
    checked = 0
    for deal, result in analysed:
        rows = {a["index"]: a for a in result.to_json()["actions"]}
        replay = Deal(deal.rules, deal.dealer, deal.hands)
        for i, action in enumerate(deal.log):
            if replay.phase == "play" and len(replay.tricks) >= 5 and action.kind == PLAY:
                brute = brute_move_values(contract_position(replay), goal_of(replay))
                shown = choices_of(rows[i])
                for m, v in brute.items():
                    assert shown[(card_text(m.card), m.reveal)]["outcome"] == OUTCOME[v.outcome]
                checked += 1
            replay.apply(action)
    assert checked >= 30


def test_all_hands_values_agree_with_the_solver_at_every_card(
    analysed: list[tuple[Deal, DealAnalysis]],
) -> None:
    fresh = Solver()
    for deal, result in analysed:
        rows = card_rows(result)
        team = deal.bidder & 1
        played = {i for i, _, _ in points_positions(deal)}
        assert played == set(rows), "one row per card played"
        for i, pos, move in points_positions(deal):
            values = fresh.moves_exact(pos, Goal(team, 0))
            assert rows[i]["dd_points_after"] == values[move].margin
            shown = choices_of(rows[i])
            assert len(shown) == len(values)
            for m, v in values.items():
                assert shown[(card_text(m.card), m.reveal)]["points"] == v.margin


def play_out(pos: Position, solver: Solver, team: int) -> Position:
    """Both sides play a best card for card points, move by move, to the end."""
    while not pos.is_over:
        values = solver.moves_exact(pos, Goal(team, 0))
        pick = max if pos.to_move & 1 == team else min
        best = pick(v.margin for v in values.values() if v.margin is not None)
        pos = pos.play(next(m for m, v in values.items() if v.margin == best))
    return pos


def test_a_free_card_keeps_the_best_card_points_when_the_deal_is_played_out(
    analysed: list[tuple[Deal, DealAnalysis]],
) -> None:
    fresh = Solver()
    free = costly = 0
    for deal, result in analysed[:4]:
        rows = card_rows(result)
        team = deal.bidder & 1
        for i, pos, move in points_positions(deal):
            end = play_out(pos.play(move), fresh, team)
            row = rows[i]
            assert end.points[team] == row["dd_points_after"]
            if row["dd_cost_points"] == 0:
                assert end.points[team] == row["dd_best_points"]
                free += 1
            else:
                assert end.points[team] != row["dd_best_points"]
                costly += 1
    assert free > 20 and costly > 0


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10**6),
    profile=st.sampled_from(["pagat", "arcade", "bangladesh", "modern", "bhoos"]),
)
def test_a_free_card_keeps_the_best_when_played_out_in_any_deal(seed: int, profile: str) -> None:
    """Replayed: after a card the analysis calls free, both sides playing for card
    points reach the best card points; after a card that keeps the best result,
    both sides playing for the contract reach that result."""
    deal = finished(profile, seed, "random")
    result = analyse_deal(deal, seat_view=False)
    rows = {a["index"]: a for a in result.to_json()["actions"]}
    solver = Solver()
    team = deal.bidder & 1
    for i, pos, move in points_positions(deal):
        if rows[i]["dd_cost_points"] == 0:  # free: best play from here keeps the best
            assert play_out(pos.play(move), solver, team).points[team] == rows[i]["dd_best_points"]
    replay = Deal(deal.rules, deal.dealer, deal.hands)
    asked = False
    for i, action in enumerate(deal.log):
        if replay.phase == "play" and replay.bidder >= 0 and action.kind in (PLAY, REVEAL):
            if action.kind == REVEAL:
                asked = True
            else:
                assert action.value is not None
                pos = contract_position(replay)
                goal = goal_of(replay)
                pos = pos.play(Move(action.value))
                while not pos.is_over:
                    values = solver.moves_outcome(pos, goal)
                    pick = max if pos.to_move & 1 == goal.team else min
                    pos = pos.play(pick(values, key=lambda m: values[m]))
                reached = OUTCOME[pos.final_value(goal).outcome]
                row = rows[i]
                assert reached == row["dd_outcome_after"], (profile, seed, i)
                if not row["dd_outcome_lost"]:
                    assert reached == row["dd_best_outcome"]
                asked = False
        replay.apply(action)
    assert not asked


def test_costs_and_turning_points_follow_from_the_values(
    analysed: list[tuple[Deal, DealAnalysis]],
) -> None:
    rank = {"made": 1, "cancelled": 0, "failed": -1}
    for deal, result in analysed:
        team = deal.bidder & 1
        data = result.to_json()
        turning = {t["index"] for t in data["turning_points"]}
        for row in data["actions"]:
            if "dd_points_after" not in row:
                continue
            bidders = row["seat"] & 1 == team
            sign = 1 if bidders else -1
            assert row["dd_cost_points"] == sign * (row["dd_best_points"] - row["dd_points_after"])
            assert row["dd_cost_points"] >= 0
            lost = sign * (rank[row["dd_best_outcome"]] - rank[row["dd_outcome_after"]])
            assert lost >= 0 and row["dd_outcome_lost"] == (lost > 0)
            assert (ALL_HANDS in row["turning"]) == row["dd_outcome_lost"]
            assert (row["index"] in turning) == bool(row["turning"])
            best = {tuple(sorted(b.items())) for b in row["dd_best"]}
            for c in row["dd_choices"]:
                key = tuple(sorted((k, v) for k, v in c.items() if k not in ("points", "outcome")))
                keeps = (
                    c["points"] == row["dd_best_points"] and c["outcome"] == row["dd_best_outcome"]
                )
                assert (key in best) == keeps


def test_the_trump_choice_is_valued_for_every_suit_from_the_first_lead(
    analysed: list[tuple[Deal, DealAnalysis]],
) -> None:
    fresh = Solver()
    for deal, result in analysed:
        row = next(a for a in result.to_json()["actions"] if a["stage"] == "trump")
        team = deal.bidder & 1
        assert [c["trump"] for c in row["dd_choices"]] == list("SHDC")
        for c in row["dd_choices"]:
            start = next(points_positions(deal))[1]
            pos = Position(**{**start.__dict__, "trump": parse_suit(c["trump"])})
            assert c["points"] == fresh.exact(pos, Goal(team, 0)).margin
        chosen = row["dd_choices"][deal.trump]
        assert row["dd_points_after"] == chosen["points"]
        par = result.par
        assert par is not None
        for s, c in enumerate(row["dd_choices"]):
            assert par["by_trump"][s]["points"][team] == c["points"]


def test_a_pair_decision_is_valued_declared_and_passed(solver: Solver) -> None:
    """A holder who passes the pair can only lose by it (pagat: both targets move)."""
    seen = 0
    for seed in range(40):
        deal = finished("pagat", seed, "random")
        if PAIR_WINDOW not in _stages(deal):
            continue
        result = analyse_deal(deal, seat_view=False, solver=solver)
        for row in result.to_json()["actions"]:
            if row["stage"] != "pair":
                continue
            declared, passed = row["dd_choices"]
            assert "pair" in declared and "pass" in passed
            assert declared["points"] == passed["points"]
            bidders = row["seat"] & 1 == deal.bidder & 1
            rank = {"made": 1, "cancelled": 0, "failed": -1}
            sign = 1 if bidders else -1
            assert sign * rank[declared["outcome"]] >= sign * rank[passed["outcome"]]
            seen += 1
        if seen >= 3:
            break
    assert seen >= 3


def _stages(deal: Deal) -> Iterator[str]:
    replay = Deal(deal.rules, deal.dealer, deal.hands)
    for action in deal.log:
        yield replay.phase
        replay.apply(action)


# ---------------------------------------------------------------------- single hand


def _plain_step(pos: SinglePosition, c: int) -> tuple[SinglePosition | None, int]:
    """Play ``c``: the next position (None once the declarer lost a trick) and the
    points the declarer took with it."""
    hands = list(pos.hands)
    hands[pos.to_move] &= ~(1 << c)
    trick = (*pos.trick, c)
    new = (hands[0], hands[1], hands[2])
    if len(trick) < 3:
        return SinglePosition(new, trick, pos.tricks_played), 0
    led = trick[0] >> 3
    if any(x >> 3 == led and x > trick[0] for x in trick[1:]):
        return None, 0
    return SinglePosition(new, (), pos.tricks_played + 1), sum(POINTS[x] for x in trick)


def plain_points(pos: SinglePosition) -> int:
    """The declarer's points by a minimax with no shortcut at all."""
    if pos.tricks_played == 8:
        return 0
    values = []
    for c in pos.legal_cards():
        nxt, gained = _plain_step(pos, c)
        values.append(gained + (plain_points(nxt) if nxt is not None else 0))
    return max(values) if pos.to_move == 0 else min(values)


def plain_sweeps(pos: SinglePosition) -> bool:
    if pos.tricks_played == 8:
        return True
    results = []
    for c in pos.legal_cards():
        nxt, _ = _plain_step(pos, c)
        results.append(nxt is not None and plain_sweeps(nxt))
    return any(results) if pos.to_move == 0 else all(results)


def test_the_single_hand_search_agrees_with_a_plain_minimax() -> None:
    rng = random.Random(5)
    sweeps = 0
    for _ in range(80):
        deck = list(range(32))
        rng.shuffle(deck)
        left = rng.randint(1, 3)  # tricks still to play
        hands = [sum(1 << c for c in deck[k * left : (k + 1) * left]) for k in range(3)]
        if rng.random() < 0.5:  # a strong declarer: the top cards of what it holds
            top = sorted(deck[: 3 * left], key=lambda c: c & 7, reverse=True)
            hands = [sum(1 << c for c in top[k::3]) for k in range(3)]
        pos = SinglePosition((hands[0], hands[1], hands[2]), (), 8 - left)
        search = SingleSolver()
        assert search.points(pos) == plain_points(pos)
        assert search.sweeps(pos) == plain_sweeps(pos)
        assert search.move_points(pos) == {
            c: g + (plain_points(n) if n is not None else 0)
            for c in pos.legal_cards()
            for n, g in [_plain_step(pos, c)]
        }
        sweeps += plain_sweeps(pos)
    assert 5 < sweeps < 75


def test_a_single_hand_deal_is_analysed_card_by_card(solver: Solver) -> None:
    for seed in range(60):
        deal = finished("pagat", seed, "random", single_hand=3)
        if deal.single >= 0 and len(deal.tricks) >= 2:
            break
    else:
        pytest.fail("no single hand among the seeds")
    result = analyse_deal(deal, worlds=4, solver=solver)
    rows = [a for a in result.to_json()["actions"] if "play" in a["action"]]
    assert rows and all("dd_points_after" in r and "dd_best_points" in r for r in rows)
    assert rows[-1]["dd_outcome_after"] == ("made" if deal.result == "single-made" else "failed")
    offer = [a for a in result.to_json()["actions"] if a["stage"] == "single"]
    assert offer and all(a["seat_view"]["choices"] for a in offer)
