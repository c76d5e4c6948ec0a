"""``twentynine runs``: the result of arena runs kept in folders, each and pooled.

A measurement of two search bots takes longer than one sitting. ``arena --out``
keeps each run's boards as they finish, and ``--resume`` goes on with one as
long as the playing code is the same. When it is not (a later session changed
a file the bots read, without changing how they play), the next deals are a
new run with its own seed, and this command reads both folders back and
reports them together: each run's own line, then the statistics over all their
boards, with the fingerprints of the code that played them. Runs of other bots
or rules, or dealt with the same seed, are refused with the reason.

With ``--paired`` it compares two runs instead: two bots, each played against
the same opponent on the same deals (the same rules and seed). Deal by deal
the opponent and the cards are the same, so the difference of the two runs'
figures per deal, with its 95% interval, measures the two bots against each
other through that opponent, more sharply than two separate runs can.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

EXAMPLES = """examples:
  twentynine runs runs/expert-vs-strong                  one run, finished or stopped
  twentynine runs runs/x-2092 runs/x-2093                two runs of one match, pooled
  twentynine runs --paired runs/x-strong runs/y-strong   x and y against strong, deal by deal"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "folders",
        nargs="+",
        metavar="FOLDER",
        help="a folder written by `twentynine arena --out` (finished or stopped)",
    )
    p.add_argument(
        "--paired",
        action="store_true",
        help="compare two runs of two bots against the same opponent on the same deals",
    )


def run(args: argparse.Namespace) -> int:
    from ..services.arena import format_summary, summarise
    from ..services.arena_folder import FolderError, pool_runs, read_run

    if args.paired:
        return paired(args.folders)
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


def paired(folders: list[str]) -> int:
    """``--paired``: two runs against one opponent on the same deals, deal by deal."""
    from ..services.arena import compare_paired
    from ..services.arena_folder import FolderError, pair_runs, read_run

    if len(folders) != 2:
        print(f"twentynine runs: --paired takes two folders, not {len(folders)}", file=sys.stderr)
        return 2
    try:
        first, second = (read_run(Path(folder)) for folder in folders)
        pairs = pair_runs(first, second)
    except FolderError as e:
        print(f"twentynine runs: {e}", file=sys.stderr)
        return 2
    result = compare_paired(pairs)
    one, other, b = first.identity["a"], second.identity["a"], first.identity["b"]
    lo, hi = result.ci95
    print(f"{one} and {other}, each against {b}, on the same {result.deals:,} deals")
    print(f"  {one} − {b}: {result.first:+.3f} a deal ({first.path})")
    print(f"  {other} − {b}: {result.second:+.3f} a deal ({second.path})")
    print(
        f"  the difference, {one} − {other}: {result.mean:+.3f} ({lo:+.3f} .. {hi:+.3f}) a deal;"
        f" the result differs in {result.differ:,} deals"
    )
    return 0
