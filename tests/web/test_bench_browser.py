"""``twentynine bench browser`` and ``twentynine bench pyodide`` run on a tiny input
and print their figures."""

from __future__ import annotations

import json
import subprocess
import sys
import time

from .conftest import _missing


def test_the_browser_benchmark_runs(browser: object) -> None:
    from twentynine.web.app import pyodide_version

    if pyodide_version() is None:
        _missing("Pyodide is not installed (scripts/ensure-pyodide)")
    tiny = ["--runs", "1", "--deals", "1", "--levels", "random", "--only", "engine,trick", "--json"]
    done = subprocess.run(
        [sys.executable, "-m", "twentynine.benchmarks.browser", *tiny],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["download"]["sent"] < result["download"]["unpacked"]
    assert result["cold"][0]["total_ms"] > 0 and result["warm"][0]["total_ms"] > 0
    assert result["levels"]["random"]["n"] > 30
    assert result["probe"]["level"] in ("expert", "strong", "casual")
    presented, raf = result["animations"]["presented"], result["animations"]["raf"]
    assert presented["frames"] > 30 and 0 < presented["fps"] <= 60
    assert presented["shown"] + presented["dropped"] == presented["frames"]
    assert raf["frames"] > 30 and raf["fps"] > 0
    for figures in (presented, raf):
        assert figures["motions"].get("play", 0) >= 1 and figures["motions"].get("sweep", 0) >= 1


def test_the_browser_benchmark_measures_each_kind_of_motion(browser: object) -> None:
    from twentynine.benchmarks.animations import KINDS

    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "twentynine.benchmarks.browser", "--only", "kinds", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    took = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    motions = json.loads(done.stdout)["motions"]
    assert motions["throttle"] == 4 and len(motions["runs"]) == 1
    stretches = motions["runs"][0]["stretches"]
    assert {kind for s in stretches for kind in s["kinds"]} == set(KINDS)
    for kind in KINDS:
        figures = motions["kinds"][kind]
        assert figures["stretches"] >= 1 and figures["frames"] > 0, (kind, figures)
        assert figures["shown"] + figures["dropped"] == figures["frames"], (kind, figures)
        assert 0 < figures["fps"] <= 60, (kind, figures)
    # a short deal (the fewest cards with every kind in it): the suite stays quick
    assert took < 120, took


def test_the_pyodide_benchmark_runs_on_a_tiny_input(browser: object) -> None:
    from twentynine.web.app import pyodide_version

    if pyodide_version() is None:
        _missing("Pyodide is not installed (scripts/ensure-pyodide)")
    tiny = ["--where", "browser", "--levels", "strong", "--deals", "1", "--max-decisions", "3"]
    done = subprocess.run(
        [sys.executable, "-m", "twentynine.benchmarks.pyodide", *tiny, "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    browser_figures = result["places"]["browser"]
    assert browser_figures["python"].startswith("emscripten")
    strong = browser_figures["levels"]["strong"]
    assert strong["baseline"]["all"]["n"] == strong["now"]["all"]["n"] == 3
