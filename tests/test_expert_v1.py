"""The frozen baseline: ``expert-v1`` plays today exactly as it did when frozen.

Every strength claim about ``expert`` is measured against ``expert-v1`` in the
same run, so the baseline must not drift when the bots' shared code changes.
Its games on a few fixed deals were recorded when it was frozen; they are
replayed here move for move.
"""

from __future__ import annotations

import json
from pathlib import Path

from twentynine.bots import make_bot
from twentynine.game.dealing import deal_hands
from twentynine.game.engine import OVER, Deal
from twentynine.game.observation import observe_deal
from twentynine.game.rules import PROFILES
from twentynine.solver import default_solver

RECORD = Path(__file__).parent / "data" / "expert_v1_games.json"
CASES = [("pagat", 1), ("pagat", 2), ("bhoos", 3), ("bhoos", 4), ("modern", 5)]


def play_record(profile: str, seed: int) -> list[dict]:
    """Four ``expert-v1`` bots on one deal, searching by node budget only."""
    rules = PROFILES[profile]
    dealer = seed % 4
    deal = Deal(rules, dealer, deal_hands(seed, dealer, rules.clockwise))
    bots = []
    for s in range(4):
        bot = make_bot("expert-v1", seed=seed * 10 + s, budget=0.02)
        bot.wall_guard = None  # type: ignore[attr-defined]
        bots.append(bot)
    while deal.phase != OVER:
        deal.apply(bots[deal.to_act].act(observe_deal(deal, deal.to_act)))
    return [a.to_json() for a in deal.log]


def test_expert_v1_replays_its_recorded_games_move_for_move():
    assert default_solver().compiled, "the record was made with the compiled solver"
    recorded = json.loads(RECORD.read_text())
    assert sorted(recorded) == sorted(f"{p}:{s}" for p, s in CASES)
    for profile, seed in CASES:
        assert play_record(profile, seed) == recorded[f"{profile}:{seed}"], (profile, seed)
