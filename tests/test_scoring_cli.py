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
    # the file's rules can be changed (every deal still scores under pagat)
    proc = run("score", "--sheet", str(sheet), "--profile", "pagat", "--entry", "ns 16 took 20")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(sheet.read_text())["rules"] == {"profile": "pagat"}
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


# ---------------------------------------------------------------- issue 19: the defects


def test_undo_after_a_delete_puts_that_deal_back_and_keeps_the_rest(tmp_path: Path) -> None:
    script = "ns 17 took 19\new 22 took 20\nns 20 took 23\ndelete 2\nundo\n"
    proc = run("score", "--json", stdin=script)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert [ln["entry"].get("bid") for ln in report["lines"]] == [17, 22, 20]


def test_a_bad_piped_line_is_reported_with_its_number_and_the_rest_is_scored() -> None:
    proc = run("score", "--json", stdin="ns 17 took 19\nxx 18 took 20\nns 18 took 40\new 16 made\n")
    assert proc.returncode == 1
    assert [ln for ln in proc.stderr.splitlines() if ln.startswith("twentynine")] == [
        "twentynine score: line 2: 'xx' is not a team (ns or ew)",
        "twentynine score: line 3: deal 2: 40 points is more than the 28 there are",
    ]
    report = json.loads(proc.stdout)
    assert len(report["lines"]) == 2 and report["score"] == [1, 1]


def test_entries_given_as_options_go_on_after_a_bad_one_too() -> None:
    proc = run("score", "--entry", "ns 18 took 40", "--entry", "ns 18 took 20")
    assert proc.returncode == 1
    assert "line 1: deal 1: 40 points is more" in proc.stderr
    assert "Deal 1: N-S bid 18, target 18, took 20: made" in proc.stdout


def test_a_sheet_files_rules_change_when_its_deals_still_score(tmp_path: Path) -> None:
    sheet = tmp_path / "club.json"
    assert run("score", "--sheet", str(sheet), "--entry", "ns 18 took 8").returncode == 0
    proc = run("score", "--sheet", str(sheet), "--set", "under_half=yes", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["score"] == [-2, 0]  # the loss now counts double
    saved = json.loads(sheet.read_text())
    assert saved["rules"] == {"profile": "pagat", "under_half": True}
    # the rest of the sheet's own rules stay when only --set is given
    proc = run("score", "--sheet", str(sheet), "--set", "single_hand=3", "--json")
    assert json.loads(proc.stdout)["rules"] == {
        "profile": "pagat",
        "under_half": True,
        "single_hand": 3,
    }
    # and the change is one edit: undo takes it back
    proc = run("score", "--sheet", str(sheet), "--json", stdin="undo\n")
    assert json.loads(proc.stdout)["rules"] == {"profile": "pagat", "under_half": True}


def test_rules_the_deals_do_not_fit_are_refused_saying_why(tmp_path: Path) -> None:
    sheet = tmp_path / "club.json"
    assert run("score", "--sheet", str(sheet), "--entry", "ns 15 took 20").returncode == 0
    before = sheet.read_text()
    proc = run("score", "--sheet", str(sheet), "--profile", "modern", "--entry", "ew 16 made")
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        "twentynine score: the sheet's deals do not fit these rules: "
        "deal 1: bid 15 is below the minimum 16"
    )
    assert sheet.read_text() == before


def test_rules_change_inside_a_session_and_undo(tmp_path: Path) -> None:
    proc = run(
        "score",
        "--json",
        stdin="ns 18 took 8\nrules set under_half=yes\nrules set min_bid=19\nundo\n",
    )
    assert proc.returncode == 1
    assert "line 3: the sheet's deals do not fit these rules" in proc.stderr
    report = json.loads(proc.stdout)
    assert report["rules"] == {"profile": "pagat"} and report["score"] == [-1, 0]


def test_json_is_alone_on_stdout_and_ends_with_one_newline() -> None:
    for argv, stdin in [
        (["--entry", "ns 17 took 19"], ""),
        ([], "ns 17 took 19\n"),
        ([], "ns 17 took 19"),
        ([], "ns 17 took 19\nxx\n"),
    ]:
        proc = run("score", "--json", *argv, stdin=stdin)
        assert proc.stdout.endswith("}\n") and not proc.stdout.endswith("\n\n"), proc.stdout
        json.loads(proc.stdout)


def test_json_typed_at_a_terminal_keeps_the_prompts_off_stdout(tmp_path: Path) -> None:
    import pty

    leader, follower = pty.openpty()
    out = tmp_path / "out.json"
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", "COLUMNS": "100"}
    with out.open("w") as stdout:
        proc = subprocess.Popen(
            [*command(), "score", "--json"],
            stdin=follower,
            stdout=stdout,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        os.close(follower)
        os.write(leader, b"ns 17 took 19\nq\n")
        assert proc.wait(timeout=60) == 0
    os.close(leader)
    text = out.read_text()
    assert text.startswith("{") and text.endswith("}\n"), text[:80]
    assert json.loads(text)["score"] == [1, 0]


def test_the_heading_names_every_override() -> None:
    proc = run(
        "score",
        "--set",
        "under_half=yes",
        "--set",
        "single_hand=3",
        "--set",
        "match_target=8",
        stdin="sheet\n",
    )
    assert proc.returncode == 0
    heading = proc.stdout.splitlines()[0]
    assert "pagat" in heading and "under_half=yes" in heading and "single_hand=3" in heading
    assert "match to ±8" in heading


# ---------------------------------------------------------------- issue 19: as a regular uses it


def test_team_names_are_shown_kept_and_undone(tmp_path: Path) -> None:
    sheet = tmp_path / "club.json"
    proc = run(
        "score", "--sheet", str(sheet), "--names", "Asha & Ravi", "Mina [b]Jo[/b]",
        "--entry", "ns 18 took 20", "--entry", "ew 16 took 20",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Deal 1: Asha & Ravi bid 18" in proc.stdout
    assert "Mina [b]Jo[/b] +1" in proc.stdout  # a name is never read as markup
    assert json.loads(sheet.read_text())["names"] == ["Asha & Ravi", "Mina [b]Jo[/b]"]
    proc = run("score", "--sheet", str(sheet), "--json", stdin="names Us / Them\nsheet\nundo\n")
    assert "Us v Them" in proc.stderr
    assert json.loads(proc.stdout)["names"] == ["Asha & Ravi", "Mina [b]Jo[/b]"]
    proc = run("score", "--entry", "names Same / same")
    assert proc.returncode == 1 and "both teams cannot be called 'Same'" in proc.stderr


def test_named_sheets_are_kept_in_their_folder_and_listed_with_finished_matches(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "sheets"
    won = ["--entry", "ns 16 took 20"] * 6
    assert run("score", "--dir", str(folder), "--sheet", "monday", *won).returncode == 0
    assert (folder / "monday.json").exists()
    env_run = ["score", "--dir", str(folder), "--sheet", "friday", "--names", "Us", "Them"]
    assert run(*env_run, "--entry", "ew 20 took 22").returncode == 0
    (folder / "broken.json").write_text("[]")
    proc = run("score", "--dir", str(folder), "--list")
    assert proc.returncode == 0
    out = proc.stdout
    assert out.index("In play") < out.index("friday") < out.index("Finished matches")
    assert out.index("Finished matches") < out.index("monday")
    assert "North-South won" in out and "+6 : 0" in out and "Us v Them" in out
    assert "broken: cannot be read (not a score sheet" in out
    (tmp_path / "plain").write_text("")
    proc = run("score", "--sheet", str(tmp_path / "plain" / "x.json"), "--entry", "ns 16 took 20")
    assert proc.returncode == 2 and "cannot write" in proc.stderr
    proc = run("score", "--dir", str(folder), "--sheet", "bad*name")
    assert proc.returncode == 2 and "is not a sheet name" in proc.stderr


def test_the_next_match_takes_the_teams_and_rules_of_the_last(tmp_path: Path) -> None:
    folder = ["--dir", str(tmp_path)]
    first = ["--sheet", "one", "--names", "Us", "Them", "--set", "under_half=yes"]
    assert run("score", *folder, *first, "--entry", "ns 16 took 20").returncode == 0
    proc = run("score", *folder, "--sheet", "two", "--like", "one", "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["names"] == ["Us", "Them"] and report["entries"] == []
    assert report["rules"] == {"profile": "pagat", "under_half": True}
    proc = run("score", *folder, "--sheet", "two", "--like", "one")
    assert proc.returncode == 2 and "exists already" in proc.stderr
    proc = run("score", *folder, "--sheet", "three", "--like", "nowhere")
    assert proc.returncode == 2 and "cannot read" in proc.stderr


def test_the_sheets_folder_comes_from_the_environment(tmp_path: Path) -> None:
    env = {**os.environ, "TWENTYNINE_SHEETS": str(tmp_path), "PYTHONIOENCODING": "utf-8"}
    proc = subprocess.run(
        [*command(), "score", "--sheet", "club", "--entry", "ns 16 took 20"],
        env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert proc.returncode == 0 and (tmp_path / "club.json").exists()


def test_history_lists_what_undo_takes_back() -> None:
    proc = run(
        "score",
        stdin="ns 17 took 19\new 22 took 20\nedit 1 ns 17 took 12\ndelete 2\nhistory\nundo\n"
        "undo\nundo\nundo\nundo\n",
    )
    assert proc.returncode == 1  # the last undo finds nothing
    out = proc.stdout
    listing = out[out.index("Changes, the last first") :]
    assert listing.index("1. deal 2 deleted") < listing.index("2. deal 1 corrected")
    assert listing.index("2. deal 1 corrected") < listing.index("4. a deal added")
    assert "Undone: deal 2 deleted." in out and "Undone: deal 1 corrected." in out
    assert "line 10: there is nothing to undo" in proc.stderr


def test_export_writes_csv_and_json_and_the_json_opens_again(tmp_path: Path) -> None:
    csv_file, json_file = tmp_path / "s.csv", tmp_path / "s.json"
    proc = run(
        "score",
        stdin=f"ns 20 took 23 pair ew\nnames Us / Them\nexport {csv_file}\nexport {json_file}\n"
        f"export {tmp_path / 's.txt'}\n",
    )
    assert proc.returncode == 1 and "ending in .csv or .json" in proc.stderr
    lines = csv_file.read_text().splitlines()
    assert lines[0].startswith("Deal,Bidding team,Bid,Pair shown by,Doubling,Points taken")
    assert lines[1] == "1,Us,20,Them,,23,24,failed,,-1,0,-1,0"
    proc = run("score", "--sheet", str(json_file), "--csv", stdin="ew 16 took 20\n")
    assert proc.returncode == 0
    assert proc.stdout.splitlines()[2] == "2,Them,16,,,20,16,made,,0,+1,-1,+1"


def test_a_link_is_printed_and_opens_with_from(tmp_path: Path) -> None:
    proc = run(
        "score",
        "--set",
        "doubling=yes",
        stdin="ns 18 took 20 double\nnames A / B\nlink http://phone:8029\n",
    )
    link = proc.stdout.strip().splitlines()[-1]
    assert link.startswith("http://phone:8029/#score/sheet/")
    kept = tmp_path / "from-link.json"
    proc = run("score", "--sheet", str(kept), "--from", link, "--json", "--set", "under_half=yes")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["names"] == ["A", "B"] and report["score"] == [2, 0]
    assert report["rules"] == {"profile": "pagat", "doubling": True, "under_half": True}
    assert json.loads(kept.read_text())["entries"] == report["entries"]
    # --from never overwrites a kept sheet, and a damaged link changes nothing
    before = kept.read_text()
    proc = run("score", "--sheet", str(kept), "--from", link)
    assert proc.returncode == 2 and "exists already" in proc.stderr
    proc = run("score", "--sheet", str(tmp_path / "x.json"), "--from", link[:-9])
    assert proc.returncode == 2 and "neither a sheet file nor a sheet link" in proc.stderr
    assert kept.read_text() == before and not (tmp_path / "x.json").exists()


def test_a_malformed_sheet_file_is_refused_and_left_alone(tmp_path: Path) -> None:
    sheet = tmp_path / "club.json"
    text = '{"format": "29-scoresheet/1", "entries": [{"kind": "contract", "bid": 16}]}'
    sheet.write_text(text)
    proc = run("score", "--sheet", str(sheet), "--entry", "ns 16 took 20")
    assert proc.returncode == 2
    assert "club.json: deal 1: say which team bid" in proc.stderr
    assert sheet.read_text() == text
