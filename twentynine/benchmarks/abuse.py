"""``twentynine bench abuse``: one misbehaving client against rooms being played, over loopback.

The real server (``twentynine serve``, with its default limits) runs as a
subprocess on a free port of 127.0.0.1, as for ``bench load``, whose
machinery this reuses: a few rooms of four people play there (a short think
time, as fast people), every person from a loopback address of their own
(127.1.T.S), and the attacker from another (127.66.0.N), so that the limits
of an address fall on the attacker alone. Each part has a fresh server and
``--rounds`` rounds of three phases: a *baseline*, the *attack*, and what
comes *after* it (the rounds let a machine shared with others weigh on
every phase alike). The figure is the round trip of the people's actions
(``act`` to ``ack``), by phase over all rounds, for the room attacked and
for the others, with the server's memory and the CPU each side used.

Parts (``--parts``):

- ``slow``: spectators of the first room that never read. One sends ``sync``
  as fast as it can (the limits stop it); the other once a second, within
  the limits, while the room's every move is sent to it too (only its outbox
  stops it, once the socket's buffers are full). Both have a receive buffer
  of a few kilobytes and come back whenever they are closed. Target: the
  room's act p99 during the attack within 2x of its baseline, and the
  server's memory bounded.
- ``flood``: one client sending at full speed (pings, bad JSON and ``sync``
  in turn, a new connection as soon as one is closed), and a burst of idle
  connections from its address. Target: the other rooms' act p99 during the
  flood, and in the second after it, within 2x of the baseline.
- ``fuzz``: ``--fuzz-frames`` frames of every kind (``benchmarks/fuzz.py``) to
  a game's player, a full room's visitor and a stranger, on a server without
  the limits (a fuzzer is not a person). Target: no ``server_error``, no
  change of the game or the room, a server alive with nothing in its log.

Bounds: at most 16 rooms, at most 120 s per phase and ``--budget`` seconds in
all (each part is stopped past its share); every server is stopped at the
end of its part, on errors and on Ctrl-C.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import math
import os
import random
import sys
import time
import urllib.request
from dataclasses import dataclass
from typing import Any

from ..server.limits import NO_LIMITS_ENV
from . import fuzz
from .attackers import Attack, attacker, open_raw, percent
from .load_people import Settings, Step, Table, finish, percentile
from .load_servers import HOST, Server, StepTimeout, hard_limit, running_server

PARTS = ("slow", "flood", "fuzz")
MAX_ROOMS = 16
MAX_PHASE = 120.0
Msg = dict[str, Any]


@dataclass
class Plan:
    rooms: int = 3
    think: float = 0.02  # seconds, on average, before each action of a person
    baseline: float = 10.0
    attack: float = 20.0
    after: float = 5.0
    rounds: int = 2  # baseline, attack, after; again
    fuzz_frames: int = 10_000
    paced: float = 1.0  # syncs a second of the quiet never-reader (within the limits)
    seed: int = 29
    trick_pause_ms: int = 50


def person(table: int, seat: int) -> str:
    """The loopback address of one person (the limits of an address are theirs alone)."""
    return f"127.1.{table}.{seat + 1}"


# ------------------------------------------------------------------ figures


def figures(samples: list[tuple[float, float]], windows: list[tuple[float, float]]) -> Msg:
    """p50/p95/p99/max (ms) of the round trips of acts sent in any of these windows."""
    ts = sorted(rtt for sent, rtt in samples if any(a <= sent < b for a, b in windows))

    def ms(x: float) -> float | None:
        return None if math.isnan(x) else round(x * 1000, 2)

    return {
        "acts": len(ts),
        "p50_ms": ms(percentile(ts, 50)),
        "p95_ms": ms(percentile(ts, 95)),
        "p99_ms": ms(percentile(ts, 99)),
        "max_ms": ms(ts[-1]) if ts else None,
    }


def health(server: Server) -> Msg:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(f"http://{HOST}:{server.port}/healthz", timeout=5) as r:
            body: Msg = json.loads(r.read())
            return body
    except (OSError, ValueError):
        return {}


def within(value: float | None, baseline: float | None, factor: float = 2.0) -> bool | None:
    if value is None or baseline is None:
        return None
    return value <= factor * baseline


# ------------------------------------------------------------------ the rooms


class Rooms:
    """The people at their tables, playing until told to stop; the clock of the phases."""

    def __init__(self, server: Server, plan: Plan) -> None:
        self.step = Step(plan.rooms, plan.rooms * 4)
        self.step.window_start, self.step.window_end = 0.0, math.inf
        # deals without end: the room attacked keeps its code and its game all along
        settings = Settings(length="single", think=plan.think, seed=plan.seed)
        self.tables = [Table(i, self.step, settings, server.url) for i in range(plan.rooms)]
        for t in self.tables:
            for c in t.clients:
                assert c.seat is not None
                c.source = person(t.index, c.seat)
        self.runners: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        await asyncio.wait_for(asyncio.gather(*(t.connect() for t in self.tables)), 60)
        await asyncio.wait_for(asyncio.gather(*(t.open_room() for t in self.tables)), 60)
        self.runners = [asyncio.create_task(t.run()) for t in self.tables]

    def code(self, table: int) -> str:
        """The code of a table's room (its host's latest state names it)."""
        latest = self.tables[table].people[0].latest or {}
        code: str = (latest.get("table") or {}).get("code", "")
        return code

    def samples(self, tables: list[int]) -> list[tuple[float, float]]:
        """(sent, round trip) of the acts of these tables; an act never answered counts with
        the time it has waited (a room that stands still must not look quick)."""
        now = time.perf_counter()
        people = [c for i in tables for c in self.tables[i].people]
        return [a for c in people for a in (*c.acts, *c.unanswered(now))]

    def errors(self) -> dict[str, int]:
        return dict(self.step.stats.errors) | (
            {"lost": self.step.stats.lost} if self.step.stats.lost else {}
        )

    async def stop(self) -> None:
        self.step.stopping = True
        for t in self.tables:
            for c in t.clients:
                c.changed.set()
        await finish(self.runners)
        await finish([asyncio.ensure_future(t.close()) for t in self.tables], 15, False)


async def sample_memory(
    server: Server, into: list[tuple[float, float]], stop: asyncio.Event
) -> None:
    while not stop.is_set():
        rss = server.rss_mb()
        if rss is not None:
            into.append((time.perf_counter(), rss))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.25)


def memory(samples: list[tuple[float, float]], windows: list[tuple[float, float]]) -> float | None:
    """The server's most memory (MB) in these windows."""
    values = [mb for t, mb in samples if any(a <= t < b for a, b in windows)]
    return round(max(values), 1) if values else None


PHASES = ("baseline", "attack", "after")


async def phases(server: Server, plan: Plan, part: str) -> Msg:
    """Rounds of baseline, attack (by a process of its own) and after; the figures of each
    phase over every round (a loaded machine weighs on all of them alike)."""
    rooms = Rooms(server, plan)
    rss: list[tuple[float, float]] = []
    stop = asyncio.Event()
    sampler = asyncio.create_task(sample_memory(server, rss, stop))
    out: Msg = {}
    attack = Attack(part, server, plan.paced)  # started first: its imports are not in the baseline
    try:
        await rooms.start()
        await asyncio.sleep(2.0)  # warm up: every table is playing
        lengths = {"baseline": plan.baseline, "attack": plan.attack, "after": plan.after}
        windows: dict[str, list[tuple[float, float]]] = {p: [] for p in (*PHASES, "after_1s")}
        at = time.perf_counter()
        for _ in range(plan.rounds):
            for phase in PHASES:
                windows[phase].append((at, at + lengths[phase]))
                at += lengths[phase]
            attack_end = windows["attack"][-1][1]
            windows["after_1s"].append((attack_end, attack_end + 1.0))
        to_monotonic = time.monotonic() - time.perf_counter()
        attack.go(
            rooms.code(0), [(a + to_monotonic, b + to_monotonic) for a, b in windows["attack"]]
        )
        cpu: dict[str, list[float]] = {p: [0.0, 0.0, 0.0] for p in PHASES}
        for r in range(plan.rounds):
            for phase in PHASES:
                begin, end = windows[phase][r]
                await asyncio.sleep(max(0.0, begin - time.perf_counter()))
                a = _cpu(server)
                await asyncio.sleep(max(0.0, end - time.perf_counter()))
                b = _cpu(server)
                for i in range(3):
                    cpu[phase][i] += (b[i] or 0.0) - (a[i] or 0.0)
        out["attacker"] = await attack.result(timeout=15)
        out["cpu_pct"] = {
            p: {"server": percent(c[1], c[0]), "people": percent(c[2], c[0])}
            for p, c in cpu.items()
        }
        everyone = list(range(plan.rooms))
        first, others = rooms.samples([0]), rooms.samples(everyone[1:])
        out["first_room"] = {p: figures(first, w) for p, w in windows.items()}
        out["other_rooms"] = {p: figures(others, w) for p, w in windows.items()}
        out["memory_mb"] = {p: memory(rss, windows[p]) for p in PHASES}
        out["people_errors"] = rooms.errors()
    finally:
        attack.stop()
        stop.set()
        await rooms.stop()
        await finish([sampler])
    out["server"] = health(server)
    return out


def _cpu(server: Server) -> tuple[float, float | None, float]:
    """(when, the server's CPU seconds, this process's CPU seconds)."""
    return time.perf_counter(), server.cpu_seconds(), time.process_time()


# ------------------------------------------------------------------ the parts


async def run_part(part: str, server: Server, plan: Plan) -> Msg:
    if part == "fuzz":
        return await run_fuzz(server, plan)
    out = await phases(server, plan, part)
    room = out["first_room"] if part == "slow" else out["other_rooms"]
    base = room["baseline"]["p99_ms"]
    out["target"] = {
        "attack": within(room["attack"]["p99_ms"], base),
        "after_1s": within(room["after_1s"]["p99_ms"], base) if part == "flood" else None,
        "memory_mb_growth": _growth(out["memory_mb"]),
    }
    return out


def _growth(mem: Msg) -> float | None:
    if mem.get("baseline") is None or mem.get("attack") is None:
        return None
    return round(mem["attack"] - mem["baseline"], 1)


class Fuzzer:
    """The three clients of the fuzz part and the game and room they must not change."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.sockets: dict[str, Any] = {}
        self.others: list[Any] = []

    async def open(self, source: str) -> Any:
        ws = await open_raw(self.server.url, self.server.port, source)
        welcome = json.loads(await asyncio.wait_for(ws.recv(), 10))
        assert welcome["type"] == "welcome"
        return ws

    async def ask(self, ws: Any, **msg: Any) -> Msg:
        await ws.send(json.dumps(msg))
        while True:
            reply: Msg = json.loads(await asyncio.wait_for(ws.recv(), 10))
            if reply.get("id") == msg.get("id") and reply["type"] != "update":
                return reply

    async def setup(self) -> fuzz.Table:
        player = await self.open(attacker(10))
        seats = [{"human": True}, {"bot": "tara"}, {"bot": "bablu"}, {"bot": "pip"}]
        setup = {"profile": "pagat", "seed": 7, "first_dealer": 3, "length": "single"}
        state = await self.ask(player, type="create", id="c", setup={**setup, "seats": seats})
        host = await self.open(attacker(11))
        room = await self.ask(host, type="room_create", id="r", setup={"length": "single"})
        for seat, bot in ((1, "tara"), (2, "bablu"), (3, "pip")):
            await self.ask(host, type="seat_bot", id=f"b{seat}", seat=seat, bot=bot)
        visitor = await self.open(attacker(12))
        await self.ask(visitor, type="room_join", id="v", code=room["code"])
        stranger = await self.open(attacker(13))
        self.sockets = {fuzz.PLAYER: player, fuzz.VISITOR: visitor, fuzz.STRANGER: stranger}
        self.others = [host]
        self.state = state
        self.room = await self.room_now(host, room)
        return fuzz.Table(
            game=state["game"],
            token=state["token"],
            code=room["code"],
            host_token=room["token"],
            legal=state["views"]["0"]["legal"],
            auto_pair=state["auto_pair"],
        )

    async def room_now(self, host: Any, room: Msg) -> Msg:
        """The room as its host sees it now (who is here aside)."""
        again = await self.ask(
            host, type="room_join", id="h", code=room["code"], token=room["token"]
        )
        for seat in again["seats"]:
            seat.pop("here", None)
        return {k: again[k] for k in ("v", "seats", "setup", "table", "game")}

    async def game_now(self) -> Msg:
        state = await self.ask(self.sockets[fuzz.PLAYER], type="sync", id="sync")
        return {k: v for k, v in state.items() if k != "id"}


async def run_fuzz(server: Server, plan: Plan) -> Msg:
    f = Fuzzer(server)
    table = await f.setup()
    game_before = await f.game_now()
    rng = random.Random(plan.seed)
    kinds: collections.Counter[str] = collections.Counter()
    codes: collections.Counter[str] = collections.Counter()
    faults: list[str] = []
    changed = 0
    stream = fuzz.frames(rng, table)
    sent = 0
    started = time.perf_counter()
    while sent < plan.fuzz_frames:
        batch = [next(stream) for _ in range(min(100, plan.fuzz_frames - sent))]
        waiting: collections.Counter[str] = collections.Counter()
        for who, kind, frame in batch:
            await f.sockets[who].send(frame)
            waiting[who] += 1
            kinds[kind] += 1
        for who, n in waiting.items():
            while n > 0:  # one answer to every frame, in order; news of the room aside
                reply = json.loads(await asyncio.wait_for(f.sockets[who].recv(), 10))
                if fuzz.unsolicited(reply):
                    continue
                n -= 1
                fault = fuzz.reply_fault(reply)
                if fault is not None:
                    faults.append(fault[:200])
                codes[reply["code"] if reply["type"] == "error" else reply["type"]] += 1
        sent += len(batch)
        if sent % 1000 == 0 or sent >= plan.fuzz_frames:
            if await f.game_now() != game_before:
                changed += 1
            if (
                await f.room_now(f.others[0], {"code": table.code, "token": table.host_token})
                != f.room
            ):
                changed += 1
    seconds = time.perf_counter() - started
    for ws in [*f.sockets.values(), *f.others]:
        ws.transport.abort()
    return {
        "frames": sent,
        "seconds": round(seconds, 1),
        "by_kind": dict(sorted(kinds.items())),
        "replies": dict(sorted(codes.items())),
        "server_errors": codes["server_error"],
        "faults": faults[:5],
        "fault_count": len(faults),
        "state_changes": changed,
        "alive": server.alive(),
    }


# ------------------------------------------------------------------ the command


def _row(name: str, f: Msg) -> str:
    def v(x: float | None) -> str:
        return f"{'-':>8}" if x is None else f"{x:>8.1f}"

    return (
        f"  {name:<10} {f['acts']:>6} {v(f['p50_ms'])} {v(f['p95_ms'])} {v(f['p99_ms'])}"
        f" {v(f['max_ms'])}"
    )


def _print_part(part: str, r: Msg, plan: Plan, out: Any) -> None:
    if part == "fuzz":
        print(
            f"part fuzz: {r['frames']} frames in {r['seconds']} s to a player, a visitor and a"
            f" stranger; server_error x{r['server_errors']}, other faults x{r['fault_count']},"
            f" state changes {r['state_changes']}, server alive {r['alive']},"
            f" failures in its log {r['server_log_errors']}",
            file=out,
        )
        print(f"  by kind: {r['by_kind']}", file=out)
        print(f"  replies: {r['replies']}", file=out)
        return
    what = {
        "slow": "spectators of room 1 that never read (sync flat out, and once a second)",
        "flood": "a client flooding flat out (ping, bad JSON, sync), and idle sockets",
    }[part]
    print(f"part {part}: {what}", file=out)
    header = f"  {'phase':<10} {'acts':>6} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'max ms':>8}"
    for label, key in (("room 1", "first_room"), ("others", "other_rooms")):
        print(f" {label}:\n{header}", file=out)
        for phase in ("baseline", "attack", "after_1s", "after"):
            print(_row(phase, r[key][phase]), file=out)
    print(f"  CPU % by phase (server, people's clients): {r['cpu_pct']}", file=out)
    mem = r["memory_mb"]
    server = r.get("server", {})
    print(
        f"  server memory (MB, peak): baseline {mem.get('baseline')}, attack {mem.get('attack')},"
        f" after {mem.get('after')}; closes by code {server.get('closes')};"
        f" limits {server.get('limits')}",
        file=out,
    )
    print(f"  attacker: {r.get('attacker')}", file=out)
    print(f"  the people's errors: {r['people_errors'] or 'none'}", file=out)
    print(f"  target (p99 within 2x of baseline): {r['target']}", file=out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="twentynine bench abuse",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--parts", default=",".join(PARTS), help=f"any of {', '.join(PARTS)}")
    p.add_argument("--rooms", type=int, default=3, help=f"rooms being played (1-{MAX_ROOMS})")
    p.add_argument("--think-ms", type=float, default=20.0, help="a person's mean think time")
    p.add_argument("--baseline", type=float, default=10.0, help="seconds before the attack")
    p.add_argument("--attack", type=float, default=20.0, help="seconds of attack")
    p.add_argument("--after", type=float, default=5.0, help="seconds measured after it")
    p.add_argument("--rounds", type=int, default=2, help="rounds of the three phases (1-10)")
    p.add_argument("--fuzz-frames", type=int, default=10_000, help="frames of the fuzz part")
    p.add_argument("--budget", type=float, default=900.0, help="seconds for the whole run")
    p.add_argument("--seed", type=int, default=29)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args(argv)
    parts = [x.strip() for x in args.parts.split(",") if x.strip()]
    if not parts or any(x not in PARTS for x in parts):
        p.error(f"--parts: any of {', '.join(PARTS)}")
    if not 2 <= args.rooms <= MAX_ROOMS:
        p.error(f"--rooms must be from 2 to {MAX_ROOMS} (one attacked, the others watched)")
    for name in ("baseline", "attack", "after"):
        if not 0 < getattr(args, name) <= MAX_PHASE:
            p.error(f"--{name} must be above 0 and at most {MAX_PHASE:.0f} seconds")
    if not 1 <= args.rounds <= 10:
        p.error("--rounds must be from 1 to 10")
    if not 1 <= args.fuzz_frames <= 1_000_000 or args.think_ms < 0 or args.budget <= 0:
        p.error("--fuzz-frames from 1 to 1000000; --think-ms and --budget positive")
    plan = Plan(
        rooms=args.rooms,
        think=args.think_ms / 1000,
        baseline=args.baseline,
        attack=args.attack,
        after=args.after,
        rounds=args.rounds,
        fuzz_frames=args.fuzz_frames,
        seed=args.seed,
    )
    out = sys.stdout
    if not args.json:
        print(
            f"abuse benchmark: {plan.rooms} rooms of 4 people (think {args.think_ms:g} ms),"
            f" {plan.rounds} x ({plan.baseline:g} s baseline, {plan.attack:g} s attack,"
            f" {plan.after:g} s after);"
            f" server and clients on this machine's {os.cpu_count()} cores, loopback only",
            file=out,
            flush=True,
        )
    report: Msg = {"benchmark": "abuse", "host": HOST, "parts": {}, "stopped": None}
    deadline = time.monotonic() + args.budget
    try:
        for part in parts:
            left = deadline - time.monotonic()
            need = plan.rounds * (plan.baseline + plan.attack + plan.after) + 30
            if part != "fuzz" and left < need:
                report["stopped"] = f"the budget ran out before the {part} part"
                break
            env = NO_LIMITS_ENV if part == "fuzz" else {}
            with running_server(True, plan.trick_pause_ms, env) as server:
                try:
                    with hard_limit(max(30.0, left), server):
                        result = asyncio.run(run_part(part, server, plan))
                except StepTimeout:
                    report["stopped"] = f"the {part} part passed its time"
                    break
                except (OSError, RuntimeError, TimeoutError, AssertionError) as e:
                    result = {"aborted": f"{type(e).__name__}: {e}"[:200]}
                server.stop()
                errors = server.log_errors()
            result["server_log_errors"] = len(errors)
            result["server_log"] = errors[:5]
            report["parts"][part] = result
            if not args.json:
                if "aborted" in result:
                    print(f"part {part}: stopped: {result['aborted']}", file=out)
                else:
                    _print_part(part, result, plan, out)
                for line in errors[:3]:
                    print(f"      server log: {line[:160]}", file=out)
                out.flush()
    except KeyboardInterrupt:
        report["stopped"] = "interrupted"
    if args.json:
        print(json.dumps(report, indent=2), file=out)
    return 1 if report["stopped"] == "interrupted" or not report["parts"] else 0


__all__ = ["PARTS", "Plan", "main"]
