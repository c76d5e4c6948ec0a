"""The model of the cards others play (``bots/play_model.py``), its fit from kept
games (``play_model_build``) and the expert's reading of the play with it."""

from __future__ import annotations

import json
import math
import random
import shutil
from pathlib import Path

import pytest

from twentynine.bots import make_bot
from twentynine.bots.play_model import (
    FEATURES,
    PlayModel,
    default_play_model,
    history,
    legal_cards,
    play_likelihood,
)
from twentynine.bots.play_model_build import BuildError, build, choices_of, played_deal
from twentynine.bots.sampling import World
from twentynine.cli.main import main
from twentynine.game.actions import PLAY
from twentynine.game.dealing import deal_hands
from twentynine.game.engine import OVER, Deal
from twentynine.game.observation import observe_deal
from twentynine.game.rules import PROFILES

SOME_MODEL = PlayModel(tuple(0.3 * ((i % 5) - 2) for i in range(len(FEATURES))))


def played(profile: str, seed: int, levels=("casual",) * 4) -> Deal:
    rules = PROFILES[profile]
    deal = Deal(rules, seed % 4, deal_hands(seed, seed % 4, rules.clockwise))
    bots = [make_bot(level, seed=seed + s) for s, level in enumerate(levels)]
    while deal.phase != OVER:
        deal.apply(bots[deal.to_act].act(observe_deal(deal, deal.to_act)))
    return deal


def contract_games(profile: str, count: int) -> list[Deal]:
    out = []
    for seed in range(200):
        deal = played(profile, seed)
        if deal.bidder >= 0 and deal.single < 0 and len(deal.tricks) == 8:
            out.append(deal)
        if len(out) == count:
            return out
    raise AssertionError("too few contracts played out")


@pytest.mark.parametrize("profile", ["pagat", "bhoos"])
def test_the_history_is_every_card_played_as_its_player_saw_the_table(profile):
    for deal in contract_games(profile, 4):
        points = history(observe_deal(deal, None))
        assert len(points) == 32
        before = 0
        for i, point in enumerate(points):
            assert point.played == before
            assert len(point.table) == i % 4
            assert point.bidder == (point.seat == deal.bidder)
            trick = i // 4
            revealed = deal.revealed_in_trick
            if revealed == 0 or trick + 1 < revealed:
                assert not point.active
            elif trick + 1 > revealed:
                assert point.active
            before |= 1 << point.card
        # the revealer's own card comes after the reveal, the ones before it in that trick not
        if deal.revealed_in_trick:
            trick = points[4 * (deal.revealed_in_trick - 1) : 4 * deal.revealed_in_trick]
            at = [p.seat for p in trick].index(deal.revealer)
            assert [p.active for p in trick] == [k >= at for k in range(4)]


def test_the_chances_of_the_legal_cards_add_up_to_one_and_an_illegal_card_has_none():
    deal = contract_games("pagat", 1)[0]
    points = history(observe_deal(deal, None))
    hands = [sum(1 << c for c in h) for h in deal.hands]
    before = [0, 0, 0, 0]
    for point in points:
        hand = hands[point.seat] & ~before[point.seat]
        before[point.seat] |= 1 << point.card
        legal = legal_cards(hand, point.table)
        total = 0.0
        for c in range(32):
            if legal >> c & 1:
                other = type(point)(**{**point.__dict__, "card": c})
                total += math.exp(SOME_MODEL.log_chance(other, hand, deal.trump))
        assert total == pytest.approx(1.0)
        if legal != hand:  # it had to follow suit: a card of another suit was not a play
            off = next(c for c in range(32) if (hand & ~legal) >> c & 1)
            other = type(point)(**{**point.__dict__, "card": off})
            assert SOME_MODEL.log_chance(other, hand, deal.trump) == -math.inf


def test_a_world_is_weighed_by_the_chances_the_build_fits_and_by_no_card_of_the_seat():
    """The likelihood of the true world is the product of the chances of the very
    choices the build fits to: inference and fit describe a card alike."""
    for deal in contract_games("pagat", 3):
        obs = observe_deal(deal, None)
        points = history(obs)
        rows = choices_of(deal)
        beta = SOME_MODEL.coefficients
        by_choice = []
        for features, y in rows:
            scores = [sum(b * x for b, x in zip(beta, r, strict=True)) for r in features]
            top = max(scores)
            by_choice.append(scores[y] - top - math.log(sum(math.exp(s - top) for s in scores)))
        empty = (0, 0, 0, 0)  # every card is played: the hands are empty now
        nobody = play_likelihood(SOME_MODEL, points, empty, deal.trump, seat=-1)
        assert math.log(nobody) == pytest.approx(sum(by_choice))
        for seat in range(4):
            without = play_likelihood(SOME_MODEL, points, empty, deal.trump, seat)
            assert without >= nobody  # one seat's cards fewer to explain
        assert play_likelihood(SOME_MODEL, points, empty, deal.trump, -1, trust=0) == 1.0
        half = play_likelihood(SOME_MODEL, points, empty, deal.trump, -1, trust=0.5)
        assert half == pytest.approx(math.sqrt(nobody))


def discard_positions():
    """(deal, trick, seat who did not follow there, the suit led) over some games."""
    for deal in contract_games("pagat", 12):
        for t, (_leader, cards, seats, _w, _p) in enumerate(deal.tricks):
            for seat, card in list(zip(seats, cards, strict=True))[1:]:
                if card >> 3 != cards[0] >> 3:
                    yield deal, t, seat, cards[0] >> 3


def test_a_world_that_cannot_explain_a_card_weighs_nothing():
    """A world where a seat that did not follow suit still holds that suit is ruled out."""
    checked = 0
    for deal, t, seat, led in discard_positions():
        r = Deal(deal.rules, deal.dealer, deal.hands)
        for action in deal.log:
            if len(r.tricks) == t + 1:
                break
            r.apply(action)
        observer = next(s for s in range(4) if s != seat)
        hands = list(r.held)
        others = [s for s in range(4) if s not in (seat, observer)]
        found = [(o, c) for o in others for c in range(led * 8, led * 8 + 8) if hands[o] >> c & 1]
        if not found or not hands[seat]:
            continue
        other, swap = found[0]
        give = hands[seat] & -hands[seat]
        hands[seat] = hands[seat] & ~give | 1 << swap
        hands[other] = hands[other] & ~(1 << swap) | give
        points = history(observe_deal(r, observer))
        assert play_likelihood(SOME_MODEL, points, tuple(hands), deal.trump, observer) == 0.0
        assert play_likelihood(SOME_MODEL, points, tuple(r.held), deal.trump, observer) > 0.0
        checked += 1
    assert checked >= 5


def test_the_shipped_model_is_read_and_gives_a_choice_its_chance():
    model = default_play_model()
    assert model is not None and len(model.coefficients) == len(FEATURES)
    data = json.loads((Path(__file__).parent.parent / "twentynine/data/play.json").read_text())
    assert data["held_out"]["log_likelihood"] > data["held_out"]["uniform"]


def test_the_expert_reading_the_play_weighs_worlds_by_it_and_only_when_asked():
    deal = contract_games("pagat", 1)[0]
    r = Deal(deal.rules, deal.dealer, deal.hands)
    for action in deal.log:
        if len(r.tricks) == 3 and r.to_act is not None and action.kind == PLAY:
            break
        r.apply(action)
    obs = observe_deal(r, r.to_act)
    plain = make_bot("expert", seed=1)
    reading = make_bot("expert[read_plays=1]", seed=1)
    know = plain.knowledge(obs, random.Random(1))
    world = plain.sample(obs, know, random.Random(2))
    base = plain.weight(obs, know, world)
    factor = play_likelihood(default_play_model(), history(obs), world.hands, world.trump, obs.seat)
    assert 0 < factor < 1
    assert reading.weight(obs, know, world) == pytest.approx(base * factor)
    single = World(world.hands, None, world.first)  # a world of no trumps: nothing read
    assert reading.weight(obs, know, single) == plain.weight(obs, know, single)


def test_the_build_fits_a_kept_run_and_holds_games_out(arena_run, tmp_path):
    model = build([arena_run])
    assert model["features"] == list(FEATURES)
    assert model["games"] >= 6
    assert model["fitted"]["cards"] > 50 and model["held_out"]["cards"] > 0
    # fitted by maximum likelihood: better than the uniform choice on what it fitted
    assert model["fitted"]["log_likelihood"] > model["fitted"]["uniform"]
    out = tmp_path / "play.json"
    assert main(["play-model-build", "--run", str(arena_run), "--out", str(out)]) == 0
    assert json.loads(out.read_text())["coefficients"] == model["coefficients"]


def test_the_build_refuses_what_it_cannot_use(arena_run, tmp_path, capsys):
    assert main(["play-model-build", "--run", str(tmp_path), "--out", str(tmp_path / "x")]) == 2
    assert "holds no arena run" in capsys.readouterr().err
    assert main(["play-model-build", "--run", str(arena_run), "--games", "0"]) == 2
    assert "--games must be at least 1" in capsys.readouterr().err
    broken = tmp_path / "run"
    shutil.copytree(arena_run, broken)
    first = sorted((broken / "games").glob("*.json"))[0]
    first.write_text("{not json")
    with pytest.raises(BuildError, match=first.name):
        build([broken])
    assert not (tmp_path / "x").exists()
    with pytest.raises(BuildError, match="holds no arena run"):
        build([tmp_path / "nowhere"])
    with pytest.raises(BuildError, match="not a game record"):
        played_deal(first)
