"""``twentynine bench ablation``: what each piece of the expert's inference is worth.

For each piece (``ExpertBot``'s switches: the auction, the trump choice,
discards, drop signals, contract decisions by simulation), the whole expert
plays duplicate deals against the expert with that one piece switched off
(a variant, ``expert[read_drops=0]``), all in the same run and on the same
deals. A piece earns its place when the whole expert wins with the 95%
interval above zero. Printed as the table of docs/bots.md (*Ablation*): game
points per deal, whole − without, and each side's contracts made. Drop
signals are left out unless asked for: only people make them, at a table
that allows signals, so in the arena the piece never acts.
"""

from __future__ import annotations

import argparse

from ..bots import spec_error
from ..bots.variants import with_knob
from ..game.rules import PROFILES, parse_assignments, resolve
from ..services.arena import Summary, run_boards, summarise

BASE = "expert"
# each piece, and the variant without it
PIECES = {
    "auction": "read_auction=0",
    "trump choice": "read_trump_choice=0",
    "discards": "read_discards=0",
    "drop signals": "read_drops=0",
    "contracts by simulation": "simulate_contract=0",
}
# Pieces the arena cannot measure: drop signals come only from people at a table that
# allows them (the server); no bot makes one, so without the piece every card is the
# same. Left out unless named with --piece.
SILENT_IN_ARENA = {"drop signals": "no bot makes a drop signal: the row is 0 by construction"}


def without(base: str, knob: str) -> str:
    """The spec of ``base`` with the piece's knob set: ``expert[a=1]`` + ``b=0``."""
    return with_knob(base, knob)


def row(piece: str, s: Summary) -> str:
    lo, hi = s.ci95
    verdict = "helps" if lo > 0 else "hurts" if hi < 0 else "not separated"

    def made(side: str) -> str:
        rate = s.make_rate.get(side)
        n = s.contracts.get(side, 0)
        return "-" if rate is None else f"{100 * rate:.0f}% of {n}"

    return (
        f"| {piece} | {s.deals} | {s.mean:+.3f} ({lo:+.3f} .. {hi:+.3f}) | {verdict} "
        f"| {made('A')} | {made('B')} |"
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="twentynine bench ablation", description=__doc__)
    p.add_argument("--deals", type=int, default=300, help="duplicate deals per piece")
    p.add_argument(
        "--base",
        default=BASE,
        help="the whole bot each piece is taken from: the expert or a variant of it "
        "(default expert; e.g. 'expert[partner_margin=0]')",
    )
    p.add_argument("--profile", default="pagat", choices=sorted(PROFILES))
    p.add_argument("--set", action="append", default=[], metavar="K=V")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument(
        "--piece",
        action="append",
        choices=sorted(PIECES),
        help="only these pieces (repeatable; default: every one the arena can measure, "
        "all but drop signals)",
    )
    args = p.parse_args(argv)
    if args.deals < 1:
        p.error("--deals must be at least 1")
    try:
        rules = resolve(args.profile, parse_assignments(args.set))
    except ValueError as e:
        p.error(str(e))
    pieces = args.piece or [p for p in PIECES if p not in SILENT_IN_ARENA]
    base = args.base
    error = spec_error(base)
    if error is not None:
        p.error(error)
    variants = {piece: without(base, PIECES[piece]) for piece in pieces}
    for spec in variants.values():
        error = spec_error(spec)
        if error is not None:
            p.error(error)
    print(
        f"# ablation: {base} against {base} without one piece, {args.deals} duplicate deals "
        f"each, {args.profile}, seed {args.seed}"
    )
    print("| without | deals | whole − without (95% CI) | | made, whole | made, without |")
    print("|---|---|---|---|---|---|")
    for piece in pieces:
        if piece in SILENT_IN_ARENA:
            print(f"# {piece}: {SILENT_IN_ARENA[piece]}")
        variant = variants[piece]
        boards = list(run_boards(rules, base, variant, args.deals, args.seed, args.jobs))
        print(row(piece, summarise(base, variant, boards)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
