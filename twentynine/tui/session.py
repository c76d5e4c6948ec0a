"""A game at one terminal: the match, who sits where, the bots, the events.

Both faces of ``twentynine play`` (the Textual app and ``--plain``) drive a
``Table``. It deals exactly as the web server does (deal ``i`` from
``derive_seed(seed, i)``, the first dealer from the seed, bot seeds from the
game seed), so a seed names the same game in every interface.

Nothing here shows anything: what a person may see of the game is asked
for through ``observation(seat)`` and ``events_for(viewer)``, which go
through the engine's one door (``observe`` and ``event_view``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..bots import LEVELS, Bot, make_bot
from ..bots.characters import BY_ID, CHARACTERS
from ..game.actions import PAIR, Action
from ..game.dealing import deal_hands, derive_seed, first_dealer
from ..game.engine import OVER, PAIR_WINDOW, IllegalAction
from ..game.match import Match
from ..game.observation import Observation, event_view, observe
from ..game.rules import Rules, RulesError

SEAT_NAMES = ("South", "West", "North", "East")
SEAT_LETTERS = "SWNE"
TEAM_NAMES = ("North-South", "East-West")
TEAM_SHORT = ("N-S", "E-W")
BOT_SEED_SALT = 0xB07  # as the web server seeds its bots
DEFAULT_BOTS = ("meera", "anil", "raju")  # West, North, East: the web app's default table
WATCH_SOUTH = "sunita"  # South's bot when four bots play
HOTSEAT_ORDER = (0, 1, 2, 3)  # extra people fill the seats clockwise from South


@dataclass(frozen=True, slots=True)
class Player:
    """Who sits at a seat: a person at this terminal, or a bot (a character or a level)."""

    seat: int
    human: bool
    name: str
    bot: str | None = None  # character id or level name

    @property
    def label(self) -> str:
        """``West · Meera`` for a bot, ``South`` for a person."""
        seat = SEAT_NAMES[self.seat]
        return seat if self.human else f"{seat} · {self.name}"

    @property
    def level(self) -> str | None:
        if self.bot is None:
            return None
        return BY_ID[self.bot].level if self.bot in BY_ID else self.bot


def bot_player(seat: int, ident: str) -> Player:
    """A bot seat from a character id (``meera``) or a level name (``casual``)."""
    key = ident.strip().lower()
    if key in BY_ID:
        return Player(seat, False, BY_ID[key].name, key)
    if key in LEVELS:
        return Player(seat, False, key.capitalize(), key)
    known = ", ".join(c.id for c in CHARACTERS)
    raise RulesError(f"unknown bot {ident!r}; characters: {known}; levels: {', '.join(LEVELS)}")


def seat_plan(
    humans: int = 1,
    bots: Sequence[str] | None = None,
    partner: str | None = None,
    opponents: Sequence[str] | None = None,
) -> tuple[Player, ...]:
    """The four seats from the command line's choices.

    ``humans`` people sit clockwise from South (0 watches four bots);
    ``bots`` names the bots of the remaining seats in seat order; or
    ``partner`` (North) and ``opponents`` (West, East) name them by role.
    """
    if not 0 <= humans <= 4:
        raise RulesError(f"--hotseat takes 1 to 4 people, not {humans}")
    people = set(HOTSEAT_ORDER[:humans])
    free = [s for s in range(4) if s not in people]
    names: dict[int, str] = {s: DEFAULT_BOTS[s - 1] if s else WATCH_SOUTH for s in free}
    if bots is not None:
        if partner is not None or opponents is not None:
            raise RulesError("give --bots, or --partner and --opponents, not both")
        if len(bots) not in (1, len(free)):
            raise RulesError(
                f"--bots needs {len(free)} bots (one per free seat: "
                f"{', '.join(SEAT_NAMES[s] for s in free)}) or one for all, not {len(bots)}"
            )
        chosen = list(bots) * len(free) if len(bots) == 1 else list(bots)
        names.update(zip(free, chosen, strict=True))
    else:
        if partner is not None:
            if 2 not in names:
                raise RulesError("North is a person here: there is no bot partner to choose")
            names[2] = partner
        if opponents is not None:
            opp = [s for s in (1, 3) if s in names]
            if len(opponents) not in (1, len(opp)):
                raise RulesError(f"--opponents needs {len(opp)} bots, not {len(opponents)}")
            chosen = list(opponents) * len(opp) if len(opponents) == 1 else list(opponents)
            names.update(zip(opp, chosen, strict=True))
    players = []
    for seat in range(4):
        if seat in people:
            players.append(Player(seat, True, SEAT_NAMES[seat]))
        else:
            players.append(bot_player(seat, names[seat]))
    return tuple(players)


class Table:
    """A match between the people at this terminal and bots."""

    def __init__(
        self,
        rules: Rules,
        seed: int,
        players: Sequence[Player],
        bot_budget: float | None = None,
    ) -> None:
        if len(players) != 4 or [p.seat for p in players] != [0, 1, 2, 3]:
            raise ValueError("a table needs four players, seats 0 to 3 in order")
        self.rules = rules
        self.seed = seed
        self.players = tuple(players)
        self.humans = tuple(p.seat for p in players if p.human)
        self.bots: dict[int, Bot] = {}
        for p in players:
            if p.bot is not None:
                seed_ = derive_seed(seed, BOT_SEED_SALT, p.seat)
                if p.bot in BY_ID:
                    self.bots[p.seat] = BY_ID[p.bot].make(seed=seed_, budget=bot_budget)
                else:
                    self.bots[p.seat] = make_bot(p.bot, seed=seed_, budget=bot_budget)
        self.match = Match(rules, dealer=first_dealer(seed))
        self.events: list[dict[str, Any]] = []  # raw events of the current deal
        self.start_deal()

    # ------------------------------------------------------------------ state
    @property
    def deal_index(self) -> int:
        return len(self.match.deals) - 1

    @property
    def deal_over(self) -> bool:
        return self.match.deal.phase == OVER

    @property
    def match_over(self) -> bool:
        return self.match.winner is not None

    @property
    def to_act(self) -> int:
        return self.match.to_act

    @property
    def bot_to_act(self) -> bool:
        return self.to_act in self.bots

    @property
    def human_to_act(self) -> int | None:
        seat = self.to_act
        return seat if seat in self.humans else None

    @property
    def auto_pair_due(self) -> bool:
        """In hot-seat the pair is declared for its holder, as the web app does: asking
        would hand the keyboard to that person and tell everyone who holds it."""
        return self.hotseat and self.match.deal.phase == PAIR_WINDOW and self.to_act in self.humans

    def declare_pair(self) -> list[dict[str, Any]]:
        return self.act(Action.flag(self.to_act, PAIR))

    @property
    def hotseat(self) -> bool:
        return len(self.humans) > 1

    @property
    def viewer(self) -> int | None:
        """Whose eyes the shared screen is: the one person, South when watching, else nobody."""
        if len(self.humans) == 1:
            return self.humans[0]
        if not self.humans:
            return 0  # watching: over South's shoulder
        return None

    def observation(self, seat: int | None) -> Observation:
        return observe(self.match, seat)

    def events_for(self, viewer: int | None, start: int = 0) -> list[dict[str, Any]]:
        """The current deal's events (from raw index ``start``) as ``viewer`` may see them."""
        out = []
        for e in self.events[start:]:
            v = event_view(e, viewer)
            if v is not None:
                out.append(v)
        return out

    def name(self, seat: int) -> str:
        return self.players[seat].label

    # ------------------------------------------------------------------ changes
    def start_deal(self) -> list[dict[str, Any]]:
        index = len(self.match.deals)
        dealer = self.match.next_dealer
        hands = deal_hands(derive_seed(self.seed, index), dealer, self.rules.clockwise)
        self.match.start_deal(hands)
        self.events = [{"type": "deal_start", "deal": index, "dealer": dealer}]
        return list(self.events)

    def next_deal(self) -> list[dict[str, Any]]:
        if self.match_over:
            raise IllegalAction("the match is over")
        if not self.deal_over:
            raise IllegalAction("the deal is not finished")
        return self.start_deal()

    def act(self, action: Action) -> list[dict[str, Any]]:
        """Apply a person's (or a bot's) action; an illegal one raises and changes nothing."""
        events = self.match.apply(action)
        self.events.extend(events)
        return events

    def bot_action(self) -> Action:
        """What the bot to act chooses (may take a while for the strong levels)."""
        seat = self.to_act
        return self.bots[seat].act(self.observation(seat))

    def step_bot(self) -> list[dict[str, Any]]:
        return self.act(self.bot_action())
