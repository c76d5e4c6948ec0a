"""``twentynine bench pyodide``: the search bots' decisions with the plain-Python
solver, in the browser (Pyodide in headless chromium) and in CPython.

Offline play runs the bots in Pyodide, where numba is missing and the solver
is the plain-Python kernel. This measures the very decisions a player waits
for there: deals dealt from ``--seed`` are played by casual bots, and at
every turn each level decides the same observation twice, as it plays now
and as it played before the plain-Python kernel had a node limit (the
baseline), alternating which goes first (``offline.checks.paired_times``).

Printed per place, level and variant: median, p95 and the worst of every
decision, and the same of the cards of the first trick (the heaviest: the
whole deal is still to solve), plus the solver's nodes per second there.

- ``browser``: the app served by a server of its own (a subprocess on a free
  loopback port), the engine's worker in headless chromium (Playwright,
  Debian's ``/usr/bin/chromium``), the code run there by ``evaluate``;
- ``cpython``: a subprocess with ``TWENTYNINE_NO_NUMBA=1`` (the kernel is then
  plain Python, as in the browser): a cheaper proxy to iterate on.

The browser part needs the test extra (playwright), chromium and Pyodide's
files (``scripts/ensure-chromium``, ``scripts/ensure-pyodide``).

``--strength N`` also plays N duplicate deals (``services.arena``) between each
level as it plays in the browser and the same level in the baseline, on the
server (the compiled kernel, no limit) and ``casual`` (what a slow device gets).
The browser's decisions depend only on the solver's node counts, which the
compiled kernel gives exactly as the plain one does, so these games run with
the compiled kernel standing in for the plain one: the same decisions, fast.
Needs numba.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from typing import Any

from .localhost import CHROMIUM_ARGS, stop

PLACES = ("browser", "cpython")
# The page's own speed probe (a second worker) is not measured here: a probe
# already kept keeps the CPU for the figures.
NO_PROBE = """async () => {
  const config = await (await fetch('/offline/config.json')).json();
  const version = `${config.pyodide_version} ${config.bundle}`;
  const probe = { version, times: [0], level: 'casual' };
  localStorage.setItem('twentynine.offline.probe', JSON.stringify(probe));
}"""


def code_for(levels: list[str], deals: int, seed: int, profile: str, limit: int | None) -> str:
    """The Python that measures, run in the browser's worker or in a subprocess."""
    return (
        "import json\nfrom twentynine.offline.checks import paired_times\n"
        f"json.dumps(paired_times({levels!r}, {deals}, {seed}, {profile!r}, {limit!r}))"
    )


def in_browser(code: str) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    from .browser import EVAL, start_server

    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    proc, url = start_server()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
            try:
                page = browser.new_page()
                page.set_default_timeout(3_600_000)
                page.goto(url + "/")
                page.wait_for_function("() => window.twentynine")
                if not page.evaluate("window.twentynine.offline.available()"):
                    raise RuntimeError("the app serves no Pyodide: run scripts/ensure-pyodide")
                page.evaluate(NO_PROBE)
                page.evaluate("window.twentynine.offline.startEngine()")
                result: dict[str, Any] = json.loads(page.evaluate(EVAL, code))
                result["python"] = page.evaluate(
                    EVAL, "import sys; sys.platform + ' ' + sys.version.split()[0]"
                )
                return result
            finally:
                browser.close()
    finally:
        stop(proc)


def in_cpython(code: str) -> dict[str, Any]:
    env = {**os.environ, "TWENTYNINE_NO_NUMBA": "1"}
    script = code.rsplit("\n", 1)
    script[-1] = f"print({script[-1]})"
    done = subprocess.run(
        [sys.executable, "-c", "\n".join(script)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the CPython run failed: {done.stderr.strip()[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout)
    if result["compiled"]:
        raise RuntimeError("TWENTYNINE_NO_NUMBA=1 did not make the solver plain Python")
    result["python"] = f"cpython {sys.version.split()[0]}"
    return result


def summary(rows: list[list[Any]]) -> dict[str, float]:
    """Median, p95 and the worst, in ms; ``n`` decisions."""
    ts = sorted(r[0] for r in rows)
    if not ts:
        return {"n": 0, "median_ms": 0.0, "p95_ms": 0.0, "max_ms": 0.0}
    return {
        "n": len(ts),
        "median_ms": statistics.median(ts) * 1000,
        "p95_ms": ts[min(len(ts) - 1, int(0.95 * len(ts)))] * 1000,
        "max_ms": ts[-1] * 1000,
    }


def summarise(raw: dict[str, Any]) -> dict[str, Any]:
    """Per level and variant: every decision, the first trick's, and nodes per second."""
    out: dict[str, Any] = {"python": raw.get("python"), "levels": {}}
    for level, variants in raw["levels"].items():
        out["levels"][level] = {}
        for variant, rows in variants.items():
            seconds = sum(r[0] for r in rows)
            nodes = sum(r[1] for r in rows)
            out["levels"][level][variant] = {
                "all": summary(rows),
                "first_trick": summary([r for r in rows if r[2]]),
                "nodes_per_s": nodes / seconds if seconds > 0 else 0.0,
            }
    return out


def measure(
    places: list[str],
    levels: list[str],
    deals: int,
    seed: int,
    profile: str,
    max_decisions: int | None = None,
) -> dict[str, Any]:
    code = code_for(levels, deals, seed, profile, max_decisions)
    out: dict[str, Any] = {"profile": profile, "deals": deals, "seed": seed, "places": {}}
    for place in places:
        before = os.getloadavg()[0]
        raw = in_browser(code) if place == "browser" else in_cpython(code)
        out["places"][place] = summarise(raw)
        out["places"][place]["load"] = [before, os.getloadavg()[0]]
    return out


OPPONENTS = ("baseline", "server", "casual")


def _as_played(spec: str, seed: int) -> Any:
    """A bot for the strength games: ``level`` as in the browser, ``level:baseline``,
    ``level:server``, or another level as it is; no wall clock (repeatable)."""
    from ..bots import make_bot
    from ..bots.solving import solver

    level, _, variant = spec.partition(":")
    bot: Any = make_bot(level, seed=seed)
    if hasattr(bot, "wall_guard"):
        bot.wall_guard = None
    if variant == "baseline":
        bot.pure_node_limit = None
    elif variant == "server":
        plain = bot.act

        def act(obs: Any, budget: float | None = None) -> Any:
            s = solver()
            s.compiled = True  # the stand-in decides as the compiled kernel does
            try:
                return plain(obs, budget)
            finally:
                s.compiled = False

        bot.act = act
    return bot


def strength(levels: list[str], deals: int, seed: int, profile: str) -> list[dict[str, Any]]:
    """Duplicate deals between each level as in the browser and its ``OPPONENTS``."""
    from ..bots.solving import use_solver
    from ..game.rules import PROFILES
    from ..services.arena import play_board, summarise
    from ..solver import Solver, numba_available

    if not numba_available():
        raise RuntimeError("--strength needs numba (the compiled kernel stands in for the plain)")
    stand_in = Solver("numba")
    stand_in.compiled = False  # the bots decide as with the plain kernel: the same nodes
    saved = use_solver(stand_in)
    out = []
    try:
        for level in levels:
            for other in OPPONENTS:
                b = other if other == "casual" else f"{level}:{other}"
                boards = [
                    play_board(PROFILES[profile], level, b, i, seed, _as_played)
                    for i in range(deals)
                ]
                out.append(summarise(level, b, boards).to_json())
    finally:
        use_solver(saved)
    return out


def _line(name: str, s: dict[str, float]) -> str:
    return (
        f"{name} {s['n']:>4}: median {s['median_ms']:7.1f} ms, p95 {s['p95_ms']:7.0f} ms, "
        f"worst {s['max_ms']:6.0f} ms"
    )


def report(result: dict[str, Any]) -> str:
    lines = [f"search bots with the plain-Python solver, profile {result['profile']}"]
    if result["places"]:
        lines[0] += (
            f", {result['deals']} deals from seed {result['seed']} (played by casual bots), "
            "every decision timed now and in the baseline (no node limit)"
        )
    for place, r in result["places"].items():
        load = ", ".join(f"{x:.1f}" for x in r["load"])
        lines.append(f"  {place} ({r['python']}; load average before, after: {load})")
        for level, variants in r["levels"].items():
            for variant, v in variants.items():
                lines.append(
                    f"    {level:<9} {variant:<8} {_line('all', v['all'])} | "
                    f"{_line('first trick', v['first_trick'])} | "
                    f"{v['nodes_per_s'] / 1000:.0f} k nodes/s"
                )
    if result.get("strength"):
        lines.append(
            f"  strength: {result['strength'][0]['deals']} duplicate deals each, game points per "
            "deal A - B (95% interval); A plays as in the browser"
        )
        for m in result["strength"]:
            low, high = m["ci95"]
            interval = f"({low:+.3f} .. {high:+.3f})"
            lines.append(f"    {m['a']} vs {m['b']:<16} {m['mean']:+.3f} {interval}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="twentynine bench pyodide", description=__doc__)
    p.add_argument("--where", default="browser,cpython", help="browser, cpython or both")
    p.add_argument("--levels", default="strong,expert", help="comma-separated bot levels")
    p.add_argument("--deals", type=int, default=3, help="deals")
    p.add_argument("--seed", type=int, default=29)
    p.add_argument("--profile", default="pagat")
    p.add_argument("--max-decisions", type=int, default=None, help="turns timed per deal")
    p.add_argument("--strength", type=int, default=0, metavar="N", help="duplicate deals")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = p.parse_args(argv)
    places = [w for w in args.where.split(",") if w]
    if any(w not in PLACES for w in places):
        p.error(f"--where takes {', '.join(PLACES)}")
    from ..bots import LEVELS
    from ..game.rules import PROFILES

    levels = args.levels.split(",")
    if any(level not in LEVELS for level in levels):
        p.error(f"levels are: {', '.join(LEVELS)}")
    if args.profile not in PROFILES:
        p.error(f"profiles are: {', '.join(PROFILES)}")
    try:
        result = measure(places, levels, args.deals, args.seed, args.profile, args.max_decisions)
        if args.strength:
            result["strength"] = strength(levels, args.strength, args.seed, args.profile)
    except (ImportError, RuntimeError) as e:
        print(f"twentynine bench pyodide: {e}", file=sys.stderr)
        return 2
    print(json.dumps(result, indent=2) if args.json else report(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
