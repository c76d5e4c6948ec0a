"""The analysis from the seat's view, and the analysis of whole records.

The seat's view is checked to depend on the observation alone, to value every
legal choice of every kind of decision, and to be reproducible. Records are
analysed deal by deal, one object per action, and refused with a reason when
they cannot be read, through the API and the ``analyse`` command (whose
benchmark is run once on a tiny input).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from analysis_helpers import finished

from twentynine.bots import make_bot
from twentynine.game.actions import Action
from twentynine.game.dealing import deal_hands, derive_seed
from twentynine.game.engine import OVER, Deal
from twentynine.game.observation import observe, observe_deal
from twentynine.game.rules import resolve
from twentynine.services.analysis import (
    AnalysisError,
    analyse_deal,
    analyse_record,
    bidding_table,
    value_choices,
)
from twentynine.solver import Solver


@pytest.fixture(scope="module")
def solver() -> Solver:
    return Solver()


# ---------------------------------------------------------------------- the seat's view


def decisions(deal: Deal) -> Iterator[tuple[Deal, Action]]:
    """The deal's state before each action that had a choice, with the action taken."""
    replay = Deal(deal.rules, deal.dealer, deal.hands)
    for action in deal.log:
        if len(replay.legal_actions()) > 1:
            yield replay.clone(), action
        replay.apply(action)


def swap_hidden(deal: Deal, state: Deal, seat: int) -> Deal | None:
    """The same deal with two cards still unseen by ``seat`` swapped between two other
    seats (each keeps its suits, so nothing ``seat`` saw tells the deals apart)."""
    played = {c for t in state.tricks for c in t[1]} | set(state.trick_cards)
    others = [s for s in range(4) if s != seat]
    for a in others:
        for b in others:
            if a >= b:
                continue
            for i, x in enumerate(deal.hands[a]):
                for j, y in enumerate(deal.hands[b]):
                    same_batch = (i < 4) == (j < 4)
                    if x >> 3 == y >> 3 and x != y and same_batch and not {x, y} & played:
                        hands = [list(h) for h in deal.hands]
                        hands[a][i], hands[b][j] = y, x
                        return Deal(deal.rules, deal.dealer, hands)
    return None


def test_the_seat_view_depends_on_the_seat_s_observation_alone() -> None:
    deal = finished("pagat", 21, "casual")
    compared = 0
    for state, action in decisions(deal):
        if state.phase != "play" or len(state.tricks) < 2:
            continue
        other = swap_hidden(deal, state, action.seat)
        if other is None:
            continue
        for a in state.log:
            other.apply(a)
        mine, theirs = observe_deal(state, action.seat), observe_deal(other, action.seat)
        assert mine == theirs and state.held != other.held
        assert value_choices(mine, worlds=6) == value_choices(theirs, worlds=6)
        compared += 1
        if compared == 3:
            break
    assert compared == 3


@pytest.mark.parametrize(
    ("profile", "options", "stages"),
    [
        ("pagat", {}, {"auction", "trump", "play"}),
        ("modern", {"doubling": True, "double_by": "either", "allow_set": True}, {"double"}),
        ("bhoos", {}, {"play"}),
    ],
)
def test_the_seat_view_values_every_legal_choice_of_each_kind_of_decision(
    profile: str, options: dict[str, Any], stages: set[str], solver: Solver
) -> None:
    for seed in range(30):
        deal = finished(profile, seed, "random", **options)
        seen = {state.phase for state, _ in decisions(deal)}
        if stages <= seen and deal.bidder >= 0:
            break
    else:
        pytest.fail(f"no deal with {stages}")
    result = analyse_deal(deal, worlds=4, solver=solver)
    for entry, (state, action) in zip(
        [a for a in result.actions if a.legal > 1], decisions(deal), strict=True
    ):
        view = entry.view
        assert view is not None and entry.action == action
        legal = state.legal_actions()
        assert [c.action for c in view.choices] == legal
        assert view.source == ("model" if state.phase in ("auction", "trump") else "worlds")
        for c in view.choices:
            assert c.p_make is None or 0.0 <= c.p_make <= 1.0
        cost = view.cost(action)
        assert (cost["score"] or 0.0) >= 0.0
        data = entry.to_json()["seat_view"]
        assert data["chosen"] == legal.index(action)
        assert data["best"] == legal.index(view.best.action)


def test_the_seat_view_is_the_same_for_the_same_question() -> None:
    deal = finished("bangladesh", 4, "casual")
    state, _ = next((s, a) for s, a in decisions(deal) if s.phase == "play" and s.tricks)
    obs = observe_deal(state, state.to_act)
    first = value_choices(obs, worlds=8, seed=3)
    assert value_choices(obs, worlds=8, seed=3) == first
    assert first.worlds >= 1 and all(c.p_make is not None for c in first.choices)


def test_a_double_changes_the_stake_not_the_make_chance() -> None:
    rules_options = {"doubling": True, "double_by": "either"}
    for seed in range(40):
        deal = finished("modern", seed, "casual", **rules_options)
        found = [(s, a) for s, a in decisions(deal) if s.phase == "double"]
        if found:
            break
    else:
        pytest.fail("no doubling decision")
    state, _ = found[0]
    view = value_choices(observe_deal(state, state.to_act), worlds=6)
    double = next(c for c in view.choices if c.action.kind == "double")
    passing = next(c for c in view.choices if c.action.kind == "pass")
    assert double.p_make == passing.p_make and double.points == passing.points
    assert double.score == pytest.approx(2 * passing.score)


def test_value_choices_refuses_an_observation_without_a_decision() -> None:
    deal = finished("pagat", 2, "casual")
    waiting = observe_deal(deal, 0)
    with pytest.raises(ValueError, match="decision"):
        value_choices(waiting)
    with pytest.raises(ValueError, match="decision"):
        value_choices(observe_deal(Deal(deal.rules, deal.dealer, deal.hands), None))


def test_a_pass_in_the_auction_is_worth_more_when_the_partner_holds_the_bid() -> None:
    rules = resolve("pagat", {})
    deal = Deal(rules, 3, deal_hands(9, 3))  # seat 0 speaks first
    deal.apply(Action.bid(0, 16))
    opponent = value_choices(observe_deal(deal, 1))
    assert opponent.value_of(Action.pass_(1)).score == 0.0
    deal.apply(Action.pass_(1))
    partner = value_choices(observe_deal(deal, 2))
    assert partner.value_of(Action.pass_(2)).score == pytest.approx(0.3)
    for choice in partner.choices:
        if choice.action.kind == "bid":
            assert choice.p_make is not None
            assert choice.score == pytest.approx(2 * choice.p_make - 1)


def test_the_seventh_card_is_valued_between_the_suits_it_may_be() -> None:
    rules = resolve("pagat", {"seventh_card": True})
    deal = Deal(rules, 3, deal_hands(4, 3))
    while deal.phase == "auction":
        deal.apply(Action.bid(deal.to_act, 16) if not deal.auction else Action.pass_(deal.to_act))
    view = value_choices(observe_deal(deal, deal.to_act))
    suits = [c.p_make for c in view.choices if c.action.kind == "trump"]
    seventh = next(c for c in view.choices if c.action.kind == "seventh")
    assert view.source == "model" and len(suits) == 4 and seventh.p_make is not None
    assert (
        min(p for p in suits if p is not None)
        <= seventh.p_make
        <= max(p for p in suits if p is not None)
    )


def test_the_bidding_table_gives_each_trump_a_falling_chance_per_bid() -> None:
    rules = resolve("pagat", {})
    deal = Deal(rules, 0, deal_hands(7, 0))
    table = bidding_table(observe_deal(deal, deal.to_act))
    assert [s["trump"] for s in table["suits"]] == list("SHDC")
    for suit in table["suits"]:
        chances = [suit["p_make"][str(b)] for b in range(rules.min_bid, rules.max_bid + 1)]
        assert all(0 <= p <= 1 for p in chances)
        assert chances == sorted(chances, reverse=True)
    best = max(table["suits"], key=lambda s: s["expected"])
    assert table["best_trump"] == best["trump"]
    even = table["highest_even_bid"]
    assert even is None or best["p_make"][str(even)] >= 0.5


# ---------------------------------------------------------------------- records


def record_of(*deals: Deal) -> dict[str, Any]:
    rules = deals[0].rules
    return {
        "format": "29-record/1",
        "rules": rules.to_json(),
        "deals": [d.to_record() for d in deals],
    }


def unfinished(deal: Deal, actions: int) -> dict[str, Any]:
    record = record_of(deal)
    record["deals"][0]["actions"] = record["deals"][0]["actions"][:actions]
    return record


def test_the_analysis_has_one_object_per_action_in_record_order() -> None:
    deal = finished("arcade", 9, "casual")
    record = record_of(deal)
    data = analyse_record(record, seat_view=False).to_json()
    assert data["format"] == "29-analysis/1" and len(data["deals"]) == 1
    actions = data["deals"][0]["actions"]
    assert [a["action"] for a in actions] == record["deals"][0]["actions"]
    assert [a["index"] for a in actions] == list(range(len(actions)))
    for a in actions:
        assert a["seat"] == a["action"]["seat"]
        if "play" in a["action"]:
            assert isinstance(a["dd_points_after"], int) and isinstance(a["dd_best_points"], int)
    assert data["deals"][0]["deal"] == 1 and data["deals"][0]["result"] == deal.result


@pytest.mark.parametrize(
    ("text", "status", "message"),
    [
        (b"{not json", 2, "not valid JSON"),
        (b'{"format": "29-record/9", "deals": []}', 2, "format"),
        (b'{"format": "29-record/1", "deals": []}', 1, "no deal"),
        (b'{"format": "29-record/1", "rules": {"profile": "nope"}, "deals": []}', 2, "rules"),
    ],
)
def test_a_record_that_cannot_be_read_is_refused_with_a_reason(
    text: bytes, status: int, message: str
) -> None:
    with pytest.raises(AnalysisError, match=message) as caught:
        analyse_record(text)
    assert caught.value.exit_status == status


def test_an_unfinished_deal_or_a_missing_one_is_refused() -> None:
    deal = finished("pagat", 6, "casual")
    with pytest.raises(AnalysisError, match="deal 1 is not finished") as caught:
        analyse_record(unfinished(deal, 12))
    assert caught.value.exit_status == 1
    with pytest.raises(AnalysisError, match="deal 3 does not exist: the record has only deal 1"):
        analyse_record(record_of(deal), 3)
    with pytest.raises(AnalysisError, match="deal 0 does not exist"):
        analyse_record(record_of(deal), 0)
    faulty = record_of(deal)
    faulty["deals"][0]["actions"][3] = {"seat": 0, "play": "JS"}
    with pytest.raises(AnalysisError, match="faulty at deal 1, action 3") as caught:
        analyse_record(faulty)
    assert caught.value.exit_status == 1


def test_the_finished_deals_of_a_match_in_progress_are_analysed() -> None:
    from twentynine.game.match import Match

    rules = resolve("pagat", {})
    match = Match(rules, seed=5)
    bot = make_bot("casual")
    while len(match.deals) < 2 or match.deal.phase == OVER or len(match.deal.tricks) < 1:
        if match.needs_deal:
            match.start_deal()
        match.apply(bot.act(observe(match, match.to_act)))
    result = analyse_record(match.to_record(), seat_view=False)
    assert [d.index for d in result.deals] == [0] and result.skipped == [1]
    assert result.to_json()["skipped"] == [2]


# ---------------------------------------------------------------------- the command line


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    from twentynine.cli.main import main

    status = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return status, out, err


@pytest.fixture(scope="module")
def two_deals() -> dict[str, Any]:
    """A match record of two finished deals (the second dealt by the next seat)."""
    from twentynine.game.match import Match

    rules = resolve("pagat", {})
    match = Match(rules, dealer=1)
    bot = make_bot("casual")
    for n in range(2):
        match.start_deal(deal_hands(derive_seed(12, n), match.next_dealer, rules.clockwise))
        while match.deal.phase != OVER:
            match.apply(bot.act(observe(match, match.to_act)))
    return match.to_record()


def test_analyse_prints_a_table_of_every_action(
    capsys: pytest.CaptureFixture[str], tmp_path: Any, two_deals: dict[str, Any]
) -> None:
    import json

    path = tmp_path / "game.json"
    path.write_text(json.dumps(two_deals))
    status, out, _ = run(capsys, "analyse", str(path), "--deal", "2", "--worlds", "3")
    assert status == 0
    assert "Deal 2:" in out and "Deal 1:" not in out
    assert "Turning points" in out and "Par, every hand known" in out
    actions = two_deals["deals"][1]["actions"]
    rows = [line for line in out.splitlines() if line[:3].strip().isdigit()]
    assert len(rows) == len(actions)


def test_analyse_json_gives_each_deal_its_actions_in_record_order(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Any,
    two_deals: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import io
    import json

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(json.dumps(two_deals).encode())))
    status, out, _ = run(capsys, "analyse", "-", "--json", "--all-hands-only")
    assert status == 0
    data = json.loads(out)
    assert [d["deal"] for d in data["deals"]] == [1, 2]
    for deal, analysis in zip(two_deals["deals"], data["deals"], strict=True):
        assert [a["action"] for a in analysis["actions"]] == deal["actions"]
        for a in analysis["actions"]:
            assert a["seat_view"] is None
            if "play" in a["action"]:
                assert {"index", "seat", "action", "dd_points_after", "dd_best_points"} <= set(a)


@pytest.mark.parametrize(
    ("content", "args", "status", "says"),
    [
        (b"{oops", [], 2, "not a valid game record: not valid JSON"),
        (b'{"format": "29-record/1", "deals": 7}', [], 2, "'deals' must be a list"),
        ("unfinished", [], 1, "deal 1 is not finished"),
        ("two", ["--deal", "3"], 2, "deal 3 does not exist: the record has deals 1 to 2"),
        ("two", ["--worlds", "0"], 2, "--worlds must be at least 1"),
        (None, [], 2, "cannot read"),
    ],
)
def test_analyse_refuses_bad_input_in_one_line(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Any,
    two_deals: dict[str, Any],
    content: bytes | str | None,
    args: list[str],
    status: int,
    says: str,
) -> None:
    import json

    path = tmp_path / "game.json"
    if content == "two":
        path.write_text(json.dumps(two_deals))
    elif content == "unfinished":
        record = json.loads(json.dumps(two_deals))
        record["deals"] = record["deals"][:1]
        record["deals"][0]["actions"] = record["deals"][0]["actions"][:9]
        path.write_text(json.dumps(record))
    elif isinstance(content, bytes):
        path.write_bytes(content)
    code, out, err = run(capsys, "analyse", str(path), *args)
    assert code == status and out == ""
    assert err.startswith("twentynine analyse: ") and says in err
    assert err.count("\n") == 1


def test_analysis_benchmark_runs_on_a_tiny_input(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "bench", "analysis", "--deals", "1", "--effort", "0.1")
    assert status == 0
    assert "1 deals" in out and "whole (cpu)" in out and "all hands (cpu)" in out
