"""The expert: ``expert-v1``'s inference and search, with contract decisions by
simulation and play that keeps card points once the outcome is settled.

- Bidding and the trump choice (and the seventh card where the rules have
  it) are solved at decision time over sampled whole deals
  (``contract.simulated_bid``, ``contract.simulated_trump``) instead of read
  from the fitted model. A bid must beat passing by a margin: more over the
  seat's own partner, less to open a duel auction.
- In the duel auction (``bhoos``) a call is judged by the rest of the auction
  played out in each world (``rollout.rollout_bid``): a defender's match, a
  challenger's pass and the challenges still to come as the engine has them.
- In play, every world is solved for the contract's outcome and, from the
  trick ``EXACT_FROM`` on, for the exact card points as well: among moves
  equal on outcome across the worlds, the one that leaves the seat's side
  the most points is played. Points thrown away late are how contracts
  that looked settled are lost when the worlds were wrong.
"""

from __future__ import annotations

import random

from ..game.actions import BID, PLAY, REVEAL, SINGLE, TRUMP, Action
from ..game.observation import Observation
from ..solver import Goal
from .alphamu import AlphaMu, TooBig
from .base import Style
from .calls import CallReading
from .contract import MakeRate, MoreWorlds, simulated_bid, simulated_trump, standing_bid
from .expert_v1 import ExpertV1Bot
from .expert_v1 import _discard_likelihood as discard_likelihood
from .heuristic import kinds, pass_action
from .knowledge import Knowledge, analyse
from .odds import played_value
from .play_model import PlayPoint, default_play_model, history, play_likelihood
from .rollout import rollout_bid
from .sampling import Impossible, World
from .single import Worlds, single_card_values, single_offer
from .solving import goal_of, position_of, solver

AUCTION_WORLDS = 40  # whole deals solved per bid or trump decision
BID_MARGIN = 0.1  # how much more than passing a bid must be worth, in game points
# More still to bid over one's own partner: the partner's hand is guessed as much as the
# opponents', and raising the side's own contract makes it harder for nothing.
PARTNER_MARGIN = 0.3
# Less to open a duel auction (``auction=duel``): the opener defends, and a defender need
# only match a challenger's bid; passing hands that seat to the next player.
DUEL_OPENING_MARGIN = -0.1
# How much of the standing contract's value a pass counts in the duel auction, where a
# pass leaves the seat out but the auction goes on (1: as if it ended there).
DUEL_PASS_WEIGHT = 1.0
# Added to the margin when the rollout judges a call: it counts what passing leads to,
# so a bid need not beat passing by as much (-0.15: a margin of -0.05 at the default).
ROLLOUT_MARGIN = -0.15
# More to bid, in the duel auction, over an opponent's bid from this level on (a
# challenge, or a defender's match): ``duel_high_margin`` (off by default).
DUEL_HIGH_FROM = 18
EXACT_FROM = 3  # the trick (1-based) from which play is also valued in card points
# The level's own budget buys a contract decision all ``AUCTION_WORLDS`` worlds: it is
# about what one takes here (the duel rollout's median, docs/bots.md). A budget below it,
# such as a contest clock's share, gets fewer worlds in proportion; below
# ``MIN_AUCTION_WORLDS`` the fitted model decides, as for ``expert-v1``, so a short clock
# is never run out by a bid.
MIN_AUCTION_WORLDS = 8
SINGLE_WORLDS = 32  # worlds solved to offer or play a single hand
# How much more than passing a single hand must be worth, in game points: its stake is
# several game points, and a sweep that fails in one world of 32 fails at the table.
SINGLE_MARGIN = 0.25


class ExpertBot(ExpertV1Bot):
    level = "expert"

    auction_worlds = AUCTION_WORLDS
    bid_margin = BID_MARGIN
    partner_margin = PARTNER_MARGIN
    duel_opening_margin = DUEL_OPENING_MARGIN
    duel_pass_weight = DUEL_PASS_WEIGHT
    exact_from = EXACT_FROM
    # What it reads besides the cards (docs/bots.md, *Inference*), each a switch an
    # ablation turns off (``variants``: ``expert[read_drops=0]``).
    read_auction = True  # each world's first batches weighed by the calls
    read_trump_choice = True  # the hidden trump sampled, and worlds weighed, by the bidder's choice
    read_discards = True  # points thrown to the opponents instead of trumping: no trump then
    read_drops = True  # a drop signal read as a void where the cards agree
    # the cards the others played, weighed by the fitted model of the play
    # (``play_model``): off until the arena shows it helps
    read_plays = False
    play_trust = 1.0  # the power the play model's likelihood is taken to (1: as fitted)
    # the share of the opponents' calls read by the model bidders' rule rather than
    # loosely (``calls.CallReading``), at bid time and in play (0: loosely only)
    close_calls = 0.0
    simulate_contract = True  # bids and the trump by simulation (off: the fitted model's)
    read_calls_at_bid = True  # a bid's worlds weighed by the others' calls so far
    # where nobody has bid and a pass would leave a seat forced to take the contract
    # (the dealer, under ``all_pass: dealer_forced``), passing is worth that contract
    # (off: worth nothing, as if the deal went by)
    forced_pass = False
    # unsolved worlds whose cheap proxy steadies a contract decision's mean of solved
    # ones (``ContractJudge.controlled``; 0: none), in the bid as if the auction ended
    # with it and in the trump choice
    control_worlds = 0
    # a bid valued with the suit each world's other half of the worlds chose, not the
    # best suit over all of them, whose mean its luck there flatters
    # (``ContractJudge.held_out_suits``)
    held_out_suit = False
    # a call valued by the rest of the auction played out in each world (off: as if the
    # auction ended with it, ``contract.simulated_bid``): in every auction, or in the duel
    # auction only (the default: measured there, docs/bots.md)
    auction_rollout = False
    duel_rollout = True
    rollout_margin = ROLLOUT_MARGIN
    # added to the margin of a duel call over an opponent's bid at ``DUEL_HIGH_FROM`` or
    # more (the expert's challenges there were made 40% of the time: docs/bots.md)
    duel_high_margin = 0.0
    # a contract's worlds valued by the chance of making it at the table, from the solved
    # margin (``contract.MakeRate``; off: by the solution's made or failed)
    soft_contract = False
    # worlds dealt for each one solved in a contract decision, drawn by how well they
    # explain the others' calls (1: every world dealt is solved and weighed)
    auction_pool = 1
    # the same in play: worlds sampled for each one solved, drawn by their weight
    play_pool = 1
    # the single hand offered and played by solving sampled worlds (``bots/single.py``;
    # off: declared only when it cannot lose, and played by the casual player's rules)
    simulate_single = True
    single_margin = SINGLE_MARGIN
    # from the trick ``exact_from`` on, a move valued by the chance at the table of the
    # margin it leaves (``bots/odds.py``) rather than by made or failed alone
    soft_play = False
    # more worlds for a call still in doubt after ``auction_worlds`` (``contract.MoreWorlds``):
    # up to this many in all (0: off), while the call is within ``auction_z`` standard
    # errors of its margin
    auction_worlds_max = 0
    auction_z = 1.5
    # the play's budget (and so its worlds, up to ``max_worlds``) times this when the bot
    # thinks on its own time (a clock's share is kept to): more worlds where the budget
    # runs out first, the first tricks' leads
    play_scale = 1.0
    # from the trick ``alphamu_from`` on, the seat's next ``alphamu - 1`` cards are chosen
    # as at the table, one card for the worlds it cannot tell apart (``bots/alphamu.py``;
    # 0 or 1: each world solved on its own), over up to ``alphamu_worlds`` worlds
    alphamu = 0
    alphamu_from = 4
    alphamu_worlds = 40
    knobs = (
        "read_auction",
        "read_trump_choice",
        "read_discards",
        "read_drops",
        "read_plays",
        "play_trust",
        "close_calls",
        "simulate_contract",
        "read_calls_at_bid",
        "forced_pass",
        "control_worlds",
        "held_out_suit",
        "exact_from",
        "auction_worlds",
        "bid_margin",
        "partner_margin",
        "duel_opening_margin",
        "duel_pass_weight",
        "auction_rollout",
        "duel_rollout",
        "rollout_margin",
        "duel_high_margin",
        "soft_contract",
        "auction_pool",
        "play_pool",
        "simulate_single",
        "single_margin",
        "soft_play",
        "play_scale",
        "auction_worlds_max",
        "auction_z",
        "alphamu",
        "alphamu_from",
        "alphamu_worlds",
    )

    def __init__(self, seed: int = 0, budget: float | None = None, style: Style | None = None):
        super().__init__(seed, budget, style)
        # thinking on the level's own time (not a clock's share, given here or to ``act``):
        # only that time is scaled by ``play_scale``
        self.own_budget = budget is None
        self._own_now = self.own_budget
        # the cards played so far, read once per decision (``weight`` runs per world)
        self._history: tuple[Observation | None, list[PlayPoint]] = (None, [])
        # the calls read closely, likewise (``close_calls``)
        self._reading: tuple[Observation | None, CallReading | None] = (None, None)

    def act(self, obs: Observation, budget: float | None = None) -> Action:
        self._own_now = self.own_budget and budget is None
        return super().act(obs, budget)

    def decide(self, obs: Observation, rng: random.Random, budget: float | None) -> Action:
        k = kinds(obs)
        single = SINGLE in k or (obs.single is not None and PLAY in k)
        if single and self.simulate_single and solver().compiled:
            # Without the compiled kernel (the browser) a contract from the first lead
            # takes too long per world: the rule-based single hand of the other levels.
            sampled = self.single_worlds(obs, rng)
            if sampled:
                if SINGLE in k:
                    return single_offer(obs, sampled, self.single_margin, pass_action(obs))
                return self.choose(obs, single_card_values(obs, sampled), rng)
        bidding = BID in k and obs.phase == "auction"
        if not bidding and TRUMP not in k:
            return super().decide(obs, rng, budget)
        worlds = self.contract_worlds(budget)
        if not solver().compiled or not self.simulate_contract or not worlds:
            # Solving 40 whole deals per trump takes seconds without the compiled
            # kernel (the browser), and a short clock has no time for a few: bid and
            # name trumps by the model, as expert-v1.
            return super().decide(obs, rng, budget)
        rate = MakeRate() if self.soft_contract else None
        pool = self.auction_pool
        more = None
        if self.auction_worlds_max > worlds:
            # a short clock's fewer worlds grow in the same proportion
            most = self.auction_worlds_max * worlds // self.auction_worlds
            more = MoreWorlds(most, self.auction_z, max(1, worlds // 2))
        close = self.close_calls
        if not bidding:
            return simulated_trump(
                obs,
                self.model,
                rng,
                worlds,
                rate,
                pool,
                more=more,
                close_calls=close,
                control=self.control_worlds,
            )
        if self.auction_rollout or (self.duel_rollout and obs.rules.auction == "duel"):
            return rollout_bid(
                obs,
                self.model,
                rng,
                worlds,
                self.margin(obs) + self.rollout_margin,
                weigh_calls=self.read_calls_at_bid,
                make_rate=rate,
                pool=pool,
                more=more,
                close_calls=close,
                held_out=self.held_out_suit,
            )
        weight = self.duel_pass_weight if obs.rules.auction == "duel" else 1.0
        margin = self.margin(obs)
        calls = self.read_calls_at_bid
        return simulated_bid(
            obs,
            self.model,
            rng,
            worlds,
            margin,
            weight,
            calls,
            rate,
            pool,
            more=more,
            close_calls=close,
            forced=self.forced_pass,
            control=self.control_worlds,
            held_out=self.held_out_suit,
        )

    def play(self, obs: Observation, rng: random.Random, budget: float | None) -> Action:
        if self.play_scale != 1.0 and self._own_now:
            budget = (budget if budget is not None else self.default_budget) * self.play_scale
        if self.alphamu > 1 and len(obs.tricks) + 1 >= self.alphamu_from and solver().compiled:
            chosen = self.alphamu_play(obs, rng)
            if chosen is not None:
                return chosen
        return super().play(obs, rng, budget)

    def alphamu_play(self, obs: Observation, rng: random.Random) -> Action | None:
        """The card by the αμ search over up to ``alphamu_worlds`` weighed worlds (as
        deep as ``alphamu`` where its count of solved positions allows), the
        card points of the worlds solved one by one breaking its ties; None where it
        cannot choose (the worlds' trumps differ, or the search is too big): the worlds
        solved one by one decide then."""
        assert obs.seat is not None
        dealt: dict[tuple[tuple[int, ...], int | None], tuple[World, float]] = {}
        for world, w in self.drawn(obs, rng, self.alphamu_worlds):
            if w <= 0:
                continue
            key = (tuple(world.hands), world.trump)
            seen = dealt.get(key)
            dealt[key] = (world, w + (seen[1] if seen else 0.0))
        worlds = list(dealt.values())
        if not worlds or len({world.trump for world, _ in worlds}) > 1:
            return None  # the seat would learn the trump on the way: not one choice
        goal = goal_of(obs)
        sign = 1 if obs.seat & 1 == goal.team else -1
        try:
            positions = [position_of(obs, world) for world, _ in worlds]
            search = AlphaMu(obs.seat, goal)
            _, values = search.deepest(positions, [w for _, w in worlds], self.alphamu)
        except (TooBig, ValueError):  # too big, or a world the rules find impossible
            return None
        reveal = next((a for a in obs.legal if a.kind == REVEAL), None)
        plays = {a.value: a for a in obs.legal if a.kind == PLAY}
        totals: dict[Action, float] = {}
        for move, v in values.items():
            a = reveal if move.reveal else plays.get(move.card)
            if a is not None:
                totals[a] = max(totals.get(a, -2.0), v)
        points: dict[Action, float] = {}
        for world, w in worlds:
            _, margins = self.evaluate(obs, world, goal, plays, reveal, sign)
            for a, m in margins.items():
                points[a] = points.get(a, 0.0) + w * m
        return self.choose(obs, totals, rng, points)

    def single_worlds(self, obs: Observation, rng: random.Random) -> Worlds:
        """Weighed worlds for a single-hand decision (none when no world fits)."""
        out = self.drawn(obs, rng, SINGLE_WORLDS)
        if out and sum(w for _, w in out) <= 0:
            out = [(world, 1.0) for world, _ in out]  # nothing explains better: all alike
        return out

    def drawn(self, obs: Observation, rng: random.Random, count: int) -> Worlds:
        """Up to ``count`` worlds drawn with their weights (fewer when no more fit)."""
        know = self.knowledge(obs, rng)
        out: Worlds = []
        for _ in range(count):
            try:
                out.append(self.draw(obs, know, rng))
            except Impossible:
                break
        return out

    def contract_worlds(self, budget: float | None) -> int:
        """Worlds for a bid or the trump in ``budget`` seconds: all ``auction_worlds``
        at the level's own budget or more, fewer in proportion below it, and none (the
        model decides) when the budget cuts them under ``MIN_AUCTION_WORLDS``."""
        full = self.default_budget
        if budget is None or budget >= full:
            return self.auction_worlds
        worlds = int(self.auction_worlds * budget / full)
        return worlds if worlds >= min(MIN_AUCTION_WORLDS, self.auction_worlds) else 0

    # -- inference, each part a switch (all on: exactly expert-v1's) ----------------------
    def knowledge(self, obs: Observation, rng: random.Random) -> Knowledge:
        if self.read_drops:
            return super().knowledge(obs, rng)
        return analyse(obs)

    def trump_odds(self, obs: Observation, first_batch: int) -> list[float]:
        if self.read_trump_choice:
            return super().trump_odds(obs, first_batch)
        return [1.0, 1.0, 1.0, 1.0]  # any suit as likely: nothing read from the choice

    def weight(self, obs: Observation, know: Knowledge, world: World) -> float:
        w = self.inferred_weight(obs, know, world)
        if self.read_plays and w > 0 and obs.single is None and world.trump is not None:
            model = default_play_model()
            if model is not None:
                seen, points = self._history
                if seen is not obs:
                    points = history(obs)
                    self._history = (obs, points)
                assert obs.seat is not None
                w *= play_likelihood(
                    model, points, world.hands, world.trump, obs.seat, self.play_trust
                )
        return w

    def inferred_weight(self, obs: Observation, know: Knowledge, world: World) -> float:
        """``expert-v1``'s weight of a world, with the parts switched off left out and
        the opponents' calls read closely too with ``close_calls``."""
        if self.read_auction and self.read_discards and not self.close_calls:
            return super().weight(obs, know, world)
        assert obs.seat is not None and obs.bidder is not None
        if world.first is None:
            return 1.0
        w = 1.0
        if self.read_auction:
            seen, reading = self._reading
            if seen is not obs or reading is None:
                reading = CallReading(obs, self.model, self.close_calls)
                self._reading = (obs, reading)
            w *= reading.weight(world.first)
        if know.trump is not None and obs.bidder != obs.seat and not obs.seventh:
            assert world.trump is not None
            odds = self.trump_odds(obs, world.first[obs.bidder])
            w *= odds[world.trump] / sum(odds)
        if self.read_discards and world.trump is not None:
            w *= discard_likelihood(obs, know, world)
        return w

    # -- the auction ---------------------------------------------------------------------
    def margin(self, obs: Observation) -> float:
        """How much more than passing a bid must be worth here, in game points."""
        # boldness is on the scale of a probability, the margin on that of a result
        margin = self.bid_margin + 2 * self.style.boldness
        holder, _ = standing_bid(obs)
        assert obs.seat is not None
        if holder is not None and holder != obs.seat and holder & 1 == obs.seat & 1:
            margin += self.partner_margin
        if holder is None and obs.rules.auction == "duel":
            margin += self.duel_opening_margin
        if holder is not None and holder & 1 != obs.seat & 1 and obs.rules.auction == "duel":
            lowest = min((a.value or 0 for a in obs.legal if a.kind == BID), default=0)
            if lowest >= DUEL_HIGH_FROM:
                margin += self.duel_high_margin
        return margin

    def evaluate(
        self,
        obs: Observation,
        world: World,
        goal: Goal,
        plays: dict[int | None, Action],
        reveal: Action | None,
        sign: int,
    ) -> tuple[dict[Action, float], dict[Action, float]]:
        if len(obs.tricks) + 1 < self.exact_from:
            return super().evaluate(obs, world, goal, plays, reveal, sign)
        values = solver().moves_exact(position_of(obs, world), goal)
        outcome: dict[Action, float] = {}
        points: dict[Action, float] = {}
        # with ``soft_play`` a world values a move by the bidders' chance at the table
        # from the position it leads to (``odds``): the next trick's once it completes one
        after = len(obs.tricks) + 1 + (len(obs.trick) == 3)
        for move, value in values.items():
            if self.soft_play:
                o = sign * played_value(value.margin, after)
            else:
                o = sign * int(value.outcome)
            margin = 0 if value.margin is None else sign * value.margin
            if move.reveal:
                if reveal is not None and (o, margin) > (
                    outcome.get(reveal, -2.0),
                    points.get(reveal, -99.0),
                ):
                    outcome[reveal], points[reveal] = o, margin
                continue
            a = plays.get(move.card)
            if a is not None:
                outcome[a], points[a] = o, margin
        return outcome, points


__all__ = ["ExpertBot"]
