"""Importance resampling of the expert's worlds (``auction_pool``, ``play_pool``):
each world solved is drawn from several dealt ones in proportion to their weights
and carries their mean weight."""

from __future__ import annotations

import random
import statistics

from twentynine.bots import make_bot
from twentynine.bots.bidding import default_model, place_of
from twentynine.bots.contract import ContractJudge, auction_world
from twentynine.bots.expert import ExpertBot
from twentynine.bots.sampling import World
from twentynine.game.actions import Action
from twentynine.game.dealing import deal_hands
from twentynine.game.engine import Deal
from twentynine.game.observation import Observation, observe_deal
from twentynine.game.rules import PROFILES


def after_a_bid_of(bid: int) -> Observation:
    """East to speak after North opened with ``bid`` (pagat, North speaks first)."""
    deal = Deal(PROFILES["pagat"], 3, deal_hands(8, 3))
    deal.apply(Action.bid(0, bid))
    return observe_deal(deal, 1)


def effective_share(weights: list[float]) -> float:
    """The effective number of worlds over the number solved: 1 when all weigh alike."""
    return sum(weights) ** 2 / sum(w * w for w in weights) / len(weights)


def test_pooled_worlds_follow_the_calls_and_weigh_nearly_alike() -> None:
    obs = after_a_bid_of(21)  # a high opening: North's first batch is strong
    model = default_model()
    place = place_of(obs, 0)

    def strength_of_north(judge: ContractJudge) -> float:
        return statistics.mean(model.strength(w.first[0], place) for w in judge.worlds)

    plain = ContractJudge(obs, model, random.Random(3), 200)
    pooled = ContractJudge(obs, model, random.Random(3), 200, pool=8)
    assert len(pooled.worlds) == len(pooled.weights) == 200
    # the worlds solved are those that explain a bid of 21 ...
    assert strength_of_north(pooled) > strength_of_north(plain) + 1.0
    # ... and weigh more alike (the mean of eight likelihoods each): here 0.4 of the
    # plain worlds count, 0.8 of the pooled
    assert effective_share(pooled.weights) > effective_share(plain.weights) + 0.3


def test_each_pooled_weight_is_the_mean_likelihood_of_its_pool() -> None:
    obs = after_a_bid_of(19)
    model = default_model()
    rng = random.Random(11)
    pooled = ContractJudge(obs, model, random.Random(11), 5, pool=3)
    for k in range(5):
        dealt = [auction_world(obs, rng) for _ in range(3)]
        likelihoods = [
            model.auction_likelihood(w.first[0], (19, -1), obs.rules, place_of(obs, 0))
            for w in dealt
        ]
        rng.choices(range(3), likelihoods)  # the draw the judge made
        assert pooled.worlds[k] in dealt
        assert abs(pooled.weights[k] - sum(likelihoods) / 3) < 1e-12


def test_with_nothing_to_weigh_the_pool_changes_nothing() -> None:
    """Before any call every world is as likely: the pool deals no extra worlds."""
    deal = Deal(PROFILES["pagat"], 3, deal_hands(8, 3))
    obs = observe_deal(deal, 0)
    model = default_model()
    plain = ContractJudge(obs, model, random.Random(7), 30)
    pooled = ContractJudge(obs, model, random.Random(7), 30, pool=6)
    assert pooled.worlds == plain.worlds and pooled.weights == plain.weights == [1.0] * 30


def test_the_play_draw_takes_one_of_its_pool_and_their_mean_weight() -> None:
    deal = Deal(PROFILES["pagat"], 3, deal_hands(8, 3))
    deal.apply(Action.bid(0, 16))
    for seat in (1, 2, 3):
        deal.apply(Action.pass_(seat))
    deal.apply(Action.trump(0, 2))
    obs = observe_deal(deal, deal.to_act)
    bot = make_bot("expert[play_pool=4]", seed=1)
    assert isinstance(bot, ExpertBot) and bot.play_pool == 4
    know = bot.knowledge(obs, random.Random(0))
    seen: list[tuple[World, float]] = []
    sample, weight = bot.sample, bot.weight

    def recording(o: Observation, k, w: World) -> float:  # type: ignore[no-untyped-def]
        value = weight(o, k, w)
        seen.append((w, value))
        return value

    bot.weight = recording  # type: ignore[method-assign,assignment]
    for seed in range(5):
        seen.clear()
        world, w = bot.draw(obs, know, random.Random(seed))
        assert len(seen) == 4
        assert world in [x for x, _ in seen]
        assert abs(w - sum(v for _, v in seen) / 4) < 1e-12
    one = make_bot("expert", seed=1)
    assert isinstance(one, ExpertBot) and one.play_pool == 1
    rng_a, rng_b = random.Random(9), random.Random(9)
    world, w = one.draw(obs, know, rng_a)
    alone = sample(obs, know, rng_b)
    assert world == alone and w == weight(obs, know, alone)
    assert rng_a.random() == rng_b.random()  # one world, no draw: the same randomness as before
