"""``bench judge --run DIR``: the contract judge's bid values on a run's call decisions,
set against fresh worlds."""

from __future__ import annotations

import json
import re

import pytest

from twentynine.benchmarks import judge
from twentynine.cli.main import main
from twentynine.game.actions import BID, PASS, Action
from twentynine.game.engine import AUCTION, Deal
from twentynine.game.record import parse_hands, record_rules
from twentynine.services.arena_folder import read_run


@pytest.fixture
def run(arena_run):
    return arena_run  # casual against novice, 6 pagat deals (conftest)


def _calls_in(path) -> int:
    """The decisions of a kept game where the seat to act could bid or pass."""
    obj = json.loads(path.read_text())
    first = obj["deals"][0]
    deal = Deal(record_rules(obj), first["dealer"], parse_hands(first["hands"], 0))
    count = 0
    for raw in first["actions"]:
        if deal.phase != AUCTION:
            break
        kinds = {a.kind for a in deal.legal_actions()}
        count += BID in kinds and PASS in kinds
        deal.apply(Action.from_json(raw))
    return count


def test_every_call_decision_of_the_games_is_valued(run):
    valued = judge.judge_run(run, games=3, worlds=4, fresh=4)
    paths = [path for path, _ in judge.games_of(read_run(run), 3)]
    assert len(valued) == sum(_calls_in(p) for p in paths) > 0
    assert {v.game for v in valued} <= {p.name for p in paths}
    for v in valued:
        assert v.kind in judge.KINDS and 1 <= v.suits <= 4
        assert v.held_out <= v.best + 1e-9  # each half's own suit does best on it
        assert all(-1.0 <= x <= 1.0 for x in (v.best, v.held_out, v.fresh))


def test_worker_processes_value_as_one_process_does(run):
    one = judge.judge_run(run, games=4, worlds=4, fresh=4)
    two = judge.judge_run(run, games=4, worlds=4, fresh=4, jobs=2)
    assert one == two


def test_the_report_prints_each_kind_with_an_interval(run, capsys):
    assert main(["bench", "judge", "--run", str(run), "--games", "2", "--worlds", "4"]) == 0
    text = capsys.readouterr().out
    n = int(re.search(r": (\d+) call decisions", text).group(1))
    assert n > 0
    rows = re.findall(r"^\s+(\d+) \| ([+-]\d\.\d{3}).* \| ([+-]\d\.\d{3}).* \| (.+)$", text, re.M)
    assert rows[0][0] == str(n) and rows[0][3] == "all"
    kinds = [r for r in rows if r[3] in judge.KINDS]
    assert sum(int(r[0]) for r in kinds) == n


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--run", "{run}", "--games", "0"], "--games must be at least 1"),
        (["--run", "{run}", "--skip", "-1"], "--skip must be 0 or more"),
        (["--run", "{run}", "--worlds", "1"], "--worlds must be at least 2"),
        (["--run", "{empty}"], "holds no arena run"),
    ],
)
def test_bad_arguments_are_refused_with_a_reason(run, tmp_path, capsys, argv, message):
    argv = [a.format(run=run, empty=tmp_path) for a in argv]
    with pytest.raises(SystemExit):
        judge.main(argv)
    assert message in capsys.readouterr().err


def test_a_broken_game_record_is_refused_with_its_path(broken_run, capsys):
    copy, name = broken_run
    with pytest.raises(SystemExit):
        judge.main(["--run", str(copy), "--worlds", "4", "--fresh", "4"])
    err = capsys.readouterr().err
    assert name in err and "not a game record of the run" in err
