"""Property tests of scoring over random games (RULES.md).

The card points of a deal add up to 28 (29 with the last-trick point), the
stake and the game points follow the result, an early end stops the deal
exactly when the result and the stake are settled, and the match ends exactly
when a team reaches plus or minus the target. Each test plays seeded matches
with random legal actions and checks the verdicts against an independent
account written here.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rule_strategies import (
    SETTINGS,
    Chooser,
    card_points,
    choosers,
    nxt,
    play,
    rules_strategy,
    seeds,
    winning_index,
)

from twentynine.game import record
from twentynine.game.actions import Action
from twentynine.game.engine import IllegalAction
from twentynine.game.rules import PAIRS, Rules


# ------------------------------------------------------------ the pair's target
def pair_target(rules: Rules, bid: int, by_bidding_team: bool) -> int:
    """RULES.md section 2.9 and section 8 (bangladesh: 18 or below unchanged ...)."""
    if not by_bidding_team:
        return min(bid + 4, rules.max_bid)
    if rules.pair == "bangladesh":
        if bid <= 18:
            return bid
        if bid <= 20:
            return max(16, rules.min_bid)
        return max(bid - 4, rules.min_bid)
    return max(bid - 4, rules.min_bid)


# ----------------------------------------------------------------- card points
@SETTINGS
@given(rules=rules_strategy(), seed=seeds, ch=choosers)
def test_card_points_add_up_to_28_or_29(rules: Rules, seed: int, ch: Chooser) -> None:
    match = play(rules, seed, ch)
    total = 28 + (1 if rules.last_trick_point else 0)
    for d in match.deals:
        v = d.verdict()
        pts = v["points"]
        assert pts[0] >= 0 and pts[1] >= 0
        assert sum(t["points"] for t in v["tricks"]) == sum(pts)
        for team in (0, 1):
            won = [t["points"] for t in v["tricks"] if t["winner"] % 2 == team]
            assert pts[team] == sum(won)
        assert v["tricks_played"] == len(v["tricks"])
        if v["result"] == "in-progress":
            assert sum(pts) <= total
        elif v["tricks_played"] == 8 and v["single"] is None:
            assert sum(pts) == total, v
        else:  # single hand, early end, redeal: stopped earlier
            assert v["tricks_played"] < 8 or v["single"] is not None
            assert sum(pts) <= total
            if v["tricks_played"] < 8:
                # nobody gets the last-trick point when the eighth trick is unplayed
                assert sum(pts) <= 28


# ------------------------------------------------------------ stake and delta
def check_stake(rules: Rules, v: dict[str, Any]) -> None:
    result = v["result"]
    stake, delta = v["stake"], v["delta"]
    assert v["doubling"] in (1, 2, 4, 6)
    if not rules.doubling or v["single"] is not None:
        assert v["doubling"] == 1
    if v["doubling"] == 6:
        assert rules.allow_set
    if result == "cancelled":
        assert stake == 0 and delta == [0, 0]
        if v["bidder"] is None:
            assert rules.all_pass == "redeal"
        else:
            assert rules.unrevealed == "cancel" and v["revealed_in_trick"] is None
        return
    assert v["bidder"] is not None and v["bid"] is not None
    assert rules.min_bid <= v["bid"] <= rules.max_bid
    if v["single"] is not None:
        team = v["single"] % 2
        assert result in ("single-made", "single-failed")
        assert stake == rules.single_hand_stake > 0
        assert v["target"] is None
        sign = 1 if result == "single-made" else -1
        assert delta[team] == sign * stake and delta[1 - team] == 0
        winners = [t["winner"] for t in v["tricks"]]
        if result == "single-made":
            assert winners == [v["single"]] * 8
        else:  # ends at the first trick the declarer loses
            assert winners[:-1] == [v["single"]] * (len(winners) - 1)
            assert winners[-1] != v["single"]
        return
    if rules.unrevealed == "cancel":
        assert v["revealed_in_trick"] is not None
    team = v["bidder"] % 2
    bid = v["bid"]
    # the target: the bid, moved by the pair
    if v["pair"] is None:
        assert v["target"] == bid
    else:
        assert rules.pair != "off"
        by_bidders = v["pair"]["team"] == team
        assert v["pair"]["team"] == v["pair"]["seat"] % 2
        assert v["target"] == pair_target(rules, bid, by_bidders)
    points = v["points"][team]
    assert result in ("made", "failed")
    assert (result == "made") == (points >= v["target"]), v
    expected = 2 if rules.auto_double_from is not None and bid >= rules.auto_double_from else 1
    expected *= v["doubling"]
    if result == "failed" and rules.under_half and 2 * points < bid:
        expected *= 2
    assert stake == expected, (stake, expected, v)
    assert delta[1 - team] == 0, "the defenders' game points never change"
    assert delta[team] == (stake if result == "made" else -stake)
    if not rules.early_end:
        assert v["tricks_played"] == 8


@SETTINGS
@given(
    rules=rules_strategy(
        under_half=st.booleans(), auto_double_from=st.one_of(st.none(), st.integers(0, 3))
    ),
    seed=seeds,
    ch=choosers,
)
def test_stake_and_delta_follow_result(rules: Rules, seed: int, ch: Chooser) -> None:
    match = play(rules, seed, ch)
    for d in match.deals:
        v = d.verdict()
        if d.is_over():
            check_stake(rules, v)
        else:
            assert v["stake"] is None and v["delta"] == [0, 0]
            assert v["result"] == "in-progress"


# --------------------------------------------------------------- early end
def settled(
    rules: Rules,
    v: dict[str, Any],
    points: list[int],
    tricks_done: int,
    held: list[set[str]],
    revealed: bool,
    pair_declared: bool,
    target: int,
    window_open: bool,
) -> bool:
    """RULES.md section 8, early end: is the result (and the stake) settled now?"""
    if rules.unrevealed == "cancel" and not revealed:
        return False
    trump = v["trump"]
    team = v["bidder"] % 2
    bid = v["bid"]
    holder = None
    if rules.pair != "off" and not pair_declared:
        for s in range(4):
            if "K" + trump in held[s] and "Q" + trump in held[s]:
                holder = s
    targets = {target}
    if holder is not None and (window_open or tricks_done <= 5):
        targets.add(pair_target(rules, bid, holder % 2 == team))
    tmin, tmax = min(targets), max(targets)
    mine = points[team]
    left = 28 - points[0] - points[1]
    if rules.last_trick_point:
        left += 1 if tricks_done < 8 else 0
    if mine >= tmax:
        return True
    if mine + left >= tmin:
        return False
    # with under_half, whether the loss is doubled must be settled too
    return not (rules.under_half and 2 * (mine + left) >= bid and 2 * mine < bid)


def check_early_end(rules: Rules, rec: dict[str, Any], v: dict[str, Any]) -> None:
    """The deal stops at the first settled check point, and only then."""
    if v["bidder"] is None or v["single"] is not None or v["result"] == "cancelled":
        return
    held = [set(h) for h in rec["hands"]]
    points = [0, 0]
    trick: list[tuple[int, str]] = []
    tricks_done = 0
    pair_declared = False
    target = v["bid"]
    revealed_in = v["revealed_in_trick"]
    actions = rec["actions"]
    check_points: list[tuple[int, bool]] = []  # (index of the last action, settled)
    for idx, a in enumerate(actions):
        if "pair" in a or ("pass" in a and tricks_done > 0 and not trick):
            # a pair decision (the only pass possible between tricks)
            if "pair" in a:
                pair_declared = True
                target = pair_target(rules, v["bid"], a["seat"] % 2 == v["bidder"] % 2)
            revealed = revealed_in is not None and revealed_in <= tricks_done
            check_points.append(
                (
                    idx,
                    settled(
                        rules, v, points, tricks_done, held, revealed, pair_declared, target, False
                    ),
                )
            )
            continue
        if "play" not in a:
            continue
        held[a["seat"]].discard(a["play"])
        trick.append((a["seat"], a["play"]))
        if len(trick) < 4:
            continue
        tricks_done += 1
        cards = [c for _, c in trick]
        active = v["trump"] if revealed_in is not None and tricks_done >= revealed_in else None
        winner = trick[winning_index(cards, active)][0]
        points[winner % 2] += card_points(cards) + (
            1 if tricks_done == 8 and rules.last_trick_point else 0
        )
        trick = []
        if tricks_done == 8:
            break
        revealed = revealed_in is not None and revealed_in <= tricks_done
        window = False
        if revealed and rules.pair != "off" and not pair_declared:
            for s in range(4):
                if "K" + v["trump"] in held[s] and "Q" + v["trump"] in held[s]:
                    window = s % 2 == winner % 2
        check_points.append(
            (
                idx,
                settled(
                    rules, v, points, tricks_done, held, revealed, pair_declared, target, window
                ),
            )
        )
    assert points == v["points"]
    last = len(actions) - 1
    for idx, is_settled in check_points:
        if idx < last:
            assert not is_settled, f"the deal was settled at action {idx} but went on"
        else:
            assert is_settled, f"the deal ended at action {idx} before it was settled"


@SETTINGS
@given(
    rules=rules_strategy(
        min_bid=st.integers(6, 16),  # low bids: targets within reach of random play
        early_end=st.just(True),
        pair=st.sampled_from(PAIRS),
        under_half=st.booleans(),
    ),
    seed=seeds,
    ch=choosers,
)
def test_early_end_stops_exactly_when_result_and_stake_are_settled(
    rules: Rules, seed: int, ch: Chooser
) -> None:
    match = play(rules, seed, ch)
    rec = json.loads(record.dumps(match))
    for d, drec in zip(match.deals, rec["deals"], strict=True):
        if d.is_over():
            check_early_end(rules, drec, d.verdict())


# ------------------------------------------------------------ match end
@SETTINGS
@given(
    rules=rules_strategy(match_target=st.one_of(st.none(), st.integers(1, 4))),
    seed=seeds,
    ch=choosers,
)
def test_match_ends_exactly_when_a_team_reaches_plus_or_minus_target(
    rules: Rules, seed: int, ch: Chooser
) -> None:
    match = play(rules, seed, ch, max_deals=60)
    target = rules.match_target
    score = [0, 0]
    expected_winner = None
    for i, d in enumerate(match.deals):
        if i > 0:  # the deal passes on, cancelled deals included
            assert d.dealer == nxt(rules, match.deals[i - 1].dealer)
        assert expected_winner is None, f"deal {i} was started after the match was decided"
        if not d.is_over():
            assert i == len(match.deals) - 1
            break
        score[0] += d.delta[0]
        score[1] += d.delta[1]
        if target is not None:
            for team in (0, 1):
                if score[team] >= target:
                    expected_winner = team
                elif score[team] <= -target:
                    expected_winner = 1 - team
    assert match.score == score
    assert match.winner == expected_winner
    if expected_winner is not None:
        assert match.is_over()
        assert match.legal_actions() == []
        assert match.to_act == -1
        with pytest.raises(IllegalAction):
            match.apply(Action.pass_(0))
        assert match.needs_deal is False
    elif target is not None:
        assert not match.is_over()
    verdict = record.replay_text(record.dumps(match)).data
    assert verdict["winner"] == expected_winner
    assert verdict["score"] == score
