"""``twentynine bench browser``: the engine in the browser (Pyodide), in headless chromium.

Serves the app from a server of its own (a subprocess on a free loopback
port), then, in headless chromium (Playwright, Debian's ``/usr/bin/chromium``):

- the download: what the browser fetches the first time, gzipped as sent,
  and its size once unpacked (Pyodide's files and the package's zip);
- the cold start: a fresh browser profile (nothing cached) until the engine
  in the page's worker is ready for a game; ``--runs`` times;
- the warm start: the same page reloaded (everything from the cache);
- bot decision times in Pyodide, every decision of ``--deals`` deals per level
  (the levels playing against themselves), median, p95 and the slowest;
- the level this device gets by default (the page's own speed probe);
- the animations: frames per second over one trick's motion with the CPU
  throttled four times (a phone-class CPU), and the layout shift meanwhile
  (``animations.py``);
- each kind of motion (the deal, a card played, the hand closing up, the
  trick's winner, the sweep, the trump revealed, the pair, a double, the
  result and the score): the presented frames and layout shift of a whole
  deal against the quick bots, counted for each kind in the stretches where
  it ran; ``--motion-runs`` games, the medians.

``--only`` picks the parts: ``engine`` (the first five), ``trick``, ``kinds``.

Needs the test extra (playwright) and chromium: ``make test`` installs both.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import urllib.request
from typing import Any

from .localhost import CHROMIUM_ARGS, free_port, stop


def start_server(bot_delay_ms: int = 0) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {**os.environ, "TWENTYNINE_DB": ":memory:", "TWENTYNINE_BOT_DELAY_MS": str(bot_delay_ms)}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "--factory",
            "twentynine.web.app:create_app",
            "--port",
            str(port),
            "--log-level",
            "warning",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=1):
                return proc, url
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError("the app server did not start") from None
            time.sleep(0.1)


def download_size() -> dict[str, int]:
    """Bytes of the first download: as sent (gzip where the app has it) and unpacked."""
    from ..offline.bundle import build
    from ..web.app import PYODIDE, PYODIDE_FILES

    sent = unpacked = 0
    for name in PYODIDE_FILES:
        raw = (PYODIDE / name).stat().st_size
        packed = PYODIDE / f"{name}.gz"
        unpacked += raw
        sent += packed.stat().st_size if packed.is_file() else raw
    bundle = len(build().data)
    return {"sent": sent + bundle, "unpacked": unpacked + bundle, "bundle": bundle}


def summary(times: list[float]) -> dict[str, float]:
    ts = sorted(times)
    return {
        "n": len(ts),
        "median_ms": statistics.median(ts) * 1000,
        "p95_ms": ts[min(len(ts) - 1, int(0.95 * len(ts)))] * 1000,
        "max_ms": ts[-1] * 1000,
    }


START = """async () => {
  const t = performance.now();
  const timings = await window.twentynine.offline.startEngine();
  return { ...timings, page_ms: Math.round(performance.now() - t) };
}"""
EVAL = "(code) => window.twentynine.offline.evaluate(code)"


PARTS = ("engine", "trick", "kinds")


def measure_animations(
    chromium: str, throttle: float, parts: tuple[str, ...] = PARTS, motion_runs: int = 1
) -> dict[str, Any]:
    """One trick's motion (``animations``) and each kind's (``motions``), on a server whose
    bots take their usual time (cards arrive paced)."""
    from . import animations

    out: dict[str, Any] = {}
    proc, url = start_server(bot_delay_ms=350)
    try:
        if "trick" in parts:
            out["animations"] = animations.measure(url, chromium, CHROMIUM_ARGS, throttle)
        if "kinds" in parts:
            out["motions"] = animations.measure_kinds(
                url, chromium, CHROMIUM_ARGS, throttle, motion_runs
            )
    finally:
        stop(proc)
    return out


def measure(
    levels: list[str],
    deals: int,
    runs: int,
    throttle: float = 4.0,
    parts: tuple[str, ...] = PARTS,
    motion_runs: int = 1,
) -> dict[str, Any]:
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    out: dict[str, Any] = {}
    if "engine" in parts:
        out = measure_engine(chromium, levels, deals, runs)
    if "trick" in parts or "kinds" in parts:
        out.update(measure_animations(chromium, throttle, parts, motion_runs))
    return out


def measure_engine(chromium: str, levels: list[str], deals: int, runs: int) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    proc, url = start_server()
    out: dict[str, Any] = {"download": download_size(), "cold": [], "warm": [], "levels": {}}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
            for run in range(runs):
                context = browser.new_context(service_workers="allow")
                page = context.new_page()
                page.set_default_timeout(600_000)
                page.goto(url + "/")
                page.wait_for_function("() => window.twentynine")
                if not page.evaluate("window.twentynine.offline.available()"):
                    raise RuntimeError("the app serves no Pyodide: run scripts/ensure-pyodide")
                out["cold"].append(page.evaluate(START))
                # the page's own speed probe (in a worker of its own)
                out["probe"] = page.evaluate("window.twentynine.offline.probed()")
                page.reload()
                page.wait_for_function("() => window.twentynine")
                out["warm"].append(page.evaluate(START))
                if run == runs - 1:
                    for level in levels:
                        code = (
                            "import json\nfrom twentynine.offline.checks import decision_times\n"
                            f"json.dumps(decision_times({level!r}, {deals}))"
                        )
                        times = json.loads(page.evaluate(EVAL, code))
                        out["levels"][level] = summary(times)
                context.close()
            browser.close()
    finally:
        stop(proc)
    return out


def _ms(values: list[dict[str, Any]], key: str) -> str:
    return ", ".join(f"{v[key] / 1000:.2f}" for v in values)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="twentynine bench browser", description=__doc__)
    p.add_argument("--levels", default="casual,strong", help="comma-separated bot levels")
    p.add_argument("--deals", type=int, default=4, help="deals per level")
    p.add_argument("--runs", type=int, default=2, help="cold and warm starts")
    p.add_argument("--throttle", type=float, default=4.0, help="CPU slowdown for the animations")
    p.add_argument(
        "--motion-runs", type=int, default=1, help="games for each kind of motion (medians)"
    )
    p.add_argument(
        "--only", default=",".join(PARTS), help=f"comma-separated parts: {', '.join(PARTS)}"
    )
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = p.parse_args(argv)
    parts = tuple(x.strip() for x in args.only.split(",") if x.strip())
    unknown = sorted(set(parts) - set(PARTS))
    if unknown or not parts or args.motion_runs < 1:
        p.error(f"--only takes {', '.join(PARTS)}; --motion-runs at least 1")
    try:
        result = measure(
            args.levels.split(","), args.deals, args.runs, args.throttle, parts, args.motion_runs
        )
    except (ImportError, RuntimeError) as e:
        print(f"twentynine bench browser: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    if "engine" in result:
        print_engine(result)
    if "animations" in result:
        print_trick(result["animations"])
    if "motions" in result:
        print_kinds(result["motions"])
    return 0


def print_engine(result: dict[str, Any]) -> None:
    d = result["download"]
    print("the engine in the browser (Pyodide, headless chromium)")
    print(
        f"  first download: {d['sent'] / 1e6:.1f} MB sent (gzip), "
        f"{d['unpacked'] / 1e6:.1f} MB unpacked (package zip {d['bundle'] / 1e3:.0f} kB)"
    )
    print(f"  cold start (s): {_ms(result['cold'], 'page_ms')}")
    print(f"  warm start (s): {_ms(result['warm'], 'page_ms')}")
    for level, s in result["levels"].items():
        print(
            f"  {level:<7} {s['n']:>5} decisions: median {s['median_ms']:8.2f} ms, "
            f"p95 {s['p95_ms']:8.2f} ms, worst {s['max_ms']:8.2f} ms"
        )
    probe = result.get("probe") or {}
    if probe:
        slowest = max(probe["times"]) * 1000
        print(
            f"  default level here: {probe['level']} "
            f"(the strong bot's slowest probed decision: {slowest:.0f} ms)"
        )


def print_trick(animations: dict[str, Any]) -> None:
    a, r = animations["presented"], animations["raf"]
    print(
        f"  animations (a trick at 390x844, CPU x{a['throttle']:g}): "
        f"{a['fps']:.1f} fps presented ({a['shown']} of {a['frames']} frames a motion wanted, "
        f"{a['partial']} of them without the page thread's latest, {a['dropped']} dropped), "
        f"layout shift {a['layout_shift']:.3f}"
    )
    print(
        f"    the next trick on the page's thread (requestAnimationFrame): {r['fps']:.1f} fps "
        f"over {r['frames']} frames, median {r['median_ms']:.1f} ms, p95 {r['p95_ms']:.1f} ms, "
        f"worst {r['worst_ms']:.1f} ms, {r['long_frames']} frames over 33 ms"
    )
    print("    motions: " + ", ".join(f"{k} {n}" for k, n in a["motions"].items()))


def print_kinds(motions: dict[str, Any]) -> None:
    runs = len(motions["runs"])
    stretches = len(motions["runs"][0]["stretches"])
    print(
        f"  each kind of motion (a deal of {motions['profile']} seed {motions['seed']} at 390x844, "
        f"CPU x{motions['throttle']:g}; {stretches} stretches from a tap or an update to the end "
        f"of its motions; medians of {runs} run{'s' if runs > 1 else ''}):"
    )
    print(
        f"    {'kind':<8} {'stretches':>9} {'shared':>6} {'frames wanted':>13} "
        f"{'dropped':>7} {'presented fps':>13} {'layout shift':>12}"
    )
    for kind, k in motions["kinds"].items():
        print(
            f"    {kind:<8} {k['stretches']:>9g} {k['shared']:>6g} {k['frames']:>13g} "
            f"{k['dropped']:>7g} {k['fps']:>13.1f} {k['layout_shift']:>12.3f}"
        )
    print(
        "    a stretch where several kinds ran counts for each of them "
        "(shared: the stretches where another kind ran too)"
    )


if __name__ == "__main__":
    raise SystemExit(main())
