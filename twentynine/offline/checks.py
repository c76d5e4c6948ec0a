"""Runs that compare and measure the engine where it runs: CPython or Pyodide.

``selfplay`` plays a seeded game with bots in every seat, through the
server's own ``Game``, and returns its record and the ``replay`` verdict of
that record. Played with ``exact=True`` the bots are reproducible anywhere:
the solver is the pure kernel and the strong bots stop on their node budget
only, never on the clock, so CPython and Pyodide must give the same bytes.

``probe`` times a level's heaviest decisions (the first bid and the first
card of a deal) here, so the browser can choose the bots it offers by default.

``paired_times`` times the same decisions of each level as it plays now and
as it played before the plain-Python kernel had a node limit (the baseline),
one after the other on each observation: ``twentynine bench pyodide``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ..bots import Bot, make_bot, search
from ..bots.characters import BY_ID
from ..bots.solving import solver, use_solver
from ..bots.timing import time_level
from ..game.actions import BID, PLAY, Action
from ..game.dealing import deal_hands, derive_seed
from ..game.engine import OVER, Deal
from ..game.observation import Observation, observe_deal
from ..game.record import replay_text
from ..game.rules import PROFILES
from ..server.game import Game
from ..server.setup import parse_setup
from ..solver import Solver

DEFAULT_CHARACTERS = ("meera", "tara", "raju", "pip")


@contextmanager
def exact_bots() -> Iterator[None]:
    """Bots that decide the same on every machine: pure solver, no wall clock."""
    saved_solver = use_solver(Solver(backend="pure"))
    saved_guard = search.StrongBot.wall_guard
    search.StrongBot.wall_guard = None
    try:
        yield
    finally:
        use_solver(saved_solver)
        search.StrongBot.wall_guard = saved_guard


def selfplay(
    seed: int,
    profile: str = "pagat",
    characters: Sequence[str] = DEFAULT_CHARACTERS,
    length: str = "single",
    options: dict[str, Any] | None = None,
    max_deals: int = 40,
    exact: bool = True,
) -> dict[str, Any]:
    """One game of bots (seat 0 too) as the server plays it: its record and verdict."""
    setup = parse_setup(
        {
            "profile": profile,
            "options": options or {},
            "length": length,
            "seats": [{"human": True}, *({"bot": c} for c in characters[1:])],
            "seed": seed,
        }
    )
    with exact_bots() if exact else _nothing():
        game = Game(setup)
        while not game.match_over:
            if game.deal_over:
                if game.deal_index + 1 >= max_deals or setup.rules.match_target is None:
                    break
                game.next_deal()
                continue
            seat = game.to_act
            bot = BY_ID[characters[seat]].make(game.bot_seed(seat))
            game.apply(Action.from_json(bot.act(game.observation(seat)).to_json()))
    record = game.record()
    verdict = replay_text(json.dumps(record))
    return {
        "seed": seed,
        "profile": profile,
        "log": game.log,
        "record": record,
        "verdict": verdict.data,
        "exit": verdict.exit_status,
    }


@contextmanager
def _nothing() -> Iterator[None]:
    yield


def selfplay_many(games: Sequence[dict[str, Any]]) -> str:
    """Several ``selfplay`` games (keyword arguments each) as canonical JSON text."""
    out = [selfplay(**g) for g in games]
    return json.dumps(out, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def probe(
    level: str = "strong",
    deals: int = 3,
    seed: int = 29,
    cap: float = 4.0,
    stop_above: float | None = None,
) -> list[float]:
    """Seconds the ``level`` bot takes for the first bid and the first card of up
    to ``deals`` deals (its heaviest decisions: the expert solves whole deals to
    bid, and the first card has the whole deal still to solve), stopping once
    ``cap`` seconds are spent or a decision takes more than ``stop_above``."""
    rules = PROFILES["pagat"]
    times: list[float] = []
    helper = make_bot("casual")
    solver()  # made once per process: not part of a decision

    def enough() -> bool:
        return sum(times) > cap or (stop_above is not None and times[-1] > stop_above)

    for i in range(deals):
        dealer = i % 4
        deal = Deal(rules, dealer, deal_hands(derive_seed(seed, i), dealer, rules.clockwise))
        bot = make_bot(level, seed=i)
        bid = False
        while deal.phase != OVER and not any(a.kind == PLAY for a in deal.legal_actions()):
            obs = observe_deal(deal, deal.to_act)
            if not bid and any(a.kind == BID for a in obs.legal):
                bid = True
                times.append(_timed(bot, obs))
                if enough():
                    return times
            deal.apply(helper.act(obs))
        if deal.phase == OVER:
            continue
        times.append(_timed(make_bot(level, seed=i), observe_deal(deal, deal.to_act)))
        if enough():
            break
    return times


def _timed(bot: Bot, obs: Observation) -> float:
    start = time.perf_counter()
    bot.act(obs)
    return time.perf_counter() - start


@contextmanager
def unlimited_bots() -> Iterator[None]:
    """The search bots without the plain-Python kernel's node limit: as they were
    before it (the baseline of ``paired_times``)."""
    saved = search.StrongBot.pure_node_limit
    search.StrongBot.pure_node_limit = None
    try:
        yield
    finally:
        search.StrongBot.pure_node_limit = saved


VARIANTS = ("baseline", "now")


def paired_times(
    levels: Sequence[str],
    deals: int = 3,
    seed: int = 29,
    profile: str = "pagat",
    max_decisions: int | None = None,
) -> dict[str, Any]:
    """Seconds and solver nodes of each level's decisions, now and in the baseline
    (``unlimited_bots``), on the same observations.

    Deals dealt from ``seed`` are played by casual bots, so every level and
    variant sees the same observations; at each turn every level decides (a bot
    seeded by the seat, as at a table), in both variants, alternating which goes
    first. Each decision is ``[seconds, nodes, first]``, ``first`` true for a
    card of the first trick (the heaviest decisions). ``max_decisions`` stops
    each deal after that many turns (for a quick check).
    """
    rules = PROFILES[profile]
    s = solver()  # made once per process: not part of a decision
    out: dict[str, Any] = {
        "compiled": s.compiled,
        "profile": profile,
        "deals": deals,
        "levels": {level: {v: [] for v in VARIANTS} for level in levels},
    }
    driver = [make_bot("casual", seed=k) for k in range(4)]
    turn = 0
    for i in range(deals):
        dealer = i % 4
        deal = Deal(rules, dealer, deal_hands(derive_seed(seed, i), dealer, rules.clockwise))
        steps = 0
        while deal.phase != OVER and (max_decisions is None or steps < max_decisions):
            seat = deal.to_act
            obs = observe_deal(deal, seat)
            first = obs.phase == "play" and not obs.tricks
            for level in levels:
                order = VARIANTS if turn % 2 == 0 else VARIANTS[::-1]
                for variant in order:
                    bot = make_bot(level, seed=derive_seed(seed, i) + seat)
                    with unlimited_bots() if variant == "baseline" else _nothing():
                        nodes = s.nodes
                        start = time.perf_counter()
                        bot.act(obs)
                        spent = time.perf_counter() - start
                    row = [spent, s.nodes - nodes, first]
                    out["levels"][level][variant].append(row)
            turn += 1
            steps += 1
            deal.apply(driver[seat].act(obs))
    return out


def decision_times(level: str, deals: int = 2, seed: int = 29) -> list[float]:
    """Seconds of every decision of ``level`` bots playing ``deals`` deals against each other."""
    return time_level(level, "pagat", {}, deals, seed)
