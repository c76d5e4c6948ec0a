"""What the record tests share: replaying a record, checking a refusal, and a
two-deal pagat record to edit (built from the ``play`` and ``record_json``
fixtures of conftest.py; each test module keeps its own ``two_deals`` fixture).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from twentynine.game import record
from twentynine.game.match import Match
from twentynine.game.rules import PROFILES

Play = Callable[..., Match]
RecordOf = Callable[[Match], dict[str, Any]]


def replay(obj: Any) -> record.Verdict:
    text = obj if isinstance(obj, str | bytes) else json.dumps(obj)
    return record.replay_text(text)


def nxt(profile: str, seat: int) -> int:
    return PROFILES[profile].next_seat(seat)


def assert_error(
    v: record.Verdict, status: int, deal: int | None, action: int | None
) -> dict[str, Any]:
    assert v.exit_status == status
    data = v.data
    assert data["ok"] is False
    assert data["complete"] is False
    err = data["error"]
    assert set(err) == {"deal", "action", "message"}
    assert (err["deal"], err["action"]) == (deal, action), err
    assert isinstance(err["message"], str) and err["message"].strip()
    json.dumps(data)
    return data


def two_deals_record(play: Play, record_json: RecordOf) -> dict[str, Any]:
    """A pagat record: deal 0 finished with 8 tricks played, deal 1 in the middle of play."""
    for seed in range(1, 200):
        match = play("pagat", seed=seed, rng_seed=seed, max_deals=2)
        rec = record_json(match)
        if len(rec["deals"]) < 2:
            continue
        d0 = match.deals[0]
        plays1 = [i for i, a in enumerate(rec["deals"][1]["actions"]) if "play" in a]
        if d0.is_over() and len(d0.tricks) == 8 and d0.result != "cancelled" and len(plays1) > 12:
            rec["deals"] = rec["deals"][:2]
            rec["deals"][1]["actions"] = rec["deals"][1]["actions"][: plays1[10] + 1]
            return rec
    raise AssertionError("no suitable seed")
