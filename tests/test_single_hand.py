"""The expert's single hand by simulation (``bots/single.py``): offered by solving
sampled worlds, and played card by card the same way."""

from __future__ import annotations

import random

from helpers import swap_hidden_cards
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from twentynine.bots import make_bot
from twentynine.bots.expert import ExpertBot
from twentynine.bots.single import offer_values, single_order
from twentynine.bots.solving import use_solver
from twentynine.game.actions import PASS, SINGLE, Action
from twentynine.game.cards import parse_cards
from twentynine.game.engine import OVER, SINGLE_MADE, Deal
from twentynine.game.observation import observe_deal
from twentynine.game.rules import resolve
from twentynine.solver import Solver
from twentynine.solver.single import SinglePosition, SingleSolver, after, sweeps_by_guards

RULES = resolve("pagat", {"single_hand": 3})
# Seven hearts without the ace, and the jack of spades: a heart led takes the ace
# wherever it is (it is the only other heart), so the hand sweeps in every world; the
# rule of the other levels (an unbroken run from the top of every suit) does not see it.
SWEEPS = "JH 9H TH KH QH 8H 7H JS"
HOPELESS = "7S 8S 7H 8H 7D 8D 7C 8C"


def deal_with(cards: str, seat: int, seed: int = 1) -> Deal:
    """A pagat deal (North first to speak) where ``seat`` holds ``cards``, brought to
    that seat's single-hand offer: North bids 16, names spades, the others pass."""
    mine = parse_cards(cards)
    rest = [c for c in range(32) if c not in mine]
    random.Random(seed).shuffle(rest)
    hands: list[list[int]] = []
    for s in range(4):
        if s == seat:
            hands.append(mine[:4] + mine[4:])
        else:
            hands.append(rest[:8])
            rest = rest[8:]
    deal = Deal(RULES, 3, hands)
    deal.apply(Action.bid(0, 16))
    for s in (1, 2, 3):
        deal.apply(Action.pass_(s))
    deal.apply(Action.trump(0, 0))
    while deal.phase == "single" and deal.to_act != seat:
        deal.apply(Action.pass_(deal.to_act))
    assert deal.phase == "single" and deal.to_act == seat
    return deal


def expert(spec: str = "expert", seed: int = 3) -> ExpertBot:
    bot = make_bot(spec, seed=seed)
    assert isinstance(bot, ExpertBot)
    bot.wall_guard = None
    return bot


def test_a_hand_that_sweeps_in_every_world_is_declared_though_the_rule_misses_it() -> None:
    for seat in (1, 2):  # a defender, and the bidder's partner
        obs = observe_deal(deal_with(SWEEPS, seat), seat)
        assert expert().act(obs).kind == SINGLE
        assert expert("expert[simulate_single=0]").act(obs).kind == PASS


def test_a_hopeless_hand_passes_and_the_values_say_why() -> None:
    obs = observe_deal(deal_with(HOPELESS, 1), 1)
    assert expert().act(obs).kind == PASS
    bot = expert()
    worlds = bot.single_worlds(obs, random.Random(1))
    assert len(worlds) == 32
    declaring, passing = offer_values(obs, worlds)
    assert declaring == -3.0  # no world sweeps: the stake lost for sure
    assert -1.0 <= passing <= 1.0


def test_the_declared_single_hand_is_played_to_its_sweep() -> None:
    """The expert as declarer, experts as opponents: every card keeps the sweep."""
    deal = deal_with(SWEEPS, 1, seed=4)
    bots = {s: expert(seed=10 + s) for s in range(4)}
    while deal.phase != OVER:
        seat = deal.to_act
        deal.apply(bots[seat].act(observe_deal(deal, seat)))
    assert deal.single == 1 and deal.result == SINGLE_MADE
    assert deal.delta[1] == 3


def test_opponents_play_to_stop_a_sweep_they_can_stop() -> None:
    """Declarer West holds every heart but the ace and two low spades; the spades are
    lost to any spade above them at the table, and an opponent keeps one if it can."""
    hand = "JH 9H TH KH QH 8H 7H 7S"
    deal = deal_with(hand, 1, seed=5)
    deal.apply(next(a for a in deal.legal_actions() if a.kind == SINGLE))
    order = single_order(RULES, 1)
    opponents = order[1:]
    spades_above = parse_cards("JS 9S AS TS KS QS 8S")
    assert any(c in deal.hands[s] for s in opponents for c in spades_above)
    bots = {s: expert(seed=20 + s) for s in range(4)}
    while deal.phase != OVER:
        seat = deal.to_act
        deal.apply(bots[seat].act(observe_deal(deal, seat)))
    assert deal.result != SINGLE_MADE  # they kept a spade to beat the seven


def test_without_the_compiled_solver_the_single_hand_is_the_rule_of_the_other_levels() -> None:
    obs = observe_deal(deal_with(SWEEPS, 1), 1)
    old = use_solver(Solver("pure"))
    try:
        assert expert().act(obs).kind == PASS
    finally:
        use_solver(old)


def test_the_seats_of_a_single_hand_in_playing_order() -> None:
    assert single_order(RULES, 1) == (1, 2, 0)  # pagat plays clockwise: West, North, South
    anti = resolve("bhoos", {"single_hand": 3})
    assert single_order(anti, 1) == (1, 0, 2)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False), st.integers(2, 8), st.integers(0, 2))
def test_the_guard_test_sweeps_only_what_the_search_sweeps(
    rng: random.Random, cards: int, on_table: int
) -> None:
    """``sweeps_by_guards`` is sound: whatever it sweeps, the exact search sweeps too
    (hands of ``cards`` cards each, with ``on_table`` cards of a trick played)."""
    deck = list(range(32))
    rng.shuffle(deck)
    hands = tuple(sum(1 << c for c in deck[i * cards : (i + 1) * cards]) for i in range(3))
    pos: SinglePosition | None = SinglePosition(hands, (), 8 - cards)  # type: ignore[arg-type]
    for _ in range(on_table if cards > 1 else 0):
        assert pos is not None
        legal = pos.legal_cards()
        pos = after(pos, legal[rng.randrange(len(legal))])
        if pos is None or not pos.trick:
            return
    assert pos is not None
    if sweeps_by_guards(pos):
        assert SingleSolver().sweeps(pos)


def test_the_guard_test_agrees_with_the_search_on_most_random_hands() -> None:
    """It misses only squeezes: over random declarer-strong hands the two agree."""
    rng = random.Random(8)
    agree = swept = 0
    for _ in range(150):
        suit = rng.randrange(4)
        deck = list(range(32))
        rng.shuffle(deck)
        # a long suit from the top for the declarer makes sweeps common
        top = [suit * 8 + r for r in range(7, 7 - rng.randrange(5, 8), -1)]
        rest = [c for c in deck if c not in top]
        mine = top + rest[: 8 - len(top)]
        others = rest[8 - len(top) :]
        hands = (
            sum(1 << c for c in mine),
            sum(1 << c for c in others[:8]),
            sum(1 << c for c in others[8:16]),
        )
        pos = SinglePosition(hands)
        exact = SingleSolver().sweeps(pos)
        quick = sweeps_by_guards(pos)
        assert not quick or exact
        agree += quick == exact
        swept += exact
    assert swept >= 10 and agree >= 0.95 * 150, (swept, agree)


def _twin(deal: Deal, seat: int, rng: random.Random) -> Deal | None:
    """A deal ``seat`` cannot tell from ``deal``: hidden cards exchanged."""
    hands = swap_hidden_cards(deal, seat, rng)
    if hands is None:
        return None
    twin = Deal(deal.rules, deal.dealer, hands)
    for action in deal.log:
        twin.apply(action)
    return twin


def test_the_single_hand_decisions_see_only_the_observation() -> None:
    """The offer and the cards of a single hand come out the same in two deals the
    seat cannot tell apart."""
    rng = random.Random(6)
    checked = 0
    for seed, hand in ((1, SWEEPS), (2, HOPELESS), (3, SWEEPS), (4, "JH 9H TH KH QH 8H 7H 7S")):
        deal = deal_with(hand, 1, seed)
        stops = [0, 2, 5, 9]
        played = 0
        while deal.phase != OVER and stops:
            seat = deal.to_act
            if played == stops[0]:
                stops.pop(0)
                twin = _twin(deal, seat, rng)
                if twin is not None:
                    obs, twin_obs = observe_deal(deal, seat), observe_deal(twin, seat)
                    assert obs == twin_obs and twin.held != deal.held
                    assert expert(seed=7).act(obs) == expert(seed=7).act(twin_obs)
                    checked += 1
            action = expert(seed=seat).act(observe_deal(deal, seat))
            if deal.phase == "single" and seat == 1 and action.kind != SINGLE:
                action = next(a for a in deal.legal_actions() if a.kind == SINGLE)
            deal.apply(action)
            played += 1
    assert checked >= 8
