"""``twentynine bench rl``: environment steps per second with random legal actions.

Three loops over the same kind of random play, on one core:

- ``engine``: the bare engine (``legal_actions`` and ``apply``), the floor
  every environment stands on;
- ``aec``: the PettingZoo environment as a learner drives it
  (``agent_iter``, ``last()`` with its tensor and mask, ``step``);
- ``openspiel``: the pyspiel game (``legal_actions``, ``apply_action`` and
  one information-state tensor per decision; the 32 chance nodes that deal
  the cards are played too but not counted as steps).

Each loop runs for ``--seconds`` of this process's CPU time and is repeated
``--runs`` times; the rate is steps per CPU second (one core), with the
median run and the slowest printed. CPU time rather than wall-clock time,
since this machine is shared: another process taking the core for a while
does not count against the loop (the caches it spoils still do).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from ..game.dealing import deal_hands, derive_seed
from ..game.engine import OVER, Deal
from ..game.rules import PROFILES, Rules, parse_assignments, resolve

TARGET_AEC = 30_000


def engine_loop(rules: Rules, seconds: float, seed: int) -> tuple[float, float]:
    rng = random.Random(seed)
    steps = 0
    i = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        deal = Deal(rules, i % 4, deal_hands(derive_seed(seed, i), i % 4, rules.clockwise))
        while deal.phase != OVER:
            legal = deal.legal_actions()
            deal.apply(legal[int(rng.random() * len(legal))])
            steps += 1
        i += 1
    el = time.process_time() - start
    return steps / el, i / el


def aec_loop(rules: Rules, seconds: float, seed: int) -> tuple[float, float]:
    import numpy as np

    from ..rl.aec import TwentyNineEnv

    env = TwentyNineEnv(rules=rules)
    env.reset(seed=seed)
    rng = random.Random(seed)
    flatnonzero = np.flatnonzero
    steps = deals = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        deals += 1
        for _agent in env.agent_iter():
            obs, _reward, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
                continue
            ids = flatnonzero(obs["action_mask"])
            env.step(int(ids[int(rng.random() * len(ids))]))
            steps += 1
        env.reset()
    el = time.process_time() - start
    return steps / el, deals / el


def openspiel_loop(rules: Rules, seconds: float, seed: int) -> tuple[float, float]:
    from ..rl.openspiel import game_of

    game = game_of(rules)
    rng = random.Random(seed)
    steps = deals = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        deals += 1
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(rng.random() * len(outcomes))][0])
            else:
                state.information_state_tensor()
                legal = state.legal_actions()
                state.apply_action(legal[int(rng.random() * len(legal))])
                steps += 1
    el = time.process_time() - start
    return steps / el, deals / el


LOOPS: dict[str, Callable[[Rules, float, int], tuple[float, float]]] = {
    "engine": engine_loop,
    "aec": aec_loop,
    "openspiel": openspiel_loop,
}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="twentynine bench rl", description=__doc__)
    p.add_argument("--seconds", type=float, default=3.0, help="length of one run (default 3)")
    p.add_argument("--runs", type=int, default=5, help="repetitions; the median is reported")
    p.add_argument("--profile", default="pagat", choices=sorted(PROFILES))
    p.add_argument("--set", dest="options", action="append", default=[], metavar="K=V")
    p.add_argument("--loops", default="engine,aec,openspiel", help="which loops, comma separated")
    p.add_argument("--seed", type=int, default=29)
    args = p.parse_args(argv)
    if args.seconds <= 0 or args.runs < 1:
        p.error("--seconds must be positive and --runs at least 1")
    names = [x.strip() for x in args.loops.split(",") if x.strip()]
    unknown = [x for x in names if x not in LOOPS]
    if unknown or not names:
        p.error(f"unknown loop {unknown[0] if unknown else ''!r}; loops: {', '.join(LOOPS)}")
    rules = resolve(args.profile, parse_assignments(args.options))
    print(
        f"rl benchmark: profile {args.profile}, random legal actions, "
        f"{args.runs} runs of {args.seconds:g} CPU seconds each, one core"
    )
    for name in names:
        runs = [LOOPS[name](rules, args.seconds, args.seed + r) for r in range(args.runs)]
        rates = [r[0] for r in runs]
        line = (
            f"  {name:9s} median {statistics.median(rates):9,.0f} steps/s "
            f"(slowest run {min(rates):,.0f}/s), "
            f"{statistics.median(r[1] for r in runs):,.0f} deals/s"
        )
        if name == "aec":
            line += f"; target {TARGET_AEC:,}/s"
        print(line, flush=True)
    return 0
