"""``twentynine play --plain``: the game as lines of text, for any terminal or a pipe.

Each decision of a person prints a compact state and a prompt, then reads one
line: a bid (``16``), ``pass``, a suit (``trump S`` or ``S``), a card (``JS``,
``10h``, or its number among the playable cards), ``double``, ``pair``... The
end of the input quits cleanly, so a game can be scripted. ``--watch`` prints
four bots' game at a readable pace.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

from ..game.engine import IllegalAction
from ..game.observation import Observation
from ..game.rules import Rules, format_value
from .advice import advice_text, deal_report, hint_refusal, hint_text
from .keys import flags_of
from .session import SEAT_NAMES, TEAM_NAMES, TEAM_SHORT, Table
from .text import (
    HELP_WORDS,
    NEXT_WORDS,
    QUIT_WORDS,
    STATE_WORDS,
    CommandError,
    Glyphs,
    Namer,
    auction_text,
    contract_text,
    decision_prompt,
    describe,
    hand_text,
    read_action,
    signed,
    target_text,
    trump_text,
)


def plain_help(rules: Rules) -> str:
    """The commands a person may type, for these rules (no seventh card, no reveal,
    no doubling where the rules have none)."""
    rows = [
        "Commands at your turn:",
        "  16, bid 16, b       bid (b alone: the lowest bid)      pass, p   pass",
        "  S, H, D, C          choose trumps (also: trump S, spades"
        + (", seventh)" if rules.seventh_card else ")"),
        "  JS, 10h, 9d         play a card; 1, 2, ... play the n-th playable card",
    ]
    flags = flags_of(rules)
    if flags:
        rows.append(f"  {', '.join(flags):<19} answer the question, or yes / no (pass)")
    if rules.reveal == "ask":
        rows.append(
            "  reveal, ask         ask for trumps (when you cannot follow and they are hidden)"
        )
    rows += [
        "  state               show the whole state again        ?, help   this help",
        "  hint                the expert's choice and why; chances: each bid's chance"
        " (practice against bots, not a match)",
        "  q, quit             leave the game (so does the end of the input)",
        "Between deals: Enter (or next) deals again; analyse shows the deal's turning points"
        " and what your cards cost.",
    ]
    return "\n".join(rows)


HINT_WORDS = {"hint"}
CHANCE_WORDS = {"chances"}
ANALYSE_WORDS = {"analyse", "analyze"}


class PlainGame:
    """The line-by-line game loop; streams and the clock are injectable for tests."""

    def __init__(
        self,
        table: Table,
        inp: TextIO | None = None,
        out: TextIO | None = None,
        glyphs: Glyphs | None = None,
        delay: float = 0.0,
        max_deals: int | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.table = table
        self.inp = inp or sys.stdin
        self.out = out or sys.stdout
        self.g = glyphs or Glyphs(True)
        self.delay = delay
        self.max_deals = max_deals
        self.sleep = sleep
        self.viewer = table.viewer
        you = table.humans[0] if len(table.humans) == 1 else None
        self.names = Namer([p.label for p in table.players], you)
        self.printed = 0
        self.echo = not _isatty(self.inp)

    # ------------------------------------------------------------------ output
    def say(self, line: str = "") -> None:
        self.out.write(line + "\n")
        self.out.flush()

    def flush_events(self) -> None:
        shown = self.table.events_for(self.viewer, start=self.printed)
        self.printed = len(self.table.events)
        end = self.table.observation(self.viewer) if self.table.deal_over else None
        for ev in shown:
            line = describe(ev, self.names, self.g, end=end)
            if line:
                self.say("  " + line)

    def header(self) -> None:
        t = self.table
        r = t.rules
        length = f"match to ±{r.match_target}" if r.match_target else "single deals"
        self.say(f"29 · {r.profile} rules · {length} · seed {t.seed}")
        changed = r.overrides()
        if changed:
            opts = ", ".join(f"{k}={format_value(v)}" for k, v in changed.items())
            self.say(f"Options: {opts}")
        seats = ", ".join(
            f"{SEAT_NAMES[p.seat]}: {'you' if p.human and len(t.humans) == 1 else p.name}"
            + ("" if p.human else f" ({p.level})")
            for p in t.players
        )
        self.say(f"Seats: {seats}. Teams: N-S (South, North) against E-W (West, East).")
        if not t.humans:
            self.say("Watching four bots, over South's shoulder.")
        elif len(t.humans) > 1:
            self.say("Hot-seat: each person's hand is printed at their turn; the others look away.")
        if t.humans:
            self.say("Type ? for help.")

    def status(self, obs: Observation) -> str:
        parts = [f"Deal {obs.deal_index + 1}"]
        if obs.phase == "auction":
            parts.append(f"dealer {SEAT_NAMES[obs.dealer]}")
        else:
            parts.append(f"contract {contract_text(obs, self.names)}")
            target = target_text(obs)
            if target and (obs.pair or obs.target != obs.bid):
                parts.append(f"target {target}")
            parts.append(f"trumps {trump_text(obs, self.g)}")
        if obs.phase in ("play", "pair"):
            parts.append(f"trick {len(obs.tricks) + 1}")
            parts.append(f"points {TEAM_SHORT[0]} {obs.points[0]}, {TEAM_SHORT[1]} {obs.points[1]}")
        if self.table.rules.match_target:
            s = obs.score
            parts.append(f"match {TEAM_SHORT[0]} {signed(s[0])}, {TEAM_SHORT[1]} {signed(s[1])}")
        return "[" + " · ".join(parts) + "]"

    def show_state(self, obs: Observation) -> None:
        self.say(self.status(obs))
        if obs.phase == "auction":
            self.say(auction_text(obs, self.names))
        if obs.trick:
            played = ", ".join(f"{self.names(s)} {self.g.card(c)}" for s, c in obs.trick)
            self.say(f"On the table: {played}")
        self.say(f"Hand: {hand_text(obs, self.g)}")

    def show_end(self) -> None:
        obs = self.table.observation(self.viewer)
        if obs.hands is not None:
            self.say("  Hands were:")
            for seat in range(4):
                cards = sorted(obs.hands[seat], key=lambda c: (c >> 3, -(c & 7)))
                self.say(f"    {SEAT_NAMES[seat]:<5} {self.g.cards(cards)}")
        s = self.table.match.score
        if not self.table.rules.match_target:
            self.say(f"  Total: {TEAM_SHORT[0]} {signed(s[0])}, {TEAM_SHORT[1]} {signed(s[1])}")
        else:
            target = self.table.rules.match_target
            self.say(
                f"  Match: {TEAM_SHORT[0]} {signed(s[0])} {self.g.pips(s[0], target)}   "
                f"{TEAM_SHORT[1]} {signed(s[1])} {self.g.pips(s[1], target)}"
            )

    # ------------------------------------------------------------------ input
    def read(self, prompt: str) -> str | None:
        self.out.write(prompt)
        self.out.flush()
        line = self.inp.readline()
        if line == "":
            self.say("")
            return None
        line = line.rstrip("\n")
        if self.echo:
            self.out.write(line + "\n")
            self.out.flush()
        return line

    # ------------------------------------------------------------------ the loop
    def run(self) -> int:
        t = self.table
        self.header()
        self.flush_events()
        deals = 1
        while True:
            if t.deal_over:
                self.show_end()
                if t.match_over:
                    winner = t.match.winner
                    assert winner is not None
                    self.say(f"Match over: {TEAM_NAMES[winner]} win the match.")
                    return 0
                if self.max_deals is not None and deals >= self.max_deals:
                    return 0
                if t.humans:
                    line = self.read("Next deal: press Enter (q quits) > ")
                    if line is None or line.strip().lower() in QUIT_WORDS:
                        self.say("Bye.")
                        return 0
                    if line.strip().lower() in ANALYSE_WORDS:
                        self.say(deal_report(t.match.deal, self.viewer or 0))
                        continue
                    if line.strip().lower() not in NEXT_WORDS:
                        self.say("  ! press Enter for the next deal, or q to quit")
                        continue
                else:
                    self.sleep(self.delay * 2)
                t.next_deal()
                deals += 1
                self.printed = 0
                self.flush_events()
                continue
            if t.auto_pair_due:
                t.declare_pair()
                self.flush_events()
                continue
            if t.bot_to_act:
                self.sleep(self.delay)
                t.step_bot()
                self.flush_events()
                continue
            seat = t.human_to_act
            assert seat is not None
            if not self.decide(seat):
                self.say("Bye.")
                return 0

    def decide(self, seat: int) -> bool:
        """One decision of the person at ``seat``; False when they quit."""
        obs = self.table.observation(seat)
        if self.table.hotseat:
            self.say(f"--- {SEAT_NAMES[seat]}'s turn (the others look away) ---")
        self.show_state(obs)
        who = "Your" if len(self.table.humans) == 1 else f"{SEAT_NAMES[seat]}'s"
        question = f"{who} turn: {decision_prompt(obs, self.g)}   (? help)"
        while True:
            line = self.read(f"{question}\n> ")
            if line is None:
                return False
            word = line.strip().lower()
            if word in QUIT_WORDS:
                return False
            if word in HELP_WORDS:
                self.say(plain_help(self.table.rules))
                continue
            if word in STATE_WORDS:
                self.show_full(obs)
                continue
            if word in HINT_WORDS or word in CHANCE_WORDS:
                refusal = hint_refusal(self.table)
                if refusal is not None:
                    self.say(f"  ! {refusal}")
                elif word in HINT_WORDS:
                    self.say("  " + hint_text(obs))
                else:
                    self.say(advice_text(obs))
                continue
            try:
                action = read_action(line, obs)
                self.table.act(action)
            except (CommandError, IllegalAction) as err:
                self.say(f"  ! {err}")
                continue
            self.flush_events()
            return True

    def show_full(self, obs: Observation) -> None:
        self.show_state(obs)
        self.say(auction_text(obs, self.names))
        for i, (_leader, cards, seats, winner, pts) in enumerate(obs.tricks, start=1):
            played = ", ".join(
                f"{self.names(s)} {self.g.card(c)}" for s, c in zip(seats, cards, strict=True)
            )
            self.say(f"  Trick {i}: {played} -> {self.names(winner)} {pts}")


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
