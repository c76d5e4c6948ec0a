"""The ``twentynine`` command line: replay, rules, bench, --version.

Most tests call ``twentynine.cli.main.main`` in-process (capsys); a few run the
installed command in a subprocess to check the real exit status. No command
may ever print a traceback.
"""

from __future__ import annotations

import copy
import io
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from twentynine import __version__
from twentynine.cli.main import main
from twentynine.game import record
from twentynine.game.match import Match
from twentynine.game.rules import OPTION_NAMES, PROFILES

Play = Callable[..., Match]
RecordOf = Callable[[Match], dict[str, Any]]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out and "Traceback" not in err
    return status, out, err


def command() -> list[str]:
    """The installed console script next to this Python, else ``python -m``."""
    script = Path(sys.executable).with_name("twentynine")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "twentynine.cli.main"]


def run_process(*argv: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    proc = subprocess.run(
        [*command(), *argv],
        input=stdin.decode() if stdin is not None else None,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert "Traceback" not in proc.stdout and "Traceback" not in proc.stderr, proc.stderr
    return proc


# ---------------------------------------------------------------- record files
@pytest.fixture(scope="module")
def records(
    play: Play, record_json: RecordOf, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Path]:
    """Record files: a whole match, an illegal one, a malformed one, one in progress."""
    base = tmp_path_factory.mktemp("records")
    match = play("pagat", seed=29, rng_seed=29, max_deals=100)
    assert match.winner is not None
    good = record_json(match)
    illegal = copy.deepcopy(good)
    actions = illegal["deals"][0]["actions"]
    actions[0] = {"seat": (actions[0]["seat"] + 1) % 4, "pass": True}  # out of turn
    progress = record_json(play("modern", seed=3, rng_seed=3, max_actions=40))
    files = {
        "good": json.dumps(good),
        "illegal": json.dumps(illegal),
        "malformed": '{"format": "29-record/1", "deals": [',
        "progress": json.dumps(progress),
        "wrong_format": json.dumps({"format": "chess/1", "deals": []}),
    }
    out = {}
    for name, text in files.items():
        path = base / f"{name}.json"
        path.write_text(text, encoding="utf-8")
        out[name] = path
    out["missing"] = base / "no-such-record.json"
    return out


def verdict_of(path: Path) -> record.Verdict:
    return record.replay_text(path.read_bytes())


# ---------------------------------------------------------------- replay --json
def test_replay_json_of_a_good_record_prints_the_verdict(
    capsys: pytest.CaptureFixture[str], records: dict[str, Path]
) -> None:
    status, out, err = run(capsys, "replay", str(records["good"]), "--json")
    assert status == 0
    data = json.loads(out)
    assert data == verdict_of(records["good"]).data
    assert data["ok"] is True and data["complete"] is True and data["winner"] in (0, 1)
    assert out.count("\n") == 1  # one JSON object on one line
    assert err == ""


def test_replay_json_of_an_illegal_record_exits_1(
    capsys: pytest.CaptureFixture[str], records: dict[str, Path]
) -> None:
    status, out, _ = run(capsys, "replay", str(records["illegal"]), "--json")
    assert status == 1
    data = json.loads(out)
    assert data == verdict_of(records["illegal"]).data
    assert data["ok"] is False
    assert (data["error"]["deal"], data["error"]["action"]) == (0, 0)
    assert data["deals"] == []


@pytest.mark.parametrize("name", ["malformed", "wrong_format"])
def test_replay_json_of_a_malformed_record_exits_2(
    capsys: pytest.CaptureFixture[str], records: dict[str, Path], name: str
) -> None:
    status, out, _ = run(capsys, "replay", str(records[name]), "--json")
    assert status == 2
    data = json.loads(out)
    assert data["ok"] is False
    assert (data["error"]["deal"], data["error"]["action"]) == (None, None)
    assert data["error"]["message"]


def test_replay_of_a_missing_file_exits_2_with_a_clear_message(
    capsys: pytest.CaptureFixture[str], records: dict[str, Path]
) -> None:
    path = str(records["missing"])
    status, out, err = run(capsys, "replay", path)
    assert status == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and path in lines[0]
    status, out, err = run(capsys, "replay", path, "--json")
    assert status == 2
    data = json.loads(out)
    assert data["ok"] is False and path in data["error"]["message"]
    assert (data["error"]["deal"], data["error"]["action"]) == (None, None)


def test_replay_of_a_directory_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, _, err = run(capsys, "replay", str(tmp_path))
    assert status == 2 and err.strip()


def test_replay_json_of_a_record_in_progress_exits_0_incomplete(
    capsys: pytest.CaptureFixture[str], records: dict[str, Path]
) -> None:
    status, out, _ = run(capsys, "replay", str(records["progress"]), "--json")
    assert status == 0
    data = json.loads(out)
    assert data["ok"] is True and data["complete"] is False
    assert data["deals"][-1]["result"] == "in-progress"
    assert data == verdict_of(records["progress"]).data


def test_replay_reads_standard_input_with_a_dash(
    capsys: pytest.CaptureFixture[str],
    records: dict[str, Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = records["good"].read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    status, out, _ = run(capsys, "replay", "-", "--json")
    assert status == 0
    assert json.loads(out) == verdict_of(records["good"]).data


# ---------------------------------------------------------------- replay (text)
def test_replay_without_json_tells_the_game_trick_by_trick(
    capsys: pytest.CaptureFixture[str], records: dict[str, Path]
) -> None:
    status, out, err = run(capsys, "replay", str(records["good"]))
    assert status == 0 and err == ""
    data = verdict_of(records["good"]).data
    blocks = out.split("Deal ")[1:]
    assert len(blocks) == len(data["deals"])
    for n, (d, text) in enumerate(zip(data["deals"], blocks, strict=True), start=1):
        assert text.startswith(f"{n}:")
        for i in range(1, d["tricks_played"] + 1):
            assert f"Trick {i}:" in text
        assert f"Trick {d['tricks_played'] + 1}:" not in text
        result_words = {
            "made": "makes",
            "failed": "fails",
            "cancelled": "cancelled",
            "single-made": "Single hand",
            "single-failed": "Single hand",
        }
        assert result_words[d["result"]] in text
    assert "win the match" in out


ACCOUNTS = [
    ("pagat", {}),
    ("pagat", {"all_pass": "redeal", "single_hand": 3}),
    ("modern", {"seventh_card": True, "allow_set": True}),
    ("bangladesh", {}),
    ("bhoos", {"match_target": 2}),
    ("arcade", {"under_half": True, "auto_double_from": 20}),
]


@pytest.mark.parametrize(("profile", "options"), ACCOUNTS)
def test_replay_account_covers_every_trick_and_result_of_varied_games(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    play: Play,
    record_json: RecordOf,
    profile: str,
    options: dict[str, Any],
) -> None:
    for seed in range(6):
        match = play(profile, options=options, seed=seed, rng_seed=seed, max_deals=6)
        path = tmp_path / f"{profile}-{seed}.json"
        path.write_text(json.dumps(record_json(match)), encoding="utf-8")
        status, out, err = run(capsys, "replay", str(path))
        assert status == 0 and err == ""
        data = verdict_of(path).data
        blocks = out.split("Deal ")[1:]
        assert len(blocks) == len(data["deals"])
        for d, text in zip(data["deals"], blocks, strict=True):
            for i in range(1, d["tricks_played"] + 1):
                assert f"Trick {i}:" in text
            words = {
                "made": ["makes"],
                "failed": ["fails"],
                "cancelled": ["cancelled", "void"],
                "single-made": ["Single hand made"],
                "single-failed": ["Single hand lost"],
                "in-progress": ["In progress"],
            }[d["result"]]
            assert any(w in text for w in words), (d["result"], text)


def test_replay_text_of_an_illegal_record_reports_the_fault_on_stderr(
    capsys: pytest.CaptureFixture[str], records: dict[str, Path]
) -> None:
    status, _, err = run(capsys, "replay", str(records["illegal"]))
    assert status == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "deal 0" in lines[0] and "action 0" in lines[0]


def test_replay_text_of_a_malformed_record_exits_2(
    capsys: pytest.CaptureFixture[str], records: dict[str, Path]
) -> None:
    status, out, err = run(capsys, "replay", str(records["malformed"]))
    assert status == 2 and out == ""
    assert "JSON" in err
    assert len(err.strip().splitlines()) == 1


def test_replay_text_of_a_record_in_progress(
    capsys: pytest.CaptureFixture[str], records: dict[str, Path]
) -> None:
    status, out, _ = run(capsys, "replay", str(records["progress"]))
    assert status == 0
    assert "In progress" in out


# ---------------------------------------------------------------- rules
@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_rules_prints_every_option_of_each_profile(
    capsys: pytest.CaptureFixture[str], profile: str
) -> None:
    status, out, err = run(capsys, "rules", profile)
    assert status == 0 and err == ""
    for name in OPTION_NAMES:
        assert name in out, name


def test_rules_default_profile_is_pagat(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "rules")
    assert status == 0 and "pagat" in out


def test_rules_set_min_bid_shows_16(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "rules", "pagat", "--set", "min_bid=16")
    assert status == 0
    line = next(x for x in out.splitlines() if "min_bid" in x)
    assert "16" in line


def test_rules_set_unknown_option_is_one_line_naming_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = run(capsys, "rules", "--set", "nope=1")
    assert status != 0
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "nope" in lines[0]


@pytest.mark.parametrize(
    "argv",
    [
        ["rules", "--set", "min_bid=30"],
        ["rules", "--set", "min_bid=20", "--set", "max_bid=18"],
        ["rules", "--set", "max_bid=29"],
        ["rules", "--set", "reveal=sometimes"],
        ["rules", "--set", "min_bid"],
        ["rules", "chess"],
    ],
)
def test_rules_refuses_bad_settings_in_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    status, out, err = run(capsys, *argv)
    assert status != 0 and out == ""
    assert len(err.strip().splitlines()) == 1


def test_rules_json_prints_the_record_rules_object(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "rules", "--json")
    assert status == 0 and json.loads(out) == {"profile": "pagat"}
    status, out, _ = run(
        capsys, "rules", "modern", "--set", "seventh_card=yes", "--set", "min_bid=17", "--json"
    )
    assert status == 0
    assert json.loads(out) == {"profile": "modern", "seventh_card": True, "min_bid": 17}


def test_rules_list_names_every_profile(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "rules", "--list")
    assert status == 0
    for name in PROFILES:
        assert name in out


# ---------------------------------------------------------------- bench, version, usage
def test_bench_engine_runs(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "bench", "engine", "--deals", "5", "--runs", "1")
    assert status == 0
    assert "deals" in out


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    out, err = capsys.readouterr()
    assert __version__ in out + err


def test_no_command_prints_help_and_fails(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys)
    assert status != 0 and "replay" in out


# ---------------------------------------------------------------- real processes
def test_real_exit_statuses_of_replay(records: dict[str, Path]) -> None:
    expected = {"good": 0, "progress": 0, "illegal": 1, "malformed": 2, "missing": 2}
    for name, status in expected.items():
        proc = run_process("replay", str(records[name]), "--json")
        assert proc.returncode == status, (name, proc.stderr)
        data = json.loads(proc.stdout)
        assert data["ok"] is (status == 0)
        if name != "missing":
            assert data == verdict_of(records[name]).data


def test_real_replay_from_standard_input(records: dict[str, Path]) -> None:
    proc = run_process("replay", "-", "--json", stdin=records["good"].read_bytes())
    assert proc.returncode == 0
    assert json.loads(proc.stdout) == verdict_of(records["good"]).data
    proc = run_process("replay", "-", "--json", stdin=b"not json")
    assert proc.returncode == 2
    assert json.loads(proc.stdout)["ok"] is False


def test_real_rules_errors_and_version() -> None:
    proc = run_process("rules", "--set", "nope=1")
    assert proc.returncode != 0
    assert len(proc.stderr.strip().splitlines()) == 1 and "nope" in proc.stderr
    proc = run_process("--version")
    assert proc.returncode == 0 and __version__ in proc.stdout
    proc = run_process("replay", "/definitely/not/here.json")
    assert proc.returncode == 2
    assert proc.stderr.strip() and len(proc.stderr.strip().splitlines()) == 1


def test_real_replay_of_deeply_nested_json_exits_2_without_traceback() -> None:
    proc = subprocess.run(
        [*command(), "replay", "-", "--json"],
        input="[" * 100_000,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "Traceback" not in proc.stderr
    assert proc.returncode == 2
    assert json.loads(proc.stdout)["ok"] is False


@pytest.mark.parametrize("fails", ["returns_false", "raises"])
def test_serve_open_without_a_browser_says_where_to_go(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], fails: str
) -> None:
    import webbrowser

    from twentynine.web.app import open_page

    def no_browser(url: str) -> bool:
        if fails == "raises":
            raise webbrowser.Error("could not locate runnable browser")
        return False

    monkeypatch.setattr(webbrowser, "open", no_browser)
    assert open_page("http://127.0.0.1:8029/") is False
    err = capsys.readouterr().err
    assert "no browser could be opened" in err and "http://127.0.0.1:8029/" in err


def test_serve_open_with_a_browser_says_nothing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import webbrowser

    from twentynine.web.app import open_page

    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url: opened.append(url) or True)
    assert open_page("http://127.0.0.1:8029/") is True
    assert opened == ["http://127.0.0.1:8029/"] and capsys.readouterr().err == ""
