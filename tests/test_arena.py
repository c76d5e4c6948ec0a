"""The duplicate arena: pairing, statistics, outputs, the command."""

from __future__ import annotations

import json

from twentynine.cli.main import main
from twentynine.game.record import replay_text
from twentynine.game.rules import PROFILES
from twentynine.services.arena import BoardResult, play_board, run_boards, summarise


def test_duplicate_pairing_swaps_the_teams_and_keeps_the_cards():
    board = play_board(PROFILES["pagat"], "casual", "novice", deal_no=3, seed=11)
    first, second = board.games
    assert {first.a_team, second.a_team} == {0, 1}
    d1, d2 = first.record["deals"][0], second.record["deals"][0]
    assert d1["hands"] == d2["hands"]  # the same cards in the same seats
    assert d1["dealer"] == d2["dealer"]


def test_board_difference_counts_each_bot_on_its_own_team():
    board = play_board(PROFILES["pagat"], "casual", "casual", deal_no=0, seed=5)
    manual = sum(g.delta[g.a_team] - g.delta[1 - g.a_team] for g in board.games) / 2
    assert board.a_minus_b() == manual


def test_a_bot_against_itself_is_even_on_the_same_seeds():
    boards = list(run_boards(PROFILES["pagat"], "novice", "novice", 12, seed=2))
    s = summarise("novice", "novice", boards)
    assert s.mean == 0  # the same deterministic player on both sides of every deal
    assert s.ci95[0] <= 0 <= s.ci95[1]


def test_every_arena_game_record_replays_to_its_result():
    boards = list(run_boards(PROFILES["modern"], "casual", "random", 4, seed=9))
    for board in boards:
        for g in board.games:
            verdict = replay_text(json.dumps(g.record))
            assert verdict.ok, verdict.data
            assert verdict.data["deals"][0]["delta"] == list(g.delta)


def test_parallel_jobs_give_the_same_results_as_one_job():
    one = sorted(run_boards(PROFILES["pagat"], "casual", "novice", 6, seed=4, jobs=1), key=_deal)
    two = sorted(run_boards(PROFILES["pagat"], "casual", "novice", 6, seed=4, jobs=2), key=_deal)
    assert [b.a_minus_b() for b in one] == [b.a_minus_b() for b in two]


def _deal(b: BoardResult) -> int:
    return b.deal


def test_arena_command_writes_summary_records_and_plot(tmp_path, capsys):
    out = tmp_path / "run"
    plot = tmp_path / "diff.png"
    status = main(
        [
            "arena", "casual", "random", "--deals", "6", "--seed", "3", "--quiet",
            "--out", str(out), "--plot", str(plot),
        ]
    )  # fmt: skip
    assert status == 0
    text = capsys.readouterr().out
    assert "95% CI" in text and "Elo" in text and "p95" in text
    summary = json.loads((out / "summary.json").read_text())
    assert summary["deals"] == 6
    assert len(list((out / "games").glob("*.json"))) == 12
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_arena_command_rejects_an_unknown_bot(capsys):
    assert main(["arena", "casual", "wizard", "--deals", "2", "--quiet"]) == 2
    assert "unknown bot 'wizard'" in capsys.readouterr().err
