"""The ``twentynine`` command: one entry point, a sub-command per job.

Errors are reported as one line on standard error with a non-zero status;
a traceback would be a bug.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from .. import __version__
from ..game.rules import (
    OPTION_HELP,
    PROFILE_SUMMARIES,
    PROFILES,
    RulesError,
    format_value,
    parse_assignments,
    resolve,
)

EXAMPLES = {
    "analyse": """examples:
  twentynine analyse game.json          every action of every finished deal, valued
  twentynine analyse game.json --deal 2 --json
  twentynine analyse game.json --all-hands-only     only the values with every hand known
  cat game.json | twentynine analyse -""",
    "replay": """examples:
  twentynine replay game.json           a trick-by-trick account of the game
  twentynine replay game.json --json    the verdict object (exit 0 ok, 1 illegal, 2 malformed)
  cat game.json | twentynine replay - --json""",
    "rules": """examples:
  twentynine rules                      the pagat rules
  twentynine rules modern               another profile
  twentynine rules pagat --set min_bid=16 --set seventh_card=yes
  twentynine rules --list               every profile with a one-line summary""",
    "bench": """examples:
  twentynine bench engine               random deals per second through the engine API
  twentynine bench engine --deals 500 --runs 3
  twentynine bench browser              Pyodide in headless chromium: download, starts, bots
  twentynine bench pyodide              strong and expert in Pyodide and CPython without numba
  twentynine bench load                 online rooms over loopback: p50/p99 of an action
  twentynine bench rl                   environment steps/s: engine, PettingZoo, OpenSpiel
  twentynine bench analysis             whole-deal analysis: median and p95 over 20 deals
  twentynine bench hint                 a card's hint at the table: median and p95
  twentynine bench abuse                a client that never reads, a flood, 10,000 fuzzed frames
  twentynine bench contracts expert strong  bidding alone, contracts scored by their solution
  twentynine bench ablation --deals 300 each piece of the expert's inference against the whole
  twentynine bench positions strong expert --run runs/x   both bots on the run's positions
  twentynine bench judge --run runs/x   the judge's bid values against fresh worlds""",
    "arena": """examples:
  twentynine arena casual novice --deals 500
  twentynine arena expert 'expert[read_drops=0]' --deals 300   a variant: one knob turned
  twentynine arena expert strong --deals 2000 --profile pagat --jobs 2 --out runs/x --plot x.png
  twentynine arena expert strong --deals 2000 --profile pagat --jobs 2 --out runs/x --resume
  twentynine arena casual random --profile modern --set early_end=no --seed 7
  twentynine arena expert http://127.0.0.1:8001 --profile bhoos --deals 500
  twentynine arena casual 'http://127.0.0.1:8001#clock=3000&timeout=1000' --profile bhoos
  twentynine arena expert strong --deals 5000 --cluster tcp://10.0.0.5:8786""",
    "bidding-build": """examples:
  twentynine bidding-build --deals 12000 --jobs 2
  twentynine bidding-build --deals 100000 --cluster tcp://10.0.0.5:8786 --out bidding.json""",
    "play-model-build": """examples:
  twentynine play-model-build --run runs/es-pagat-2120
  twentynine play-model-build --run runs/a --run runs/b --out play.json""",
    "bot-serve": """examples:
  twentynine bot-serve --level expert           http://127.0.0.1:8001 (/hi /bid /chooseTrump /play)
  twentynine bot-serve --level casual --port 9000 --host 0.0.0.0""",
    "serve": """examples:
  twentynine serve                      http://127.0.0.1:8029
  twentynine serve --host 0.0.0.0 --port 8080
  twentynine serve --db games.sqlite3     keep the games in this file""",
}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="twentynine",
        description="The card game 29: rules engine, replays and tools.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"twentynine {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    def add(name: str, help_: str) -> argparse.ArgumentParser:
        return sub.add_parser(
            name,
            help=help_,
            description=help_,
            epilog=EXAMPLES.get(name),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )

    r = add("replay", "Check a 29-record/1 game record and tell its story or its verdict.")
    r.add_argument("file", help="record file, or - for standard input")
    r.add_argument("--json", action="store_true", help="print the verdict object as JSON")

    an = add(
        "analyse",
        "Value every card and decision of a finished deal: with every hand known, and"
        " from each seat's view.",
    )
    an.add_argument("file", help="record file (29-record/1), or - for standard input")
    an.add_argument("--deal", type=int, metavar="N", help="only deal N (the first deal is 1)")
    an.add_argument("--json", action="store_true", help="print the analysis as JSON")
    an.add_argument(
        "--worlds",
        type=int,
        default=None,
        metavar="W",
        help="deals sampled per decision for the seat's view (default 16)",
    )
    an.add_argument("--seed", type=int, default=0, help="seed of the sampled deals (default 0)")
    an.add_argument(
        "--all-hands-only", action="store_true", help="leave out the seat's-view values (fast)"
    )

    ru = add("rules", "Show the resolved options of a profile, with any overrides.")
    ru.add_argument(
        "profile", nargs="?", default="pagat", help="pagat, arcade, bangladesh, modern, bhoos"
    )
    ru.add_argument(
        "--set",
        dest="options",
        action="append",
        default=[],
        metavar="K=V",
        help="override an option, e.g. --set min_bid=16 (repeatable)",
    )
    ru.add_argument("--json", action="store_true", help="print the record's rules object")
    ru.add_argument("--list", action="store_true", help="list the profiles")

    b = add("bench", "Print performance figures (not a test).")
    b.add_argument(
        "what",
        choices=[
            "engine",
            "solver",
            "bots",
            "browser",
            "pyodide",
            "load",
            "rl",
            "analysis",
            "hint",
            "abuse",
            "contracts",
            "ablation",
            "positions",
            "judge",
        ],
        help="what to measure",
    )
    b.add_argument("rest", nargs=argparse.REMAINDER, help="options of that benchmark")

    from .duplicate import add_match_arguments

    a = add("arena", "Play duplicate deals between two bots and report who is stronger.")
    a.add_argument(
        "a",
        help="bot A: a level (random, novice, casual, strong, expert) or the URL of a "
        "contest-protocol bot (needs --profile bhoos)",
    )
    a.add_argument("b", help="bot B")
    add_match_arguments(a, 200, "duplicate deals (each played twice)")
    a.add_argument(
        "--out",
        help="folder for the run: boards.jsonl and every game record as each deal "
        "finishes, summary.json at the end",
    )
    a.add_argument(
        "--resume",
        action="store_true",
        help="go on with the run kept in --out: play only its deals not yet finished "
        "(refused if the bots, rules, seed or playing code differ)",
    )
    a.add_argument("--plot", help="PNG file for the running difference (needs matplotlib)")
    a.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="play the deals on a Dask cluster: a scheduler's tcp://HOST:8786, or local:N "
        "for N worker processes here (needs the research extra); same results as --jobs",
    )

    from . import runs

    ru = add("runs", "Report arena runs kept in folders (--out), each and pooled.")
    ru.epilog = runs.EXAMPLES
    runs.add_arguments(ru)

    from . import ladder

    la = add("ladder", "Rate bots and characters by a round robin of duplicate matches.")
    la.epilog = ladder.EXAMPLES
    ladder.add_arguments(la)

    bb = add("bidding-build", "Rebuild the strong bots' bidding model, here or on a cluster.")
    from ..bots.bidding_build import add_arguments as add_build_arguments

    add_build_arguments(bb, cluster=True)

    pm = add(
        "play-model-build", "Refit the experts' model of the cards others play from kept games."
    )
    from ..bots.play_model_build import add_arguments as add_play_model_arguments

    add_play_model_arguments(pm)

    s = add("serve", "Serve the web app.")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=8029)
    s.add_argument("--open", action="store_true", help="open a browser on the page")
    s.add_argument(
        "--db",
        metavar="PATH|URL",
        help="where games are kept: a SQLite file, sqlite:///PATH, :memory:, or"
        " postgresql://USER@HOST:PORT/DB (default: $TWENTYNINE_DB, else"
        " ~/.local/share/twentynine/games.sqlite3)",
    )

    s.add_argument(
        "--redis",
        metavar="URL",
        help="be one of many server processes sharing this Redis (redis://HOST:PORT/DB)"
        " and the PostgreSQL of --db (default: $TWENTYNINE_REDIS, else this process alone)",
    )

    bs = add("bot-serve", "Serve one of our bots over the bot-contest HTTP protocol (BHOOS.md).")
    bs.add_argument("--level", default="expert", help="random, novice, casual, strong, expert")
    bs.add_argument("--host", default="127.0.0.1")
    bs.add_argument("--port", type=int, default=8001)
    bs.add_argument("--seed", type=int, default=0, help="the bot's seed")

    from ..tui import command as play_command
    from . import score

    pl = add("play", "Play 29 in the terminal against bots (or hot-seat), or watch four bots.")
    pl.epilog = play_command.EXAMPLES
    play_command.add_arguments(pl)
    sc = add("score", "Keep the score of a table that plays with real cards.")
    sc.epilog = score.EXAMPLES
    score.add_arguments(sc)
    co = add("completion", "Print a shell completion script (bash, zsh or tcsh).")
    co.epilog = COMPLETION_EXAMPLES
    co.add_argument("shell", choices=["bash", "zsh", "tcsh"], help="the shell")
    return p


COMPLETION_EXAMPLES = """examples:
  twentynine completion bash > ~/.local/share/bash-completion/completions/twentynine
  twentynine completion zsh > ~/.zfunc/_twentynine     (with fpath+=~/.zfunc in .zshrc)"""


def cmd_play(args: argparse.Namespace) -> int:
    from ..tui.command import run

    return run(args)


def cmd_score(args: argparse.Namespace) -> int:
    from .score import run

    return run(args)


def cmd_completion(args: argparse.Namespace) -> int:
    try:
        import shtab
    except ImportError:
        print("twentynine completion: needs the shtab package (pip install shtab)", file=sys.stderr)
        return 2
    print(shtab.complete(_parser(), shell=args.shell))
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from ..game.account import describe_match
    from ..game.record import EXIT_MALFORMED, load, replay_record, replay_text

    try:
        if args.file == "-":
            text = sys.stdin.buffer.read()
        else:
            with open(args.file, "rb") as f:
                text = f.read()
    except OSError as e:
        message = f"cannot read {args.file}: {e.strerror or e}"
        if args.json:
            print(
                json.dumps(
                    {
                        "ok": False,
                        "deals": [],
                        "score": [0, 0],
                        "winner": None,
                        "complete": False,
                        "error": {"deal": None, "action": None, "message": message},
                    }
                )
            )
        else:
            print(f"twentynine replay: {message}", file=sys.stderr)
        return EXIT_MALFORMED
    verdict = replay_text(text)
    if args.json:
        print(json.dumps(verdict.data, ensure_ascii=False))
        return verdict.exit_status
    if verdict.exit_status != EXIT_MALFORMED:
        match, _ = replay_record(load(text))
        sys.stdout.write(describe_match(match))
    if not verdict.ok:
        err = verdict.data["error"]
        where = ""
        if err["deal"] is not None:
            where = f"deal {err['deal']}" + (
                f", action {err['action']}" if err["action"] is not None else ""
            )
            where += ": "
        print(f"twentynine replay: {where}{err['message']}", file=sys.stderr)
    return verdict.exit_status


def cmd_analyse(args: argparse.Namespace) -> int:
    from ..services.analysis import DEFAULT_WORLDS, AnalysisError, analyse_record
    from ..services.analysis.table import record_text

    def fail(message: str, status: int) -> int:
        print(f"twentynine analyse: {message}", file=sys.stderr)
        return status

    worlds = DEFAULT_WORLDS if args.worlds is None else args.worlds
    if worlds < 1:
        return fail("--worlds must be at least 1", 2)
    try:
        if args.file == "-":
            text = sys.stdin.buffer.read()
        else:
            with open(args.file, "rb") as f:
                text = f.read()
    except OSError as e:
        return fail(f"cannot read {args.file}: {e.strerror or e}", 2)
    try:
        result = analyse_record(
            text, args.deal, seat_view=not args.all_hands_only, worlds=worlds, seed=args.seed
        )
    except AnalysisError as e:
        return fail(str(e), e.exit_status)
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False))
    else:
        sys.stdout.write(record_text(result))
    return 0


def cmd_rules(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    if args.list:
        t = Table(title="Profiles")
        t.add_column("profile", style="bold")
        t.add_column("summary")
        for name in PROFILES:
            t.add_row(name, PROFILE_SUMMARIES[name])
        console.print(t)
        return 0
    rules = resolve(args.profile, parse_assignments(args.options))
    if args.json:
        print(json.dumps(rules.to_json()))
        return 0
    changed = rules.overrides()
    t = Table(title=f"Rules: {rules.profile}" + (" with changes" if changed else ""))
    t.add_column("option", style="bold")
    t.add_column("value")
    t.add_column("meaning", style="dim")
    for name, value in rules.options().items():
        shown = format_value(value)
        if name in changed:
            was = format_value(getattr(PROFILES[rules.profile], name))
            shown = f"[bold yellow]{shown}[/] (profile: {was})"
        t.add_row(name, shown, OPTION_HELP[name])
    console.print(t)
    console.print(PROFILE_SUMMARIES[rules.profile], style="italic")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    import importlib

    if args.what != "solver":
        module = importlib.import_module(f"..benchmarks.{args.what}", __package__)
        return int(module.main(args.rest))
    try:
        from ..benchmarks import solver  # type: ignore[attr-defined, unused-ignore]
    except ImportError:
        print("twentynine bench: the solver is not built yet", file=sys.stderr)
        return 2
    return int(solver.main(args.rest))


def cmd_arena(args: argparse.Namespace) -> int:
    import contextlib
    from pathlib import Path

    from rich.progress import Progress

    from ..bots import spec_error
    from ..services.arena import format_summary, plot, run_boards, summarise
    from ..services.arena_folder import FolderError, RunFolder
    from .duplicate import match_rules, worker_count

    def known(spec: str) -> str | None:
        # a level, a variant of one (``expert[read_drops=0]``), or (match_rules) a URL
        error = spec_error(spec)
        if error is not None and error.startswith("unknown bot level"):
            return f"unknown bot {spec!r}; {error.split('; ', 1)[1]}, or a bot's http:// URL"
        return error

    rules = match_rules(args, (args.a, args.b), known)
    if args.resume and not args.out:
        raise RulesError("--resume needs --out: the folder of the run to go on with")
    jobs = worker_count(args.jobs)
    folder = None
    if args.out:
        try:
            folder = RunFolder.open(Path(args.out), args.a, args.b, rules, args.seed, args.resume)
        except FolderError as e:
            print(f"twentynine arena: {e}", file=sys.stderr)
            return 2
    kept = [] if folder is None else [x for x in folder.boards if x.deal < args.deals]
    done = {x.deal for x in kept}
    todo = [i for i in range(args.deals) if i not in done]
    if kept:
        print(f"  {len(kept)} of {args.deals} deals already played in {args.out}; "
              f"playing {len(todo)}")  # fmt: skip
    boards = list(kept)
    with contextlib.ExitStack() as stack:
        if folder is not None:
            stack.enter_context(folder)
        if args.cluster:
            from ..rl.cluster import ClusterError, connect
            from ..rl.cluster import run_boards as cluster_boards

            try:
                client = stack.enter_context(connect(args.cluster))
            except ClusterError as e:
                print(f"twentynine arena: {e}", file=sys.stderr)
                return 2
            source = cluster_boards(client, rules, args.a, args.b, todo, args.seed)
        else:
            # a kept run gets each board as it finishes, so a stop loses only those in play
            chunk = 1 if folder is not None else None
            source = run_boards(rules, args.a, args.b, todo, args.seed, jobs, chunk)
        with Progress(disable=args.quiet, transient=True) as progress:
            task = progress.add_task(f"{args.a} vs {args.b}", total=args.deals)
            progress.advance(task, len(kept))
            for board in source:
                boards.append(board)
                if folder is not None:
                    folder.add(board)
                progress.advance(task)
    summary = summarise(args.a, args.b, boards)
    print(format_summary(summary))
    if folder is not None:
        folder.finish(summary)
        print(f"  wrote {Path(args.out) / 'summary.json'}, boards.jsonl and the game records")
    if args.plot:
        try:
            plot(summary, Path(args.plot))
        except ImportError:
            print(
                "twentynine arena: --plot needs matplotlib (pip install matplotlib)",
                file=sys.stderr,
            )
            return 2
        print(f"  wrote {args.plot}")
    return 0


def cmd_runs(args: argparse.Namespace) -> int:
    from .runs import run

    return run(args)


def cmd_ladder(args: argparse.Namespace) -> int:
    from .ladder import run

    return run(args)


def cmd_bidding_build(args: argparse.Namespace) -> int:
    from ..bots import bidding_build

    if not args.cluster:
        return bidding_build.run(args)
    from ..rl.cluster import ClusterError, bidding_mapper, connect

    try:
        with connect(args.cluster) as client:
            return bidding_build.run(args, mapper=bidding_mapper(client))
    except ClusterError as e:
        print(f"twentynine bidding-build: {e}", file=sys.stderr)
        return 2


def cmd_play_model_build(args: argparse.Namespace) -> int:
    from ..bots import play_model_build

    try:
        return play_model_build.run(args)
    except play_model_build.BuildError as e:
        print(f"twentynine play-model-build: {e}", file=sys.stderr)
        return 2


def cmd_bot_serve(args: argparse.Namespace) -> int:
    from ..bots import LEVELS
    from ..services.protocols.bhoos.server import serve as bot_serve

    if args.level not in LEVELS:
        raise RulesError(f"unknown bot level {args.level!r}; levels are: {', '.join(LEVELS)}")
    return bot_serve(args.level, host=args.host, port=args.port, seed=args.seed)


def cmd_serve(args: argparse.Namespace) -> int:
    from ..web.app import serve

    return serve(args.host, args.port, open_browser=args.open, db=args.db, redis=args.redis)


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # the command as given
    if args.command is None:
        parser.print_help()
        return 2
    handlers = {
        "replay": cmd_replay,
        "analyse": cmd_analyse,
        "rules": cmd_rules,
        "bench": cmd_bench,
        "serve": cmd_serve,
        "arena": cmd_arena,
        "runs": cmd_runs,
        "ladder": cmd_ladder,
        "bidding-build": cmd_bidding_build,
        "play-model-build": cmd_play_model_build,
        "bot-serve": cmd_bot_serve,
        "play": cmd_play,
        "score": cmd_score,
        "completion": cmd_completion,
    }
    try:
        return handlers[args.command](args)
    except RulesError as e:
        print(f"twentynine {args.command}: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
