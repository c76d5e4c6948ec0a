"""The rating ladder: the round robin, the Bradley–Terry fit, the command, the shipped ratings."""

from __future__ import annotations

import json
import random

import pytest

from twentynine.bots.base import Style
from twentynine.bots.characters import (
    BY_ID,
    LADDER_ENV,
    ladder_ratings,
    read_ratings,
)
from twentynine.cli.main import main
from twentynine.game.rules import PROFILES
from twentynine.services.ladder import (
    anchor_of,
    fit,
    fit_boards,
    ladder_factory,
    pairs_of,
    play_ladder,
    rate,
    run_ladder,
)

PAGAT = PROFILES["pagat"]


def check_ratings(ladder, players):
    assert sorted(r.player for r in ladder.ratings) == sorted(players)
    assert ladder.rating_of(ladder.anchor).rating == 0
    for r in ladder.ratings:
        lo, hi = r.ci95
        assert lo is not None and hi is not None
        assert lo <= r.rating <= hi, r
    ratings = [r.rating for r in ladder.ratings]
    assert ratings == sorted(ratings, reverse=True)


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_tiny_ladder_rates_every_player_with_the_anchor_at_zero(jobs):
    players = ["random", "novice", "casual"]
    ladder = play_ladder(PAGAT, players, deals=3, seed=5, jobs=jobs, resamples=50)
    check_ratings(ladder, players)
    assert ladder.anchor == "random"
    assert [(s.a, s.b) for s in ladder.pairs] == pairs_of(players)
    assert all(s.deals == 3 for s in ladder.pairs)
    for r in ladder.ratings:
        assert r.boards == 6 and r.points is not None and r.decision_ms["decisions"] > 0


def test_two_workers_give_the_ratings_of_one():
    players = ["pip", "tara", "raju"]
    one = play_ladder(PAGAT, players, deals=2, seed=3, jobs=1, resamples=20)
    two = play_ladder(PAGAT, players, deals=2, seed=3, jobs=2, resamples=20)
    assert [(r.player, r.rating, r.ci95) for r in one.ratings] == [
        (r.player, r.rating, r.ci95) for r in two.ratings
    ]
    assert one.anchor == "pip"  # no `random`: the first random-level player


def test_every_pair_plays_the_same_cards():
    boards = {}
    for k, board in run_ladder(PAGAT, ["novice", "meera", "raju"], deals=2, seed=8):
        boards.setdefault(board.deal, []).append(k)
    assert {d: sorted(ks) for d, ks in boards.items()} == {0: [0, 1, 2], 1: [0, 1, 2]}


def test_players_are_levels_characters_or_urls():
    raju = ladder_factory("raju", 1)
    assert raju.level == "casual" and raju.style == Style(boldness=-0.08)
    assert ladder_factory("casual", 1).style == Style()
    assert anchor_of(["casual", "random", "pip"]) == "random"
    assert anchor_of(["casual", "strong"]) == "casual"


def synthetic(true, boards, seed, tie=0.0):
    """Board scores drawn from known Elo ratings: a share ``tie`` of the boards tied, the
    rest won with the chance that makes the expected score the Elo expectation."""
    rng = random.Random(seed)
    scores = {}
    for i in range(len(true)):
        for j in range(i + 1, len(true)):
            p = 1 / (1 + 10 ** ((true[j] - true[i]) / 400))
            win = (p - tie / 2) / (1 - tie)
            scores[(i, j)] = [
                0.5 if rng.random() < tie else 1.0 if rng.random() < win else 0.0
                for _ in range(boards)
            ]
    return scores


def test_the_fit_recovers_known_ratings():
    true = [0, 120, 250, 400, 700]
    f = fit_boards(len(true), synthetic(true, 3000, seed=1), anchor=0, resamples=60, seed=2)
    for want, got, (lo, hi) in zip(true, f.ratings, f.ci95, strict=True):
        assert abs(got - want) < 30, (want, got)
        assert lo is not None and hi is not None and lo <= got <= hi
        assert hi - lo < 80
    assert f.ci95[0] == (0, 0)


def test_ties_count_half_and_the_anchor_can_be_anyone():
    # all ties: everyone is even
    ties = {(0, 1): (20.0, 40), (1, 2): (20.0, 40), (0, 2): (20.0, 40)}
    assert fit(3, ties, anchor=1) == pytest.approx([0, 0, 0], abs=1e-6)
    # a third of the boards tied, the anchor in the middle of the list
    true = [-200, 0, 150]
    f = fit_boards(3, synthetic(true, 3000, seed=4, tie=0.3), anchor=1, resamples=0)
    assert f.ratings[1] == 0
    assert f.ratings == pytest.approx(true, abs=30)


def test_the_fit_is_repeatable_for_a_seed():
    scores = synthetic([0, 100, 200], 30, seed=6)
    a = fit_boards(3, scores, resamples=40, seed=9)
    b = fit_boards(3, scores, resamples=40, seed=9)
    assert a.ratings == b.ratings and a.ci95 == b.ci95


def test_a_perfect_score_stays_finite():
    # player 1 wins every board: without the virtual tie its rating would run off to infinity
    scores = {(0, 1): [0.0] * 50, (1, 2): [1.0] * 50, (0, 2): [0.5, 1.0, 0.0, 1.0] * 10}
    f = fit_boards(3, scores, resamples=30, seed=1)
    assert 0 < f.ratings[1] < 5000 and f.ratings[1] > f.ratings[2]
    lo, hi = f.ci95[1]
    assert lo is not None and hi is not None and lo <= f.ratings[1] <= hi
    # so does a ladder whose every board goes one way, and the table says so
    f = fit_boards(2, {(0, 1): [1.0] * 20}, resamples=10)
    assert f.ratings[0] == 0 and -5000 < f.ratings[1] < 0
    assert fit(2, {(0, 1): (0.0, 1)}, 0)[1] > 0
    from twentynine.services.ladder import format_ladder

    ladder = play_ladder(PAGAT, ["random", "casual"], deals=2, seed=5, resamples=10)
    assert ladder.rating_of("random").score == 0  # casual wins both boards
    assert "random lost every board" in format_ladder(ladder)


def test_pairs_without_deals_and_players_without_a_link_to_the_anchor():
    # 0 and 1 played; 2 and 3 played each other only; 4 played nobody
    scores = {(0, 1): [1.0, 0.0, 1.0], (2, 3): [1.0, 1.0, 0.5], (0, 2): [], (1, 4): []}
    f = fit_boards(5, scores, anchor=0, resamples=20, seed=1)
    assert f.connected == {0, 1}
    assert f.ci95[2] == f.ci95[3] == f.ci95[4] == (None, None)
    assert f.ratings[4] == pytest.approx(0)
    assert f.ratings[2] > f.ratings[3]  # their own boards still order them
    # and the whole ladder when a pair has no boards at all
    players = ["random", "novice", "casual"]
    boards = {k: [b for _, b in run_ladder(PAGAT, players[:2], 2, seed=1)] for k in (0,)}
    ladder = rate(players, boards, deals=2, seed=1, resamples=10)
    assert not ladder.rating_of("casual").connected
    assert ladder.rating_of("casual").boards == 0
    assert [s.deals for s in ladder.pairs] == [2, 0, 0]
    json.dumps(ladder.to_json(), allow_nan=False)


def run_cli(args, capsys):
    status = main(["ladder", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_the_command_runs_on_a_tiny_input(capsys):
    status, out, err = run_cli(["random", "novice", "--deals", "1", "--quiet"], capsys)
    assert status == 0, err
    lines = out.splitlines()
    assert "random = 0" in lines[0] and "rating" in lines[1] and "p95" in lines[1]
    assert any(line.split()[0] == "novice" for line in lines[2:4])
    assert any("random - novice" in line for line in lines)


def test_the_command_writes_the_ladder_as_json(tmp_path, capsys):
    out = tmp_path / "runs" / "ladder.json"
    args = ["pip", "tara", "meera", "--deals", "2", "--seed", "4", "--quiet", "--out", str(out)]
    status, _text, err = run_cli(args, capsys)
    assert status == 0, err
    data = json.loads(out.read_text())
    assert data["command"] == "twentynine ladder " + " ".join(args)
    assert data["profile"] == "pagat" and data["deals_per_pair"] == 2 and data["anchor"] == "pip"
    assert {r["player"] for r in data["ratings"]} == {"pip", "tara", "meera"}
    assert len(data["pairs"]) == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["random", "wizard"], "unknown player 'wizard'"),
        (["random", "novice", "--deals", "0"], "--deals must be at least 1"),
        (["random", "novice", "--profile", "nope"], "unknown profile 'nope'"),
        (["random", "novice", "--set", "min_bid=banana"], "min_bid"),
        (["random"], "at least two players"),
        (["random", "random"], "more than once: random"),
    ],
)
def test_bad_input_is_one_line_and_status_2(args, message, capsys):
    status, _out, err = run_cli([*args, "--quiet"], capsys)
    assert status == 2
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("twentynine ladder: ")


def test_written_ratings_reach_the_characters(tmp_path, capsys, monkeypatch):
    path = tmp_path / "ladder.json"
    args = ["pip", "tara", "raju", "--deals", "2", "--quiet", "--resamples", "20"]
    status, _out, err = run_cli([*args, "--write-ratings", "--ratings-file", str(path)], capsys)
    assert status == 0, err
    kept = json.loads(path.read_text())
    assert kept["format"] == "twentynine-ladder/1"
    assert kept["profile"] == "pagat" and kept["deals_per_pair"] == 2 and kept["seed"] == 1
    assert kept["command"].startswith("twentynine ladder pip tara raju") and kept["date"]
    assert kept["ratings"]["pip"]["rating"] == 0
    ratings = read_ratings(path)
    assert set(ratings) == {"pip", "tara", "raju"}
    raju = BY_ID["raju"].to_json(ratings)
    assert raju["rating"] == kept["ratings"]["raju"]["rating"]
    assert raju["rating_ci95"] == kept["ratings"]["raju"]["ci95"]
    assert BY_ID["dada"].to_json(ratings)["rating"] is None  # not on this ladder
    assert BY_ID["dada"].to_json(ratings)["rating_ci95"] is None
    # the file that $TWENTYNINE_LADDER names is the one the characters show, read once
    monkeypatch.setenv(LADDER_ENV, str(path))
    ladder_ratings.cache_clear()
    try:
        assert BY_ID["raju"].to_json() == raju
        # --write-ratings without --ratings-file writes there too
        status, _out, err = run_cli([*args, "--seed", "2", "--write-ratings"], capsys)
        assert status == 0, err
        assert json.loads(path.read_text())["seed"] == 2
    finally:
        ladder_ratings.cache_clear()


def test_no_ladder_file_means_no_ratings(tmp_path, monkeypatch):
    assert read_ratings(tmp_path / "missing.json") == {}
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert read_ratings(bad) == {}
    bad.write_text(json.dumps({"ratings": [1, 2]}))
    assert read_ratings(bad) == {}
    monkeypatch.setenv(LADDER_ENV, str(tmp_path / "missing.json"))
    ladder_ratings.cache_clear()
    try:
        shown = BY_ID["dada"].to_json()
        assert shown["rating"] is None and shown["rating_ci95"] is None
        assert shown["name"] == "Dada" and shown["level"] == "expert"
    finally:
        ladder_ratings.cache_clear()
