"""Runs that compare and measure the engine where it runs: CPython or Pyodide.

``selfplay`` plays a seeded game with bots in every seat, through the
server's own ``Game``, and returns its record and the ``replay`` verdict of
that record. Played with ``exact=True`` the bots are reproducible anywhere:
the solver is the pure kernel and the strong bots stop on their node budget
only, never on the clock, so CPython and Pyodide must give the same bytes.

``probe`` times the strong bot's heaviest decisions (the first card of a
deal) here, so the browser can choose the bots it offers by default.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ..bots import make_bot, search
from ..bots.characters import BY_ID
from ..bots.solving import solver, use_solver
from ..bots.timing import time_level
from ..game.actions import PLAY, Action
from ..game.dealing import deal_hands, derive_seed
from ..game.engine import OVER, Deal
from ..game.observation import observe_deal
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
    """Seconds the ``level`` bot takes for the first card of up to ``deals`` deals
    (the heaviest decision of a deal), stopping once ``cap`` seconds are spent or
    a decision takes more than ``stop_above``."""
    rules = PROFILES["pagat"]
    times: list[float] = []
    helper = make_bot("casual")
    solver()  # made once per process: not part of a decision
    for i in range(deals):
        dealer = i % 4
        deal = Deal(rules, dealer, deal_hands(derive_seed(seed, i), dealer, rules.clockwise))
        while deal.phase != OVER and not any(a.kind == PLAY for a in deal.legal_actions()):
            deal.apply(helper.act(observe_deal(deal, deal.to_act)))
        if deal.phase == OVER:
            continue
        bot = make_bot(level, seed=i)
        obs = observe_deal(deal, deal.to_act)
        start = time.perf_counter()
        bot.act(obs)
        times.append(time.perf_counter() - start)
        if sum(times) > cap or (stop_above is not None and times[-1] > stop_above):
            break
    return times


def decision_times(level: str, deals: int = 2, seed: int = 29) -> list[float]:
    """Seconds of every decision of ``level`` bots playing ``deals`` deals against each other."""
    return time_level(level, "pagat", {}, deals, seed)
