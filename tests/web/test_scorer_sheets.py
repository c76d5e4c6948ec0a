"""The score sheet page as a regular uses it (issue 19), in chromium: a phone
layout where every column and control is on the screen and the rules are above
the sheet; undo of every kind of edit (the toast, the button, the list of
changes); team names; several matches kept, with the finished ones apart;
export (JSON, CSV) and share (a link, a file) that the terminal scorer reads
and writes the same way; a printable sheet; and a malformed file or link that
changes nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from twentynine.game.rules import resolve
from twentynine.game.scoresheet import Sheet, sheet_csv, sheet_from_link, sheet_link
from twentynine.game.scoring import Entry, ScoreError, parse_entry

from .test_scorer import enter, open_scorer

PHONE = {"width": 390, "height": 844}


def rows(page: Page) -> Any:
    return page.locator("[data-testid=score-table] tbody tr")


def total(page: Page, team: int) -> Any:
    return page.locator(f"[data-testid=score-total-{team}] .score-value")


def stored(page: Page) -> Any:
    return page.evaluate("localStorage.getItem('twentynine.scorebook')")


def open_panel(page: Page, name: str) -> None:
    """Open a tools panel (its button closes it when it is open)."""
    tab = page.locator(f"[data-testid=score-tab-{name}]")
    if tab.get_attribute("aria-expanded") != "true":
        tab.click()
    expect(tab).to_have_attribute("aria-expanded", "true")


def set_names(page: Page, a: str, b: str) -> None:
    open_panel(page, "teams")
    page.fill("[data-testid=score-name-0]", a)
    page.fill("[data-testid=score-name-1]", b)
    page.click("[data-testid=score-names-save]")


def set_rules(page: Page, profile: str) -> None:
    open_panel(page, "rules")
    page.select_option("[data-testid=score-profile]", profile)


# ---------------------------------------------------------------- the phone


def test_on_a_phone_every_column_and_control_is_on_the_screen(page: Page, artifacts: Path) -> None:
    page.set_viewport_size(PHONE)
    open_scorer(page, page.base_url)  # type: ignore[attr-defined]
    page.evaluate(
        """() => localStorage.setItem('twentynine.scorebook', JSON.stringify({current: 'a',
        sheets: [{id: 'a', file: {format: '29-scoresheet/1',
          rules: {profile: 'modern', under_half: true, allow_set: true},
          names: ['Asha & Ravi Chatterjee', 'Mina & Johanna'],
          entries: [
            {kind: 'contract', team: 0, bid: 20, pair: 1, points: 23, doubling: 2},
            {kind: 'contract', team: 1, bid: 29, pair: 1, made: true},
            {kind: 'contract', team: 0, bid: 18, points: 7},
            {kind: 'contract', team: 1, bid: 17, failed_by: 2, doubling: 4}]}}]}))"""
    )
    page.reload()
    page.wait_for_selector("[data-testid=score-table]")
    expect(rows(page)).to_have_count(4)
    width = PHONE["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    # no box scrolls sideways (the sheet used to scroll inside a 362 px box)
    hidden = page.evaluate(
        """() => [...document.querySelectorAll('.score-page *')]
            .filter((el) => !el.closest('thead'))  // read aloud only, on a phone
            .filter((el) => el.scrollWidth > el.clientWidth + 1
                    && getComputedStyle(el).overflowX !== 'visible')
            .map((el) => el.className || el.tagName)"""
    )
    assert hidden == [], hidden
    for i in range(1, 5):
        row = page.locator(f"[data-testid=score-row-{i}]")
        cells = row.locator("th, td, button")
        assert cells.count() == 13
        for k in range(cells.count()):
            box = cells.nth(k).bounding_box()
            assert box is not None and box["width"] > 0, (i, k)
            assert box["x"] >= 0 and box["x"] + box["width"] <= width, (i, k, box)
    # each column's value is there with its label: ±, the running totals, the notes
    third = page.locator("[data-testid=score-row-3]")
    expect(third.locator(".score-delta")).to_have_text("-2")
    expect(third.locator(".score-result")).to_contain_text("under half")
    expect(third.locator(".score-run-0")).to_have_text("-4")
    label = third.locator(".score-run-0").evaluate("el => getComputedStyle(el, '::before').content")
    assert "Asha & Ravi Chatterjee" in label
    page.screenshot(path=artifacts / "scorer-phone-sheet.png", full_page=True)
    # the rules are reached from the top of the page, above the sheet
    page.evaluate("window.scrollTo(0, 0)")
    tab = page.locator("[data-testid=score-tab-rules]")
    box = tab.bounding_box()
    assert box is not None and box["y"] + box["height"] <= PHONE["height"]
    table_top = page.locator("[data-testid=score-table]").bounding_box()
    assert table_top is not None and box["y"] < table_top["y"]
    tab.click()
    panel = page.locator("[data-testid=score-options]")
    expect(panel).to_be_visible()
    panel_box = panel.bounding_box()
    table_box = page.locator("[data-testid=score-table]").bounding_box()
    assert panel_box and table_box and panel_box["y"] + panel_box["height"] <= table_box["y"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width


# ---------------------------------------------------------------- undo


def test_a_deleted_deal_comes_back_from_the_toast_or_the_undo_button(page: Page) -> None:
    page.set_viewport_size(PHONE)
    open_scorer(page, page.base_url)  # type: ignore[attr-defined]
    enter(page, 0, 17, value=19)
    enter(page, 1, 22, value=20)
    enter(page, 0, 20, value=23)
    page.click("[data-testid=score-delete-2]")
    expect(rows(page)).to_have_count(2)
    expect(page.locator("[data-testid=score-toast-text]")).to_have_text("Deal 2 deleted.")
    page.click("[data-testid=score-toast-undo]")
    expect(rows(page)).to_have_count(3)
    expect(page.locator("[data-testid=score-row-2] .score-bid")).to_have_text("E–W 22")
    expect(page.locator("[data-testid=score-row-3] .score-bid")).to_have_text("N–S 20")
    expect(page.locator("[data-testid=score-toast-text]")).to_have_text("Undone: Deal 2 deleted.")
    # the undo button takes back the last edit whatever it was, here the third deal
    expect(page.locator("[data-testid=score-undo]")).to_have_attribute(
        "title", "Undo: Deal 3 added"
    )
    page.click("[data-testid=score-undo]")
    expect(rows(page)).to_have_count(2)
    page.reload()  # the history is kept with the sheet
    page.wait_for_selector("[data-testid=score-table]")
    page.click("[data-testid=score-undo]")
    expect(rows(page)).to_have_count(1)


def test_every_kind_of_edit_is_undone_and_listed(page: Page) -> None:
    open_scorer(page, page.base_url)  # type: ignore[attr-defined]
    enter(page, 0, 18, value=8)  # failed with under half its bid
    enter(page, 1, 20, value=22)
    page.click("[data-testid=score-edit-1]")
    page.fill("[data-testid=score-value]", "20")
    page.click("[data-testid=score-add]")
    expect(total(page, 0)).to_have_text("+1")
    open_panel(page, "rules")
    page.check("#score-opt-under_half")
    set_names(page, "Us", "Them")
    expect(page.locator("[data-testid=score-total-0] .team-name")).to_have_text("Us")
    page.click("[data-testid=score-clear]")
    page.click("[data-testid=score-clear]")
    expect(page.locator("[data-testid=score-empty]")).to_be_visible()
    page.click("[data-testid=score-changes] summary")
    items = page.locator("[data-testid=score-change]")
    expect(items).to_have_count(6)
    texts = [items.nth(k).locator("span").inner_text() for k in range(6)]
    assert texts == [
        "Sheet cleared (2 deals)",
        "Team names changed",
        "Rules changed",
        "Deal 1 corrected",
        "Deal 2 added",
        "Deal 1 added",
    ]
    page.click("[data-testid=score-undo]")  # the clear
    expect(rows(page)).to_have_count(2)
    page.click("[data-testid=score-undo]")  # the names
    expect(page.locator("[data-testid=score-total-0] .team-name")).to_have_text("North–South")
    page.click("[data-testid=score-undo]")  # the rules
    open_panel(page, "rules")
    expect(page.locator("#score-opt-under_half")).not_to_be_checked()
    page.click("[data-testid=score-changes] summary")
    page.click("[data-testid=score-undo-to-2]")  # the correction and the second deal
    expect(rows(page)).to_have_count(1)
    expect(total(page, 0)).to_have_text("-1")
    expect(page.locator("[data-testid=score-toast-text]")).to_contain_text("Undone: 2 changes")
    page.click("[data-testid=score-undo]")
    expect(page.locator("[data-testid=score-empty]")).to_be_visible()
    expect(page.locator("[data-testid=score-undo]")).to_be_disabled()


def test_rules_the_deals_do_not_fit_are_refused_saying_which_deal_and_why(page: Page) -> None:
    open_scorer(page, page.base_url)  # type: ignore[attr-defined]
    enter(page, 0, 15, value=20)
    enter(page, 0, 16, value=20)
    before = stored(page)
    set_rules(page, "modern")
    expect(page.locator("[data-testid=score-rules-error]")).to_have_text(
        "These rules do not fit the sheet: Deal 1: The bid 15 is below the lowest bid, 16."
    )
    expect(page.locator("[data-testid=score-profile]")).to_have_value("pagat")
    page.fill("[data-testid=score-target]", "1")
    page.dispatch_event("[data-testid=score-target]", "change")
    expect(page.locator("[data-testid=score-rules-error]")).to_have_text(
        "These rules do not fit the sheet: Under these rules the match ends at deal 1, "
        "but the sheet has 2 deals."
    )
    assert stored(page) == before
    expect(page.locator("[data-testid=score-undo]")).to_have_attribute(
        "title", "Undo: Deal 2 added"
    )


def test_the_summary_names_every_rule_changed(page: Page) -> None:
    open_scorer(page, page.base_url)  # type: ignore[attr-defined]
    open_panel(page, "rules")
    page.check("#score-opt-under_half")
    page.select_option("#score-opt-single_hand", "3")
    page.fill("[data-testid=score-target]", "8")
    page.dispatch_event("[data-testid=score-target]", "change")
    expect(page.locator("[data-testid=score-summary]")).to_have_text(
        "North–South – East–West · Classic (pagat) rules · changed: Single hand Yes, stake 3; "
        "Under half loses double Yes · Match to ±8"
    )


# ---------------------------------------------------------------- names and matches


def test_team_names_show_everywhere_and_are_checked(page: Page) -> None:
    open_scorer(page, page.base_url)  # type: ignore[attr-defined]
    set_names(page, "  Asha   & Ravi ", "Mina & Jo")
    expect(page.locator("[data-testid=score-total-0] .team-name")).to_have_text("Asha & Ravi")
    expect(page.locator("label[for=score-team-1]")).to_have_text("Mina & Jo")
    enter(page, 1, 18, value=20)
    expect(page.locator("[data-testid=score-row-1] .score-bid")).to_have_text("Mina & Jo 18")
    set_names(page, "Same", "same")
    expect(page.locator("[data-testid=score-names-error]")).to_have_text(
        "Both teams cannot be called “Same”."
    )
    page.reload()
    page.wait_for_selector("[data-testid=score-table]")
    expect(page.locator("[data-testid=score-total-1] .team-name")).to_have_text("Mina & Jo")


def test_matches_are_kept_listed_and_the_finished_ones_apart(page: Page) -> None:
    open_scorer(page, page.base_url)  # type: ignore[attr-defined]
    set_names(page, "Us", "Them")
    open_panel(page, "rules")
    page.check("#score-opt-under_half")
    for _ in range(6):
        enter(page, 0, 16, value=20)
    expect(page.locator("[data-testid=score-winner]")).to_contain_text("Us win the match")
    page.click("[data-testid=score-next-match]")  # same teams, same rules, a new sheet
    expect(page.locator("[data-testid=score-empty]")).to_be_visible()
    expect(page.locator("[data-testid=score-total-0] .team-name")).to_have_text("Us")
    expect(page.locator("[data-testid=score-summary]")).to_contain_text("Under half")
    enter(page, 1, 18, value=20)
    open_panel(page, "matches")
    playing = page.locator("[data-testid=score-playing] [data-testid=score-sheet-item]")
    finished = page.locator("[data-testid=score-finished] [data-testid=score-sheet-item]")
    expect(playing).to_have_count(1)
    expect(finished).to_have_count(1)
    expect(finished).to_contain_text("6 deals · +6 : 0 · Us won")
    expect(playing).to_contain_text("1 deal · 0 : +1 · in play")
    finished.locator("[data-testid=score-open]").click()
    expect(rows(page)).to_have_count(6)
    # removing a match can be undone too
    open_panel(page, "matches")
    page.locator("[data-testid=score-playing] [data-testid=score-remove]").click()
    expect(page.locator("[data-testid=score-tab-matches]")).to_have_text("Matches (1)")
    page.click("[data-testid=score-toast-undo]")
    expect(page.locator("[data-testid=score-tab-matches]")).to_have_text("Matches (2)")
    page.reload()
    page.wait_for_selector("[data-testid=score-table]")
    expect(rows(page)).to_have_count(6)  # the match opened last is open again
    expect(page.locator("[data-testid=score-tab-matches]")).to_have_text("Matches (2)")


def test_the_sheet_of_an_earlier_version_is_kept(page: Page) -> None:
    open_scorer(page, page.base_url)  # type: ignore[attr-defined]
    page.evaluate(
        """() => { localStorage.removeItem('twentynine.scorebook');
        localStorage.setItem('twentynine.game.scoresheet', JSON.stringify({profile: 'modern',
          options: {under_half: true},
          entries: [{kind: 'contract', team: 0, bid: 18, points: 8}]}));
        }"""
    )
    page.reload()
    page.wait_for_selector("[data-testid=score-table]")
    expect(total(page, 0)).to_have_text("-2")
    assert page.evaluate("localStorage.getItem('twentynine.game.scoresheet')") is None


# ---------------------------------------------------------------- export and share


def python_sheet() -> Sheet:
    sheet = Sheet(resolve("modern", {"under_half": "yes"}))
    for text in ("ns 20 took 23 pair ew", "ew 18 failed under-half", "ns 19 took 10 double"):
        sheet.add(parse_entry(text))
    sheet.set_names(["=Asha", "Mina, Jo"])
    sheet.delete(1)
    return sheet


def same_sheet(a: Sheet, b: Sheet) -> None:
    assert (a.rules, a.names, a.entries) == (b.rules, b.names, b.entries)
    assert [ln.score for ln in a.lines] == [ln.score for ln in b.lines]


def test_a_file_from_the_terminal_opens_and_the_exports_read_back_in_python(
    page: Page, tmp_path: Path
) -> None:
    sheet = python_sheet()
    file = tmp_path / "club.json"
    file.write_text(json.dumps(sheet.to_json()))
    open_scorer(page, page.base_url)  # type: ignore[attr-defined]
    open_panel(page, "share")
    page.set_input_files("[data-testid=score-import-file]", str(file))
    expect(page.locator("[data-testid=score-import]")).to_contain_text("=Asha – Mina, Jo")
    page.click("[data-testid=score-import-keep]")
    expect(rows(page)).to_have_count(2)
    expect(total(page, 0)).to_have_text("-3")
    # the terminal's history came along: undo puts the deleted deal back
    page.click("[data-testid=score-undo]")
    page.click("[data-testid=score-undo]")
    expect(rows(page)).to_have_count(3)
    open_panel(page, "share")
    with page.expect_download() as got:
        page.click("[data-testid=score-export-json]")
    exported = Sheet.from_json(json.loads(Path(got.value.path()).read_text()))
    expected = python_sheet()
    expected.undo()
    expected.undo()
    same_sheet(exported, expected)
    assert exported.history == expected.history
    with page.expect_download() as got:
        page.click("[data-testid=score-export-csv]")
    assert got.value.suggested_filename.endswith(".csv")
    assert Path(got.value.path()).read_bytes().decode() == sheet_csv(expected)


def test_a_link_made_in_python_opens_and_the_pages_link_reads_in_python(page: Page) -> None:
    sheet = python_sheet()
    base = page.base_url  # type: ignore[attr-defined]
    page.goto(sheet_link(sheet, base))
    page.wait_for_selector("[data-testid=score-import]")
    expect(page.locator("[data-testid=score-import]")).to_contain_text("2 deals · -3 : 0")
    assert page.evaluate("location.hash") == "#score"
    page.click("[data-testid=score-import-keep]")
    expect(rows(page)).to_have_count(2)
    open_panel(page, "share")
    link = page.locator("[data-testid=score-share-link]").input_value()
    assert link.startswith(base + "/#score/sheet/")
    same_sheet(sheet_from_link(link), sheet)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.click("[data-testid=score-share-copy]")
    expect(page.locator("[data-testid=score-share-status]")).to_have_text("The link is copied.")
    assert page.evaluate("navigator.clipboard.readText()") == link


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("{not json", "The file is not JSON."),
        ('{"format": "29-scoresheet/9"}', "This is not a score sheet"),
        ('{"format": "29-scoresheet/1", "rules": {"profile": "nope"}}', "unknown profile, “nope”"),
        (
            '{"format": "29-scoresheet/1", "entries": [{"kind": "contract", "team": 0, "bid": 40,'
            ' "points": 20}]}',
            "Deal 1: The bid 40 is above the highest bid, 28.",
        ),
        (
            '{"format": "29-scoresheet/1", "entries": [], "history": [{"edit": "add"}]}',
            "list of changes is damaged",
        ),
        ('{"format": "29-scoresheet/1", "names": ["A", "a"]}', "Both teams cannot be called"),
    ],
)
def test_a_malformed_file_is_refused_and_changes_nothing(
    page: Page, tmp_path: Path, content: str, words: str
) -> None:
    open_scorer(page, page.base_url)  # type: ignore[attr-defined]
    enter(page, 0, 17, value=19)
    before = stored(page)
    file = tmp_path / "bad.json"
    file.write_text(content)
    open_panel(page, "share")
    page.set_input_files("[data-testid=score-import-file]", str(file))
    expect(page.locator("[data-testid=score-import-error]")).to_contain_text(words)
    expect(page.locator("[data-testid=score-import-keep]")).to_have_count(0)
    assert stored(page) == before
    expect(rows(page)).to_have_count(1)


@pytest.mark.parametrize("tail", ["abc$def", "eyJmb3JtYXQi", ""])
def test_a_damaged_link_is_refused_and_changes_nothing(page: Page, tail: str) -> None:
    open_scorer(page, page.base_url)  # type: ignore[attr-defined]
    enter(page, 0, 17, value=19)
    before = stored(page)
    page.goto(page.base_url + "/#score/sheet/" + tail)  # type: ignore[attr-defined]
    expect(page.locator("[data-testid=score-import-error]")).to_contain_text("The link")
    page.click("[data-testid=score-import-dismiss]")
    expect(page.locator("[data-testid=score-import]")).to_have_count(0)
    assert stored(page) == before
    expect(rows(page)).to_have_count(1)


def test_the_printed_sheet_has_the_deals_and_no_controls(page: Page, artifacts: Path) -> None:
    open_scorer(page, page.base_url)  # type: ignore[attr-defined]
    set_names(page, "Us", "Them")
    enter(page, 0, 17, value=19)
    enter(page, 1, 22, value=20)
    open_panel(page, "share")
    page.evaluate("() => { window.print = () => { window.printed = (window.printed || 0) + 1; }; }")
    page.click("[data-testid=score-print]")
    assert page.evaluate("window.printed") == 1
    page.emulate_media(media="print")
    for hidden in (".topbar", ".score-bar", "[data-testid=score-form]", ".score-actions",
                   "[data-testid=score-panel-share]", "[data-testid=score-clear]"):  # fmt: skip
        expect(page.locator(hidden).first).to_be_hidden()
    expect(page.locator("[data-testid=score-table]")).to_be_visible()
    expect(page.locator("[data-testid=score-table] thead")).to_be_visible()
    expect(page.locator("[data-testid=score-summary]")).to_contain_text("Us – Them")
    expect(page.locator("[data-testid=score-totals]")).to_be_visible()
    page.pdf(path=str(artifacts / "scorer-print.pdf"))


# ---------------------------------------------------------------- one model, two languages

EDITS_JS = """async ([meta, steps]) => {
  const b = await import('/static/js/scorebook.js');
  let s = b.newSheet(meta);
  const out = [];
  for (const [op, ...args] of steps) {
    try {
      if (op === 'add') s = b.addDeal(meta, s, args[0]);
      else if (op === 'correct') s = b.correctDeal(meta, s, args[0], args[1]);
      else if (op === 'delete') s = b.deleteDeal(meta, s, args[0]);
      else if (op === 'clear') s = b.clearDeals(s);
      else if (op === 'rules') s = b.changeRules(meta, s, args[0], args[1]) || s;
      else if (op === 'names') s = b.changeNames(s, args[0]) || s;
      else if (op === 'undo') s = b.undo(meta, s).sheet;
      out.push(null);
    } catch (err) {
      out.push(err.code);
    }
  }
  const file = b.sheetFile(s);
  delete file.created; delete file.updated;
  return {file, errors: out};
}"""


def test_the_page_and_the_terminal_keep_the_same_sheet_for_the_same_edits(page: Page) -> None:
    e = lambda text: parse_entry(text).to_json()  # noqa: E731
    steps: list[list[Any]] = [
        ["add", e("ns 17 took 19")],
        ["add", e("ew 22 took 20")],
        ["add", e("ns 20 took 23 pair ew")],
        ["delete", 1],
        ["undo"],
        ["correct", 0, e("ns 17 took 12")],
        ["rules", "pagat", {"under_half": True}],
        ["rules", "modern", {}],
        ["names", ["Us", "Them"]],
        ["names", ["Us", "us"]],  # refused
        ["add", e("ns 18 took 40")],  # refused
        ["clear"],
        ["undo"],
        ["undo"],
        ["add", e("single ns made")],  # refused: no single hands in modern
        ["delete", 7],  # refused
    ]
    page.goto(page.base_url + "/")  # type: ignore[attr-defined]
    meta = page.evaluate("async () => (await fetch('/api/meta')).json()")
    got = page.evaluate(EDITS_JS, [meta, steps])
    sheet = Sheet(resolve("pagat"))
    errors: list[str | None] = []
    for op, *args in steps:
        try:
            if op == "add":
                sheet.add(Entry.from_json(args[0]))
            elif op == "correct":
                sheet.replace(args[0], Entry.from_json(args[1]))
            elif op == "delete":
                sheet.delete(args[0])
            elif op == "clear":
                sheet.clear()
            elif op == "rules":
                sheet.set_rules(resolve(args[0], args[1]))
            elif op == "names":
                sheet.set_names(args[0])
            else:
                sheet.undo()
            errors.append(None)
        except ScoreError as err:
            errors.append(err.code)
    assert got["errors"] == errors
    assert [c for c in errors if c] == ["names_same", "points_above_total", "single_off",
                                        "no_such_deal"]  # fmt: skip
    assert got["file"] == sheet.to_json()
