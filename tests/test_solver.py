"""The exact solver: checked against a brute-force minimax on thousands of small
positions, on both kernels (plain Python and, where installed, numba), plus the
rules it must get right one by one and the input it must refuse."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from twentynine.game.cards import KING, POINTS, QUEEN, SUIT_MASK, TOTAL_POINTS, mask_of, parse_cards
from twentynine.solver import (
    Goal,
    Move,
    Outcome,
    OutOfNodes,
    Position,
    Solver,
    Value,
    can_reach,
    default_solver,
    exact,
    moves_can_reach,
    moves_exact,
    numba_available,
    outcome,
    representative,
)
from twentynine.solver.brute import brute_move_values, brute_value
from twentynine.solver.position import RevealMode, UnrevealedRule

ROOT = Path(__file__).resolve().parent.parent
BACKENDS = ["pure", *(["numba"] if numba_available() else [])]
SUITS_NUMBERED = range(4)


# -- random positions ------------------------------------------------------------------


def mask(text: str) -> int:
    return mask_of(parse_cards(text))


def direct_position(rng: random.Random, tricks_left: int, on_table: int) -> tuple[Position, Goal]:
    """A random position built directly, from few suits so that voids, reveals, asks
    and pairs come often; random rules, points and a target near the reachable range."""
    while True:
        suits = rng.sample(SUITS_NUMBERED, rng.choice([2, 3, 3, 4]))
        pool = [s * 8 + r for s in suits for r in range(8)]
        rng.shuffle(pool)
        trump = rng.choice([None, *suits, *suits, rng.randrange(4)])
        leader = rng.randrange(4)
        clockwise = rng.random() < 0.5
        step = 1 if clockwise else 3
        sizes = [0] * 4
        for i in range(4):
            sizes[(leader + i * step) % 4] = tricks_left - 1 if i < on_table else tricks_left
        hands = [0] * 4
        if trump is not None and rng.random() < 0.5:
            holder = rng.randrange(4)
            king, queen = trump * 8 + KING, trump * 8 + QUEEN
            if sizes[holder] >= 2 and king in pool and queen in pool:
                pool.remove(king)
                pool.remove(queen)
                hands[holder] = (1 << king) | (1 << queen)
                sizes[holder] -= 2
        if sum(sizes) + on_table > len(pool):
            continue
        cards = iter(pool)
        table = tuple(next(cards) for _ in range(on_table))
        for seat in range(4):
            for _ in range(sizes[seat]):
                hands[seat] |= 1 << next(cards)
        held = hands[0] | hands[1] | hands[2] | hands[3]
        in_play = sum(POINTS[c] for c in range(32) if held >> c & 1) + sum(POINTS[c] for c in table)
        won = TOTAL_POINTS - in_play
        team0 = rng.randint(0, won)
        revealed = trump is not None and rng.random() < 0.4
        reveal: RevealMode = "auto" if rng.random() < 0.5 else "ask"
        unrevealed: UnrevealedRule = (
            "cancel" if trump is not None and rng.random() < 0.5 else "score"
        )
        pending = rng.random() < 0.7
        pair_team = rng.randrange(2) if revealed and not pending and rng.random() < 0.5 else None
        mover = (leader + on_table * step) % 4
        asked = (
            reveal == "ask"
            and revealed
            and on_table > 0
            and rng.random() < 0.5
            and not hands[mover] & SUIT_MASK[table[0] >> 3]
        )
        try:
            pos = Position(
                hands=(hands[0], hands[1], hands[2], hands[3]),
                leader=leader,
                trick=table,
                points=(team0, won - team0),
                tricks_played=8 - tricks_left,
                trump=trump,
                revealed=revealed,
                reveal=reveal,
                asked=asked,
                unrevealed=unrevealed,
                last_trick_point=rng.random() < 0.5,
                pair_pending=pending,
                pair_team=pair_team,
                clockwise=clockwise,
            )
        except ValueError:
            continue  # e.g. an off-suit card on the table with hidden auto trumps
        return pos, random_goal(rng, pos)


def played_position(rng: random.Random, tricks_left: int, on_table: int) -> tuple[Position, Goal]:
    """A random full deal played at random down to the wanted point: positions as
    they arise in play (reveals and pairs happen the way the rules make them)."""
    deck = list(range(32))
    rng.shuffle(deck)
    hands = [0] * 4
    for i, c in enumerate(deck):
        hands[i // 8] |= 1 << c
    trump = rng.choice([None, 0, 1, 2, 3, 0, 1, 2, 3])
    reveal: RevealMode = "auto" if rng.random() < 0.5 else "ask"
    unrevealed: UnrevealedRule = "cancel" if trump is not None and rng.random() < 0.5 else "score"
    pos = Position(
        hands=(hands[0], hands[1], hands[2], hands[3]),
        leader=rng.randrange(4),
        trump=trump,
        revealed=trump is not None and rng.random() < 0.3,
        reveal=reveal,
        unrevealed=unrevealed,
        last_trick_point=rng.random() < 0.5,
        pair_pending=rng.random() < 0.6,
        clockwise=rng.random() < 0.5,
    )
    while not (pos.tricks_played == 8 - tricks_left and len(pos.trick) == on_table):
        pos = pos.play(rng.choice(pos.legal_moves()))
    return pos, random_goal(rng, pos)


def random_goal(rng: random.Random, pos: Position) -> Goal:
    team = rng.randrange(2)
    target = pos.points[team] + rng.randrange(-1, pos.remaining_points + 2)
    return Goal(team, target, target - rng.randint(1, 5), target + rng.randint(1, 5))


def small_positions(seed: int, count: int) -> list[tuple[Position, Goal]]:
    """One to three tricks left, any number of cards on the table."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        tricks_left = rng.choice([1, 2, 3])
        # With three full tricks left the brute force is slow: start inside the trick.
        on_table = rng.randrange(4) if tricks_left < 3 else rng.randrange(1, 4)
        make = direct_position if i % 3 else played_position
        out.append(make(rng, tricks_left, on_table))
    return out


@pytest.fixture(params=BACKENDS)
def solver(request: pytest.FixtureRequest) -> Solver:
    return Solver(request.param)


# -- against the brute force ----------------------------------------------------------


def test_exact_value_of_every_move_matches_brute_force(solver: Solver) -> None:
    """The core check: best value, yes/no, outcome and every move's value, all equal
    to the plain minimax, across trump states, pairs, cancellation and tricks in progress."""
    cases = small_positions(seed=1 if solver.compiled else 2, count=4000)
    for pos, goal in cases:
        by_move = brute_move_values(pos, goal)
        mover_wants_max = pos.to_move % 2 == goal.team
        best = max(by_move.values()) if mover_wants_max else min(by_move.values())
        assert best == brute_value(pos, goal)
        context = f"{pos} {goal}"
        assert solver.exact(pos, goal) == best, context
        assert solver.can_reach(pos, goal) == best.reached, context
        assert solver.outcome(pos, goal) == best.outcome, context
        assert solver.moves_exact(pos, goal) == by_move, context
        assert solver.moves_can_reach(pos, goal) == {m: v.reached for m, v in by_move.items()}


def test_terminal_and_one_card_positions_match_brute_force(solver: Solver) -> None:
    rng = random.Random(3)
    for _ in range(300):
        pos, goal = direct_position(rng, 1, rng.randrange(4))
        assert solver.exact(pos, goal) == brute_value(pos, goal)
        while not pos.is_over:
            pos = pos.play(rng.choice(pos.legal_moves()))
        assert solver.exact(pos, goal) == pos.final_value(goal)
        assert solver.moves_exact(pos, goal) == {}


def test_kernel_tries_one_move_of_each_class_of_equivalent_cards(solver: Solver) -> None:
    """The kernel's own move generation (follow, reveal, ask obligation, merging)
    gives exactly the classes of the readable rules' legal moves."""
    rng = random.Random(4)
    for i in range(4000):
        make = direct_position if i % 2 else played_position
        pos, _ = make(rng, rng.randrange(1, 9), rng.randrange(4))
        tried = solver.kernel_root_moves(pos)
        assert len(tried) == len(set(tried))
        assert set(tried) == {representative(pos, m) for m in pos.legal_moves()}, pos


def test_compiled_and_plain_kernels_agree_on_bigger_positions() -> None:
    if not numba_available():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("numba is missing in CI: `make test` installs it", pytrace=False)
        pytest.skip("numba not installed or switched off")
    rng = random.Random(5)
    pure, compiled = Solver("pure"), Solver("numba")
    for i in range(150):
        make = direct_position if i % 2 else played_position
        pos, goal = make(rng, rng.choice([4, 5]), rng.randrange(4))
        assert pure.moves_exact(pos, goal) == compiled.moves_exact(pos, goal), pos


def test_all_moves_agree_with_separate_solves(solver: Solver) -> None:
    rng = random.Random(6)
    for i in range(40):
        make = direct_position if i % 2 else played_position
        pos, goal = make(rng, rng.choice([3, 4, 5]), rng.randrange(4))
        values = solver.moves_exact(pos, goal)
        outcomes = solver.moves_outcome(pos, goal)
        reach = solver.moves_can_reach(pos, goal)
        assert list(values) == pos.legal_moves()
        for move, value in values.items():
            after = pos.play(move)
            assert solver.exact(after, goal) == value
            assert outcomes[move] == value.outcome == solver.outcome(after, goal)
            assert reach[move] == value.reached == solver.can_reach(after, goal)
        best = max(values.values()) if pos.to_move % 2 == goal.team else min(values.values())
        assert solver.exact(pos, goal) == best


def test_a_guessed_value_changes_no_answer(solver: Solver) -> None:
    """Any guess, right, wrong or out of range, cancellation included: the same values."""
    rng = random.Random(8)
    for i in range(300):
        make = direct_position if i % 2 else played_position
        pos, goal = make(rng, rng.choice([1, 2, 3]), rng.randrange(4))
        plain = solver.moves_exact(pos, goal)
        truth = solver.exact(pos, goal)
        right = truth.margin if truth.margin is not None else 0
        for guess in (right, right - 1, right + 3, rng.randint(-30, 30)):
            assert solver.exact(pos, goal, guess) == truth, (pos, goal, guess)
            assert solver.moves_exact(pos, goal, guess) == plain, (pos, goal, guess)


def test_a_node_limit_stops_a_search_and_changes_no_answer(solver: Solver) -> None:
    """Under a node limit a query answers as without one or raises ``OutOfNodes``; the
    solver's next queries answer the same, and without a limit nothing is counted
    differently."""
    rng = random.Random(9)
    fresh = Solver("numba" if solver.compiled else "pure")
    stopped = 0
    for i in range(60):
        make = direct_position if i % 2 else played_position
        pos, goal = make(rng, rng.choice([4, 5, 6]), rng.randrange(4))
        start = fresh.nodes
        truth = fresh.moves_exact(pos, goal)
        cost = fresh.nodes - start
        limit = rng.randrange(1, max(2, cost))
        before = solver.nodes
        with solver.node_limit(limit):
            try:
                got = solver.moves_exact(pos, goal)
            except OutOfNodes:
                stopped += 1
                assert limit < solver.nodes - before <= limit + 1
            else:
                assert got == truth
        assert solver.moves_exact(pos, goal) == truth
        start = solver.nodes
        with solver.node_limit(None):
            assert solver.moves_exact(pos, goal) == truth
        assert solver.nodes - start == cost  # the same search, node for node
    assert stopped > 20
    with solver.node_limit(10), solver.node_limit(10**9):  # the tighter limit holds
        pos, goal = played_position(random.Random(10), 8, 0)
        with pytest.raises(OutOfNodes):
            solver.moves_outcome(pos, goal)


def test_module_functions_use_a_shared_solver() -> None:
    pos, goal = played_position(random.Random(7), 3, 1)
    assert exact(pos, goal) == brute_value(pos, goal)
    assert can_reach(pos, goal) == brute_value(pos, goal).reached
    assert outcome(pos, goal) == brute_value(pos, goal).outcome
    assert moves_exact(pos, goal) == brute_move_values(pos, goal)
    assert set(moves_can_reach(pos, goal)) == set(pos.legal_moves())


def test_each_thread_solves_with_its_own_solver() -> None:
    """Two threads never share a solver's tables: each gets its own, and solving at the
    same time gives what solving alone does (a shared solver tore its tables, and the
    compiled search then wrote past them)."""
    from twentynine.bots.solving import solver

    rng = random.Random(11)
    cases = [played_position(rng, rng.randint(3, 6), rng.randint(0, 3)) for _ in range(24)]
    alone = [exact(pos, goal) for pos, goal in cases]
    mine = solver()
    assert solver() is mine and default_solver() is default_solver()
    got: dict[int, list[object]] = {}
    theirs: dict[int, object] = {}

    def work(k: int) -> None:
        theirs[k] = solver()
        got[k] = [
            (exact(pos, goal), solver().exact(pos, goal)) for _ in range(3) for pos, goal in cases
        ]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({id(s) for s in theirs.values()} | {id(mine)}) == 4
    for k in range(3):
        assert got[k] == [(v, v) for _ in range(3) for v in alone]


# -- rules, one at a time ---------------------------------------------------------------


def one_trick(
    hands: list[str], leader: int, trump: int | None, *, trick: str = "", **rules: object
) -> Position:
    """The last trick of a deal, the other points already won by team 1."""
    masks = [mask(h) for h in hands]
    table = tuple(parse_cards(trick))
    in_play = sum(POINTS[c] for m in masks for c in range(32) if m >> c & 1)
    in_play += sum(POINTS[c] for c in table)
    return Position(
        hands=(masks[0], masks[1], masks[2], masks[3]),
        leader=leader,
        trick=table,
        points=(0, TOTAL_POINTS - in_play),
        tricks_played=7,
        trump=trump,
        **rules,  # type: ignore[arg-type]
    )


def test_hidden_trumps_have_no_power_when_a_seat_discards_under_ask(solver: Solver) -> None:
    # Hearts led; seat 1 has no heart and throws the Jack of spades (trumps) without
    # asking: the Ace of hearts wins, with the Jack's 3 points, for team 0.
    pos = one_trick(["AH", "JS", "7H", "8H"], 0, trump=0, reveal="ask")
    values = solver.moves_exact(pos.play(mask_and_card("AH")), Goal(0, 0))
    assert values == {
        Move(mask_and_card("JS")): Value(4),
        Move(mask_and_card("JS"), reveal=True): Value(0),
    }


def mask_and_card(text: str) -> int:
    return parse_cards(text)[0]


def test_auto_reveal_lets_the_void_seat_trump(solver: Solver) -> None:
    # Clubs secret trumps, West (1) leads 8H, North (2) plays KH, East (3) is void:
    # the reveal comes, 7C beats KH, then South (0), void too, wins with JC.
    pos = one_trick(["JC", "8H", "KH", "7C"], 1, trump=3, reveal="auto")
    assert solver.exact(pos, Goal(0, 3)) == Value(0)  # the J of clubs is all the points
    after_east = pos.play(mask_and_card("8H")).play(mask_and_card("KH")).play(mask_and_card("7C"))
    assert after_east.revealed
    assert after_east.legal_moves() == [Move(mask_and_card("JC"))]


def test_trumps_on_the_table_become_trumps_at_the_reveal(solver: Solver) -> None:
    # Clubs led while hidden, a later seat void in clubs: the highest club wins.
    pos = one_trick(["9C", "JC", "8C", "7H"], 0, trump=3, reveal="auto")
    assert solver.exact(pos, Goal(1, TOTAL_POINTS)) == Value(0)


def test_last_trick_point_goes_to_the_winner_of_the_eighth_trick(solver: Solver) -> None:
    pos = one_trick(["7H", "8H", "QH", "KH"], 0, trump=None, last_trick_point=True)
    assert solver.exact(pos, Goal(1, pos.points[1] + 1)) == Value(0)
    assert solver.exact(pos, Goal(0, 0)) == Value(0)


def test_cancelled_deal_counts_neither_made_nor_failed(solver: Solver) -> None:
    # Everyone follows suit, trumps stay hidden: the deal is void.
    pos = one_trick(["7H", "8H", "QH", "KH"], 0, trump=0, unrevealed="cancel")
    goal = Goal(1, 0)
    assert solver.outcome(pos, goal) == Outcome.CANCELLED
    assert not solver.can_reach(pos, goal)
    assert solver.exact(pos, goal) == Value(None)
    assert solver.exact(pos, goal).cancelled


def test_team_that_cannot_reach_the_target_prefers_cancelling(solver: Solver) -> None:
    # Seat 1 can reveal by asking (and then lose) or discard and keep the deal void.
    pos = one_trick(["AH", "JS", "7H", "8H"], 0, trump=0, reveal="ask", unrevealed="cancel")
    pos = pos.play(mask_and_card("AH"))
    goal = Goal(0, 1)
    values = solver.moves_outcome(pos, goal)
    assert values == {
        Move(mask_and_card("JS")): Outcome.CANCELLED,
        Move(mask_and_card("JS"), reveal=True): Outcome.MISSED,
    }
    assert solver.outcome(pos, goal) == Outcome.MISSED  # seat 1 is the other team


def test_pair_changes_the_target_of_the_team_that_declares_it(solver: Solver) -> None:
    # Spades revealed; seat 0 holds K and Q of spades. Team 0 wins trick 7 with the
    # Jack of hearts, declares the pair, and needs 4 less.
    hands = [mask("JH KS QS"), mask("7H 8D 9D"), mask("8H 7D TD"), mask("9H AD JD")]
    in_play = sum(POINTS[c] for m in hands for c in range(32) if m >> c & 1)
    pos = Position(
        hands=(hands[0], hands[1], hands[2], hands[3]),
        leader=0,
        points=(10, TOTAL_POINTS - 10 - in_play),
        tricks_played=5,
        trump=0,
        revealed=True,
        pair_pending=True,
    )
    assert pos.pair_holder == 0
    no_pair = Position(**{**pos.__dict__, "pair_pending": False})
    assert solver.exact(no_pair, Goal(0, 20)) == Value(2)  # team 0 takes all 12 points
    goal = Goal(0, 20, target_own_pair=16, target_their_pair=24)
    assert solver.exact(pos, goal) == Value(6) == brute_value(pos, goal)
    # The defenders' view of the same cards: the pair raises what they must stop.
    assert solver.exact(pos, Goal(1, 9, 5, 13)) == brute_value(pos, Goal(1, 9, 5, 13))
    with pytest.raises(ValueError, match="target_own_pair"):
        solver.exact(pos, Goal(0, 20))


def test_asking_seat_must_overtake_with_a_trump_when_it_can(solver: Solver) -> None:
    # Hearts led, seat 1 threw the 9 of spades (hidden trumps), seat 2 asks holding
    # J and 7 of spades: it must overtake the 9 with the Jack.
    hands = [mask("8C"), mask("7D"), mask("JS 7S"), mask("8D 7C")]
    pos = Position(
        hands=(hands[0], hands[1], hands[2], hands[3]),
        leader=0,
        trick=(mask_and_card("AH"), mask_and_card("9S")),
        points=(0, TOTAL_POINTS - 6),
        tricks_played=6,
        trump=0,
        reveal="ask",
    )
    assert Move(mask_and_card("7S"), reveal=True) not in pos.legal_moves()
    assert Move(mask_and_card("JS"), reveal=True) in pos.legal_moves()
    assert Move(mask_and_card("7S")) in pos.legal_moves()  # a plain discard is allowed
    assert set(solver.kernel_root_moves(pos)) == set(pos.legal_moves())
    asked = Position(**{**pos.__dict__, "revealed": True, "asked": True})
    assert asked.legal_moves() == [Move(mask_and_card("JS"))]
    assert solver.kernel_root_moves(asked) == [Move(mask_and_card("JS"))]


def test_value_orders_results_as_the_team_prefers() -> None:
    assert Value(-3) < Value(-1) < Value(None) < Value(0) < Value(2)
    assert Value(None).outcome == Outcome.CANCELLED
    assert Value(0).reached and not Value(-1).reached
    assert Value.from_rank(Value(None).rank) == Value(None)
    assert Value.from_rank(Value(-4).rank) == Value(-4)


# -- bad input ------------------------------------------------------------------------------


def full_deal() -> list[int]:
    return [0xFF, 0xFF << 8, 0xFF << 16, 0xFF << 24]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"hands": (0xFF, 0xFF, 0xFF << 16, 0xFF << 24)}, "both hold"),
        ({"hands": (0x7F, 0xFF << 8, 0xFF << 16, 0xFF << 24)}, "holds 7 cards"),
        ({"points": (1, 0)}, "do not add up"),
        ({"leader": 4}, "leader"),
        ({"trick": (0, 1, 2, 3)}, "at most 3"),
        ({"trick": (0,)}, "both on the table"),
        ({"tricks_played": 9}, "tricks_played"),
        ({"trump": 5}, "trump"),
        ({"reveal": "sometimes"}, "reveal"),
        ({"revealed": True}, "without a trump suit"),
        ({"unrevealed": "cancel"}, "nothing can be revealed"),
        ({"asked": True}, "asked"),
        ({"trump": 0, "pair_team": 0}, "after the reveal"),
        ({"trump": 0, "revealed": True, "pair_team": 0, "pair_pending": True}, "both"),
    ],
)
def test_impossible_positions_are_refused(change: dict[str, object], message: str) -> None:
    fields: dict[str, object] = {"hands": tuple(full_deal()), "leader": 0, **change}
    with pytest.raises(ValueError, match=message):
        Position(**fields)  # type: ignore[arg-type]


def test_off_suit_card_on_the_table_means_auto_trumps_are_revealed() -> None:
    hands = full_deal()
    hands[0] &= ~1  # seat 0 led the 7 of spades
    hands[1] &= ~(1 << 8)  # seat 1 threw the 7 of hearts
    with pytest.raises(ValueError, match="revealed"):
        Position(hands=tuple(hands), leader=0, trick=(0, 8), trump=2)  # type: ignore[arg-type]


def test_bad_goals_and_backends_are_refused() -> None:
    with pytest.raises(ValueError, match="team"):
        Goal(2, 15)
    with pytest.raises(ValueError, match="integer"):
        Goal(0, 15.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="backend"):
        Solver("gpu")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="Position"):
        Solver("pure").exact("JS", Goal(0, 1))  # type: ignore[arg-type]


# -- packaging: numba optional, benchmark --------------------------------------------------


def run_python(code: str, **env: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return result.stdout.strip()


def test_environment_variable_forces_the_plain_python_kernel() -> None:
    code = "import twentynine.solver as s; print(s.numba_available(), s.Solver().compiled)"
    assert run_python(code, TWENTYNINE_NO_NUMBA="1") == "False False"


def test_solver_works_without_numpy_or_numba() -> None:
    code = (
        "import sys; sys.modules['numpy'] = None; sys.modules['numba'] = None\n"
        "from twentynine.solver import Goal, Position, exact\n"
        "pos = Position(hands=(0xFF, 0xFF << 8, 0xFF << 16, 0xFF << 24), leader=0)\n"
        "numpy = 'numpy' in sys.modules and bool(sys.modules['numpy'])\n"
        "print(exact(pos, Goal(0, 0)).margin, numpy)"
    )
    # One suit per seat and no trumps: nobody can follow, so seat 0 wins every trick
    # it leads, keeps the lead, and takes every point.
    margin, numpy_loaded = run_python(code).split()
    assert numpy_loaded == "False"
    assert int(margin) == TOTAL_POINTS


def test_benchmark_runs_on_a_tiny_input(capsys: pytest.CaptureFixture[str]) -> None:
    from twentynine.benchmarks import solver as bench

    assert bench.main(["--deals", "2", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "yes/no" in out and "exact" in out and "median" in out
