"""The sheet a table keeps (twentynine.game.scoresheet): undo takes back exactly the
last edit of any kind, also after the sheet was saved and read again; team
names; rules changed only when every deal still scores; the file, CSV and link
forms, and malformed files or links refused with a reason, changing nothing."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from twentynine.game.rules import resolve
from twentynine.game.scoresheet import (
    HISTORY_LIMIT,
    LINK_FRAGMENT,
    Sheet,
    csv_rows,
    link_payload,
    sheet_csv,
    sheet_from_link,
    sheet_link,
)
from twentynine.game.scoring import ScoreError, parse_entry


def state(sheet: Sheet) -> Any:
    return (sheet.rules, sheet.names, list(sheet.entries), [ln.score for ln in sheet.lines])


def sheet_of(*texts: str, profile: str = "pagat", **options: Any) -> Sheet:
    sheet = Sheet(resolve(profile, options))
    for text in texts:
        sheet.add(parse_entry(text))
    return sheet


def test_undo_after_deleting_deal_2_puts_deal_2_back_and_keeps_deal_3() -> None:
    sheet = sheet_of("ns 17 took 19", "ew 22 took 20", "ns 20 took 23")
    sheet.delete(1)
    assert [e.bid for e in sheet.entries] == [17, 20]
    edit = sheet.undo()
    assert edit.describe() == "deal 2 deleted"
    assert [e.bid for e in sheet.entries] == [17, 22, 20]
    assert sheet.score == (2, -1)


def test_every_kind_of_edit_is_undone_exactly() -> None:
    sheet = sheet_of("ns 18 took 8", "ew 20 took 22")
    steps = [
        lambda: sheet.add(parse_entry("ns 16 took 20")),
        lambda: sheet.replace(0, parse_entry("ns 18 took 20")),
        lambda: sheet.delete(1),
        lambda: sheet.set_rules(sheet.rules.with_options(under_half=True)),
        lambda: sheet.set_names(["Asha & Ravi", "Mina & Jo"]),
        sheet.clear,
    ]
    states = []
    for step in steps:
        states.append(state(sheet))
        step()
    for before in reversed(states):
        sheet.undo()
        assert state(sheet) == before
    # and the two deals entered first can be taken back as well
    sheet.undo()
    sheet.undo()
    assert sheet.entries == [] and sheet.history == []
    with pytest.raises(ScoreError, match="nothing to undo"):
        sheet.undo()


EDIT = st.one_of(
    st.tuples(st.just("add"), st.sampled_from(["ns 17 took 19", "ew 22 took 20", "ns 20 made"])),
    st.tuples(
        st.just("correct"), st.integers(0, 8), st.sampled_from(["ew 16 took 2", "ns 18 failed"])
    ),
    st.tuples(st.just("delete"), st.integers(0, 8)),
    st.tuples(st.just("rules"), st.sampled_from([{}, {"under_half": "yes"}, {"min_bid": 17}])),
    st.tuples(st.just("names"), st.sampled_from([["A", "B"], ["", ""], ["Us", "Them"]])),
    st.tuples(st.just("clear")),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(EDIT, max_size=25))
def test_any_sequence_of_edits_undoes_step_by_step_also_after_a_reload(
    edits: list[tuple[Any, ...]],
) -> None:
    sheet = Sheet(resolve("pagat"))
    seen = [state(sheet)]
    for kind, *args in edits:
        before = copy.deepcopy(sheet)
        try:
            if kind == "add":
                sheet.add(parse_entry(args[0]))
            elif kind == "correct":
                sheet.replace(args[0], parse_entry(args[1]))
            elif kind == "delete":
                sheet.delete(args[0])
            elif kind == "rules":
                if not sheet.set_rules(resolve("pagat", args[0])):
                    continue
            elif kind == "names":
                if not sheet.set_names(args[0]):
                    continue
            else:
                sheet.clear()
        except ScoreError:
            assert state(sheet) == state(before) and sheet.history == before.history
            continue
        seen.append(state(sheet))
    sheet = Sheet.from_json(json.loads(json.dumps(sheet.to_json())))
    assert state(sheet) == seen[-1]
    for expected in reversed(seen[:-1]):
        sheet.undo()
        assert state(sheet) == expected
    assert not sheet.history


def test_the_history_is_kept_to_its_limit() -> None:
    sheet = Sheet(resolve("arcade"))
    for _ in range(HISTORY_LIMIT + 5):
        sheet.add(parse_entry("ns 16 took 20"))
    assert len(sheet.history) == HISTORY_LIMIT
    again = Sheet.from_json(sheet.to_json())
    for _ in range(HISTORY_LIMIT):
        again.undo()
    assert len(again.entries) == 5


def test_rules_the_deals_do_not_fit_are_refused_and_change_nothing() -> None:
    sheet = sheet_of("ns 15 took 20", "single ns made", single_hand=3)
    before = state(sheet)
    with pytest.raises(ScoreError) as err:
        sheet.set_rules(resolve("pagat"))
    assert err.value.code == "rules_refused" and err.value.params["deal"] == 2
    assert "single hands are not played" in str(err.value)
    with pytest.raises(ScoreError, match="match ends at deal 1 but the sheet has 2"):
        sheet.set_rules(resolve("pagat", {"single_hand": 3, "match_target": 1}))
    assert state(sheet) == before and len(sheet.history) == 2
    assert sheet.set_rules(sheet.rules) is False


def test_team_names_are_trimmed_checked_and_default_to_the_seat_pairs() -> None:
    sheet = Sheet(resolve("pagat"))
    assert sheet.set_names(["  Asha   & Ravi ", "Mina"])
    assert sheet.names == ("Asha & Ravi", "Mina")
    assert sheet.set_names(["", ""]) and sheet.names == ("North-South", "East-West")
    for names, words in [
        (["Same", "same"], "both teams cannot be called"),
        (["x" * 41, "B"], "at most 40 characters"),
        (["A\x07", "B"], "control characters"),
        (["A"], "two texts"),
        ([1, "B"], "is a text"),
    ]:
        with pytest.raises(ScoreError, match=words):
            sheet.set_names(names)
    assert sheet.names == ("North-South", "East-West")


def test_the_file_form_round_trips_and_reads_a_json_report() -> None:
    sheet = sheet_of("ns 18 took 20 pair ew", "ew 22 failed by 2", profile="modern")
    sheet.set_names(["Us", "Them"])
    sheet.delete(0)
    sheet.created = "2025-01-02T19:00:00+00:00"
    data = sheet.to_json()
    assert data["names"] == ["Us", "Them"] and data["history"][-1]["edit"] == "delete"
    again = Sheet.from_json(data)
    assert state(again) == state(sheet) and again.created == sheet.created
    assert again.undo().describe() == "deal 1 deleted" and len(again.entries) == 2
    assert state(Sheet.from_json(sheet.report())) == state(sheet)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda d: d.update(format="29-scoresheet/9"), "not a score sheet"),
        (lambda d: d.update(extra=1), "unknown key 'extra'"),
        (lambda d: d.update(names="Us"), "two texts"),
        (lambda d: d.update(rules={"profile": "nope"}), "rules cannot be read: unknown profile"),
        (lambda d: d["entries"].append({"kind": "contract", "team": 0, "bid": 99}), "deal 3:"),
        (lambda d: d.update(history={"edit": "add"}), "'history' must be a list"),
        (lambda d: d["history"].append({"edit": "shuffle"}), "names its kind"),
        (lambda d: d["history"].append({"edit": "delete", "was": {}}), "names its deal"),
        # an edit that cannot be taken back from the sheet as it stands
        (lambda d: d["history"].append({"edit": "clear", "was": []}), "cleared, but it has"),
        (lambda d: d.update(created=12), "ISO form"),
    ],
)
def test_a_malformed_sheet_is_refused_with_the_reason(change: Any, words: str) -> None:
    data = sheet_of("ns 17 took 19", "ew 22 took 20").to_json()
    change(data)
    with pytest.raises(ScoreError, match=words):
        Sheet.from_json(data)


def test_csv_has_a_header_and_a_row_a_deal_and_never_a_formula() -> None:
    sheet = sheet_of(
        "ns 20 took 23 pair ew", "ew 18 failed under-half", "cancelled", under_half="yes"
    )
    sheet.set_names(["=SUM(A1)", "Mina & Jo"])
    rows = csv_rows(sheet)
    assert rows[0][-4:] == ["'=SUM(A1) ±", "Mina & Jo ±", "'=SUM(A1) total", "Mina & Jo total"]
    assert rows[1] == ["1", "'=SUM(A1)", "20", "Mina & Jo", "", "23", "24", "failed", "",
                       "-1", "0", "-1", "0"]  # fmt: skip
    assert rows[2][7:] == ["failed", "under half", "0", "-2", "-1", "-2"]
    assert rows[3][1:9] == ["", "", "", "", "", "", "cancelled", ""]
    assert sheet_csv(sheet).count("\r\n") == 4


def test_a_link_opens_the_same_sheet_and_a_damaged_one_is_refused() -> None:
    sheet = sheet_of("ns 17 took 19", "ew 22 failed by 2 pair ns double", profile="modern")
    sheet.set_names(["Ünal & Åsa", "B"])
    link = sheet_link(sheet, "http://host:8029/")
    assert link.startswith("http://host:8029/" + LINK_FRAGMENT)
    for text in (link, LINK_FRAGMENT + link_payload(sheet), link_payload(sheet)):
        again = sheet_from_link(text)
        assert state(again) == state(sheet) and again.history == []
    for bad, words in [
        ("", "holds no sheet"),
        (LINK_FRAGMENT + "abc$", "characters no sheet link has"),
        (link[:-7], "cannot be read"),
        ("eyJmb3JtYXQiOiAiMjktc2NvcmVzaGVldC85In0", "not a score sheet"),
    ]:
        with pytest.raises(ScoreError, match=words):
            sheet_from_link(bad)
