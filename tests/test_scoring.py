"""The table scorer: RULES.md §5's scoring examples, the stakes of §3 and §8, the
match end, corrections, impossible entries, and agreement with the engine's own
verdicts on random finished games (the same deal entered in the scorer scores
the same game points)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from twentynine.game.engine import CANCELLED
from twentynine.game.match import Match
from twentynine.game.rules import PROFILES, Rules, resolve
from twentynine.game.scoresheet import Sheet
from twentynine.game.scoring import (
    CONTRACT,
    SINGLE,
    VOID,
    Entry,
    ScoreError,
    entry_text,
    parse_entry,
    score_sheet,
)

NS, EW = 0, 1


def one(profile: str, entry: Entry, **options: Any) -> Any:
    return score_sheet(resolve(profile, options), [entry])[0]


# ---------------------------------------------------------------- RULES.md §5


def test_defenders_pair_raises_north_bid_of_20_to_24_pagat() -> None:
    line = one("pagat", Entry(team=NS, bid=20, pair=EW, points=23))
    assert line.target == 24 and line.result == "failed" and line.delta == (-1, 0)


def test_bidding_teams_pair_on_18_stops_at_the_floor_15_pagat() -> None:
    line = one("pagat", Entry(team=NS, bid=18, pair=NS, points=15))
    assert line.target == 15 and line.result == "made" and line.floored


def test_modern_pair_moves_20_to_16_or_24() -> None:
    assert one("modern", Entry(team=EW, bid=20, pair=EW, made=True)).target == 16
    assert one("modern", Entry(team=EW, bid=20, pair=NS, made=True)).target == 24


def test_bangladesh_pair_leaves_17_and_brings_19_to_16() -> None:
    assert one("bangladesh", Entry(team=NS, bid=17, pair=NS, made=True)).target == 17
    assert one("bangladesh", Entry(team=NS, bid=19, pair=NS, made=True)).target == 16


def test_bid_17_taken_19_scores_plus_one_and_east_22_taken_20_minus_one() -> None:
    sheet = Sheet(PROFILES["pagat"])
    assert sheet.add(parse_entry("ns 17 took 19")).delta == (1, 0)
    line = sheet.add(parse_entry("ew 22 took 20"))
    assert line.delta == (0, -1) and line.score == (1, -1)


def test_bid_18_with_20_is_made_and_defenders_18_with_17_fail() -> None:
    assert one("arcade", Entry(team=NS, bid=18, points=20)).result == "made"
    assert one("arcade", Entry(team=EW, bid=18, points=17)).result == "failed"


def test_seed_worked_example_pair_either_way() -> None:
    # bid 18, partner's pair: 15 needed, 17 taken: +1; the opponents' pair: 22 needed: -1
    assert one("pagat", parse_entry("ns 18 took 17 pair ns")).delta == (1, 0)
    assert one("pagat", parse_entry("ns 18 took 17 pair ew")).delta == (-1, 0)


# ---------------------------------------------------------------- stakes (§3, §8)


def test_stake_doubles_redoubles_and_sets() -> None:
    rules = resolve("pagat", {"doubling": "yes", "allow_set": "yes"})
    for word, mult in (("double", 2), ("redouble", 4), ("set", 6)):
        line = score_sheet(rules, [parse_entry(f"ew 18 took 20 {word}")])[0]
        assert line.stake == mult and line.delta == (0, mult)


def test_auto_double_from_21_and_under_half_loss() -> None:
    rules = resolve("pagat", {"auto_double_from": 21, "under_half": "yes"})
    assert score_sheet(rules, [parse_entry("ns 21 took 25")])[0].delta == (2, 0)
    assert score_sheet(rules, [parse_entry("ns 20 took 19")])[0].delta == (-1, 0)
    line = score_sheet(rules, [parse_entry("ns 22 took 10")])[0]  # 2 x 10 < 22
    assert line.under_half and line.stake == 4 and line.delta == (-4, 0)
    line = score_sheet(rules, [parse_entry("ns 22 took 11")])[0]  # 2 x 11 = 22: not under
    assert not line.under_half and line.stake == 2
    line = score_sheet(rules, [parse_entry("ew 18 failed under-half")])[0]
    assert line.stake == 2 and line.delta == (0, -2)


def test_failed_by_counts_from_the_target() -> None:
    line = one("pagat", parse_entry("ns 20 failed by 3 pair ew"))
    assert line.target == 24 and line.points == 21 and line.result == "failed"


def test_single_hand_stake_to_the_declarers_team() -> None:
    rules = resolve("pagat", {"single_hand": 3})
    lines = score_sheet(rules, [parse_entry("single ew made"), parse_entry("single ns lost")])
    assert [ln.delta for ln in lines] == [(0, 3), (-3, 0)]
    assert [ln.result for ln in lines] == ["single-made", "single-failed"]


def test_cancelled_deal_scores_nothing() -> None:
    line = one("pagat", parse_entry("cancelled"))
    assert line.result == CANCELLED and line.delta == (0, 0) and line.stake == 0


# ---------------------------------------------------------------- the match


def test_match_ends_at_plus_six_and_names_the_winner() -> None:
    sheet = Sheet(PROFILES["pagat"])
    for _ in range(5):
        sheet.add(parse_entry("ns 16 took 20"))
    assert sheet.winner is None
    line = sheet.add(parse_entry("ns 16 took 20"))
    assert line.winner == NS and sheet.over
    with pytest.raises(ScoreError) as err:
        sheet.add(parse_entry("ew 16 took 20"))
    assert err.value.code == "after_end"


def test_a_team_at_minus_six_loses() -> None:
    sheet = Sheet(PROFILES["pagat"], [parse_entry("ew 16 took 2") for _ in range(6)])
    assert sheet.score == (0, -6) and sheet.winner == NS


def test_single_deals_have_no_winner() -> None:
    sheet = Sheet(PROFILES["arcade"], [parse_entry("ns 16 took 20") for _ in range(9)])
    assert sheet.score == (9, 0) and sheet.winner is None


def test_correcting_a_past_deal_recomputes_everything_after_it() -> None:
    sheet = Sheet(PROFILES["pagat"])
    for text in ("ns 18 took 20", "ew 20 took 22", "ns 16 took 10", "ew 17 took 17"):
        sheet.add(parse_entry(text))
    assert [ln.score for ln in sheet.lines] == [(1, 0), (1, 1), (0, 1), (0, 2)]
    sheet.replace(0, parse_entry("ns 18 took 20 pair ew"))  # target 22: failed
    assert [ln.score for ln in sheet.lines] == [(-1, 0), (-1, 1), (-2, 1), (-2, 2)]
    sheet.delete(1)
    assert [ln.score for ln in sheet.lines] == [(-1, 0), (-2, 0), (-2, 1)]


def test_a_correction_that_ends_the_match_early_is_refused() -> None:
    sheet = Sheet(PROFILES["pagat"], [parse_entry("ns 16 took 20") for _ in range(5)])
    sheet.add(parse_entry("ew 16 took 20"))
    sheet.add(parse_entry("ns 16 took 20"))
    assert sheet.winner == NS
    with pytest.raises(ScoreError) as err:
        sheet.replace(5, parse_entry("ns 16 took 20"))
    assert err.value.code == "edit_ends_match"
    assert sheet.winner == NS and len(sheet.entries) == 7  # unchanged


# ---------------------------------------------------------------- impossible entries


@pytest.mark.parametrize(
    ("profile", "text", "options", "code"),
    [
        ("pagat", "ns 18 took 29", {}, "points_above_total"),
        ("modern", "ns 18 took 30", {}, "points_above_total"),
        ("pagat", "ns 29 took 20", {}, "bid_high"),
        ("pagat", "ns 14 took 20", {}, "bid_low"),
        ("arcade", "ns 18 took 20 pair ew", {}, "pair_off"),
        ("pagat", "ns 18 took 20 double", {}, "doubling_off"),
        ("modern", "ns 18 took 20 set", {}, "set_off"),
        ("pagat", "single ns made", {}, "single_off"),
        ("pagat", "ns 18 failed under-half", {}, "under_half_off"),
        ("pagat", "ns 18 made under-half", {"under_half": "yes"}, "under_half_made"),
        ("pagat", "ns 18 took 8 under-half", {"under_half": "yes"}, "under_half_with_points"),
        ("pagat", "ns 18 took 20 made", {}, "outcome_twice"),
        ("pagat", "ns 18", {}, "outcome_missing"),
        ("pagat", "ns 18 failed by 19", {}, "failed_by_high"),
        ("pagat", "ns 18 failed by 0", {}, "failed_by_low"),
        ("modern", "cancelled", {}, "void_impossible"),
        ("pagat", "ns single", {"single_hand": 3}, "single_with_bid"),
    ],
)
def test_impossible_entries_are_refused_with_a_reason(
    profile: str, text: str, options: dict[str, Any], code: str
) -> None:
    rules = resolve(profile, options)
    with pytest.raises(ScoreError) as err:
        score_sheet(rules, [parse_entry(text)])
    assert err.value.code == code
    assert str(err.value)


def test_a_single_hand_with_a_bid_is_refused() -> None:
    rules = resolve("pagat", {"single_hand": 3})
    with pytest.raises(ScoreError) as err:
        score_sheet(rules, [Entry(kind=SINGLE, team=NS, bid=18, made=True)])
    assert err.value.code == "single_with_bid"


def test_defenders_pair_never_raises_the_target_past_the_maximum() -> None:
    line = one("pagat", parse_entry("ew 26 took 28 pair ns"))
    assert line.target == 28 and line.capped and line.result == "made"


def test_entry_text_and_json_round_trip() -> None:
    for text in (
        "ns 18 took 20",
        "ew 20 failed by 3 pair ns double",
        "ns 21 failed under-half",
        "single ew lost",
        "cancelled",
        "ew 19 made",
    ):
        e = parse_entry(text)
        assert entry_text(e) == text
        assert Entry.from_json(e.to_json()) == e
    sheet = Sheet(resolve("modern", {}), [parse_entry("ns 18 took 20 redouble")])
    again = Sheet.from_json(sheet.to_json())
    assert again.entries == sheet.entries and again.rules == sheet.rules


# ---------------------------------------------------------------- the engine's own verdicts


def entry_of(verdict: dict[str, Any], rules: Rules, how: str) -> Entry:
    """A deal's verdict (RULES §7) as a table would report it (``how``: points,
    failed_by or outcome)."""
    if verdict["result"] == CANCELLED:
        return Entry(kind=VOID)
    if verdict["single"] is not None:
        made = verdict["result"] == "single-made"
        return Entry(kind=SINGLE, team=verdict["single"] & 1, made=made)
    team = verdict["bidder"] & 1
    bid = verdict["bid"]
    pair = verdict["pair"]["team"] if verdict["pair"] else None
    doubling = verdict["doubling"]
    points = verdict["points"][team]
    made = verdict["result"] == "made"
    if how == "failed_by" and not made:
        failed_by = verdict["target"] - points
        return Entry(CONTRACT, team, bid, pair, failed_by=failed_by, doubling=doubling)
    if how == "outcome":
        under = not made and rules.under_half and 2 * points < bid
        return Entry(CONTRACT, team, bid, pair, made=made, under_half=under, doubling=doubling)
    return Entry(CONTRACT, team, bid, pair, points=points, doubling=doubling)


PROFILE_OPTIONS = [
    ("pagat", {}),
    ("arcade", {"match_target": 4}),
    ("bangladesh", {}),
    ("modern", {}),
    ("modern", {"allow_set": "yes", "under_half": "yes", "auto_double_from": 21}),
    ("bhoos", {}),
    ("pagat", {"single_hand": 3, "doubling": "yes", "under_half": "yes", "all_pass": "redeal"}),
    ("pagat", {"last_trick_point": "yes", "max_bid": 29, "unrevealed": "score"}),
]


@pytest.mark.parametrize(("profile", "options"), PROFILE_OPTIONS)
def test_scorer_agrees_with_the_engine_on_random_games(
    profile: str, options: dict[str, Any], play: Callable[..., Match]
) -> None:
    rules = resolve(profile, options)
    rng = random.Random(profile + str(sorted(options.items())))
    for game in range(6):
        match = play(rules, seed=rng.randrange(1 << 30), rng_seed=game, max_deals=25)
        verdicts = [d.verdict() for d in match.deals if d.is_over()]
        for how in ("points", "failed_by", "outcome"):
            lines = score_sheet(rules, [entry_of(v, rules, how) for v in verdicts])
            for verdict, line in zip(verdicts, lines, strict=True):
                assert line.result == verdict["result"]
                assert line.stake == verdict["stake"]
                assert list(line.delta) == verdict["delta"]
                if verdict["single"] is None and verdict["result"] != CANCELLED:
                    assert line.target == verdict["target"]
            if verdicts and match.winner is not None and len(verdicts) == len(match.deals):
                assert lines[-1].winner == match.winner
                assert list(lines[-1].score) == match.score
