"""``twentynine ladder``: a round robin of duplicate matches, and a rating for each player.

The play and the fit are ``twentynine.services.ladder``'s; the options of the
rules, the deals and the workers are those of ``twentynine arena``
(``duplicate.py``). ``--write-ratings`` keeps the ratings where the
characters read them (``twentynine/data/ladder.json``, or ``$TWENTYNINE_LADDER``).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from datetime import UTC, datetime
from pathlib import Path

from .duplicate import add_match_arguments, match_rules, worker_count

EXAMPLES = """examples:
  twentynine ladder                                every character and expert-v1, 100 deals a pair
  twentynine ladder random novice casual --deals 200 --jobs 2
  twentynine ladder pip meera raju anil --profile modern --set early_end=no --seed 7
  twentynine ladder casual strong http://127.0.0.1:8001 --profile bhoos --deals 300
  twentynine ladder --deals 2000 --jobs 0 --out runs/ladder.json --write-ratings"""

PACKAGED = Path(__file__).resolve().parent.parent / "data" / "ladder.json"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "players",
        nargs="*",
        metavar="PLAYER",
        help="a level (random ... expert, expert-v1), a character (pip, raju, dada ...) or "
        "the URL of a contest-protocol bot; default: every character and expert-v1",
    )
    add_match_arguments(p, 100, "duplicate deals per pair (each played twice)")
    p.add_argument(
        "--resamples",
        type=int,
        default=200,
        help="bootstrap resamples of the boards for the 95%% intervals (default 200)",
    )
    p.add_argument("--out", metavar="FILE.json", help="write the ladder and every pair as JSON")
    p.add_argument(
        "--write-ratings",
        action="store_true",
        help="keep the ratings for the characters (in the --ratings-file)",
    )
    p.add_argument(
        "--ratings-file",
        metavar="PATH",
        help="where --write-ratings writes (default: $TWENTYNINE_LADDER, else the "
        "package's data/ladder.json, where the characters read their ratings)",
    )


def run(args: argparse.Namespace) -> int:
    from rich.progress import Progress

    from ..bots.characters import LADDER_ENV
    from ..game.rules import RulesError
    from ..services import ladder as ld

    players = list(args.players) or ld.default_players()
    if len(players) < 2:
        raise RulesError("a ladder needs at least two players")
    twice = sorted({p for p in players if players.count(p) > 1})
    if twice:
        raise RulesError(f"a player is named more than once: {', '.join(twice)}")
    if args.resamples < 0:
        raise RulesError("--resamples cannot be negative")
    rules = match_rules(
        args, players, lambda spec: None if ld.is_player(spec) else ld.unknown_player(spec)
    )
    pairs = len(ld.pairs_of(players))
    with Progress(disable=args.quiet, transient=True) as progress:
        task = progress.add_task(f"{len(players)} players, {pairs} pairs", total=pairs * args.deals)
        result = ld.play_ladder(
            rules,
            players,
            args.deals,
            args.seed,
            worker_count(args.jobs),
            args.resamples,
            on_board=lambda: progress.advance(task),
        )
    print(ld.format_ladder(result))
    command = "twentynine " + shlex.join(getattr(args, "argv", None) or ["ladder", *players])
    if args.out:
        out = Path(args.out)
        data = {"command": command, "profile": rules.profile, "options": rules.overrides()}
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(json.dumps({**data, **result.to_json()}, indent=2) + "\n")
        except OSError as e:
            print(f"twentynine ladder: cannot write {out}: {e.strerror}", file=sys.stderr)
            return 2
        print(f"  wrote {out}")
    if args.write_ratings:
        path = Path(args.ratings_file or os.environ.get(LADDER_ENV) or PACKAGED)
        today = datetime.now(UTC).date().isoformat()
        kept = ld.ratings_file(result, rules, command, today)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(kept, indent=2, ensure_ascii=False) + "\n")
        except OSError as e:
            print(f"twentynine ladder: cannot write {path}: {e.strerror}", file=sys.stderr)
            return 2
        print(f"  wrote the ratings to {path}")
    return 0
