"""``bench positions --run DIR``: bots' moves on the positions an arena run kept, each
set against the solution, paired position by position."""

from __future__ import annotations

import re

import pytest

from twentynine.benchmarks import contracts, positions
from twentynine.benchmarks.played import EARLY_LEAD, LATE_LEAD
from twentynine.cli.main import main
from twentynine.services.arena_folder import read_run


@pytest.fixture
def run(arena_run):
    return arena_run  # casual against novice, 6 pagat deals (conftest)


@pytest.mark.parametrize(
    ("role", "cards", "tricks", "kinds"),
    [
        ("defending", "leads", (1, 4), (EARLY_LEAD,)),
        ("declaring", "leads", (5, 8), (LATE_LEAD,)),
        ("both", "leads", (1, 8), (EARLY_LEAD, LATE_LEAD)),
    ],
)
def test_the_positions_and_the_runs_own_moves_match_the_moves_count(
    run, role, cards, tricks, kinds
):
    """The positions are exactly the chances ``bench contracts --moves`` counts for the same
    kind, and the moves the run played there gave away exactly what it counted. (Leads:
    a card that completes a trick and opens the pair window is judged here, by the
    solution of every move before it, where ``--moves`` leaves it out.)"""
    _, _, moves = contracts.solved_run(run, moves=True)
    assert moves is not None
    choice = positions.Choice(role, cards, *tricks)
    verdicts = positions.judge(read_run(run), ("novice",), choice)
    roles = ("declaring", "defending") if role == "both" else (role,)
    for side in "AB":
        mine = [v for v in verdicts if v.mover == side]
        keys = [(side, r, k) for r in roles for k in kinds]
        assert len(mine) == sum(moves.chances[k] for k in keys)
        assert sum(v.played_lost for v in mine) == sum(moves.lost[k] for k in keys)
    assert verdicts, "the tiny run has positions of this kind"


def test_a_bot_that_plays_as_in_the_run_loses_what_the_run_lost(run):
    """``novice`` plays by rank alone, whatever its seed: on B's own positions it makes the
    moves the run's novice made, so its give-aways there are the run's."""
    choice = positions.Choice("both", "all", 1, 8)
    verdicts = [
        v for v in positions.judge(read_run(run), ("novice", "casual"), choice) if v.mover == "B"
    ]
    assert verdicts
    assert [v.lost[0] for v in verdicts] == [v.played_lost for v in verdicts]
    assert all(len(v.lost) == 2 and len(v.seconds) == 2 for v in verdicts)


def test_the_report_pairs_each_bot_with_the_first(run, capsys):
    argv = ["bench", "positions", "novice", "casual", "--run", str(run), "--role", "both"]
    assert main([*argv, "--cards", "all", "--tricks", "1-8", "--games", "6"]) == 0
    text = capsys.readouterr().out
    n = int(re.search(r": (\d+) moves in tricks 1-8", text).group(1))
    assert n > 0
    assert "as played in the run: A casual gave away" in text
    lost = [int(x) for x in re.findall(r"gave away (\d+) \(", text)]
    paired = re.search(r"against novice: ([+-]\d+) \(95% CI", text)
    assert paired and int(paired.group(1)) == lost[-1] - lost[-2]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["novice", "--run", "{run}", "--tricks", "5-2"], "tricks within 1-8"),
        (["novice", "--run", "{run}", "--tricks", "x"], "tricks as A-B"),
        (["wizard", "--run", "{run}"], "unknown bot level"),
        (["novice", "--run", "{run}", "--games", "0"], "--games must be at least 1"),
        (["novice", "--run", "{run}", "--skip", "-1"], "--skip must be 0 or more"),
        (["novice", "--run", "{empty}"], "holds no arena run"),
        (["novice", "--run", "{run}", "--role", "north"], "invalid choice"),
    ],
)
def test_bad_arguments_are_refused_with_a_reason(run, tmp_path, capsys, argv, message):
    argv = [a.format(run=run, empty=tmp_path) for a in argv]
    with pytest.raises(SystemExit):
        positions.main(argv)
    assert message in capsys.readouterr().err


def test_a_broken_game_record_is_refused_with_its_path(broken_run, capsys):
    copy, name = broken_run
    with pytest.raises(SystemExit):
        positions.main(["novice", "--run", str(copy)])
    err = capsys.readouterr().err
    assert name in err and "not a game record of the run" in err


def test_worker_processes_judge_as_one_process_does(run):
    choice = positions.Choice("both", "leads", 1, 8)
    one = positions.judge(read_run(run), ("novice", "casual"), choice, games=6)
    two = positions.judge(read_run(run), ("novice", "casual"), choice, games=6, jobs=2)
    assert [(v.game, v.step, v.lost, v.played_lost) for v in one] == [
        (v.game, v.step, v.lost, v.played_lost) for v in two
    ]
    assert {v.game for v in one} <= {p.name for p in sorted((run / "games").glob("*"))[:6]}


def test_skip_and_games_pick_a_slice_of_the_runs_games_with_the_same_seeds(run):
    choice = positions.Choice("both", "leads", 1, 8)
    names = [path.name for path, _ in positions.games_of(read_run(run), None)]
    whole = positions.judge(read_run(run), ("casual",), choice)
    part = positions.judge(read_run(run), ("casual",), choice, games=3, skip=4)
    assert {v.game for v in part} <= set(names[4:7])
    inside = [v for v in whole if v.game in names[4:7]]
    assert [(v.game, v.step, v.lost) for v in part] == [(v.game, v.step, v.lost) for v in inside]
