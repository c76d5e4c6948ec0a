"""``twentynine bench load``: online rooms under load, over loopback.

The real server (``twentynine serve``, uvicorn) runs as one process, or as N
equal processes (``--processes N``), on free ports of 127.0.0.1, with no bot
delay, no bot workers (the tables hold people only) and a short trick pause.
One process keeps its games in a database of its own (a temporary SQLite
file, or ``:memory:``); N processes share a throw-away PostgreSQL database
and a throw-away Redis, started for each step and stopped after it
(``--shared`` puts a single process on them too: the baseline to compare N
processes with). The clients are M rooms of four people each, who create,
join, sit and start the room through the protocol, then play a random legal
action whenever their seat has one, after a think time (``--think-ms``: each
wait is drawn from half to one and a half times it; 0, the default, is the
stress test: every room keeps one action in flight). The host asks for the
next deal when a deal ends; when a match is over the four open a new room on
the same connections and play on. With N processes the people of a room
connect to different ones (seat ``s`` of room ``i`` to process ``(i + s) % N``)
and the room's owner, the host's process, gets the others' messages through
Redis (``--together``: all four connect to the host's process, as behind a proxy
that keeps a room together, and nothing is relayed). The clients run in this
process, or in several client processes when there are many of them
(``--client-processes``), so that the clients are not what is measured.

The figure measured is an action's round trip: from sending ``act`` to
receiving its ``ack``. For each M it reports p50, p95, p99 and the worst,
actions per second, every error, skipped versions and stalled tables, the
servers' memory and CPU summed over their processes, the memory of a room
(the servers' growth over their idle start, per room) and the CPU of an
action (the servers' CPU seconds over the actions), and two figures that say
where the time goes: the p99 of a ping on a socket of its own (a server's
event loop, outside any game) and how late the clients' own event loops wake
up. M grows step by step (1, 2, 4, ...; 64, 128, ... with think time) while
p99 stays under the target (100 ms), and a few steps between the last M under
the target and the first over it narrow the answer down. Each step has fresh
servers, so no step pays for the games of the one before.

``--processes 1,2`` and ``--think-ms 0,1000`` measure each combination in one
run (a series each), and the report ends with the largest M under the target
for each number of processes, in stress mode and with think time.

Bounds: without think time at most 128 rooms a server process (a finished
match's game stays until it is swept), with it at most 4,000 a server process
(each then keeps games and rooms enough: ``TWENTYNINE_MAX_GAMES`` and
``TWENTYNINE_MAX_ROOMS``), at most 8 server processes, at most 300 seconds per
step's measure and ``--budget`` seconds (up to four hours) for the whole run;
a step stops early if a server or a client process uses more memory than
``--max-rss-mb``. The limit of open files is raised to its hard limit, and a
run that could not open its sockets within it is refused. Every process
started is stopped at the end of its step, on errors and on Ctrl-C (and, on
Linux, if this process dies).

All the processes share the machine, so the figures are the servers' and the
clients' together.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import resource
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from ..game.rules import PROFILES
from .load_people import CLIENT_FDS, Settings
from .load_servers import (
    HOST,
    SERVER_FDS,
    Shared,
    StepTimeout,
    Unavailable,
    hard_limit,
    raise_fd_limit,
    running_fleet,
    serve_has_redis,
    server_env,
    server_room_cap,
)
from .load_step import run_step

MAX_ROOMS = 128  # a server process, without think time: well past saturation here
MAX_THINK_ROOMS = 4000  # a server process, with think time (16,000 sockets)
THINK_START = 64  # the first step with think time (fewer rooms hardly load a server)
MAX_PROCESSES = 8
MAX_CLIENT_PROCESSES = 16
CLIENTS_PER_PROCESS = 2000  # sockets a client process plays at most (``auto``)
MAX_SPECTATORS = 4
MAX_THINK_MS = 60_000.0
MAX_STEP_SECONDS = 300.0
MAX_BUDGET = 4 * 3600.0

Msg = dict[str, Any]


# ------------------------------------------------------------------ the plan


def doubling(start: int, stop: int) -> list[int]:
    out, m = [], max(1, start)
    while m <= stop:
        out.append(m)
        m *= 2
    if out and out[-1] != stop and stop > out[-1]:
        out.append(stop)
    return out


def _counts(name: str, low: int, high: int | None = None) -> Any:
    """An argparse type: a comma-separated list of whole numbers from ``low`` (to ``high``)."""

    def parse(text: str) -> list[int]:
        try:
            values = [int(x) for x in text.split(",") if x.strip()]
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{name} is a comma-separated list of whole numbers, e.g. 1,2"
            ) from None
        if not values or any(v < low for v in values):
            raise argparse.ArgumentTypeError(f"{name} counts must be at least {low}")
        if high is not None and any(v > high for v in values):
            raise argparse.ArgumentTypeError(f"{name} counts must be at most {high}")
        return sorted(set(values))

    return parse


_parse_rooms = _counts("--rooms", 1)


def _parse_think(text: str) -> list[float]:
    try:
        values = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            "--think-ms is a comma-separated list of milliseconds, e.g. 0,1000"
        ) from None
    if not values or any(not 0 <= v <= MAX_THINK_MS for v in values):  # (NaN fails too)
        raise argparse.ArgumentTypeError(
            f"--think-ms values must be from 0 to {MAX_THINK_MS:.0f} milliseconds"
        )
    return sorted(set(values))


def _parse_client_processes(text: str) -> int | None:
    if text == "auto":
        return None
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("--client-processes is a count or auto") from None
    if not 1 <= value <= MAX_CLIENT_PROCESSES:
        raise argparse.ArgumentTypeError(
            f"--client-processes must be from 1 to {MAX_CLIENT_PROCESSES} (or auto)"
        )
    return value


def client_processes(rooms: int, spectators: int, asked: int | None) -> int:
    """How many client processes play ``rooms`` tables (``asked``, or one a 2,000 sockets)."""
    if asked is not None:
        return max(1, min(asked, rooms))
    sockets = rooms * (4 + spectators)
    return max(1, min(MAX_CLIENT_PROCESSES, rooms, math.ceil(sockets / CLIENTS_PER_PROCESS)))


def files_needed(rooms: int, spectators: int, processes: int, asked: int | None) -> int:
    """The open files the busiest process of a step needs: a server's clients, or a client
    process's sockets (the probes and the pipes besides)."""
    sockets = rooms * (4 + spectators)
    per_server = math.ceil(sockets / processes) + SERVER_FDS
    per_client = math.ceil(sockets / client_processes(rooms, spectators, asked)) + CLIENT_FDS
    return max(per_server, per_client)


@dataclass
class Series:
    """The steps of one number of server processes and one think time."""

    processes: int
    think_ms: float
    shared: bool  # on PostgreSQL and Redis (else one process on SQLite)
    plan: list[int]
    explicit: bool  # the rooms were given: measure them all, refine nothing
    steps: list[Msg] = field(default_factory=list)
    stopped: str | None = None

    @property
    def mode(self) -> str:
        return "think" if self.think_ms > 0 else "stress"

    def backend(self, memory_db: bool) -> str:
        if self.shared:
            return "PostgreSQL + Redis"
        return "SQLite :memory:" if memory_db else "SQLite temp file"

    def best(self, target_ms: float) -> Msg | None:
        """The step of the largest M that, with every smaller M measured, met the target."""
        limit = min((r["rooms"] for r in self.steps if not _passes(r, target_ms)), default=math.inf)
        return max(
            (r for r in self.steps if r["rooms"] < limit), key=lambda r: r["rooms"], default=None
        )

    def kb_per_room(self) -> float | None:
        """The servers' memory for one room more: the growth of their peak from the fewest
        rooms measured to the most, per room (the first rooms carry the servers' own
        warm-up, which ``server_kb_per_room`` of a small step counts in)."""
        ok = [r for r in self.steps if not r["aborted"] and r["server_rss_mb"]]
        if len(ok) < 2:
            return None
        lo, hi = min(ok, key=lambda r: r["rooms"]), max(ok, key=lambda r: r["rooms"])
        if hi["rooms"] == lo["rooms"]:
            return None
        grown = hi["server_rss_mb"] - lo["server_rss_mb"]
        return round(grown * 1024 / (hi["rooms"] - lo["rooms"]), 1)

    def summary(self, target_ms: float, memory_db: bool) -> Msg:
        best = self.best(target_ms)
        return {
            "processes": self.processes,
            "think_ms": self.think_ms,
            "mode": self.mode,
            "backend": self.backend(memory_db),
            "steps": sorted(self.steps, key=lambda r: r["rooms"]),
            "largest_rooms_under_target": best["rooms"] if best else None,
            "most_rooms_measured": max((r["rooms"] for r in self.steps), default=0),
            "server_kb_per_extra_room": self.kb_per_room(),
            "stopped": self.stopped,
        }


def _passes(result: Msg, target_ms: float) -> bool:
    p99 = result["p99_ms"]
    return (
        p99 is not None
        and p99 < target_ms
        and result["errors"] == 0
        and not result["aborted"]
        and result["actions"] > 0
    )


# ------------------------------------------------------------------ the report


def _fmt(x: float | None, width: int, digits: int = 1) -> str:
    return f"{'-':>{width}}" if x is None else f"{x:>{width}.{digits}f}"


def _row(r: Msg) -> str:
    line = (
        f"{r['rooms']:>5} {r['clients']:>7} {r['actions']:>8} {_fmt(r['actions_per_s'], 7)} "
        f"{_fmt(r['p50_ms'], 7)} {_fmt(r['p95_ms'], 7)} {_fmt(r['p99_ms'], 7)} "
        f"{_fmt(r['max_ms'], 7)} {r['errors']:>6} {_fmt(r['server_rss_mb'], 7, 0)} "
        f"{_fmt(r.get('server_kb_per_room'), 6, 0)} {_fmt(r['server_cpu_pct'], 6, 0)} "
        f"{_fmt(r.get('server_cpu_ms_per_action'), 6, 2)} {_fmt(r['clients_cpu_pct'], 6, 0)} "
        f"{_fmt(r['ping_p99_ms'], 7)} {_fmt(r['client_lag_p99_ms'], 7)} "
        f"{_fmt(r['loadavg_1min'], 5)}"
    )
    if r.get("client_processes", 1) > 1:
        line += f"  ({r['client_processes']} client processes)"
    if r["aborted"]:
        line += f"  stopped: {r['aborted']}"
    elif r["error_codes"]:
        line += "  " + ", ".join(f"{k} x{v}" for k, v in r["error_codes"].items())
    return line


HEADER = (
    "rooms clients  actions   act/s  p50 ms  p95 ms  p99 ms  max ms errors  srv MB kB/rm"
    "  srv % ms/act  cli % ping99  lag99  load"
)


def _largest_table(series: list[Series], target_ms: float) -> list[str]:
    """Largest M under the target: a row per number of processes, a column per think time."""
    thinks = sorted({s.think_ms for s in series})
    heads = [("stress" if t == 0 else f"think {t:g} ms") for t in thinks]
    lines = [
        f"largest M with p99 < {target_ms:g} ms (rooms):",
        "  processes " + "".join(f"{h:>16}" for h in heads),
    ]
    for n in sorted({s.processes for s in series}):
        cells = []
        for t in thinks:
            found = [x for x in series if x.processes == n and x.think_ms == t]
            best = found[0].best(target_ms) if found else None
            if not found:
                cells.append("")
            elif best is None:
                cells.append("none")
            else:
                most = max(r["rooms"] for r in found[0].steps)
                cells.append(f"{best['rooms']}" + ("+" if best["rooms"] >= most else ""))
        lines.append(f"  {n:>9}" + "".join(f"{c:>16}" for c in cells))
    lines.append("  (+: the most measured, more might pass)")
    return lines


# ------------------------------------------------------------------ the command


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="twentynine bench load",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--rooms",
        type=_parse_rooms,
        help="the room counts to measure, e.g. 1,4,16 (default: 1, 2, 4, ... up to --max-rooms"
        f" ({THINK_START}, {2 * THINK_START}, ... with think time), then a few steps between"
        " the last under the target and the first over)",
    )
    p.add_argument(
        "--max-rooms",
        type=int,
        help=f"the most rooms a series grows to (default and at most: {MAX_ROOMS} a server"
        f" process, {MAX_THINK_ROOMS} with think time)",
    )
    p.add_argument(
        "--processes",
        type=_counts("--processes", 1, MAX_PROCESSES),
        default=[1],
        metavar="N[,N...]",
        help="server processes sharing PostgreSQL and Redis, e.g. 1,2 (a series each;"
        " default 1: one process on SQLite)",
    )
    p.add_argument(
        "--shared",
        action="store_true",
        help="one process too on PostgreSQL and Redis (the baseline for --processes 1,2)",
    )
    p.add_argument(
        "--together",
        action="store_true",
        help="with N processes, the four people of a room connect to the room's own process"
        " (a proxy that keeps a room together), instead of one each to different processes",
    )
    p.add_argument(
        "--think-ms",
        type=_parse_think,
        default=[0.0],
        metavar="MS[,MS...]",
        help="mean think time of a person before each action, e.g. 1000, or 0,1000 for a"
        " series each (default 0: the stress test)",
    )
    p.add_argument(
        "--client-processes",
        type=_parse_client_processes,
        default=None,
        metavar="K|auto",
        help=f"processes that play the clients (default auto: one a {CLIENTS_PER_PROCESS}"
        " sockets; 1: this process)",
    )
    p.add_argument("--seconds", type=float, default=20.0, help="measured seconds per step")
    p.add_argument(
        "--warmup",
        type=float,
        help="unmeasured seconds first (default 2, or twice the think time if longer)",
    )
    p.add_argument("--budget", type=float, default=900.0, help="seconds for the whole run")
    p.add_argument("--spectators", type=int, default=0, help="spectators per room (default 0)")
    p.add_argument("--target-ms", type=float, default=100.0, help="the p99 to stay under")
    p.add_argument("--refine", type=int, default=3, help="extra steps to narrow the largest M")
    p.add_argument("--profile", default="pagat", choices=sorted(PROFILES))
    p.add_argument(
        "--length",
        choices=["match", "single"],
        default="match",
        help="match (default): a finished match opens a new room; single: deals without end",
    )
    p.add_argument("--target", type=int, help="game points that end a match (default: profile)")
    p.add_argument("--trick-pause-ms", type=int, default=50, help="server's trick pause")
    p.add_argument("--memory-db", action="store_true", help="--db :memory: (default: temp file)")
    p.add_argument("--max-rss-mb", type=float, default=2048.0, help="memory cap per process")
    p.add_argument("--seed", type=int, default=29)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--server-log", metavar="FILE", help="append each step's server log here")
    args = p.parse_args(argv)

    thinking = max(args.think_ms) > 0
    most_processes = max(args.processes)
    cap_stress = MAX_ROOMS * most_processes
    cap_think = MAX_THINK_ROOMS * most_processes
    cap = cap_think if thinking else cap_stress
    if args.max_rooms is not None and not 1 <= args.max_rooms <= cap:
        p.error(f"--max-rooms must be from 1 to {cap}")
    if args.rooms and max(args.rooms) > cap:
        p.error(f"at most {cap} rooms" + ("" if thinking else " without think time"))
    if not 0 < args.seconds <= MAX_STEP_SECONDS or (args.warmup is not None and args.warmup < 0):
        p.error(f"--seconds must be above 0 and at most {MAX_STEP_SECONDS:.0f}")
    if not 0 < args.budget <= MAX_BUDGET:
        p.error(f"--budget must be above 0 and at most {MAX_BUDGET:.0f} seconds")
    if not 0 <= args.spectators <= MAX_SPECTATORS:
        p.error(f"--spectators must be from 0 to {MAX_SPECTATORS}")
    if args.trick_pause_ms < 0 or args.max_rss_mb <= 0:
        p.error("--trick-pause-ms cannot be negative, --max-rss-mb must be above 0")
    if args.target is not None and args.target < 1:
        p.error("--target must be at least 1")
    if args.memory_db and args.shared:
        p.error("--memory-db is for one process on SQLite, not with --shared")

    # the series: each think time, each number of processes
    room_cap = server_room_cap()  # None: the servers keep as many rooms as they are told
    # (a server that keeps a fixed number of rooms: a default plan stays below it, with
    # room for the rooms of finished matches until they are swept)
    kept = MAX_THINK_ROOMS if room_cap is None else min(MAX_THINK_ROOMS, room_cap * 9 // 10)
    series: list[Series] = []
    for think in args.think_ms:
        per_process = MAX_THINK_ROOMS if think > 0 else MAX_ROOMS
        for n in args.processes:
            default_top = (kept if think > 0 else MAX_ROOMS) * n
            top = min(args.max_rooms or default_top, per_process * n)
            explicit = args.rooms is not None
            if explicit:
                plan = [m for m in args.rooms if m <= per_process * n]
            else:
                plan = doubling(1 if think == 0 else min(THINK_START, top), top)
            shared = n > 1 or args.shared
            series.append(Series(n, think, shared, plan, explicit))

    soft, hard = raise_fd_limit()
    for s in series:
        for m in s.plan:
            need = files_needed(m, args.spectators, s.processes, args.client_processes)
            if need > soft:
                p.error(
                    f"{m} rooms need {need} open files in one process, and the limit is {soft}"
                    f" (hard limit {hard}; ulimit -n): ask fewer rooms, more --processes or"
                    " more --client-processes"
                )
    if any(s.shared for s in series) and not serve_has_redis():
        p.error(
            "this twentynine serve has no --redis: several processes (and --shared) cannot run yet"
        )
    out = sys.stdout
    cpus = os.cpu_count() or 1
    length = args.length + (f" to {args.target}" if args.target and args.length == "match" else "")
    head = [
        f"load benchmark: {args.profile} {length}, rooms of 4 people"
        + (f" + {args.spectators} spectators" if args.spectators else "")
        + f", {args.seconds:g} s measured per step after a warm-up",
        f"  servers: twentynine serve (uvicorn) on {HOST}, fresh per step"
        + (
            "; a throw-away PostgreSQL and Redis shared by the processes, the people of a"
            + (" room together on its host's" if args.together else " room on different ones")
            if any(x.shared for x in series)
            else ", one process on SQLite"
        ),
        "  clients: asyncio + websockets, "
        + (
            "in this process"
            if args.client_processes == 1
            else f"in {args.client_processes} client processes (at most one a room)"
            if args.client_processes
            else f"in this process, or one client process a {CLIENTS_PER_PROCESS} sockets"
        ),
        f"  all share this machine's {cpus} cores: the figures are theirs together",
        "  round trip: from sending an act to its ack; srv MB: all servers' RSS (peak);"
        " kB/rm: its growth over the idle servers, per room",
        "  srv %: CPU of the servers together; ms/act: their CPU per action;"
        " cli %: CPU of the clients",
        "  ping99: p99 of a ping on a socket of its own (a server's loop, outside any game)",
        "  lag99: p99 of how late the clients' loops wake (the worst client process);"
        " load: the machine's 1-min load",
        f"  open files: up to {soft} a process",
    ]
    if room_cap is not None and thinking:
        head.append(
            f"  note: this server keeps at most {room_cap} rooms a process (it does not read"
            f" TWENTYNINE_MAX_ROOMS): with think time a series grows to {kept} a process"
            " unless --max-rooms or --rooms say more (and those past the cap are refused)"
        )
    if not args.json:
        print("\n".join(head), file=out, flush=True)

    server_errors: list[str] = []
    deadline = time.monotonic() + args.budget
    interrupted = False
    shared = Shared()

    def measure(s: Series, rooms: int) -> Msg | None:
        think = s.think_ms / 1000
        warmup = args.warmup if args.warmup is not None else max(2.0, 2 * think)
        settings = Settings(
            profile=args.profile,
            length=args.length,
            target=args.target,
            think=think,
            spectators=args.spectators,
            seconds=args.seconds,
            warmup=warmup,
            seed=args.seed,
            together=args.together,
        )
        need = settings.seconds + settings.warmup + 10
        if time.monotonic() + need > deadline:
            s.stopped = f"the budget of {args.budget:g} s ran out before {rooms} rooms"
            return None
        clients = client_processes(rooms, args.spectators, args.client_processes)
        limit = 2 * (30 + 0.5 * rooms) + 2 * settings.warmup + settings.seconds + 150
        env = server_env(math.ceil(rooms / s.processes))
        with contextlib.ExitStack() as stack:
            db = redis = None
            if s.shared:
                try:
                    db, redis = stack.enter_context(shared.step())
                except Unavailable as e:
                    s.stopped = str(e)
                    return None
            fleet = stack.enter_context(
                running_fleet(
                    s.processes,
                    args.trick_pause_ms,
                    env,
                    memory_db=args.memory_db,
                    db=db,
                    redis=redis,
                )
            )
            try:
                with hard_limit(limit, fleet):
                    result = asyncio.run(run_step(fleet, rooms, settings, args.max_rss_mb, clients))
            except StepTimeout:
                s.stopped = f"the step of {rooms} rooms passed its hard limit of {limit:.0f} s"
                return None
            fleet.stop()
            errors = fleet.log_errors()
            if args.server_log:
                with open(args.server_log, "a", encoding="utf-8") as f:
                    f.write(
                        f"==== {s.processes} processes, think {s.think_ms:g} ms,"
                        f" {rooms} rooms\n{fleet.log_text()}"
                    )
        result = {"processes": s.processes, "think_ms": s.think_ms, **result}
        result["warmup_s"] = settings.warmup
        result["server_log_errors"] = len(errors)
        server_errors.extend(errors[:5])
        s.steps.append(result)
        if not args.json:
            print(_row(result), file=out, flush=True)
            for line in errors[:3]:
                print(f"      server log: {line[:160]}", file=out)
        return result

    def run_series(s: Series) -> None:
        done: set[int] = set()
        last_ok: int | None = None
        first_bad: int | None = None
        for rooms in s.plan:
            r = measure(s, rooms)
            if r is None:
                return
            done.add(rooms)
            if _passes(r, args.target_ms):
                last_ok = rooms if last_ok is None else max(last_ok, rooms)
            else:
                first_bad = rooms if first_bad is None else min(first_bad, rooms)
                if not s.explicit:
                    break
        if not s.explicit and last_ok is not None and first_bad is not None:
            lo, hi = last_ok, first_bad
            for _ in range(max(0, args.refine)):
                mid = (lo + hi) // 2
                if mid <= lo or mid in done:
                    break
                r = measure(s, mid)
                if r is None:
                    return
                done.add(mid)
                if _passes(r, args.target_ms):
                    lo = mid
                else:
                    hi = mid

    try:
        for s in series:
            if not args.json:
                print(
                    f"== {s.processes} server process{'es' if s.processes > 1 else ''}"
                    f" ({s.backend(args.memory_db)}), "
                    + ("stress: no think time" if s.think_ms == 0 else f"think {s.think_ms:g} ms"),
                    file=out,
                )
                print(HEADER, file=out, flush=True)
            run_series(s)
            if s.stopped and not args.json:
                print(f"  stopped: {s.stopped}", file=out)
            if time.monotonic() >= deadline:
                break
    except KeyboardInterrupt:
        interrupted = True
    finally:
        shared.close()

    target = args.target_ms
    summaries = [s.summary(target, args.memory_db) for s in series]
    steps = [r for x in summaries for r in x["steps"]]
    first = summaries[0]
    stops = [x["stopped"] for x in summaries if x["stopped"]]
    report = {
        "benchmark": "load",
        "host": HOST,
        "cpus": cpus,
        "loadavg": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "open_files": resource.getrlimit(resource.RLIMIT_NOFILE)[0],
        "settings": {
            "profile": args.profile,
            "length": args.length,
            "target": args.target,
            "think_ms": args.think_ms,
            "processes": args.processes,
            "shared": args.shared,
            "together": args.together,
            "client_processes": args.client_processes or "auto",
            "spectators": args.spectators,
            "seconds": args.seconds,
            "warmup": args.warmup,
            "trick_pause_ms": args.trick_pause_ms,
            "db": ":memory:" if args.memory_db else "temp file",
            "target_ms": target,
            "server_room_cap": room_cap,
        },
        "series": summaries,
        "largest": [
            {
                "processes": x["processes"],
                "think_ms": x["think_ms"],
                "mode": x["mode"],
                "backend": x["backend"],
                "rooms": x["largest_rooms_under_target"],
                "most_measured": x["most_rooms_measured"],
            }
            for x in summaries
        ],
        "steps": steps,  # every series' steps
        "largest_rooms_under_target": first["largest_rooms_under_target"],  # the first series'
        "most_rooms_measured": first["most_rooms_measured"],
        "server_log_errors": server_errors,
        "stopped": "interrupted" if interrupted else (stops[0] if stops else None),
    }
    if args.json:
        print(json.dumps(report, indent=2), file=out)
    else:
        total = {k: sum(r[k] for r in steps) for k in ("deals", "games", "version_gaps")}
        print(
            f"  all steps: {total['deals']} next deals, {total['games']} games played to the end"
            f" (each then opens a new room), {total['version_gaps']} skipped versions,"
            f" {sum(r['stalls'] for r in steps)} stalls,"
            f" {sum(r.get('late_pairs', 0) for r in steps)} answers to a pair window too late"
            " (another seat acted first: a race, not an error),"
            f" {len(server_errors)} failures in the servers' logs",
            file=out,
        )
        for s in series:
            best = s.best(target)
            what = (
                f"{s.processes} process{'es' if s.processes > 1 else ''},"
                f" {'stress' if s.think_ms == 0 else f'think {s.think_ms:g} ms'}"
            )
            extra = s.kb_per_room()
            if extra is not None:
                what += f" ({extra:.0f} kB a room more)"
            if best is None:
                print(f"{what}: no step had p99 < {target:g} ms without errors", file=out)
                continue
            most = max(r["rooms"] for r in s.steps)
            print(
                f"{what}: largest M with p99 < {target:g} ms: {best['rooms']} rooms "
                f"({best['clients']} clients, p99 {best['p99_ms']:.1f} ms, "
                f"{best['actions_per_s']:.0f} actions/s)"
                + (" (the most measured: more might pass)" if best["rooms"] >= most else ""),
                file=out,
            )
        if len(series) > 1:
            print("\n".join(_largest_table(series, target)), file=out)
    return 1 if interrupted or not steps else 0
