"""The duplicate arena: pairing, statistics, outputs, the command."""

from __future__ import annotations

import json

import pytest

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


def _arena(out, *extra):
    return main(["arena", "casual", "novice", "--seed", "3", "--quiet", "--out", str(out), *extra])


def test_arena_keeps_each_board_as_it_finishes_and_resumes_the_rest(tmp_path, capsys):
    out = tmp_path / "run"
    assert _arena(out, "--deals", "3") == 0
    lines = (out / "boards.jsonl").read_text().splitlines()
    assert [json.loads(x)["deal"] for x in lines] == [0, 1, 2]
    assert len(list((out / "games").glob("*.json"))) == 6
    capsys.readouterr()
    # the run is extended to 5 deals: only deals 3 and 4 are played
    assert _arena(out, "--deals", "5", "--resume") == 0
    text = capsys.readouterr().out
    assert "3 of 5 deals already played" in text and "playing 2" in text
    assert [json.loads(x)["deal"] for x in (out / "boards.jsonl").read_text().splitlines()] == [
        0, 1, 2, 3, 4,
    ]  # fmt: skip
    resumed = json.loads((out / "summary.json").read_text())
    # the same as one run of 5 deals
    whole = tmp_path / "whole"
    assert _arena(whole, "--deals", "5") == 0
    once = json.loads((whole / "summary.json").read_text())
    for key in ("deals", "mean", "ci95", "make_rate", "contracts", "forfeits"):
        assert resumed[key] == once[key], key
    assert sorted(p.name for p in (out / "games").iterdir()) == sorted(
        p.name for p in (whole / "games").iterdir()
    )


def test_a_board_cut_short_by_a_kill_is_played_again(tmp_path, capsys):
    out = tmp_path / "run"
    assert _arena(out, "--deals", "3") == 0
    log = out / "boards.jsonl"
    lines = log.read_text().splitlines()
    log.write_text("\n".join(lines[:2]) + "\n" + lines[2][:40])  # the kill: deal 2 half written
    capsys.readouterr()
    assert _arena(out, "--deals", "3", "--resume") == 0
    assert "2 of 3 deals already played" in capsys.readouterr().out
    assert [json.loads(x)["deal"] for x in log.read_text().splitlines()] == [0, 1, 2]


def test_arena_folder_refuses_to_mix_runs(tmp_path, capsys):
    out = tmp_path / "run"
    assert _arena(out, "--deals", "2") == 0
    capsys.readouterr()
    before = (out / "boards.jsonl").read_text()
    # a new run into the same folder without --resume
    assert _arena(out, "--deals", "2") == 2
    assert "already holds a run; add --resume" in capsys.readouterr().err
    # another seed, other rules, another bot: not the same experiment
    assert _arena(out, "--deals", "2", "--resume", "--seed", "4") == 2
    assert "the seed of the deals differ" in capsys.readouterr().err
    assert _arena(out, "--deals", "2", "--resume", "--profile", "modern") == 2
    assert "the rules differ" in capsys.readouterr().err
    status = main(["arena", "casual", "random", "--deals", "2", "--quiet", "--seed", "3",
                   "--out", str(out), "--resume"])  # fmt: skip
    assert status == 2
    assert "bot B differ" in capsys.readouterr().err
    # other playing code
    run = json.loads((out / "run.json").read_text())
    (out / "run.json").write_text(json.dumps({**run, "code": "0" * 16}))
    assert _arena(out, "--deals", "2", "--resume") == 2
    assert "the playing code" in capsys.readouterr().err
    (out / "run.json").write_text(json.dumps(run))
    # a damaged line in the middle is an error, not a silent loss
    lines = before.splitlines()
    (out / "boards.jsonl").write_text("not json\n" + lines[1] + "\n")
    assert _arena(out, "--deals", "2", "--resume") == 2
    assert "line 1: not a board" in capsys.readouterr().err
    # --resume alone
    assert main(["arena", "casual", "novice", "--deals", "2", "--resume", "--quiet"]) == 2
    assert "--resume needs --out" in capsys.readouterr().err


def test_code_fingerprint_follows_the_playing_code(tmp_path):
    from twentynine.services.arena_folder import code_fingerprint

    for d in ("bots", "solver", "game"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "x.py").write_text("x = 1\n")
    first = code_fingerprint(tmp_path)
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "y.py").write_text("y = 2\n")
    assert code_fingerprint(tmp_path) == first  # an interface is not playing code
    (tmp_path / "bots" / "x.py").write_text("x = 2\n")
    assert code_fingerprint(tmp_path) != first


def test_runs_reports_kept_runs_each_and_pooled(tmp_path, capsys):
    first, second = tmp_path / "s3", tmp_path / "s5"
    assert _arena(first, "--deals", "3") == 0
    assert _arena(second, "--deals", "2", "--seed", "5") == 0
    # a later session's code: pooled, and said
    run = json.loads((second / "run.json").read_text())
    (second / "run.json").write_text(json.dumps({**run, "code": "0" * 16}))
    capsys.readouterr()
    assert main(["runs", str(first), str(second)]) == 0
    out = capsys.readouterr().out
    assert f"{first}: 3 deals (seed 3, code " in out and f"{second}: 2 deals (seed 5, code " in out
    assert "2 runs, 2 versions of the playing code" in out and "0" * 16 in out
    assert "casual (A) vs novice (B), 5 duplicate deals" in out
    # the pooled figures are those of the boards of both runs taken together
    from twentynine.services.arena_folder import read_run

    boards = read_run(first).boards + read_run(second).boards
    pooled = summarise("casual", "novice", boards)
    assert f"A minus B: {pooled.mean:+.3f}" in out
    # one run, stopped: its own line and its statistics
    assert main(["runs", str(first)]) == 0
    assert "casual (A) vs novice (B), 3 duplicate deals" in capsys.readouterr().out


def test_runs_refuses_what_does_not_pool(tmp_path, capsys):
    a, b = tmp_path / "a", tmp_path / "b"
    assert _arena(a, "--deals", "2") == 0
    assert _arena(b, "--deals", "2") == 0  # the same seed: the same deals
    capsys.readouterr()
    assert main(["runs", str(a), str(b)]) == 2
    assert "were dealt with the same seed (3)" in capsys.readouterr().err
    other = tmp_path / "other"
    status = main(["arena", "casual", "random", "--deals", "2", "--quiet", "--seed", "4",
                   "--out", str(other)])  # fmt: skip
    assert status == 0
    capsys.readouterr()
    assert main(["runs", str(a), str(other)]) == 2
    assert "did not play the same match: bot B differ" in capsys.readouterr().err
    modern = tmp_path / "modern"
    assert _arena(modern, "--deals", "1", "--seed", "6", "--profile", "modern") == 0
    capsys.readouterr()
    assert main(["runs", str(a), str(modern)]) == 2
    assert "the rules differ" in capsys.readouterr().err
    # no folder, no run, a damaged description, a run with no board yet
    assert main(["runs", str(tmp_path / "nowhere")]) == 2
    assert "holds no arena run (no run.json)" in capsys.readouterr().err
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "run.json").write_text("[1, 2]")
    assert main(["runs", str(tmp_path / "bad")]) == 2
    assert "is not a run's description" in capsys.readouterr().err
    (tmp_path / "bad" / "run.json").write_text('{"a": "casual"}')
    assert main(["runs", str(tmp_path / "bad")]) == 2
    assert "no format, b, rules, seed, code" in capsys.readouterr().err
    run = json.loads((a / "run.json").read_text())
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "run.json").write_text(json.dumps({**run, "seed": 9}))
    assert main(["runs", str(a), str(empty)]) == 2
    assert "has no finished board yet" in capsys.readouterr().err


def test_runs_paired_compares_two_bots_against_one_opponent_deal_by_deal(tmp_path, capsys):
    from twentynine.services.arena import compare_paired
    from twentynine.services.arena_folder import pair_runs, read_run

    casual, rnd = tmp_path / "casual", tmp_path / "random"
    assert _arena(casual, "--deals", "4") == 0
    status = main(["arena", "random", "novice", "--deals", "3", "--quiet", "--seed", "3",
                   "--out", str(rnd)])  # fmt: skip
    assert status == 0
    capsys.readouterr()
    assert main(["runs", "--paired", str(casual), str(rnd)]) == 0
    out = capsys.readouterr().out
    assert "casual and random, each against novice, on the same 3 deals" in out
    pairs = pair_runs(read_run(casual), read_run(rnd))
    assert [one.deal for one, _ in pairs] == [other.deal for _, other in pairs] == [0, 1, 2]
    result = compare_paired(pairs)
    # deal by deal: the difference of the runs' own figures on the deals both played
    firsts = [one.a_minus_b() for one, _ in pairs]
    seconds = [other.a_minus_b() for _, other in pairs]
    assert result.mean == pytest.approx(sum(firsts) / 3 - sum(seconds) / 3)
    assert result.first == pytest.approx(sum(firsts) / 3)
    assert result.differ == sum(1 for x, y in zip(firsts, seconds, strict=True) if x != y)
    assert f"the difference, casual − random: {result.mean:+.3f} (" in out
    lo, hi = result.ci95
    assert lo <= result.mean <= hi


def test_runs_paired_refuses_runs_that_are_not_a_pair(tmp_path, capsys):
    a = tmp_path / "a"
    assert _arena(a, "--deals", "2") == 0
    other_seed, other_b, same_a = tmp_path / "seed", tmp_path / "b", tmp_path / "same"
    assert main(["arena", "random", "novice", "--deals", "2", "--quiet", "--seed", "4",
                 "--out", str(other_seed)]) == 0  # fmt: skip
    assert main(["arena", "random", "casual", "--deals", "2", "--quiet", "--seed", "3",
                 "--out", str(other_b)]) == 0  # fmt: skip
    assert _arena(same_a, "--deals", "1") == 0
    capsys.readouterr()
    for folder, why in (
        (other_seed, "cannot be paired: their seeds differ (3 against 4)"),
        (other_b, "cannot be paired: their bots B differ ('novice' against 'casual')"),
        (same_a, "both played 'casual' as bot A: nothing to compare"),
    ):
        assert main(["runs", "--paired", str(a), str(folder)]) == 2
        assert why in capsys.readouterr().err
    assert main(["runs", "--paired", str(a)]) == 2
    assert "--paired takes two folders, not 1" in capsys.readouterr().err
    run = json.loads((a / "run.json").read_text())
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "run.json").write_text(json.dumps({**run, "a": "random"}))
    (empty / "boards.jsonl").write_text("")
    assert main(["runs", "--paired", str(a), str(empty)]) == 2
    assert "have no finished deal in common" in capsys.readouterr().err


def test_a_kept_run_takes_each_board_as_it_finishes(tmp_path, monkeypatch, capsys):
    """With --out a worker hands back every board as it is played (chunks of one), so a
    run stopped with two workers loses only the boards in play; without --out the
    default chunks stand."""
    import twentynine.services.arena as arena

    seen: list[int | None] = []
    real = arena.run_boards

    def spy(*args, **kwargs):
        seen.append(args[6] if len(args) > 6 else kwargs.get("chunksize"))
        return real(*args, **kwargs)

    monkeypatch.setattr(arena, "run_boards", spy)
    assert _arena(tmp_path / "kept", "--deals", "3", "--jobs", "2") == 0
    assert main(["arena", "casual", "novice", "--deals", "2", "--quiet", "--jobs", "2"]) == 0
    assert seen == [1, None]
    capsys.readouterr()
    # chunks of one give every board, each once
    got = sorted(b.deal for b in real(PROFILES["pagat"], "casual", "random", 7, 3, 2, 1))
    assert got == list(range(7))
