"""The hint and the bidding advisor as a service: ``hint_for`` and ``advice_for``.

The hint is the best of ``value_choices``' legal choices, so what is checked
here is what it adds: that it depends on the seat's observation alone (two
deals that differ only in cards the seat cannot see get the same hint), that
every kind of decision gets one (bid, trump, the seventh card, card, reveal
request, double, pair, single hand), that its one line names the choice and
the reason in the promised shape, and that the advisor answers only on the
seat's turn to bid.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import pytest

from twentynine.bots import make_bot
from twentynine.game.actions import PLAY, Action
from twentynine.game.dealing import deal_hands, derive_seed
from twentynine.game.engine import OVER, Deal
from twentynine.game.observation import observe_deal
from twentynine.game.rules import resolve
from twentynine.services.analysis import HintError, advice_for, hint_for, hint_line
from twentynine.services.analysis.hint import BEATS, MAKES, MODEL, advice_lines
from twentynine.solver import Solver


@pytest.fixture(scope="module")
def solver() -> Solver:
    return Solver()


def played(profile: str, seed: int, level: str = "random", **options: Any) -> Deal:
    rules = resolve(profile, options)
    dealer = seed % 4
    deal = Deal(rules, dealer, deal_hands(derive_seed(seed, 0), dealer, rules.clockwise))
    bots = [make_bot(level, seed=seed * 4 + s) for s in range(4)]
    while deal.phase != OVER:
        deal.apply(bots[deal.to_act].act(observe_deal(deal, deal.to_act)))
    return deal


def states(deal: Deal) -> Iterator[tuple[Deal, Action]]:
    """The deal before each action with a choice, with the action taken."""
    replay = Deal(deal.rules, deal.dealer, deal.hands)
    for action in deal.log:
        if len(replay.legal_actions()) > 1:
            yield replay.clone(), action
        replay.apply(action)


def label(action: Action) -> dict[str, Any]:
    return {k: v for k, v in action.to_json().items() if k != "seat"}


def swapped_unseen(deal: Deal, state: Deal, seat: int) -> Deal | None:
    """The deal with two same-suit cards ``seat`` cannot see swapped between two other
    hands (same batch), so nothing the seat saw tells the two deals apart."""
    seen = {c for t in state.tricks for c in t[1]} | set(state.trick_cards)
    others = [s for s in range(4) if s != seat]
    for a in others:
        for b in others:
            if a >= b:
                continue
            for i, x in enumerate(deal.hands[a]):
                for j, y in enumerate(deal.hands[b]):
                    if x >> 3 == y >> 3 and x != y and (i < 4) == (j < 4) and not {x, y} & seen:
                        hands = [list(h) for h in deal.hands]
                        hands[a][i], hands[b][j] = y, x
                        return Deal(deal.rules, deal.dealer, hands)
    return None


def test_the_hint_does_not_change_when_unseen_cards_are_swapped(solver: Solver) -> None:
    compared = 0
    for seed in range(8):
        deal = played("pagat", 40 + seed, "casual")
        for state, action in states(deal):
            if state.phase != "play" or len(state.tricks) < 1:
                continue
            other = swapped_unseen(deal, state, action.seat)
            if other is None:
                continue
            for a in state.log:
                other.apply(a)
            assert state.held != other.held  # the hidden cards really differ
            mine = observe_deal(state, action.seat)
            theirs = observe_deal(other, action.seat)
            a_hint = hint_for(mine, worlds=6, solver=solver)
            b_hint = hint_for(theirs, worlds=6, solver=solver)
            assert a_hint == b_hint and hint_line(a_hint) == hint_line(b_hint)
            compared += 1
            break
        if compared == 3:
            break
    assert compared == 3


# Deals whose decisions, together, take in every kind of decision.
KIND_DEALS = [
    ("pagat", {}, {"bid", "pass", "trump", "play"}),
    ("pagat", {"reveal": "ask"}, {"reveal"}),
    ("pagat", {"seventh_card": True}, {"seventh"}),
    ("modern", {"doubling": True, "double_by": "either"}, {"double"}),
    ("pagat", {"single_hand": 3}, {"single"}),
    ("pagat", {}, {"pair"}),
]


@pytest.mark.parametrize(("profile", "options", "kinds"), KIND_DEALS)
def test_every_kind_of_decision_gets_a_hint_of_a_legal_choice(
    profile: str, options: dict[str, Any], kinds: set[str], solver: Solver
) -> None:
    rng = random.Random(3)
    wanted = set(kinds)
    for seed in range(200):
        if not wanted:
            break
        deal = played(profile, seed, "random", **options)
        for state, _ in states(deal):
            obs = observe_deal(state, state.to_act)
            here = {a.kind for a in obs.legal} & wanted
            if not here:
                continue
            hint = hint_for(obs, worlds=4, seed=rng.randrange(100), solver=solver)
            assert hint.seat == obs.seat and hint.phase == obs.phase
            assert hint.best.action in obs.legal
            assert all(c.action in obs.legal and c.action != hint.best.action for c in hint.others)
            assert hint_line(hint).startswith(label_of(hint.best.to_json()))
            wanted -= here
    assert not wanted, f"no deal had a decision of kind {sorted(wanted)}"


def label_of(choice: dict[str, Any]) -> str:
    from twentynine.services.analysis.table import label_text

    return label_text(choice)


def test_a_card_hint_reads_as_the_share_of_deals_it_makes_or_beats_in(solver: Solver) -> None:
    shapes = {
        MAKES: re.compile(r"^.+: makes in \d+% of the deals you cannot rule out(; .+ \d+%)*$"),
        BEATS: re.compile(r"^.+: the contract fails in \d+% of the deals you cannot rule out"),
    }
    seen = set()
    for seed in range(6):
        for state, action in states(played("pagat", seed, "casual")):
            if action.kind != PLAY or len(state.tricks) < 3:
                continue
            hint = hint_for(observe_deal(state, action.seat), worlds=6, solver=solver)
            if hint.reason in shapes:
                assert shapes[hint.reason].match(hint_line(hint)), hint_line(hint)
                p = hint.best.p_make
                assert (
                    p is not None
                    and f"{round(100 * (p if hint.reason == MAKES else 1 - p))}%" in hint_line(hint)
                )
                seen.add(hint.reason)
    assert seen == {MAKES, BEATS}


def test_an_auction_hint_comes_from_the_bidding_model() -> None:
    deal = played("pagat", 2)
    state, _ = next(states(deal))
    hint = hint_for(observe_deal(state, state.to_act))
    assert hint.source == "model" and hint.worlds == 0
    if hint.reason == MODEL:
        assert "your four cards make it in" in hint_line(hint)


def test_the_advisor_is_for_the_seat_whose_turn_it_is_to_bid() -> None:
    deal = played("pagat", 4)
    state, _ = next(states(deal))
    seat = state.to_act
    advice = advice_for(observe_deal(state, seat))
    assert advice["seat"] == seat and len(advice["suits"]) == 4
    assert advice["best_trump"] in "SHDC"
    lines = advice_lines(advice)
    assert len(lines) == 6 and lines[0].split()[:2] == ["trump", "expect"]
    with pytest.raises(HintError, match="turn it is to bid"):
        advice_for(observe_deal(state, (seat + 1) % 4))
    later = next(s for s, a in states(deal) if s.phase == "play")
    with pytest.raises(HintError):
        advice_for(observe_deal(later, later.to_act))


def test_a_seat_without_a_decision_gets_no_hint() -> None:
    deal = played("pagat", 4)
    state, _ = next(states(deal))
    with pytest.raises(HintError, match="no decision"):
        hint_for(observe_deal(state, (state.to_act + 1) % 4))
    with pytest.raises(HintError):
        hint_for(observe_deal(deal, 0))  # the deal is over


def test_hint_benchmark_runs_on_a_tiny_input(capsys: pytest.CaptureFixture[str]) -> None:
    from twentynine.cli.main import main

    status = main(["bench", "hint", "--deals", "1", "--worlds", "4", "--profile", "pagat"])
    out = capsys.readouterr().out
    assert status == 0
    assert "card decisions" in out and "every card (cpu)" in out
    assert "first trick (wall)" in out  # the first trick is part of what is timed
