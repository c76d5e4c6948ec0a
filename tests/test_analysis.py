"""The analysis of a finished deal: values with every hand known, from the seat's view.

The all-hands values are checked against positions this file builds itself from
the record (the dealt hands, then the record's cards played one by one with the
solver's readable rules): against the brute-force minimax on endings of up to
four tricks, against the solver at every card, and by playing each "free" card's
continuation out move by move. The seat's view is checked to depend on the
observation alone, to value every legal choice of every kind of decision, and
to be reproducible.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from twentynine.bots import make_bot
from twentynine.game.actions import PLAY, REVEAL, Action
from twentynine.game.cards import POINTS, card_text, parse_suit
from twentynine.game.contract import lowered_target, raised_target
from twentynine.game.dealing import deal_hands, derive_seed
from twentynine.game.engine import OVER, PAIR_WINDOW, Deal
from twentynine.game.observation import observe, observe_deal
from twentynine.game.rules import resolve
from twentynine.services.analysis import (
    ALL_HANDS,
    AnalysisError,
    DealAnalysis,
    analyse_deal,
    analyse_record,
    bidding_table,
    value_choices,
)
from twentynine.solver import Goal, Move, Outcome, Position, Solver
from twentynine.solver.brute import brute_move_values
from twentynine.solver.single import SinglePosition, SingleSolver

OUTCOME = {Outcome.REACHED: "made", Outcome.CANCELLED: "cancelled", Outcome.MISSED: "failed"}


def finished(profile: str, seed: int, level: str = "casual", **options: Any) -> Deal:
    """A deal dealt from ``seed`` and played to its end by four bots of ``level``."""
    rules = resolve(profile, options)
    dealer = seed % 4
    deal = Deal(rules, dealer, deal_hands(derive_seed(seed, 0), dealer, rules.clockwise))
    bots = [make_bot(level, seed=seed * 4 + s) for s in range(4)]
    while deal.phase != OVER:
        deal.apply(bots[deal.to_act].act(observe_deal(deal, deal.to_act)))
    return deal


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


# ---------------------------------------------------------------------- the seat's view


def decisions(deal: Deal) -> Iterator[tuple[Deal, Action]]:
    """The deal's state before each action that had a choice, with the action taken."""
    replay = Deal(deal.rules, deal.dealer, deal.hands)
    for action in deal.log:
        if len(replay.legal_actions()) > 1:
            yield replay.clone(), action
        replay.apply(action)


def swap_hidden(deal: Deal, state: Deal, seat: int) -> Deal | None:
    """The same deal with two cards still unseen by ``seat`` swapped between two other
    seats (each keeps its suits, so nothing ``seat`` saw tells the deals apart)."""
    played = {c for t in state.tricks for c in t[1]} | set(state.trick_cards)
    others = [s for s in range(4) if s != seat]
    for a in others:
        for b in others:
            if a >= b:
                continue
            for i, x in enumerate(deal.hands[a]):
                for j, y in enumerate(deal.hands[b]):
                    same_batch = (i < 4) == (j < 4)
                    if x >> 3 == y >> 3 and x != y and same_batch and not {x, y} & played:
                        hands = [list(h) for h in deal.hands]
                        hands[a][i], hands[b][j] = y, x
                        return Deal(deal.rules, deal.dealer, hands)
    return None


def test_the_seat_view_depends_on_the_seat_s_observation_alone() -> None:
    deal = finished("pagat", 21, "casual")
    compared = 0
    for state, action in decisions(deal):
        if state.phase != "play" or len(state.tricks) < 2:
            continue
        other = swap_hidden(deal, state, action.seat)
        if other is None:
            continue
        for a in state.log:
            other.apply(a)
        mine, theirs = observe_deal(state, action.seat), observe_deal(other, action.seat)
        assert mine == theirs and state.held != other.held
        assert value_choices(mine, worlds=6) == value_choices(theirs, worlds=6)
        compared += 1
        if compared == 3:
            break
    assert compared == 3


@pytest.mark.parametrize(
    ("profile", "options", "stages"),
    [
        ("pagat", {}, {"auction", "trump", "play"}),
        ("modern", {"doubling": True, "double_by": "either", "allow_set": True}, {"double"}),
        ("bhoos", {}, {"play"}),
    ],
)
def test_the_seat_view_values_every_legal_choice_of_each_kind_of_decision(
    profile: str, options: dict[str, Any], stages: set[str], solver: Solver
) -> None:
    for seed in range(30):
        deal = finished(profile, seed, "random", **options)
        seen = {state.phase for state, _ in decisions(deal)}
        if stages <= seen and deal.bidder >= 0:
            break
    else:
        pytest.fail(f"no deal with {stages}")
    result = analyse_deal(deal, worlds=4, solver=solver)
    for entry, (state, action) in zip(
        [a for a in result.actions if a.legal > 1], decisions(deal), strict=True
    ):
        view = entry.view
        assert view is not None and entry.action == action
        legal = state.legal_actions()
        assert [c.action for c in view.choices] == legal
        assert view.source == ("model" if state.phase in ("auction", "trump") else "worlds")
        for c in view.choices:
            assert c.p_make is None or 0.0 <= c.p_make <= 1.0
        cost = view.cost(action)
        assert (cost["score"] or 0.0) >= 0.0
        data = entry.to_json()["seat_view"]
        assert data["chosen"] == legal.index(action)
        assert data["best"] == legal.index(view.best.action)


def test_the_seat_view_is_the_same_for_the_same_question() -> None:
    deal = finished("bangladesh", 4, "casual")
    state, _ = next((s, a) for s, a in decisions(deal) if s.phase == "play" and s.tricks)
    obs = observe_deal(state, state.to_act)
    first = value_choices(obs, worlds=8, seed=3)
    assert value_choices(obs, worlds=8, seed=3) == first
    assert first.worlds >= 1 and all(c.p_make is not None for c in first.choices)


def test_a_double_changes_the_stake_not_the_make_chance() -> None:
    rules_options = {"doubling": True, "double_by": "either"}
    for seed in range(40):
        deal = finished("modern", seed, "casual", **rules_options)
        found = [(s, a) for s, a in decisions(deal) if s.phase == "double"]
        if found:
            break
    else:
        pytest.fail("no doubling decision")
    state, _ = found[0]
    view = value_choices(observe_deal(state, state.to_act), worlds=6)
    double = next(c for c in view.choices if c.action.kind == "double")
    passing = next(c for c in view.choices if c.action.kind == "pass")
    assert double.p_make == passing.p_make and double.points == passing.points
    assert double.score == pytest.approx(2 * passing.score)


def test_value_choices_refuses_an_observation_without_a_decision() -> None:
    deal = finished("pagat", 2, "casual")
    waiting = observe_deal(deal, 0)
    with pytest.raises(ValueError, match="decision"):
        value_choices(waiting)
    with pytest.raises(ValueError, match="decision"):
        value_choices(observe_deal(Deal(deal.rules, deal.dealer, deal.hands), None))


def test_a_pass_in_the_auction_is_worth_more_when_the_partner_holds_the_bid() -> None:
    rules = resolve("pagat", {})
    deal = Deal(rules, 3, deal_hands(9, 3))  # seat 0 speaks first
    deal.apply(Action.bid(0, 16))
    opponent = value_choices(observe_deal(deal, 1))
    assert opponent.value_of(Action.pass_(1)).score == 0.0
    deal.apply(Action.pass_(1))
    partner = value_choices(observe_deal(deal, 2))
    assert partner.value_of(Action.pass_(2)).score == pytest.approx(0.3)
    for choice in partner.choices:
        if choice.action.kind == "bid":
            assert choice.p_make is not None
            assert choice.score == pytest.approx(2 * choice.p_make - 1)


def test_the_seventh_card_is_valued_between_the_suits_it_may_be() -> None:
    rules = resolve("pagat", {"seventh_card": True})
    deal = Deal(rules, 3, deal_hands(4, 3))
    while deal.phase == "auction":
        deal.apply(Action.bid(deal.to_act, 16) if not deal.auction else Action.pass_(deal.to_act))
    view = value_choices(observe_deal(deal, deal.to_act))
    suits = [c.p_make for c in view.choices if c.action.kind == "trump"]
    seventh = next(c for c in view.choices if c.action.kind == "seventh")
    assert view.source == "model" and len(suits) == 4 and seventh.p_make is not None
    assert (
        min(p for p in suits if p is not None)
        <= seventh.p_make
        <= max(p for p in suits if p is not None)
    )


def test_the_bidding_table_gives_each_trump_a_falling_chance_per_bid() -> None:
    rules = resolve("pagat", {})
    deal = Deal(rules, 0, deal_hands(7, 0))
    table = bidding_table(observe_deal(deal, deal.to_act))
    assert [s["trump"] for s in table["suits"]] == list("SHDC")
    for suit in table["suits"]:
        chances = [suit["p_make"][str(b)] for b in range(rules.min_bid, rules.max_bid + 1)]
        assert all(0 <= p <= 1 for p in chances)
        assert chances == sorted(chances, reverse=True)
    best = max(table["suits"], key=lambda s: s["expected"])
    assert table["best_trump"] == best["trump"]
    even = table["highest_even_bid"]
    assert even is None or best["p_make"][str(even)] >= 0.5


# ---------------------------------------------------------------------- records


def record_of(*deals: Deal) -> dict[str, Any]:
    rules = deals[0].rules
    return {
        "format": "29-record/1",
        "rules": rules.to_json(),
        "deals": [d.to_record() for d in deals],
    }


def unfinished(deal: Deal, actions: int) -> dict[str, Any]:
    record = record_of(deal)
    record["deals"][0]["actions"] = record["deals"][0]["actions"][:actions]
    return record


def test_the_analysis_has_one_object_per_action_in_record_order() -> None:
    deal = finished("arcade", 9, "casual")
    record = record_of(deal)
    data = analyse_record(record, seat_view=False).to_json()
    assert data["format"] == "29-analysis/1" and len(data["deals"]) == 1
    actions = data["deals"][0]["actions"]
    assert [a["action"] for a in actions] == record["deals"][0]["actions"]
    assert [a["index"] for a in actions] == list(range(len(actions)))
    for a in actions:
        assert a["seat"] == a["action"]["seat"]
        if "play" in a["action"]:
            assert isinstance(a["dd_points_after"], int) and isinstance(a["dd_best_points"], int)
    assert data["deals"][0]["deal"] == 1 and data["deals"][0]["result"] == deal.result


@pytest.mark.parametrize(
    ("text", "status", "message"),
    [
        (b"{not json", 2, "not valid JSON"),
        (b'{"format": "29-record/9", "deals": []}', 2, "format"),
        (b'{"format": "29-record/1", "deals": []}', 1, "no deal"),
        (b'{"format": "29-record/1", "rules": {"profile": "nope"}, "deals": []}', 2, "rules"),
    ],
)
def test_a_record_that_cannot_be_read_is_refused_with_a_reason(
    text: bytes, status: int, message: str
) -> None:
    with pytest.raises(AnalysisError, match=message) as caught:
        analyse_record(text)
    assert caught.value.exit_status == status


def test_an_unfinished_deal_or_a_missing_one_is_refused() -> None:
    deal = finished("pagat", 6, "casual")
    with pytest.raises(AnalysisError, match="deal 1 is not finished") as caught:
        analyse_record(unfinished(deal, 12))
    assert caught.value.exit_status == 1
    with pytest.raises(AnalysisError, match="deal 3 does not exist: the record has only deal 1"):
        analyse_record(record_of(deal), 3)
    with pytest.raises(AnalysisError, match="deal 0 does not exist"):
        analyse_record(record_of(deal), 0)
    faulty = record_of(deal)
    faulty["deals"][0]["actions"][3] = {"seat": 0, "play": "JS"}
    with pytest.raises(AnalysisError, match="faulty at deal 1, action 3") as caught:
        analyse_record(faulty)
    assert caught.value.exit_status == 1


def test_the_finished_deals_of_a_match_in_progress_are_analysed() -> None:
    from twentynine.game.match import Match

    rules = resolve("pagat", {})
    match = Match(rules, seed=5)
    bot = make_bot("casual")
    while len(match.deals) < 2 or match.deal.phase == OVER or len(match.deal.tricks) < 1:
        if match.needs_deal:
            match.start_deal()
        match.apply(bot.act(observe(match, match.to_act)))
    result = analyse_record(match.to_record(), seat_view=False)
    assert [d.index for d in result.deals] == [0] and result.skipped == [1]
    assert result.to_json()["skipped"] == [2]


# ---------------------------------------------------------------------- the command line


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    from twentynine.cli.main import main

    status = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return status, out, err


@pytest.fixture(scope="module")
def two_deals() -> dict[str, Any]:
    """A match record of two finished deals (the second dealt by the next seat)."""
    from twentynine.game.match import Match

    rules = resolve("pagat", {})
    match = Match(rules, dealer=1)
    bot = make_bot("casual")
    for n in range(2):
        match.start_deal(deal_hands(derive_seed(12, n), match.next_dealer, rules.clockwise))
        while match.deal.phase != OVER:
            match.apply(bot.act(observe(match, match.to_act)))
    return match.to_record()


def test_analyse_prints_a_table_of_every_action(
    capsys: pytest.CaptureFixture[str], tmp_path: Any, two_deals: dict[str, Any]
) -> None:
    import json

    path = tmp_path / "game.json"
    path.write_text(json.dumps(two_deals))
    status, out, _ = run(capsys, "analyse", str(path), "--deal", "2", "--worlds", "3")
    assert status == 0
    assert "Deal 2:" in out and "Deal 1:" not in out
    assert "Turning points" in out and "Par, every hand known" in out
    actions = two_deals["deals"][1]["actions"]
    rows = [line for line in out.splitlines() if line[:3].strip().isdigit()]
    assert len(rows) == len(actions)


def test_analyse_json_gives_each_deal_its_actions_in_record_order(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Any,
    two_deals: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import io
    import json

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(json.dumps(two_deals).encode())))
    status, out, _ = run(capsys, "analyse", "-", "--json", "--all-hands-only")
    assert status == 0
    data = json.loads(out)
    assert [d["deal"] for d in data["deals"]] == [1, 2]
    for deal, analysis in zip(two_deals["deals"], data["deals"], strict=True):
        assert [a["action"] for a in analysis["actions"]] == deal["actions"]
        for a in analysis["actions"]:
            assert a["seat_view"] is None
            if "play" in a["action"]:
                assert {"index", "seat", "action", "dd_points_after", "dd_best_points"} <= set(a)


@pytest.mark.parametrize(
    ("content", "args", "status", "says"),
    [
        (b"{oops", [], 2, "not a valid game record: not valid JSON"),
        (b'{"format": "29-record/1", "deals": 7}', [], 2, "'deals' must be a list"),
        ("unfinished", [], 1, "deal 1 is not finished"),
        ("two", ["--deal", "3"], 2, "deal 3 does not exist: the record has deals 1 to 2"),
        ("two", ["--worlds", "0"], 2, "--worlds must be at least 1"),
        (None, [], 2, "cannot read"),
    ],
)
def test_analyse_refuses_bad_input_in_one_line(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Any,
    two_deals: dict[str, Any],
    content: bytes | str | None,
    args: list[str],
    status: int,
    says: str,
) -> None:
    import json

    path = tmp_path / "game.json"
    if content == "two":
        path.write_text(json.dumps(two_deals))
    elif content == "unfinished":
        record = json.loads(json.dumps(two_deals))
        record["deals"] = record["deals"][:1]
        record["deals"][0]["actions"] = record["deals"][0]["actions"][:9]
        path.write_text(json.dumps(record))
    elif isinstance(content, bytes):
        path.write_bytes(content)
    code, out, err = run(capsys, "analyse", str(path), *args)
    assert code == status and out == ""
    assert err.startswith("twentynine analyse: ") and says in err
    assert err.count("\n") == 1


def test_analysis_benchmark_runs_on_a_tiny_input(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "bench", "analysis", "--deals", "1", "--effort", "0.1")
    assert status == 0
    assert "1 deals" in out and "whole (cpu)" in out and "all hands (cpu)" in out
