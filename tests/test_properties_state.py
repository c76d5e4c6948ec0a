"""Property tests of what the engine shows and keeps, over random games (RULES.md).

Each seat's observation shows only its own hand and the trump it may know;
events show the second batch and the trump only to their owner; the record
replays to the same verdict and the same game; an illegal action raises and
changes nothing; a clone is independent of the original. Each test plays
seeded matches with random legal actions.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rule_strategies import SETTINGS, Chooser, choose, choosers, play, rules_strategy, seeds, steps

from twentynine.game import record
from twentynine.game.actions import Action
from twentynine.game.cards import card_text
from twentynine.game.engine import Deal, IllegalAction
from twentynine.game.match import Match
from twentynine.game.observation import event_view, observe
from twentynine.game.rules import Rules

CARD_RE = re.compile(r"^[J9ATKQ87][SHDC]$")
# for the tests that look at every step from five seats
HEAVY = settings(SETTINGS, max_examples=40)


def all_deals(match: Match) -> list[dict[str, Any]]:
    return [d.verdict() for d in match.deals]


# ------------------------------------------------------------ observations
def played_cards(deal: Deal) -> list[tuple[int, str]]:
    return [
        (a.seat, card_text(a.value)) for a in deal.log if a.kind == "play" and a.value is not None
    ]


def cards_in(obj: Any) -> set[str]:
    """Every string in a JSON value that is a card."""
    out: set[str] = set()
    if isinstance(obj, str):
        if CARD_RE.match(obj):
            out.add(obj)
    elif isinstance(obj, dict):
        for k, x in obj.items():
            out |= cards_in(k) | cards_in(x)
    elif isinstance(obj, list | tuple):
        for x in obj:
            out |= cards_in(x)
    return out


def check_observations(match: Match) -> None:
    deal = match.deal
    over = deal.is_over()
    plays = played_cards(deal)
    played = {c for _, c in plays}
    revealed = deal.revealed_in_trick > 0
    bidder = deal.bidder if deal.bidder >= 0 else None
    trump = "SHDC"[deal.trump] if deal.trump >= 0 else None
    for seat in (None, 0, 1, 2, 3):
        obs = observe(match, seat)
        js = obs.to_json()
        json.dumps(js)
        # the cards on the table are played cards, and all of them
        table = [card_text(c) for t in obs.tricks for c in t[1]] + [
            card_text(c) for _, c in obs.trick
        ]
        assert sorted(table) == sorted(played)
        if seat is None:
            assert obs.hand == ()
            assert obs.legal == ()
            own: set[str] = set()
        else:
            dealt = deal.hands[seat] if deal.second_batch else deal.hands[seat][:4]
            own = {card_text(c) for c in dealt} - {c for s, c in plays if s == seat}
            assert {card_text(c) for c in obs.hand} == own
            assert len(obs.hand) == len(own)
        if not over:
            assert obs.hands is None
            # nothing in the view names a card of another hand
            assert cards_in(js) <= own | played, cards_in(js) - own - played
        # the trump suit
        may_know = (
            revealed
            or over
            or (seat is not None and seat == bidder and (not deal.seventh or deal.second_batch))
        )
        if obs.trump is not None:
            assert may_know, f"seat {seat} sees the hidden trump"
            assert "SHDC"[obs.trump] == trump
        elif trump is not None:
            assert not may_know, f"seat {seat} should know the trump"
        if trump is not None and not may_know:
            assert js["trump"] is None
        # whose turn: a pair decision is private
        if deal.phase == "pair":
            if seat == deal.to_act:
                assert obs.to_act == seat and obs.phase == "pair"
                assert set(obs.legal) == set(deal.legal_actions())
            else:
                assert obs.to_act is None and obs.phase != "pair"
                assert obs.legal == ()
        elif not over:
            assert obs.to_act == deal.to_act
            if seat == deal.to_act:
                assert list(obs.legal) == deal.legal_actions()
            else:
                assert obs.legal == ()


@HEAVY
@given(rules=rules_strategy(), seed=seeds, ch=choosers)
def test_observation_shows_only_own_hand_and_known_trump(
    rules: Rules, seed: int, ch: Chooser
) -> None:
    for match, action in steps(rules, seed, ch, max_deals=4):
        check_observations(match)
        match.apply(action)
        if match.deals[-1].is_over():
            check_observations(match)


# ------------------------------------------------------------ event views
def check_events(deal: Deal, events: list[dict[str, Any]], before_played: set[str]) -> None:
    bidder = deal.bidder if deal.bidder >= 0 else None
    revealed = deal.revealed_in_trick > 0
    played_now = before_played | {
        card_text(e["card"]) for e in events if e.get("type") == "play" and "card" in e
    }
    for ev in events:
        for seat in (None, 0, 1, 2, 3):
            view = event_view(ev, seat)
            if view is None:
                continue
            json.dumps(view)
            assert not any(k.startswith("_") for k in view)
            if seat is None:
                own: set[str] = set()
            else:
                own = {card_text(c) for c in deal.hands[seat]}
            assert cards_in(view) <= own | played_now, (ev["type"], seat, view)
            if ev["type"] == "second_batch":
                if seat is None:
                    assert "cards" not in view
                else:
                    assert view["cards"] == [card_text(c) for c in deal.hands[seat][4:]]
            if ev["type"] == "trump_chosen":
                if seat == bidder and not deal.seventh:
                    assert view["trump"] == "SHDC"[deal.trump]
                else:
                    assert "trump" not in view, f"seat {seat} sees the chosen trump"
            if ev["type"] == "second_batch" and deal.seventh:
                if seat == bidder:
                    assert view["trump"] == "SHDC"[deal.trump]
                else:
                    assert "trump" not in view
            if "trump" in view and ev["type"] not in ("reveal", "pair"):
                assert seat == bidder or revealed, (ev, seat)
            if ev["type"] == "pass" and ev.get("stage") == "pair":
                assert seat == ev["seat"], "a declined pair is shown to another seat"
        if ev["type"] == "pass" and ev.get("stage") == "pair":
            assert event_view(ev, None) is None


@SETTINGS
@given(rules=rules_strategy(), seed=seeds, ch=choosers)
def test_event_view_shows_second_batch_and_trump_only_to_their_owner(
    rules: Rules, seed: int, ch: Chooser
) -> None:
    for match, action in steps(rules, seed, ch, max_deals=6):
        deal = match.deal
        before = {c for _, c in played_cards(deal)}
        events = match.apply(action)
        check_events(deal, events, before)


# ------------------------------------------------------------ replay
@SETTINGS
@given(rules=rules_strategy(), seed=seeds, ch=choosers, stop=st.integers(0, 700))
def test_replaying_the_record_reproduces_the_verdict(
    rules: Rules, seed: int, ch: Chooser, stop: int
) -> None:
    match = play(rules, seed, ch, max_actions=stop)
    text = record.dumps(match)
    verdict = record.replay_text(text)
    expected = {
        "ok": True,
        "deals": all_deals(match),
        "score": match.score,
        "winner": match.winner,
        "complete": all(d.is_over() for d in match.deals),
    }
    assert verdict.exit_status == 0
    assert verdict.data == expected
    assert json.loads(json.dumps(verdict.data)) == verdict.data
    # the replayed match is the same game: it continues the same way
    again = record.loads(text)
    assert again.legal_actions() == match.legal_actions()
    assert again.to_act == match.to_act
    assert again.score == match.score
    assert again.winner == match.winner


# ------------------------------------------------------------ illegal actions
def candidate_actions() -> list[Action]:
    """Every action shape, most of them illegal at any given moment."""
    out: list[Action] = []
    for s in range(4):
        out.extend(Action.bid(s, b) for b in (-1, 0, 1, 9, 14, 15, 16, 20, 28, 29, 30, 35))
        out.extend(Action.play(s, c) for c in range(32))
        out.extend(Action.trump(s, t) for t in range(4))
        out.extend(Action.flag(s, k) for k in ("pass", "seventh", "single", "double"))
        out.extend(Action.flag(s, k) for k in ("redouble", "set", "pair", "reveal"))
        out.append(Action(s, "play", 32))
        out.append(Action(s, "play", None))
        out.append(Action(s, "nonsense"))
    return out


def off_suit_plays(deal: Deal) -> list[Action]:
    """Cards the seat to act holds but may not play because it must follow suit."""
    if deal.phase != "play" or not deal.trick_cards:
        return []
    seat = deal.to_act
    led = deal.trick_cards[0] >> 3
    held = [c for c in range(32) if deal.held[seat] >> c & 1]
    if not any(c >> 3 == led for c in held):
        return []
    return [Action.play(seat, c) for c in held if c >> 3 != led]


def fingerprint(match: Match) -> Any:
    deal = match.deal
    return (
        record.dumps(match),
        json.dumps(record.verdict_of(match)),
        tuple(match.legal_actions()),
        match.to_act,
        tuple(match.score),
        match.winner,
        len(match.deals),
        {name: repr(getattr(deal, name)) for name in Deal.__slots__},
    )


@SETTINGS
@given(rules=rules_strategy(), seed=seeds, ch=choosers, probe=choosers)
def test_illegal_action_raises_and_changes_nothing(
    rules: Rules, seed: int, ch: Chooser, probe: Chooser
) -> None:
    tried = 0
    for match, action in steps(rules, seed, ch, max_deals=3):
        if probe.random() < 0.15:
            legal = set(match.legal_actions())
            deal = match.deal
            off_suit = off_suit_plays(deal)
            pool = [a for a in candidate_actions() if a not in legal]
            bad = probe.pick(off_suit) if off_suit and probe.random() < 0.3 else probe.pick(pool)
            assert bad not in legal
            before = fingerprint(match)
            with pytest.raises(IllegalAction) as err:
                match.apply(bad)
            assert str(err.value)
            if deal.phase == "pair" and bad.seat != deal.to_act:
                # the refusal must not name the seat that holds the pair
                assert f"seat {deal.to_act}" not in str(err.value)
            assert fingerprint(match) == before, f"{bad} changed the state"
            tried += 1
        match.apply(action)
    # after the end of a match (or of a single deal) nothing is legal
    if match.winner is not None or match.deal.is_over():
        before = fingerprint(match)
        with pytest.raises(IllegalAction):
            match.apply(Action.pass_(0))
        assert fingerprint(match) == before


# ------------------------------------------------------------ clone
@SETTINGS
@given(rules=rules_strategy(), seed=seeds, ch=choosers, probe=choosers)
def test_clone_is_independent_of_the_original(
    rules: Rules, seed: int, ch: Chooser, probe: Chooser
) -> None:
    for match, action in steps(rules, seed, ch, max_deals=3):
        if probe.random() < 0.1:
            before = fingerprint(match)
            twin = match.clone()
            assert fingerprint(twin) == before
            deal_twin = match.deal.clone()
            for _ in range(probe.below(60) + 1):
                if twin.winner is not None or twin.needs_deal:
                    break
                twin.apply(choose(twin.legal_actions(), probe))
            for _ in range(probe.below(60) + 1):
                if deal_twin.is_over():
                    break
                deal_twin.apply(choose(deal_twin.legal_actions(), probe))
            assert fingerprint(match) == before, "acting on a clone changed the original"
            # the same action on the original and a fresh clone gives the same state
            other = match.clone()
            events = match.apply(action)
            assert other.apply(action) == events
            assert fingerprint(other) == fingerprint(match)
            continue
        match.apply(action)
