"""The score sheet page (#score) in chromium: the browser's scorer (scorer.js)
gives the same results as twentynine.game.scoring on one table of cases and on
random engine games; the page scores deals, corrects a past one, refuses an
impossible one with a message, ends the match, keeps its sheet across a
reload, and works offline once the app is installed (service worker)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from twentynine.game.engine import CANCELLED, MULTIPLIER
from twentynine.game.match import Match
from twentynine.game.rules import Rules, resolve
from twentynine.game.scoring import ScoreError, parse_entry, score_sheet

SCORING_PY = Path(__file__).resolve().parents[2] / "twentynine" / "game" / "scoring.py"
JS = Path(__file__).resolve().parents[2] / "twentynine" / "web" / "static" / "js"
CATALOG = json.loads(
    (
        Path(__file__).resolve().parents[2] / "twentynine" / "web" / "static" / "i18n" / "en.json"
    ).read_text(encoding="utf-8")
)

CASES: list[tuple[str, dict[str, Any], list[str]]] = [
    ("pagat", {}, ["ns 17 took 19", "ew 22 took 20", "ns 20 took 23 pair ew"]),
    ("pagat", {}, ["ns 18 took 15 pair ns", "ew 26 took 28 pair ns", "ns 20 failed by 3 pair ew"]),
    ("pagat", {}, ["ns 16 took 20"] * 6),
    ("pagat", {}, ["ns 16 took 20"] * 7),  # a deal after the end
    ("pagat", {}, ["ew 16 took 2"] * 6),
    ("modern", {}, ["ew 20 made pair ew", "ns 20 failed pair ew", "ns 29 took 29 double"]),
    ("modern", {}, ["ns 18 took 30"]),
    ("modern", {"allow_set": "yes"}, ["ew 18 took 20 set", "ns 19 took 10 redouble"]),
    ("modern", {}, ["ns 18 took 20 set"]),
    ("bangladesh", {}, ["ns 17 took 17 pair ns", "ns 19 took 16 pair ns", "ew 22 took 18 pair ew"]),
    ("arcade", {}, ["ns 16 took 20"] * 9),
    ("arcade", {}, ["ns 18 took 20 pair ew"]),
    ("pagat", {"auto_double_from": 21, "under_half": "yes"}, ["ns 21 took 25", "ns 22 took 10"]),
    ("pagat", {"under_half": "yes"}, ["ew 18 failed under-half", "ns 22 took 11"]),
    ("pagat", {"under_half": "yes"}, ["ew 18 made under-half"]),
    ("pagat", {"single_hand": 3}, ["single ew made", "single ns lost", "cancelled"]),
    ("pagat", {"single_hand": 6, "match_target": 12}, ["single ns made", "single ns made"]),
    ("pagat", {}, ["single ns made"]),
    ("modern", {}, ["cancelled"]),
    ("pagat", {"all_pass": "redeal", "unrevealed": "score"}, ["cancelled", "ns 15 took 15"]),
    ("pagat", {}, ["ns 14 took 20"]),
    ("pagat", {}, ["ns 29 took 20"]),
    ("pagat", {}, ["ns 18 failed by 19"]),
    ("pagat", {}, ["ns 18 failed by 0"]),
    ("pagat", {}, ["ns 18 took 29"]),
    (
        "pagat",
        {"last_trick_point": "yes", "max_bid": 29},
        ["ns 29 took 29", "ew 25 took 26 pair ns"],
    ),
]


def python_result(rules: Any, entries: list[dict[str, Any]]) -> dict[str, Any]:
    from twentynine.game.scoring import Entry

    try:
        lines = score_sheet(rules, [Entry.from_json(e) for e in entries])
    except ScoreError as err:
        return {"error": {"code": err.code, "deal": err.deal}}
    return {"lines": [ln.to_json() for ln in lines]}


JS_RUN = """async ([cases]) => {
  const m = await import('/static/js/scorer.js');
  return cases.map(([rules, entries]) => {
    try {
      return {lines: m.scoreSheet(rules, entries)};
    } catch (err) {
      if (!(err instanceof m.ScoreError)) throw err;
      return {error: {code: err.code, deal: err.deal}};
    }
  });
}"""


def same(py: dict[str, Any], js: dict[str, Any]) -> None:
    if "error" in py:
        assert js.get("error") == py["error"], (py, js)
        return
    assert "lines" in js, (py, js)
    for a, b in zip(py["lines"], js["lines"], strict=True):
        for key in ("target", "points", "result", "stake", "delta", "score", "winner"):
            assert a[key] == b[key], (key, a, b)
        for key in ("under_half", "capped", "floored"):
            assert a[key] == b[key], (key, a, b)
        assert a["entry"] == b["entry"]


def entries_of_random_games(play: Callable[..., Match]) -> list[tuple[Rules, list[dict[str, Any]]]]:
    """Entries (as a table would report them) of random finished engine games."""
    out = []
    settings = [
        ("pagat", {}),
        ("modern", {"allow_set": "yes", "under_half": "yes", "auto_double_from": 21}),
        ("bangladesh", {}),
        ("pagat", {"single_hand": 3, "doubling": "yes", "all_pass": "redeal"}),
    ]
    for profile, options in settings:
        rules = resolve(profile, options)
        for game in range(3):
            match = play(rules, seed=1000 + game, rng_seed=game, max_deals=20)
            entries = []
            for d in match.deals:
                if not d.is_over():
                    continue
                if d.result == CANCELLED:
                    entries.append({"kind": "cancelled"})
                elif d.single >= 0:
                    entries.append(
                        {"kind": "single", "team": d.single & 1, "made": d.result == "single-made"}
                    )
                else:
                    team = d.bidder & 1
                    e: dict[str, Any] = {"kind": "contract", "team": team, "bid": d.bid}
                    if d.pair_seat >= 0:
                        e["pair"] = d.pair_seat & 1
                    if MULTIPLIER[d.doubling] > 1:
                        e["doubling"] = MULTIPLIER[d.doubling]
                    e["points"] = d.points[team]
                    entries.append(e)
            out.append((rules, entries))
    return out


def test_the_browser_scorer_agrees_with_the_python_scorer(
    page: Page, play: Callable[..., Match]
) -> None:
    page.goto(page.base_url + "/")  # type: ignore[attr-defined]
    table: list[tuple[Rules, list[dict[str, Any]]]] = []
    for profile, options, texts in CASES:
        table.append((resolve(profile, options), [parse_entry(t).to_json() for t in texts]))
    table += entries_of_random_games(play)
    js = page.evaluate(JS_RUN, [[(r.options(), entries) for r, entries in table]])
    assert len(js) == len(table)
    for (rules, entries), got in zip(table, js, strict=True):
        same(python_result(rules, entries), got)
    errors = [r for r in js if "error" in r]
    assert len(errors) >= 8  # the impossible cases were refused on both sides


def test_every_error_code_has_a_message_in_the_catalog() -> None:
    codes = set(re.findall(r'(?:_fail|ScoreError)\(\s*"([a-z_]+)"', SCORING_PY.read_text()))
    web = {c for c in codes if not c.startswith(("syntax_", "sheet_", "save", "read", "empty"))}
    assert len(web) > 25
    missing = sorted(c for c in web if f"score.err.{c}" not in CATALOG)
    assert not missing, missing
    # and every code the page's own modules throw, those of the form's numbers too
    js = "".join((JS / name).read_text() for name in ("scorer.js", "scorebook.js", "scorepage.js"))
    thrown = set(re.findall(r'(?:fail|ScoreError)\(\s*"([a-z_]+)"', js))
    thrown |= {
        f"{what}_{end}"
        for what in ("bid", "points", "failed_by")
        for end in ("missing", "not_whole")
    }
    thrown |= set(re.findall(r'code: "([a-z_]+)"', js))
    assert len(thrown) > 50
    missing = sorted(c for c in thrown - {"rules_refused"} if f"score.err.{c}" not in CATALOG)
    assert not missing, missing


# ---------------------------------------------------------------------------- the page


def enter(
    page: Page,
    team: int,
    bid: int,
    outcome: str = "points",
    value: int | None = None,
    pair: str = "",
) -> None:
    page.click(f"[data-testid=score-team-{team}]")
    page.fill("[data-testid=score-bid]", str(bid))
    page.select_option("[data-testid=score-outcome]", outcome)
    if value is not None:
        page.fill("[data-testid=score-value]", str(value))
    if pair:
        page.select_option("[data-testid=score-pair]", pair)
    page.click("[data-testid=score-add]")


def open_scorer(page: Page, base: str) -> None:
    page.goto(base + "/#score")
    page.wait_for_selector("[data-testid=score-form]")


def test_the_page_scores_corrects_refuses_and_ends_the_match(page: Page, artifacts: Path) -> None:
    base = page.base_url  # type: ignore[attr-defined]
    page.set_viewport_size({"width": 390, "height": 844})
    open_scorer(page, base)
    expect(page.locator("[data-testid=score-empty]")).to_be_visible()
    enter(page, 0, 17, value=19)
    enter(page, 1, 22, value=20)
    enter(page, 0, 20, value=23, pair="1")  # the defenders' pair: target 24, failed
    rows = page.locator("[data-testid=score-table] tbody tr")
    expect(rows).to_have_count(3)
    expect(page.locator("[data-testid=score-row-3] [data-testid=score-target-cell]")).to_have_text(
        "24"
    )
    expect(page.locator("[data-testid=score-row-3] [data-testid=score-delta]")).to_have_text("-1")
    expect(page.locator("[data-testid=score-total-0] .score-value")).to_have_text("0")
    expect(page.locator("[data-testid=score-total-1] .score-value")).to_have_text("-1")
    # the pips of the sixes are drawn: one black pip for East-West
    expect(page.locator("[data-testid=score-total-1] .pip-black")).to_have_count(1)
    # an impossible entry is refused with a message
    enter(page, 0, 18, value=29)
    expect(page.locator("[data-testid=score-error]")).to_contain_text("more than the 28")
    expect(rows).to_have_count(3)
    page.fill("[data-testid=score-bid]", "30")
    page.fill("[data-testid=score-value]", "20")
    page.click("[data-testid=score-add]")
    expect(page.locator("[data-testid=score-error]")).to_contain_text("above the highest bid")
    # correct deal 1: 17 taken 12, failed; everything after is scored again
    page.click("[data-testid=score-edit-1]")
    expect(page.locator("[data-testid=score-bid]")).to_have_value("17")
    page.fill("[data-testid=score-value]", "12")
    page.click("[data-testid=score-add]")
    expect(page.locator("[data-testid=score-row-1] [data-testid=score-delta]")).to_have_text("-1")
    expect(page.locator("[data-testid=score-total-0] .score-value")).to_have_text("-2")
    # the sheet survives a reload (localStorage)
    page.reload()
    page.wait_for_selector("[data-testid=score-form]")
    expect(rows).to_have_count(3)
    expect(page.locator("[data-testid=score-total-0] .score-value")).to_have_text("-2")
    # East-West make five contracts in a row: +6 after -1... they win at +6
    for _ in range(7):
        enter(page, 1, 16, value=20)
    expect(page.locator("[data-testid=score-winner]")).to_contain_text("East–West win the match")
    expect(page.locator("[data-testid=score-add]")).to_be_disabled()
    page.screenshot(path=artifacts / "scorer-390x844.png", full_page=True)
    # a single hand needs the rule: switch it on in the sheet's rules
    page.click("[data-testid=score-tab-rules]")
    page.select_option("#score-opt-pair", "off")
    expect(page.locator("[data-testid=score-rules-error]")).to_contain_text("no pair")
    page.click("[data-testid=score-clear]")
    page.click("[data-testid=score-clear]")
    expect(page.locator("[data-testid=score-empty]")).to_be_visible()
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page is {overflow}px wider than the screen"


def test_the_scorer_works_offline_after_install(browser: Browser, server: str) -> None:
    context = browser.new_context(service_workers="allow")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(server + "/")
        page.wait_for_selector("[data-testid=start-game]")
        page.evaluate("navigator.serviceWorker.ready.then(() => true)")
        page.reload()
        page.wait_for_function("() => !!navigator.serviceWorker.controller")
        context.set_offline(True)
        page.goto(server + "/#score")
        page.wait_for_selector("[data-testid=score-form]", timeout=20_000)
        expect(page.locator("#banner")).to_be_hidden()
        enter(page, 1, 18, value=20)
        enter(page, 0, 20, outcome="failed_by", value=3)
        expect(page.locator("[data-testid=score-table] tbody tr")).to_have_count(2)
        expect(page.locator("[data-testid=score-total-1] .score-value")).to_have_text("+1")
        expect(page.locator("[data-testid=score-total-0] .score-value")).to_have_text("-1")
        page.reload()
        page.wait_for_selector("[data-testid=score-form]", timeout=20_000)
        expect(page.locator("[data-testid=score-table] tbody tr")).to_have_count(2)
        context.set_offline(False)
    finally:
        context.close()
    assert not errors, errors


@pytest.mark.parametrize("width", [360, 1280])
def test_the_menu_opens_the_score_sheet(page: Page, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(page.base_url + "/")  # type: ignore[attr-defined]
    page.wait_for_selector("[data-testid=start-game]")
    page.click("[data-testid=btn-score]")
    page.wait_for_selector("[data-testid=score-form]")
    assert page.evaluate("location.hash") == "#score"
    page.click("[data-testid=score-back]")
    page.wait_for_selector("[data-testid=start-game]")


# ---------------------------------------------------------------- issue 19: the defects


@pytest.mark.parametrize(
    ("bid", "outcome", "value", "words"),
    [
        ("", "points", "20", "Enter the bid."),
        ("17.5", "points", "20", "The bid is a whole number, such as 18: “17.5” is not."),
        ("eighteen", "points", "20", "The bid is a whole number, such as 18: “eighteen” is not."),
        ("-3", "points", "20", "The bid -3 is below the lowest bid, 15."),
        ("30", "points", "20", "The bid 30 is above the highest bid, 28."),
        ("18", "points", "", "Enter the card points the bidding team took."),
        (
            "18",
            "points",
            "20.5",
            "The points taken are a whole number, such as 20: “20.5” is not.",
        ),
        ("18", "points", "1e1", "The points taken are a whole number, such as 20: “1e1” is not."),
        ("18", "points", "-2", "Points cannot be negative."),
        ("18", "points", "29", "29 points is more than the 28 there are."),
        ("18", "failed_by", "", "Enter by how many points the contract failed."),
        (
            "18",
            "failed_by",
            "2.5",
            "The points short are a whole number, such as 3: “2.5” is not.",
        ),
        ("18", "failed_by", "0", "A contract fails by 1 point or more."),
        ("18", "failed_by", "19", "It cannot fail by more than its target, 18."),
    ],
)
def test_a_refused_deal_says_exactly_what_is_wrong(
    page: Page, bid: str, outcome: str, value: str, words: str
) -> None:
    open_scorer(page, page.base_url)  # type: ignore[attr-defined]
    page.fill("[data-testid=score-bid]", bid)
    page.select_option("[data-testid=score-outcome]", outcome)
    page.fill("[data-testid=score-value]", value)
    page.click("[data-testid=score-add]")
    expect(page.locator("[data-testid=score-error]")).to_have_text(words)
    expect(page.locator("[data-testid=score-empty]")).to_be_visible()
