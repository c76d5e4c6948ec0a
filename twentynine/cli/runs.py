"""``twentynine runs``: the result of arena runs kept in folders, each and pooled.

A measurement of two search bots takes longer than one sitting. ``arena --out``
keeps each run's boards as they finish, and ``--resume`` goes on with one as
long as the playing code is the same. When it is not (a later session changed
a file the bots read, without changing how they play), the next deals are a
new run with its own seed, and this command reads both folders back and
reports them together: each run's own line, then the statistics over all their
boards, with the fingerprints of the code that played them. Runs of other bots
or rules, or dealt with the same seed, are refused with the reason.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

EXAMPLES = """examples:
  twentynine runs runs/expert-vs-strong                  one run, finished or stopped
  twentynine runs runs/x-2092 runs/x-2093                two runs of one match, pooled"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "folders",
        nargs="+",
        metavar="FOLDER",
        help="a folder written by `twentynine arena --out` (finished or stopped)",
    )


def run(args: argparse.Namespace) -> int:
    from ..services.arena import format_summary, summarise
    from ..services.arena_folder import FolderError, pool_runs, read_run

    try:
        runs = [read_run(Path(folder)) for folder in args.folders]
        boards = pool_runs(runs)
    except FolderError as e:
        print(f"twentynine runs: {e}", file=sys.stderr)
        return 2
    first = runs[0].identity
    a, b = first["a"], first["b"]
    for kept in runs:
        s = summarise(a, b, kept.boards)
        lo, hi = s.ci95
        ident = kept.identity
        print(
            f"  {kept.path}: {s.deals:,} deals (seed {ident['seed']}, code {ident['code']}): "
            f"{s.mean:+.3f} ({lo:+.3f} .. {hi:+.3f}) a deal"
        )
    codes = sorted({kept.identity["code"] for kept in runs})
    if len(runs) > 1:
        played = (
            "one version of the playing code"
            if len(codes) == 1
            else f"{len(codes)} versions of the playing code ({', '.join(codes)}): "
            "pooled as one only if they play the same way"
        )
        print(f"  pooled: {len(runs)} runs, {played}")
    print(format_summary(summarise(a, b, boards)))
    return 0
