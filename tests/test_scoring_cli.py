"""``twentynine score`` (the table scorer in the terminal) and the command line around it:
every sub-command has --help with examples, errors are one line with a non-zero
status, shell completion is generated from the parser."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from twentynine import __version__
from twentynine.cli.main import main


def command() -> list[str]:
    script = Path(sys.executable).with_name("twentynine")
    return [str(script)] if script.exists() else [sys.executable, "-m", "twentynine.cli.main"]


def run(*argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", "COLUMNS": "100"}
    proc = subprocess.run(
        [*command(), *argv],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stderr
    return proc


def test_a_piped_sheet_with_a_correction_prints_the_scored_json() -> None:
    script = "ns 17 took 19\new 22 took 20\nns 20 took 23 pair ew\nedit 1 ns 17 took 12\nsheet\n"
    proc = run("score", "--json", stdin=script)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert [ln["delta"] for ln in report["lines"]] == [[-1, 0], [0, -1], [-1, 0]]
    assert report["lines"][2]["target"] == 24
    assert report["score"] == [-2, -1] and report["winner"] is None


def test_terminal_lines_show_target_result_and_pips() -> None:
    proc = run("score", "--entry", "ns 18 took 15 pair ns", "--entry", "ew 16 took 20")
    assert proc.returncode == 0
    out = proc.stdout
    assert "target 15 (pair N-S)" in out and "made" in out
    assert "N-S +1 ●○○○○○" in out and "E-W +1 ●○○○○○" in out
    proc = run("score", "--ascii", "--entry", "ew 16 took 2")
    assert "E-W -1 *....." in proc.stdout


def test_the_match_ends_and_later_deals_are_refused() -> None:
    entries = ["ns 16 took 20"] * 6 + ["ew 16 took 20"]
    args = [x for e in entries for x in ("--entry", e)]
    proc = run("score", *args)
    assert proc.returncode == 1
    assert "North-South win the match!" in proc.stdout
    assert proc.stderr.strip() == (
        "twentynine score: line 7: deal 7: the match ended at deal 6: North-South won"
    )


@pytest.mark.parametrize(
    ("entry", "words"),
    [
        ("ns 18 took 29", "29 points is more than the 28 there are"),
        ("ns 30 took 20", "bid 30 is above the maximum 28"),
        ("ns single", "a single hand has no bid"),
        ("single ns made", "single hands are not played under these rules"),
        ("ns 18 took 20 pair", "pair shown by which team?"),
        ("xx 18 took 20", "'xx' is not a team"),
    ],
)
def test_impossible_entries_are_one_clear_line(entry: str, words: str) -> None:
    proc = run("score", "--entry", entry)
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and words in proc.stderr


def test_the_sheet_file_is_kept_and_resumed(tmp_path: Path) -> None:
    sheet = tmp_path / "club.json"
    assert (
        run(
            "score", "--profile", "modern", "--sheet", str(sheet), "--entry", "ns 20 took 22"
        ).returncode
        == 0
    )
    saved = json.loads(sheet.read_text())
    assert saved["rules"] == {"profile": "modern"} and len(saved["entries"]) == 1
    proc = run(
        "score",
        "--sheet",
        str(sheet),
        "--json",
        stdin="ew 18 took 10 double\nundo\new 18 took 10\n",
    )
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["score"] == [1, -1]
    proc = run("score", "--sheet", str(sheet), "--profile", "pagat", "--entry", "ns 16 took 20")
    assert proc.returncode == 2 and "keeps its own rules" in proc.stderr
    sheet.write_text("{not json")
    proc = run("score", "--sheet", str(sheet), "--entry", "ns 16 took 20")
    assert proc.returncode == 2 and "is not JSON" in proc.stderr


def test_interactive_errors_do_not_stop_the_sheet(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stdin", Tty("ns 18 took 40\nns 18 took 20\n?\nrules\nq\n"))
    monkeypatch.setattr("builtins.input", lambda prompt="": _pop(sys.stdin))
    assert main(["score"]) == 0
    out = capsys.readouterr().out
    assert "! deal 1: 40 points is more than the 28 there are" in out
    assert "Deal 1: N-S bid 18, target 18, took 20: made" in out
    assert "edit N <entry>" in out and "Rules: pagat" in out


def _pop(stream: io.StringIO) -> str:
    line = stream.readline()
    if not line:
        raise EOFError
    return line.rstrip("\n")


# ---------------------------------------------------------------- the command line


@pytest.mark.parametrize(
    "sub", ["play", "score", "serve", "arena", "replay", "rules", "bench", "completion"]
)
def test_every_sub_command_has_help_with_examples(
    sub: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as done:
        main([sub, "--help"])
    assert done.value.code == 0
    assert "examples:" in capsys.readouterr().out


def test_version_and_the_list_of_commands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.strip() == f"twentynine {__version__}"
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    for sub in ("play", "serve", "arena", "replay", "rules", "score", "bench", "completion"):
        assert sub in text


def test_shell_completion_scripts_know_the_sub_commands() -> None:
    pytest.importorskip("shtab")
    proc = run("completion", "bash")
    assert proc.returncode == 0
    assert "play" in proc.stdout and "score" in proc.stdout and "--hotseat" in proc.stdout
    assert run("completion", "zsh").returncode == 0


def test_usage_errors_are_one_line_and_non_zero() -> None:
    proc = run("play", "--hotseat", "7")
    assert proc.returncode == 2 and proc.stderr.strip().count("\n") == 0
    proc = run("play", "--plain", "--set", "min_bid=40")
    assert proc.returncode == 2 and "min_bid" in proc.stderr
    proc = run("score", "--set", "nonsense=1")
    assert proc.returncode == 2 and "unknown option" in proc.stderr
