"""The ``twentynine play`` sub-command: its arguments and how it starts a game."""

from __future__ import annotations

import argparse
import secrets
import sys
from typing import TYPE_CHECKING

from ..game.rules import PROFILES, Rules, RulesError, parse_assignments, resolve

if TYPE_CHECKING:
    from .session import Table

DEFAULT_MATCH_TARGET = 6
MAX_SEED = (1 << 63) - 1

EXAMPLES = """examples:
  twentynine play                         you (South) with a bot partner against two bots
  twentynine play --profile modern --set single_hand=3 --seed 7
  twentynine play --partner dada --opponents pip,tara
  twentynine play --hotseat 2             South and West are people at this keyboard
  twentynine play --watch --delay 0.5     four bots play; watch over South's shoulder
  twentynine play --plain                 a prompt per decision: works over a pipe
  printf '28\\nH\\n1\\n' | twentynine play --plain --seed 3 --bots pip

keys (terminal app): 1-8 pick a card, arrows move, Enter plays or bids,
  B bid, P pass, S H D C trumps, V seventh card, Y yes (double, pair...),
  R ask for trumps, N next deal, L the whole log, ? help, Q quit"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--profile", default="pagat", help=f"rules: {', '.join(PROFILES)}")
    p.add_argument(
        "--set",
        dest="options",
        action="append",
        default=[],
        metavar="K=V",
        help="override an option, e.g. --set min_bid=16 (repeatable)",
    )
    length = p.add_mutually_exclusive_group()
    length.add_argument(
        "--match", action="store_true", help="play a match (to the profile's target, or ±6)"
    )
    length.add_argument("--single", action="store_true", help="single deals, no match")
    p.add_argument("--seed", type=int, help="deal seed: the same seed deals the same game")
    p.add_argument(
        "--bots",
        metavar="A,B,C",
        help="bots of the free seats in seat order (West, North, East): character ids "
        "(pip, tara, meera, anil, dada...) or levels (random ... expert); one name fills all",
    )
    p.add_argument("--partner", metavar="ID", help="the bot at North, your partner")
    p.add_argument("--opponents", metavar="A,B", help="the bots at West and East")
    p.add_argument(
        "--hotseat",
        type=int,
        default=1,
        metavar="N",
        help="people at this keyboard (1-4), seated clockwise from South",
    )
    p.add_argument("--watch", action="store_true", help="four bots play; you watch")
    p.add_argument(
        "--plain", action="store_true", help="a prompt per decision (any terminal, pipes)"
    )
    p.add_argument("--ascii", action="store_true", help="letters instead of suit symbols")
    p.add_argument(
        "--delay",
        type=float,
        metavar="SECONDS",
        help="pause before each bot action (default 0.4; 0.8 when watching; 0 in --plain)",
    )
    p.add_argument("--deals", type=int, metavar="N", help="stop after N deals")


def _names(text: str | None) -> list[str] | None:
    if text is None:
        return None
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise RulesError("name at least one bot")
    return names


def rules_from(args: argparse.Namespace) -> Rules:
    options: dict[str, object] = dict(parse_assignments(args.options))
    if args.single:
        options["match_target"] = None
    elif args.match and "match_target" not in options:
        base = PROFILES.get(args.profile.strip().lower()) if isinstance(args.profile, str) else None
        if base is not None and base.match_target is None:
            options["match_target"] = DEFAULT_MATCH_TARGET
    return resolve(args.profile, options)


def table_from(args: argparse.Namespace) -> Table:
    from .session import Table, seat_plan

    rules = rules_from(args)
    humans = 0 if args.watch else args.hotseat
    if args.watch and args.hotseat != 1:
        raise RulesError("--watch seats four bots: it cannot take --hotseat")
    players = seat_plan(
        humans=humans,
        bots=_names(args.bots),
        partner=args.partner,
        opponents=_names(args.opponents),
    )
    seed = args.seed if args.seed is not None else secrets.randbits(62)
    if not 0 <= seed <= MAX_SEED:
        raise RulesError("--seed must be a whole number from 0 to 2^63 - 1")
    if args.deals is not None and args.deals < 1:
        raise RulesError("--deals must be at least 1")
    if args.delay is not None and not 0 <= args.delay <= 60:
        raise RulesError("--delay is a number of seconds from 0 to 60")
    return Table(rules, seed, players)


def run(args: argparse.Namespace) -> int:
    from .text import detect_glyphs

    table = table_from(args)
    terminal = sys.stdin.isatty() and sys.stdout.isatty()
    plain = args.plain or not terminal
    glyphs = detect_glyphs(sys.stdout)
    if args.ascii:
        glyphs = type(glyphs)(False)
    watching = not table.humans
    if plain:
        from .plain import PlainGame

        delay = args.delay if args.delay is not None else (0.8 if watching else 0.0)
        max_deals = args.deals
        if max_deals is None and watching and table.rules.match_target is None:
            max_deals = 1
        return PlainGame(table, glyphs=glyphs, delay=delay, max_deals=max_deals).run()
    from .app import PlayApp

    delay = args.delay if args.delay is not None else (0.8 if watching else 0.4)
    app = PlayApp(table, glyphs=glyphs, delay=delay, max_deals=args.deals)
    app.run()
    return 0
