"""``bench contracts --run DIR``: an arena run's contracts scored by their solution
beside what was played, the difference being the play's share."""

from __future__ import annotations

import json
import re

import pytest

from twentynine.benchmarks import contracts
from twentynine.benchmarks.odds import OddsCount
from twentynine.cli.main import main
from twentynine.services.arena_folder import FolderError


@pytest.fixture
def run(arena_run):
    return arena_run  # casual against novice, 6 pagat deals (conftest)


def figure(text: str, label: str) -> float:
    m = re.search(re.escape(label) + r"\s+(?:A minus B )?([+-]\d+\.\d+)", text)
    assert m, text
    return float(m.group(1))


def test_the_played_half_is_the_arenas_figure_and_the_halves_add_up(run, capsys):
    assert contracts.main(["--run", str(run)]) == 0
    text = capsys.readouterr().out
    summary = json.loads((run / "summary.json").read_text())
    played = figure(text, "as played:")
    solved = figure(text, "by the solution:")
    rest = figure(text, "played minus solved:")
    assert played == pytest.approx(summary["mean"], abs=0.0006)
    assert played == pytest.approx(solved + rest, abs=0.0011)
    assert "A casual: held" in text and "B novice: held" in text


def test_every_finished_contract_is_solved_and_signed_by_its_holder(run):
    ident, boards, _ = contracts.solved_run(run)
    assert (ident["a"], ident["b"]) == ("casual", "novice")
    assert [b.deal for b in boards] == list(range(6))
    held = 0
    for board in boards:
        signed = sum(c.solved * c.stake * (1 if c.side == "A" else -1) for c in board.contracts)
        assert board.solved == signed / 2
        for c in board.contracts:
            assert c.solved in (-1, 0, 1) and c.played in (-1, 0, 1) and c.stake == 1
            held += 1
    assert held == 12  # pagat: every deal is played, twice


def test_a_folder_that_is_not_a_run_is_refused_with_a_reason(tmp_path, run, capsys):
    with pytest.raises(SystemExit):
        contracts.main(["--run", str(tmp_path)])
    assert "holds no arena run" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        contracts.main(["casual", "novice", "--run", str(run)])
    assert "name no bot with it" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        contracts.main(["casual"])
    assert "name the two bots" in capsys.readouterr().err
    broken = tmp_path / "broken"
    broken.mkdir()
    for name in ("run.json", "boards.jsonl"):
        (broken / name).write_text((run / name).read_text())
    (broken / "games").mkdir()
    with pytest.raises(FolderError, match=r"deal00000-A-NS\.json: not a game record"):
        contracts.solved_run(broken)


@pytest.fixture(scope="module")
def bhoos_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("arena") / "bhoos"
    args = ["arena", "casual", "novice", "--deals", "4", "--seed", "5", "--profile", "bhoos"]
    assert main([*args, "--quiet", "--out", str(out)]) == 0
    return out


def test_no_move_betters_the_movers_solved_result_and_the_changes_add_up(bhoos_run):
    """With every hand known a side can only keep or lose its solved result by its own
    move; from the solution at the first lead, the give-aways of both sides lead to
    the result at the table (bhoos: no pair window in between)."""
    from twentynine.benchmarks.played import RESULTS, _solved_now
    from twentynine.game.actions import PLAY, REVEAL, Action
    from twentynine.game.engine import PLAYING, Deal
    from twentynine.game.record import parse_hands

    checked = 0
    for path in sorted((bhoos_run / "games").glob("*.json")):
        record = json.loads(path.read_text())["deals"][0]
        deal = Deal(contracts.PROFILES["bhoos"], record["dealer"], parse_hands(record["hands"], 0))
        start = None
        for raw in record["actions"]:
            action = Action.from_json(raw)
            if action.kind not in (PLAY, REVEAL) or deal.phase != PLAYING:
                deal.apply(action)
                continue
            before = _solved_now(deal)
            assert before is not None
            start = before if start is None else start
            deal.apply(action)
            after = _solved_now(deal)
            assert after is not None
            sign = 1 if action.seat & 1 == deal.bidder & 1 else -1
            assert sign * (after - before) <= 0, (path.name, raw)
            checked += 1
        if start is not None:
            assert _solved_now(deal) == RESULTS.get(deal.result, 0)
    assert checked > 100


def test_the_moves_table_counts_giveaways_within_their_chances(bhoos_run, capsys):
    _, _, moves = contracts.solved_run(bhoos_run, moves=True)
    assert moves is not None
    assert sum(moves.chances.values()) > 50
    for key, lost in moves.lost.items():
        assert lost <= moves.chances[key]
    assert {k[0] for k in moves.chances} == {"A", "B"}
    assert contracts.main(["--run", str(bhoos_run), "--moves"]) == 0
    text = capsys.readouterr().out
    assert "give-aways" in text and "A declaring" in text and "B defending" in text
    with pytest.raises(SystemExit):
        contracts.main(["casual", "novice", "--moves"])
    assert "--moves goes with --run" in capsys.readouterr().err


def test_the_odds_count_every_trick_start_and_the_last_trick_is_certain(bhoos_run, capsys):
    """Under bhoos no deal is cancelled: each contract played out gives one position at
    the start of each of its eight tricks; at the last one the cards are forced, so a
    margin of no point or more is made and any miss is failed."""
    count = OddsCount()
    _, boards, _ = contracts.solved_run(bhoos_run, odds=count)
    played = sum(len(b.contracts) for b in boards)
    assert played >= 6
    for trick in range(1, 9):
        assert sum(n for (t, _m), n in count.seen.items() if t == trick) == played
    for (trick, margin), n in count.seen.items():
        assert 0 <= count.made[(trick, margin)] <= n
        if trick == 8:
            assert count.made[(trick, margin)] == (n if margin >= 0 else 0)
    rates = count.rates(1)
    assert rates == sorted(rates) and all(0 < r < 1 for r in rates)
    assert contracts.main(["--run", str(bhoos_run), "--run", str(bhoos_run), "--odds"]) == 0
    text = capsys.readouterr().out
    assert text.count("each contract also scored by its solution") == 2
    assert "by the trick's start" in text and "PLAY_ODDS" in text
    positions = re.search(r"^\s+1\s.*\s(\d+)$", text, re.M)
    assert positions and int(positions.group(1)) == 2 * played  # both runs counted
    with pytest.raises(SystemExit):
        contracts.main(["casual", "novice", "--odds"])
    assert "--odds goes with --run" in capsys.readouterr().err


def _auction(profile: str, calls: list[int]):
    from twentynine.game.actions import Action
    from twentynine.game.dealing import deal_hands
    from twentynine.game.engine import AUCTION, Deal
    from twentynine.game.rules import resolve

    deal = Deal(resolve(profile), 0, deal_hands(1, 0))
    for amount in calls:
        seat = deal.to_act
        deal.apply(Action.bid(seat, amount) if amount else Action.pass_(seat))
    assert deal.phase != AUCTION
    return deal


@pytest.mark.parametrize(
    ("profile", "calls", "role"),
    [
        ("pagat", [16, 0, 0, 0], "opened"),
        ("pagat", [16, 17, 0, 0, 0], "raised"),
        ("pagat", [16, 17, 0, 0, 18, 0, 0, 0], "raised"),  # the opener, over an overcall
        ("pagat", [0, 0, 0], "forced"),  # dealer_forced
        ("bhoos", [16, 0, 0, 0], "opened"),
        ("bhoos", [16, 17, 17, 0, 0, 0], "matched"),
        ("bhoos", [16, 17, 0, 0, 0], "raised"),  # a challenge the defender let go
        ("bhoos", [16, 17, 17, 0, 18, 18, 0, 0], "matched"),
        ("bhoos", [0, 0, 0], "forced"),
    ],
)
def test_each_contract_is_told_by_how_its_holder_came_to_it(profile, calls, role):
    from twentynine.benchmarks.played import call_role

    assert call_role(_auction(profile, calls)) == role


def test_the_roles_table_accounts_for_every_contract(bhoos_run, capsys):
    from twentynine.benchmarks.played import ROLES

    _, boards, _ = contracts.solved_run(bhoos_run)
    held = [c for b in boards for c in b.contracts]
    assert held and {c.role for c in held} <= set(ROLES) and all(c.bid >= 16 for c in held)
    assert contracts.main(["--run", str(bhoos_run), "--roles"]) == 0
    text = capsys.readouterr().out
    rows = re.findall(r"^\s+([AB])\s+(\w+)\s+(\d+)\s+(\d+)\s", text, re.M)
    assert rows and {r[1] for r in rows} <= set(ROLES)
    assert sum(int(r[3]) for r in rows) == len(held)
    for side in "AB":
        mine = [c for c in held if c.side == side]
        assert sum(int(r[3]) for r in rows if r[0] == side) == len(mine)
    with pytest.raises(SystemExit):
        contracts.main(["casual", "novice", "--roles"])
    assert "--roles goes with --run" in capsys.readouterr().err
