"""Conformance: the engine and bots in Pyodide (in chromium) and in CPython agree.

The same seeded games, every rule profile, bots of every level from random
to expert, are played by ``offline.checks.selfplay`` in the browser's engine
worker and here; their logs, records and ``replay`` verdicts must be the same
bytes. The bots play "exactly" on both sides (pure solver, node budgets, no
clock), so nothing but the engine itself can make them differ.
"""

from __future__ import annotations

import json
from typing import Any

from playwright.sync_api import Page

from twentynine.game.rules import PROFILES
from twentynine.offline.checks import selfplay_many

from .conftest import _missing

GAMES: list[dict[str, Any]] = [
    *(
        {"seed": 100 + i, "profile": name, "length": "match", "max_deals": 3}
        for i, name in enumerate(PROFILES)
    ),
    {"seed": 3, "characters": ["anil", "meera", "sunita", "raju"]},
    {"seed": 4, "characters": ["dada", "bablu", "kiran", "pip"], "profile": "bhoos"},
]

RUN = """async (games) => {
  const code = `import json
from twentynine.offline.checks import selfplay_many
selfplay_many(json.loads(${JSON.stringify(JSON.stringify(games))}))`;
  return window.twentynine.offline.evaluate(code);
}"""


def test_seeded_games_give_the_same_records_and_verdicts_in_pyodide_and_cpython(
    page: Page,
) -> None:
    page.goto(page.base_url + "/")  # type: ignore[attr-defined]
    page.wait_for_function("() => window.twentynine")
    if not page.evaluate("window.twentynine.offline.available()"):
        _missing("Pyodide is not installed (scripts/ensure-pyodide)")
    page.set_default_timeout(240_000)
    # the page's speed probe (a second Pyodide worker) is not what is tested here
    page.evaluate(
        """async () => {
      const config = await (await fetch('/offline/config.json')).json();
      const version = `${config.pyodide_version} ${config.bundle}`;
      const probe = { version, times: [0], level: 'casual' };
      localStorage.setItem('twentynine.offline.probe', JSON.stringify(probe));
    }"""
    )
    in_browser = page.evaluate(RUN, GAMES)
    here = selfplay_many(GAMES)
    assert isinstance(in_browser, str)
    ours, theirs = json.loads(here), json.loads(in_browser)
    assert len(theirs) == len(GAMES)
    for mine, other in zip(ours, theirs, strict=True):
        assert other["log"] == mine["log"], f"game {mine['seed']}: the logs differ"
        assert other["verdict"] == mine["verdict"]
        assert mine["exit"] == 0 and mine["verdict"]["ok"]
    assert in_browser == here  # byte for byte
    versions = page.evaluate(
        "window.twentynine.offline.evaluate('import sys; sys.platform + \" \" + sys.version')"
    )
    assert versions.startswith("emscripten")
