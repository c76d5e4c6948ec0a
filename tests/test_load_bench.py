"""``twentynine bench load`` still runs: a real server, one and two rooms, a few seconds;
people who think, played by two client processes; one and two server processes on a
throw-away PostgreSQL and Redis (skipped where those cannot run, failed in CI); bad
options refused.

Not a measurement (the figures of a loaded test machine mean little): the
check is that every step produces its figures, that the clients played
through the protocol (next deals, finished matches and new rooms, a
spectator) without a single error, lost action, skipped version or stall,
and that the server's log holds no failure.
"""

from __future__ import annotations

import json
import os

import pytest

from twentynine.benchmarks import load
from twentynine.cli.main import main


def test_load_benchmark_runs_on_a_tiny_input(capsys: pytest.CaptureFixture[str]) -> None:
    # matches to two game points: the host asks for next deals, and a finished
    # match makes the table open a new room
    argv = ["bench", "load", "--rooms", "1,2", "--seconds", "1.5", "--warmup", "0.2"]
    assert main([*argv, "--target", "2", "--spectators", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["host"] == "127.0.0.1" and report["stopped"] is None
    assert [s["rooms"] for s in report["steps"]] == [1, 2]
    for step in report["steps"]:
        assert step["clients"] == 5 * step["rooms"]
        assert step["errors"] == 0 and step["error_codes"] == {}, step
        assert step["version_gaps"] == 0 and step["stalls"] == 0 and step["aborted"] is None
        assert step["server_log_errors"] == 0
        assert step["actions"] > 0 and step["actions_per_s"] > 0
        assert 0 < step["p50_ms"] <= step["p95_ms"] <= step["p99_ms"] <= step["max_ms"]
        assert step["ping_p99_ms"] is not None and step["server_rss_mb"] > 0
    assert sum(s["deals"] for s in report["steps"]) > 0
    assert sum(s["games"] for s in report["steps"]) > 0
    assert report["server_log_errors"] == []
    # the largest M under 100 ms below every M over it (a loaded machine may have none)
    over = min((s["rooms"] for s in report["steps"] if s["p99_ms"] >= 100), default=3)
    under = [s["rooms"] for s in report["steps"] if s["rooms"] < over]
    assert report["largest_rooms_under_target"] == max(under, default=None)

    # the table: one row of seventeen figures per step, under its header
    assert load.HEADER.split()[:3] == ["rooms", "clients", "actions"] and "p99" in load.HEADER
    for step in report["steps"]:
        row = load._row(step).split()
        assert len(row) == 17, row
        assert int(row[0]) == step["rooms"] and int(row[2]) == step["actions"]
        assert float(row[6]) == pytest.approx(step["p99_ms"], abs=0.06) and row[8] == "0"


def _clean(step: dict[str, object]) -> None:
    """A step that played through the protocol without a single error or stall."""
    assert step["errors"] == 0 and step["error_codes"] == {}, step
    assert step["version_gaps"] == 0 and step["stalls"] == 0 and step["aborted"] is None, step
    assert step["server_log_errors"] == 0
    assert isinstance(step["actions"], int) and step["actions"] > 0


def test_think_time_with_client_processes(capsys: pytest.CaptureFixture[str]) -> None:
    # people who think 50 ms before each action, their two tables played by two client
    # processes: one server process on SQLite, as without --processes
    argv = ["bench", "load", "--rooms", "2", "--seconds", "2", "--warmup", "0.3"]
    argv += ["--processes", "1", "--think-ms", "50", "--client-processes", "2", "--json"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["stopped"] is None and report["server_log_errors"] == []
    (series,) = report["series"]
    assert series["processes"] == 1 and series["mode"] == "think"
    assert series["backend"] == "SQLite temp file"
    (step,) = report["steps"]
    _clean(step)
    assert step["rooms"] == 2 and step["think_ms"] == 50 and step["client_processes"] == 2
    # each person waits 25-75 ms, then its act's round trip: well under 100 actions a second
    assert 0 < step["actions_per_s"] < 2 * 1000 / 25
    assert step["client_lag_p99_ms"] is not None and step["clients_cpu_pct"] is not None
    assert step["server_rss_idle_mb"] > 0 and step["server_cpu_ms_per_action"] > 0
    assert report["largest"] == [
        {
            "processes": 1,
            "think_ms": 50.0,
            "mode": "think",
            "backend": "SQLite temp file",
            "rooms": report["largest_rooms_under_target"],
            "most_measured": 2,
        }
    ]


@pytest.mark.parametrize(
    ("option", "said"),
    [
        (["--processes", "0"], "--processes counts must be at least 1"),
        (["--processes", "1,x"], "--processes is a comma-separated list"),
        (["--think-ms", "-5"], "--think-ms values must be from 0"),
        (["--think-ms", "nan"], "--think-ms values must be from 0"),
        (["--client-processes", "0"], "--client-processes must be from 1"),
        (["--rooms", "129"], "at most 128 rooms without think time"),
        (["--think-ms", "1000", "--max-rooms", "4001"], "--max-rooms must be from 1 to 4000"),
        (["--memory-db", "--shared"], "--memory-db is for one process on SQLite"),
    ],
)
def test_bad_options_are_refused(
    option: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as e:
        load.main(option)
    assert e.value.code == 2
    assert said in capsys.readouterr().err


def _shared_unavailable() -> str | None:
    """Why two server processes cannot run here (None: they can)."""
    from twentynine.benchmarks import load_servers, throwaway

    if throwaway.find_redis() is None:
        return "redis-server is not installed (scripts/ensure-redis)"
    if throwaway.find_bindir() is None:
        return "PostgreSQL's initdb is not installed (scripts/ensure-postgres)"
    if not load_servers.serve_has_redis():
        return "twentynine serve has no --redis"
    return None


def test_two_server_processes_share_postgres_and_redis(
    capsys: pytest.CaptureFixture[str],
) -> None:
    why = _shared_unavailable()
    if why is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run the two-process load benchmark: {why}")
        pytest.skip(why)
    # one process on PostgreSQL and Redis (the baseline), then two: the people of each
    # room on both, so that the host's process gets the others' messages through Redis
    argv = ["bench", "load", "--rooms", "2", "--seconds", "2", "--warmup", "0.3"]
    argv += ["--processes", "1,2", "--shared", "--think-ms", "20", "--target", "2", "--json"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["stopped"] is None and report["server_log_errors"] == [], report
    assert [(s["processes"], s["backend"]) for s in report["series"]] == [
        (1, "PostgreSQL + Redis"),
        (2, "PostgreSQL + Redis"),
    ]
    assert [(s["processes"], s["rooms"]) for s in report["steps"]] == [(1, 2), (2, 2)]
    for step in report["steps"]:
        _clean(step)
        assert step["ping_p99_ms"] is not None and step["server_rss_mb"] > 0
        assert step["server_cpu_pct"] is not None and step["server_kb_per_room"] is not None
    assert [x["processes"] for x in report["largest"]] == [1, 2]


def test_a_room_kept_together_on_its_process(capsys: pytest.CaptureFixture[str]) -> None:
    """--together: the four people of a room on the host's process, nothing relayed."""
    why = _shared_unavailable()
    if why is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run the two-process load benchmark: {why}")
        pytest.skip(why)
    argv = ["bench", "load", "--rooms", "2", "--seconds", "2", "--warmup", "0.3", "--json"]
    argv += ["--processes", "2", "--together", "--think-ms", "20", "--target", "2"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["stopped"] is None and report["settings"]["together"] is True, report
    assert [(s["processes"], s["rooms"]) for s in report["steps"]] == [(2, 2)]
    _clean(report["steps"][0])
