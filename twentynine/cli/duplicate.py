"""What the commands of duplicate matches (``arena``, ``ladder``) share: the options
of the rules, the deals and the workers, and the checks of the bots they name."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Sequence

from ..game.rules import Rules, RulesError, parse_assignments, resolve


def add_match_arguments(p: argparse.ArgumentParser, deals: int, deals_help: str) -> None:
    """--deals, --profile, --set, --seed, --jobs and --quiet."""
    p.add_argument("--deals", type=int, default=deals, help=deals_help)
    p.add_argument("--profile", default="pagat", help="rule profile (default pagat)")
    p.add_argument(
        "--set",
        dest="options",
        action="append",
        default=[],
        metavar="K=V",
        help="override an option (repeatable)",
    )
    p.add_argument("--seed", type=int, default=1, help="seed of the deals")
    p.add_argument(
        "--jobs", type=int, default=1, help="worker processes (default 1; 0 = all cores)"
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def match_rules(
    args: argparse.Namespace, specs: Sequence[str], known: Callable[[str], str | None]
) -> Rules:
    """The rules of the match, once every bot named is known and ``--deals`` is sane.

    ``known(spec)`` is None for a bot the command can seat, else the message that
    says why not; a contest bot's URL is then asked whether it answers and fits
    the rules. Raises ``RulesError`` with a one-line message."""
    from ..services.arena import is_url

    for spec in specs:
        why = None if is_url(spec) else known(spec)
        if why is not None:
            raise RulesError(why)
    if args.deals < 1:
        raise RulesError("--deals must be at least 1")
    rules = resolve(args.profile, parse_assignments(args.options))
    for spec in specs:
        if is_url(spec):
            from ..services.protocols.bhoos.adapter import check_seat

            check_seat(spec, rules)
    return rules


def worker_count(jobs: int) -> int:
    """--jobs as a number of processes (0: one per core)."""
    return jobs if jobs > 0 else (os.cpu_count() or 1)
