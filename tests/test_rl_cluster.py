"""Arenas and the bidding-model build on a Dask cluster of two worker processes give
exactly what a local run with the same seed gives."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from twentynine import PROFILES
from twentynine.bots import bidding_build
from twentynine.cli.main import main as cli
from twentynine.rl import cluster
from twentynine.services.arena import run_boards, summarise


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with cluster.connect("local:2") as c:
        assert len(c.scheduler_info()["workers"]) == 2
        yield c


def comparable(boards: list[Any]) -> list[Any]:
    """Everything a board reports except the decision times (wall-clock)."""
    return [
        [
            (g.deal, g.a_team, g.record, g.delta, g.bidder, g.bid, g.points, g.result)
            for g in b.games
        ]
        for b in sorted(boards, key=lambda b: b.deal)
    ]


def test_an_arena_on_the_cluster_equals_the_local_run(client: Any) -> None:
    rules = PROFILES["bangladesh"]
    local = list(run_boards(rules, "casual", "novice", 20, seed=5))
    remote = list(cluster.run_boards(client, rules, "casual", "novice", 20, seed=5))
    assert [b.deal for b in remote] == list(range(20))
    assert comparable(remote) == comparable(local)
    a, b = summarise("casual", "novice", local), summarise("casual", "novice", remote)
    assert (a.mean, a.ci95, a.make_rate, a.contracts) == (b.mean, b.ci95, b.make_rate, b.contracts)


def test_the_bidding_build_on_the_cluster_fits_the_same_model(client: Any) -> None:
    local = bidding_build.build(5, 77, bidding_build.local_mapper(1))
    remote = bidding_build.build(5, 77, cluster.bidding_mapper(client))
    assert remote == local
    assert remote["rows"] == 20


def test_the_arena_command_takes_a_cluster_address(
    client: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    address = client.scheduler.address
    common = ["arena", "casual", "random", "--deals", "6", "--quiet", "--seed", "3"]
    assert cli([*common, "--cluster", address, "--out", str(tmp_path / "c")]) == 0
    assert cli([*common, "--out", str(tmp_path / "l")]) == 0
    for side in sorted((tmp_path / "l" / "games").iterdir()):
        assert side.read_text() == (tmp_path / "c" / "games" / side.name).read_text()
    c = json.loads((tmp_path / "c" / "summary.json").read_text())
    l = json.loads((tmp_path / "l" / "summary.json").read_text())  # noqa: E741
    c.pop("decision_ms"), l.pop("decision_ms")
    assert c == l
    capsys.readouterr()


def test_the_bidding_build_command_takes_a_cluster_address(client: Any, tmp_path: Path) -> None:
    address = client.scheduler.address
    out_c, out_l = tmp_path / "c.json", tmp_path / "l.json"
    assert cli(["bidding-build", "--deals", "3", "--cluster", address, "--out", str(out_c)]) == 0
    assert cli(["bidding-build", "--deals", "3", "--jobs", "1", "--out", str(out_l)]) == 0
    assert out_c.read_text() == out_l.read_text()


def test_an_unreachable_or_malformed_address_is_a_clear_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with (
        pytest.raises(cluster.ClusterError, match="cannot reach the Dask scheduler"),
        cluster.connect("tcp://127.0.0.1:9", timeout="1s"),
    ):
        pass
    with pytest.raises(cluster.ClusterError, match="local:N"), cluster.connect("local:many"):
        pass
    with pytest.raises(cluster.ClusterError, match="address"), cluster.connect(" "):
        pass
