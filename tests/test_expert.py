"""The expert's own parts: contract decisions by simulation, and play that keeps
card points once the outcome is settled; and its honesty when the hidden trump
itself differs."""

from __future__ import annotations

import random

import pytest

from twentynine.bots import make_bot
from twentynine.bots.bidding import calls_by_seat, default_model
from twentynine.bots.contract import ContractJudge, auction_world
from twentynine.bots.expert import MIN_AUCTION_WORLDS, ExpertBot
from twentynine.bots.knowledge import analyse
from twentynine.bots.solving import goal_of, position_of, solver
from twentynine.game.actions import BID, PASS, PLAY, TRUMP, Action
from twentynine.game.cards import FULL_DECK, mask_of, parse_cards
from twentynine.game.dealing import deal_hands
from twentynine.game.engine import OVER, Deal
from twentynine.game.observation import observe_deal
from twentynine.game.rules import PROFILES


def deterministic(level: str, seed: int, budget: float = 0.02):
    bot = make_bot(level, seed=seed, budget=budget)
    bot.wall_guard = None  # type: ignore[attr-defined]
    return bot


def contract_bot(level: str, seed: int):
    """A bot with the budget its bids and trump choices are solved in (all their
    worlds): ``deterministic``'s short budget is for play, and bids by the model."""
    return deterministic(level, seed, ExpertBot.default_budget)


def hands_with_first(first: list[str], rest_seed: int) -> list[list[int]]:
    """Hands where North's first batch is ``first`` and the rest is dealt at random."""
    mine = parse_cards(" ".join(first))
    others = [c for c in range(32) if c not in mine]
    random.Random(rest_seed).shuffle(others)
    hands = [mine + others[:4]]
    rest = others[4:]
    for seat in range(1, 4):
        hands.append(rest[(seat - 1) * 8 : seat * 8])
    return hands


def test_an_auction_world_deals_exactly_the_unseen_cards_and_keeps_the_seats_own():
    rules = PROFILES["pagat"]
    deal = Deal(rules, 3, deal_hands(4, 3))
    obs = observe_deal(deal, deal.to_act)
    mine = mask_of(obs.hand[:4])
    for seed in range(20):
        world = auction_world(obs, random.Random(seed))
        assert world.hands[0] | world.hands[1] | world.hands[2] | world.hands[3] == FULL_DECK
        assert sum(h.bit_count() for h in world.hands) == 32
        assert all(h.bit_count() == 8 for h in world.hands)
        assert world.hands[obs.seat] & mine == mine
        assert world.first[obs.seat] == mine
        for seat in range(4):
            assert world.first[seat] & world.hands[seat] == world.first[seat]
            assert world.first[seat].bit_count() == 4
        assert world.hands[obs.seat] >> world.seventh & 1
        assert not mine >> world.seventh & 1


def test_the_auction_weighs_worlds_by_the_calls_made():
    """After a bid of 20, worlds where that seat holds jacks weigh more."""
    rules = PROFILES["pagat"]
    deal = Deal(rules, 3, deal_hands(8, 3))  # North speaks first
    deal.apply(Action.bid(0, 20))
    obs = observe_deal(deal, 1)
    assert calls_by_seat(obs) == {0: (20, -1)}
    judge = ContractJudge(obs, default_model(), random.Random(1), 200)
    jacks = sum(1 << (s * 8 + 7) for s in range(4))
    heavy = [w for w, x in zip(judge.weights, judge.worlds, strict=True) if x.first[0] & jacks]
    light = [w for w, x in zip(judge.weights, judge.worlds, strict=True) if not x.first[0] & jacks]
    assert heavy and light
    assert sum(heavy) / len(heavy) > 2 * sum(light) / len(light)


@pytest.mark.parametrize("profile", ["pagat", "bhoos"])
def test_the_expert_bids_a_strong_first_batch_and_passes_a_weak_one(profile):
    """The bid solved as if the auction ended with it (``contract.simulated_bid``); in
    the duel auction the expert's default is the rollout (``tests/test_rollout.py``)."""
    rules = PROFILES[profile]
    dealer = 3 if rules.clockwise else 1  # North speaks first
    strong = Deal(rules, dealer, hands_with_first(["JS", "9S", "AS", "JH"], 1))
    weak = Deal(rules, dealer, hands_with_first(["7S", "8H", "7D", "8C"], 1))
    assert strong.to_act == weak.to_act == 0
    spec = "expert[duel_rollout=0]"
    bid = contract_bot(spec, 5).act(observe_deal(strong, 0))
    assert bid.kind == BID
    passed = contract_bot(spec, 5).act(observe_deal(weak, 0))
    assert passed.kind == PASS


def test_the_expert_names_the_suit_of_its_jack_and_nine():
    rules = PROFILES["pagat"]
    deal = Deal(rules, 3, hands_with_first(["JD", "9D", "7D", "AC"], 2))
    deal.apply(Action.bid(0, 16))
    for seat in (1, 2, 3):
        deal.apply(Action.pass_(seat))
    obs = observe_deal(deal, 0)
    assert {a.kind for a in obs.legal} == {TRUMP}
    assert contract_bot("expert", 3).act(obs) == Action.trump(0, 2)


def test_equal_outcomes_go_to_the_move_that_keeps_more_points():
    bot = ExpertBot(seed=0)
    rules = PROFILES["pagat"]
    deal = Deal(rules, 0, deal_hands(3, 0))
    obs = observe_deal(deal, deal.to_act)
    a, b = obs.legal[0], obs.legal[1]
    rng = random.Random(0)
    assert bot.choose(obs, {a: 3.0, b: 3.0}, rng, {a: -2.0, b: 5.0}) == b
    assert bot.choose(obs, {a: 3.0, b: 3.0}, rng, {a: 5.0, b: -2.0}) == a
    # The outcome comes first, however many points the other move keeps.
    assert bot.choose(obs, {a: 4.0, b: 3.0}, rng, {a: -20.0, b: 20.0}) == a


def _play_to(profile: str, seed: int, tricks: int) -> Deal:
    rules = PROFILES[profile]
    deal = Deal(rules, seed % 4, deal_hands(seed, seed % 4, rules.clockwise))
    driver = [make_bot("casual", seed=s) for s in range(4)]
    while deal.phase != OVER and not (deal.phase == "play" and len(deal.tricks) >= tricks):
        deal.apply(driver[deal.to_act].act(observe_deal(deal, deal.to_act)))
    return deal


def test_from_the_third_trick_each_world_is_also_valued_in_card_points():
    bot = ExpertBot(seed=0)
    checked = 0
    for seed in range(30):
        deal = _play_to("pagat", seed, 3)
        if deal.phase != "play":
            continue
        obs = observe_deal(deal, deal.to_act)
        if not any(a.kind == PLAY for a in obs.legal) or len(obs.legal) < 2:
            continue
        know = analyse(obs)
        world = bot.sample(obs, know, random.Random(seed))
        goal = goal_of(obs)
        sign = 1 if obs.seat & 1 == goal.team else -1
        plays = {a.value: a for a in obs.legal if a.kind == PLAY}
        outcome, points = bot.evaluate(obs, world, goal, plays, None, sign)
        exact = solver().moves_exact(position_of(obs, world), goal)
        for move, value in exact.items():
            if move.reveal:
                continue
            a = plays[move.card]
            assert outcome[a] == sign * int(value.outcome)
            assert points[a] == (0 if value.margin is None else sign * value.margin)
        checked += 1
    assert checked >= 5


def _hidden_trump_twin(deal: Deal, seat: int) -> Deal | None:
    """The same deal with the bidder having named another suit: while trumps are
    hidden and ``seat`` is not the bidder, ``seat`` cannot tell the two apart."""
    if deal.bidder in (-1, seat) or deal.revealed or deal.trump < 0:
        return None
    other = (deal.trump + 1) % 4
    log = [Action.trump(a.seat, other) if a.kind == TRUMP else a for a in deal.log]
    twin = Deal(deal.rules, deal.dealer, [list(h) for h in deal.hands])
    for action in log:
        if action not in twin.legal_actions():
            return None
        twin.apply(action)
    return twin


@pytest.mark.parametrize(
    "level",
    [
        "strong",
        "expert",
        "expert-v1",
        "expert[read_plays=1]",
        "expert[close_calls=0.8]",
        "expert[alphamu=3,alphamu_from=3]",
    ],
)
@pytest.mark.parametrize("profile", ["pagat", "bhoos"])
def test_a_hidden_trump_that_differs_does_not_change_the_action(level, profile):
    rules = PROFILES[profile]
    rng = random.Random(11)
    checked = 0
    for seed in range(60):
        deal = Deal(rules, seed % 4, deal_hands(seed, seed % 4, rules.clockwise))
        driver = [make_bot("casual", seed=s) for s in range(4)]
        stop = rng.randrange(8, 20)
        for _ in range(stop):
            if deal.phase == OVER or deal.revealed:
                break
            deal.apply(driver[deal.to_act].act(observe_deal(deal, deal.to_act)))
        if deal.phase in (OVER, "pair") or deal.revealed:
            continue
        seat = deal.to_act
        twin = _hidden_trump_twin(deal, seat)
        if twin is None:
            continue
        assert twin.trump != deal.trump
        obs, twin_obs = observe_deal(deal, seat), observe_deal(twin, seat)
        assert obs == twin_obs
        assert deterministic(level, 7, 0.01).act(obs) == deterministic(level, 7, 0.01).act(twin_obs)
        checked += 1
    assert checked >= 8


def test_contracts_benchmark_runs_on_a_tiny_input(capsys):
    from twentynine.benchmarks import contracts

    assert contracts.main(["casual", "novice", "--deals", "3", "--profile", "bhoos"]) == 0
    out = capsys.readouterr().out
    assert "solved game points per deal, A minus B" in out
    assert "A casual: won" in out


def test_contracts_benchmark_scores_a_contract_by_its_solution():
    from twentynine.benchmarks.contracts import bid_board, main

    board = bid_board(PROFILES["pagat"], "casual", "casual", 4, 9)
    # The same bot on both sides: whoever bids, the two games cancel out.
    assert board.a_minus_b == 0
    assert {c.side for c in board.contracts} <= {"A", "B"}
    assert all(c.result in (-1, 0, 1) and c.stake == 1 for c in board.contracts)
    with pytest.raises(SystemExit):
        main(["casual", "nobody"])


def test_without_the_compiled_solver_the_expert_bids_by_the_model_as_expert_v1():
    """Solving whole deals at bid time takes seconds in plain Python (the browser)."""
    from twentynine.bots.solving import use_solver
    from twentynine.solver import Solver

    rules = PROFILES["bhoos"]
    old = use_solver(Solver("pure"))
    try:
        for seed in range(6):
            deal = Deal(rules, seed % 4, deal_hands(seed, seed % 4, rules.clockwise))
            obs = observe_deal(deal, deal.to_act)
            mine = contract_bot("expert", seed).act(obs)
            assert mine == contract_bot("expert-v1", seed).act(obs)
    finally:
        use_solver(old)


def test_the_margin_is_higher_over_the_partner_and_lower_to_open_a_duel():
    """Bidding over one's own partner needs more; opening a duel auction less."""
    expert = make_bot("expert")
    assert isinstance(expert, ExpertBot)
    base = expert.bid_margin + 2 * expert.style.boldness
    pagat = PROFILES["pagat"]
    deal = Deal(pagat, 3, deal_hands(8, 3))  # North opens, East, South (North's partner)
    assert expert.margin(observe_deal(deal, 0)) == pytest.approx(base)  # open auction: as it is
    deal.apply(Action.bid(0, 16))
    deal.apply(Action.pass_(1))
    over_partner = expert.margin(observe_deal(deal, 2))
    assert over_partner == pytest.approx(base + expert.partner_margin) and over_partner > base
    bhoos = PROFILES["bhoos"]
    duel = Deal(bhoos, 3, deal_hands(8, 3))
    opening = expert.margin(observe_deal(duel, duel.to_act))
    assert opening == pytest.approx(base + expert.duel_opening_margin) and opening < base


def test_a_pass_counts_the_standing_contract_by_the_pass_weight(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A challenger facing an opponent's contract that will likely fail passes when
    the pass counts that contract in full, and bids when it counts for nothing."""
    from twentynine.bots import contract

    monkeypatch.setattr(contract.ContractJudge, "best_suit", lambda self, bid: (0, 0.2))
    monkeypatch.setattr(
        contract.ContractJudge, "results", lambda self, b, bid, t: [0.2] * len(self.worlds)
    )
    monkeypatch.setattr(
        contract.ContractJudge, "holder_results", lambda self, h, bid: [-0.5] * len(self.worlds)
    )
    bhoos = PROFILES["bhoos"]
    duel = Deal(bhoos, 3, deal_hands(8, 3))
    duel.apply(Action.bid(duel.to_act, 16))  # the opener defends 16; the next seat challenges
    obs = observe_deal(duel, duel.to_act)
    model = default_model()

    def decide(weight: float) -> str:
        return contract.simulated_bid(obs, model, random.Random(1), 4, 0.1, weight).kind

    assert decide(1.0) == PASS  # bidding 0.2 against passing +0.5 (their likely failure)
    assert decide(0.0) == BID  # passing 0: bidding 0.2 beats the margin 0.1
    assert decide(0.5) == PASS  # 0.2 < 0.25 + 0.1


@pytest.mark.parametrize(
    ("profile", "passes", "forced"),
    [
        # pagat: the third speaker's pass leaves the dealer (seat 0) at 15
        ("pagat", 0, None),
        ("pagat", 1, None),
        ("pagat", 2, (0, 15)),
        # modern (first_forced): the dealer's pass leaves the first speaker (3) at 16
        ("modern", 2, None),
        ("modern", 3, (3, 16)),
        # the duel auction: the third pass leaves the dealer at the lowest bid
        ("bhoos", 2, (0, 16)),
    ],
)
def test_a_pass_that_forces_a_seat_to_bid_names_that_seat_and_bid(
    profile: str, passes: int, forced: tuple[int, int] | None
) -> None:
    from twentynine.bots.contract import forced_after_pass

    deal = Deal(PROFILES[profile], 0, deal_hands(8, 0))
    for _ in range(passes):
        deal.apply(Action.pass_(deal.to_act))
    assert forced_after_pass(observe_deal(deal, deal.to_act)) == forced


def test_once_a_bid_stands_no_pass_forces_anyone() -> None:
    from twentynine.bots.contract import forced_after_pass

    deal = Deal(PROFILES["pagat"], 0, deal_hands(8, 0))
    deal.apply(Action.pass_(deal.to_act))
    deal.apply(Action.bid(deal.to_act, 15))
    assert forced_after_pass(observe_deal(deal, deal.to_act)) is None


def test_with_forced_pass_the_last_speaker_counts_the_dealers_forced_contract(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The seat before the dealer, after two passes, with a bid worth -0.2 to it: passing
    counts for nothing without the knob (so it passes), and with it for the dealer's
    forced 15, which makes in every world (-1 to the seat's side: so it bids)."""
    from twentynine.bots import contract

    monkeypatch.setattr(contract.ContractJudge, "best_suit", lambda self, bid: (0, -0.2))
    monkeypatch.setattr(
        contract.ContractJudge, "results", lambda self, b, bid, t: [-0.2] * len(self.worlds)
    )
    seen: list[tuple[int, int]] = []

    def holder_results(self: contract.ContractJudge, holder: int, bid: int) -> list[float]:
        seen.append((holder, bid))
        return [1.0] * len(self.worlds)

    monkeypatch.setattr(contract.ContractJudge, "holder_results", holder_results)
    deal = Deal(PROFILES["pagat"], 0, deal_hands(8, 0))
    deal.apply(Action.pass_(deal.to_act))
    deal.apply(Action.pass_(deal.to_act))
    obs = observe_deal(deal, deal.to_act)
    model = default_model()

    def decide(forced: bool) -> str:
        return contract.simulated_bid(obs, model, random.Random(1), 4, 0.1, forced=forced).kind

    assert decide(False) == PASS and seen == []
    assert decide(True) == BID and seen == [(0, 15)]
    assert make_bot("expert[forced_pass=1]").forced_pass is True  # type: ignore[attr-defined]


def test_the_worlds_of_a_bid_are_weighed_by_the_calls_unless_switched_off() -> None:
    bhoos = PROFILES["bhoos"]
    duel = Deal(bhoos, 3, deal_hands(8, 3))
    duel.apply(Action.bid(duel.to_act, 18))  # a strong opening: worlds where it is weak weigh less
    obs = observe_deal(duel, duel.to_act)
    model = default_model()
    weighed = ContractJudge(obs, model, random.Random(5), 12)
    plain = ContractJudge(obs, model, random.Random(5), 12, weigh_calls=False)
    assert plain.worlds == weighed.worlds  # the same deals, only their weights differ
    assert plain.weights == [1.0] * 12
    assert len(set(weighed.weights)) > 1
    variant = make_bot("expert[read_calls_at_bid=0]")
    assert isinstance(variant, ExpertBot) and not variant.read_calls_at_bid


def test_a_short_budget_solves_fewer_worlds_and_a_clock_share_bids_by_the_model(monkeypatch):
    """A contest clock's share of a second is no time for 40 whole deals: the worlds
    shrink with the budget, and below a few the fitted model decides, as expert-v1."""
    from twentynine.bots import expert

    bot = ExpertBot()
    assert bot.contract_worlds(None) == bot.contract_worlds(ExpertBot.default_budget) == 40
    assert bot.contract_worlds(2 * ExpertBot.default_budget) == 40
    assert bot.contract_worlds(ExpertBot.default_budget / 2) == 20
    assert bot.contract_worlds(ExpertBot.default_budget * (MIN_AUCTION_WORLDS - 0.5) / 40) == 0
    assert bot.contract_worlds(0.03) == 0
    few = make_bot("expert[auction_worlds=4]")  # a variant's own few worlds are kept
    assert isinstance(few, ExpertBot)
    assert few.contract_worlds(None) == 4 and few.contract_worlds(ExpertBot.default_budget / 2) == 0

    asked: list[tuple[str, int]] = []

    def judged(name):
        def decide(obs, model, rng, worlds, *args, **kw):
            asked.append((name, worlds))
            return next(a for a in obs.legal if a.kind in (BID, TRUMP))

        return decide

    for name in ("simulated_bid", "rollout_bid", "simulated_trump"):
        monkeypatch.setattr(expert, name, judged(name))
    for profile, kind in (("pagat", "simulated_bid"), ("bhoos", "rollout_bid")):
        rules = PROFILES[profile]
        deal = Deal(rules, 3, deal_hands(4, 3, rules.clockwise))
        obs = observe_deal(deal, deal.to_act)
        asked.clear()
        deterministic("expert", 1, ExpertBot.default_budget / 4).act(obs)
        assert asked == [(kind, 10)], profile
        asked.clear()
        short = deterministic("expert", 1, 0.03).act(obs)
        assert asked == [] and short == deterministic("expert-v1", 1, 0.03).act(obs), profile
    deal = Deal(PROFILES["pagat"], 3, hands_with_first(["JD", "9D", "7D", "AC"], 2))
    deal.apply(Action.bid(0, 16))
    for seat in (1, 2, 3):
        deal.apply(Action.pass_(seat))
    obs = observe_deal(deal, 0)
    asked.clear()
    deterministic("expert", 3, ExpertBot.default_budget / 2).act(obs)
    assert asked == [("simulated_trump", 20)]
    asked.clear()
    assert deterministic("expert", 3, 0.03).act(obs) == Action.trump(0, 2)  # the model's
    assert asked == []


def _duel_after(calls: list[int]) -> Deal:
    deal = Deal(PROFILES["bhoos"], 0, deal_hands(11, 0))
    for amount in calls:
        seat = deal.to_act
        deal.apply(Action.bid(seat, amount) if amount else Action.pass_(seat))
    return deal


@pytest.mark.parametrize(
    ("calls", "raised"),
    [
        ([16], False),  # a challenge of 17
        ([16, 17], False),  # the defender matching 17
        ([16, 17, 17], True),  # a challenge of 18
        ([16, 17, 17, 18], True),  # the defender matching 18
        ([], False),  # opening
        ([16, 17, 17, 0], False),  # the defender's partner: over its partner, not raised
        ([16, 17, 17, 0, 0], True),  # the last challenger, over 17: 18
    ],
)
def test_duel_high_margin_asks_more_of_a_call_over_an_opponent_from_18(calls, raised):
    deal = _duel_after(calls)
    obs = observe_deal(deal, deal.to_act)
    plain = make_bot("expert", seed=1)
    higher = make_bot("expert[duel_high_margin=0.3]", seed=1)
    assert isinstance(plain, ExpertBot) and isinstance(higher, ExpertBot)
    assert plain.duel_high_margin == 0.0 and higher.duel_high_margin == 0.3
    extra = higher.margin(obs) - plain.margin(obs)
    assert extra == pytest.approx(0.3 if raised else 0.0)
    # the open auction is left as it was
    pagat = Deal(PROFILES["pagat"], 0, deal_hands(11, 0))
    for amount in (16, 17, 18):
        pagat.apply(Action.bid(pagat.to_act, amount))
    seen = observe_deal(pagat, pagat.to_act)
    assert higher.margin(seen) == pytest.approx(plain.margin(seen))
