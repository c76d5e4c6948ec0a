"""``twentynine bench abuse`` still runs: every part, on a tiny input, a few seconds each.

Not a measurement (a loaded test machine's latencies mean little): the check
is that each part produces its figures, that the people at the tables met no
error (the limits are for the attacker alone), that the attacker was closed
by the limits (4029) and held no more idle connections than its address
may, that the fuzzed frames got no ``server_error`` and changed nothing, and
that no server's log holds a failure.
"""

from __future__ import annotations

import json

import pytest

from twentynine.cli.main import main
from twentynine.server.limits import Limits


def test_abuse_benchmark_runs_on_a_tiny_input(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["bench", "abuse", "--rooms", "2", "--baseline", "1", "--attack", "2.5"]
    argv += ["--after", "1.5", "--rounds", "1", "--fuzz-frames", "600", "--json"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["host"] == "127.0.0.1" and report["stopped"] is None
    parts = report["parts"]
    assert set(parts) == {"slow", "flood", "fuzz"}
    for name in ("slow", "flood"):
        part = parts[name]
        assert "aborted" not in part, part
        assert part["people_errors"] == {}, part["people_errors"]
        assert part["server_log_errors"] == 0, part["server_log"]
        for room in ("first_room", "other_rooms"):
            for phase in ("baseline", "attack", "after", "after_1s"):
                assert set(part[room][phase]) == {"acts", "p50_ms", "p95_ms", "p99_ms", "max_ms"}
            assert part[room]["baseline"]["acts"] > 0 and part[room]["attack"]["acts"] > 0
        assert part["memory_mb"]["attack"] > 0
        assert part["server"]["closes"].get("4029", 0) >= 1  # the limits closed the attacker
        assert set(part["target"]) == {"attack", "after_1s", "memory_mb_growth"}
    slow = parts["slow"]["attacker"]
    assert slow["flooding_reader_connections"] >= 1 and slow["quiet_reader_connections"] >= 1
    flood = parts["flood"]["attacker"]
    assert flood["idle_held"] == Limits().connections  # its address's cap, not 200
    assert flood["connections"] >= 1 and flood["sent_ping"] > 0
    fuzz = parts["fuzz"]
    assert fuzz["frames"] == 600 and fuzz["server_errors"] == 0 and fuzz["fault_count"] == 0
    assert fuzz["state_changes"] == 0 and fuzz["alive"] is True
    assert fuzz["server_log_errors"] == 0, fuzz["server_log"]
    assert sum(fuzz["by_kind"].values()) == 600 and len(fuzz["by_kind"]) == 12
