"""``twentynine bench load`` still runs: a real server, one and two rooms, a few seconds.

Not a measurement (the figures of a loaded test machine mean little): the
check is that every step produces its figures, that the clients played
through the protocol (next deals, finished matches and new rooms, a
spectator) without a single error, lost action, skipped version or stall,
and that the server's log holds no failure.
"""

from __future__ import annotations

import json

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

    # the table: one row of fifteen figures per step, under its header
    assert load.HEADER.split()[:3] == ["rooms", "clients", "actions"] and "p99" in load.HEADER
    for step in report["steps"]:
        row = load._row(step).split()
        assert len(row) == 15, row
        assert int(row[0]) == step["rooms"] and int(row[2]) == step["actions"]
        assert float(row[6]) == pytest.approx(step["p99_ms"], abs=0.06) and row[8] == "0"
