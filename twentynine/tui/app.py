"""``twentynine play``: the terminal game, a Textual app that fits 80×24.

The screen, top to bottom: a title line, the contract / target / trumps /
points / match strip, the auction, the table (the trick, the seats, whose
turn) beside the event log, the hand grouped by suit, and the question of the
moment with its keys. Everything shown comes from the observation of the
person at the keyboard (``Table.viewer``) or, in hot-seat, of the person
whose turn it is once they have taken the keyboard; the log is the public
one in hot-seat.

Keys: digits and arrows pick, Enter confirms, B bids, P passes, S H D C
choose trumps, Y says yes to the question (double, pair, single hand...),
R asks for trumps, N deals again, ? shows help, Q quits (after asking).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, ClassVar

from rich.text import Text
from textual import events, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import RichLog, Static

from ..actions import BID, PASS, REVEAL, SEVENTH, TRUMP, Action
from ..cards import POINTS, SUIT_NAMES
from ..engine import IllegalAction
from ..observation import Observation
from ..rules import OPTION_HELP, PROFILE_SUMMARIES, format_value
from .session import SEAT_NAMES, TEAM_SHORT, Table
from .text import (
    PHASE_QUESTIONS,
    Glyphs,
    Namer,
    bid_range,
    describe,
    display_hand,
    hand_by_suit,
    hand_by_suit_of,
    highest_bid,
    is_red,
    legal_plays,
    signed,
    why_not_card,
)

RED = "bold red"
TABLE_WIDTH = 42
FLAG_KEYS = {"single": "a", "double": "d", "redouble": "r", "set": "s", "pair": "k"}
FLAG_LABELS = {
    "single": "play alone",
    "double": "double",
    "redouble": "redouble",
    "set": "set",
    "pair": "show the pair",
}
TRUMP_KEYS = "shdc"
DIGIT_TIMEOUT = 1.2  # seconds to type the second digit of a bid

HELP_TEXT = """\
[b]Keys[/b]
  [b]1-8[/b]        pick the n-th playable card (numbered above the hand)
  [b]← →[/b]        move the pick          [b]Enter[/b]  play the picked card
  [b]↑ ↓ + −[/b]    change the bid; or type it (1 then 7)
  [b]B[/b] bid  [b]P[/b] pass  [b]Enter[/b] bids the value shown
  [b]S H D C[/b]    choose trumps         [b]V[/b]  the seventh card (if allowed)
  [b]Y[/b]          yes: play alone (A), double (D), redouble (R), set (S), pair (K)
  [b]P[/b] or [b]N[/b]     no
  [b]R[/b]          ask for trumps (reveal on request, when you cannot follow)
  [b]N[/b] / Enter  next deal when a deal is over
  [b]?[/b]          this help            [b]Q[/b]  quit (asks first)

[b]The screen[/b]
  The table shows each seat, whose turn it is (▸), the dealer (D), the
  bidder, and the cards of the trick; between tricks, the last trick.
  The log on the right tells every bid, reveal, trick and result.
  The match score is drawn as the pips of the sixes: filled pips count
  up (red) or down (black) to the target."""


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[Any]] = [
        Binding("escape,question_mark,q,enter", "dismiss", "close"),
    ]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    #help-box { width: 78; height: auto; max-height: 22; border: round $accent;
                background: $surface; padding: 0 1; overflow-y: auto; }
    """

    def __init__(self, rules_text: str) -> None:
        super().__init__()
        self.rules_text = rules_text

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box"):
            yield Static(HELP_TEXT + "\n\n" + self.rules_text + "\n\n[dim]Esc or ? closes[/dim]")

    async def action_dismiss(self, result: Any = None) -> None:
        self.dismiss(None)


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question (quitting a match)."""

    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    #confirm-box { width: 52; height: auto; border: round $warning; background: $surface;
                   padding: 1 2; }
    """

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            yield Static(f"{self.question}\n\n[b]Y[/b] yes    [b]N[/b] / Esc no", id="confirm-text")

    def on_key(self, event: events.Key) -> None:
        event.stop()
        if event.key in ("y", "Y"):
            self.dismiss(True)
        elif event.key in ("n", "N", "escape", "q"):
            self.dismiss(False)


class PlayApp(App[int]):
    """The terminal table."""

    TITLE = "29"
    CSS = """
    Screen { layout: vertical; background: $background; }
    #title { height: 1; background: $primary-darken-2; color: $text; padding: 0 1; }
    #status { height: 2; padding: 0 1; }
    #auction { height: 1; padding: 0 1; color: $text-muted; }
    #middle { height: 1fr; }
    #table { width: 46; height: 100%; border: round $primary; padding: 0 1; }
    #log { width: 1fr; height: 100%; border: round $primary-darken-1; padding: 0 1;
           scrollbar-size-vertical: 1; overflow-x: hidden; }
    #hand { height: 3; padding: 0 1; }
    #prompt { height: 2; padding: 0 1; background: $boost; }
    #keys { height: 1; padding: 0 1; color: $text-muted; }
    """

    def __init__(
        self,
        table: Table,
        glyphs: Glyphs | None = None,
        delay: float = 0.4,
        max_deals: int | None = None,
    ) -> None:
        super().__init__()
        self.table = table
        self.g = glyphs or Glyphs(True)
        self.delay = delay
        self.max_deals = max_deals
        self.watching = not table.humans
        # whose hand is on screen: the one person, South when watching, or in
        # hot-seat the person who has taken the keyboard (None between turns)
        self.holder: int | None = table.viewer if not table.hotseat else None
        you = table.humans[0] if len(table.humans) == 1 else None
        self.names = Namer([p.label for p in table.players], you)
        self.log_viewer = table.viewer  # the public log in hot-seat
        self.logged = 0
        self.selected: int | None = None
        self.bid_value: int | None = None
        self.digits = ""
        self.digits_at = 0.0
        self.notice: Text | None = None
        self.thinking = False
        self.deals_played = 1

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield Static(id="title")
        yield Static(id="status")
        yield Static(id="auction")
        with Horizontal(id="middle"):
            yield Static(id="table")
            log = RichLog(id="log", wrap=True, markup=False, auto_scroll=True, min_width=10)
            log.can_focus = False
            yield log
        yield Static(id="hand")
        yield Static(id="prompt")
        yield Static(id="keys")

    def on_mount(self) -> None:
        self.query_one("#table").border_title = "Table"
        self.query_one("#log").border_title = "Log"
        self.log_events()
        self.refresh_all()
        self.advance()

    # ------------------------------------------------------------------ state
    @property
    def turn_seat(self) -> int | None:
        """The person whose turn it is and who holds the keyboard, if any."""
        seat = self.table.human_to_act
        if seat is None or seat != self.holder:
            return None
        return seat

    @property
    def handover(self) -> int | None:
        """In hot-seat, the person the keyboard must go to before they see their hand."""
        seat = self.table.human_to_act
        if self.table.auto_pair_due:
            return None  # declared for its holder at once
        if seat is not None and self.table.hotseat and seat != self.holder:
            return seat
        return None

    def obs(self) -> Observation:
        return self.table.observation(self.holder)

    # ------------------------------------------------------------------ rendering
    def refresh_all(self) -> None:
        obs = self.obs()
        self.query_one("#title", Static).update(self.render_title(obs))
        self.query_one("#status", Static).update(self.render_status(obs))
        self.query_one("#auction", Static).update(self.render_auction(obs))
        self.query_one("#table", Static).update(self.render_table(obs))
        self.query_one("#hand", Static).update(self.render_hand(obs))
        self.query_one("#prompt", Static).update(self.render_prompt(obs))
        self.query_one("#keys", Static).update(self.render_keys(obs))

    def render_title(self, obs: Observation) -> Text:
        t = self.table
        r = t.rules
        length = f"match to ±{r.match_target}" if r.match_target else "single deals"
        left = f"29 · {r.profile} · {length} · deal {obs.deal_index + 1} · seed {t.seed}"
        who = "watching" if self.watching else ("hot-seat" if t.hotseat else "you: South")
        right = f"{who} · ? help · q quit"
        pad = max(1, 78 - len(left) - len(right))
        return Text(left + " " * pad + right, no_wrap=True, overflow="ellipsis")

    def render_status(self, obs: Observation) -> Text:
        g = self.g
        line = Text(no_wrap=True, overflow="ellipsis")
        line.append("Contract ", "dim")
        if obs.single is not None:
            line.append(f"{self.names(obs.single)} alone", "bold")
        elif obs.bidder is not None and obs.bid is not None:
            line.append(f"{self.names(obs.bidder)} · {obs.bid}", "bold")
            if obs.forced:
                line.append(" forced", "dim")
            if obs.doubling > 1:
                line.append(f" x{obs.doubling}", "bold yellow")
        else:
            high = highest_bid(obs)
            line.append(f"{high[1]} by {self.names(high[0])}" if high else "none yet")
        if obs.target is not None and (obs.pair is not None or obs.target != obs.bid):
            line.append(" │ ", "dim")
            line.append("Target ", "dim")
            line.append(str(obs.target), "bold")
            if obs.pair is not None:
                line.append(" (pair)", "dim")
        line.append(" │ ", "dim")
        line.append("Trumps ", "dim")
        line.append_text(self.trump_state(obs))
        line2 = Text(no_wrap=True, overflow="ellipsis")
        line2.append("Points ", "dim")
        mine = None if obs.seat is None or self.watching else obs.seat & 1
        for team in (0, 1):
            style = "bold reverse" if team == mine else "bold"
            line2.append(f" {TEAM_SHORT[team]} {obs.points[team]} ", style)
            line2.append(" ")
        target = self.table.rules.match_target
        if target:
            line2.append("│ ", "dim")
            line2.append(f"Match ±{target} ", "dim")
            for team in (0, 1):
                s = obs.score[team]
                line2.append(f"{TEAM_SHORT[team]} {signed(s)} ", "bold")
                n = min(abs(s), target)
                full, empty = g.pips(1, 1), g.pips(0, 1)
                line2.append(full * n, "red" if s > 0 else "white on black")
                line2.append(empty * (target - n), "dim")
                line2.append("  ")
        else:
            line2.append("│ ", "dim")
            line2.append("Total ", "dim")
            line2.append(
                f"{TEAM_SHORT[0]} {signed(obs.score[0])}  {TEAM_SHORT[1]} {signed(obs.score[1])}",
                "bold",
            )
        return Text("\n").join([line, line2])

    def trump_state(self, obs: Observation) -> Text:
        g = self.g
        if obs.single is not None:
            return Text("none (single hand)")
        if obs.trump is not None:
            suit = Text(
                f"{g.suit(obs.trump)} {SUIT_NAMES[obs.trump]}",
                RED if is_red(obs.trump, True) else "bold",
            )
            if obs.trump_revealed:
                how = f", revealed in trick {obs.revealed_in_trick}"
            elif obs.phase == "over":
                how = ", never shown"
            else:
                how = ", your secret"
            return suit + Text(how, "dim")
        if obs.bidder is not None and obs.phase != "trump":
            return Text("seventh card, hidden" if obs.seventh else "hidden")
        return Text("not chosen", "dim")

    def render_auction(self, obs: Observation) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append("Auction: ")
        if not obs.auction:
            text.append("—" if obs.phase != "auction" else "no call yet")
            return text
        calls = obs.auction[-9:]
        if len(obs.auction) > len(calls):
            text.append("… ")
        for i, (seat, bid) in enumerate(calls):
            if i:
                text.append(", ")
            text.append(f"{SEAT_NAMES[seat][0]} ")
            text.append(str(bid) if bid else "pass", "bold" if bid else "dim")
        if obs.bidder is not None and obs.bid is not None:
            text.append(f"  → {self.names(obs.bidder)} {obs.bid}", "bold")
        return text

    def card_text(self, card: int, style: str = "") -> Text:
        red = is_red(card)
        base = "bold red" if red else "bold"
        return Text(self.g.card(card), f"{base} {style}".strip())

    def render_table(self, obs: Observation) -> Text:
        w = TABLE_WIDTH
        t = self.table
        to_act = obs.to_act if obs.phase not in ("over",) else None
        trick = dict(obs.trick)
        shown_last = False
        if not trick and obs.tricks and obs.phase in ("play", "pair", "over"):
            _leader, cards, seats, winner, pts = obs.tricks[-1]
            trick = dict(zip(seats, cards, strict=True))
            shown_last = True
        calls: dict[int, int] = {}
        if obs.phase in ("auction", "trump") or (not obs.tricks and not obs.trick):
            for seat, bid in obs.auction:
                calls[seat] = bid

        def label(seat: int) -> Text:
            out = Text()
            if to_act == seat:
                out.append("▸ " if self.g.unicode else "> ", "bold yellow")
            out.append(t.players[seat].label if seat != self.names.you else "South · you", "bold")
            if seat == obs.dealer:
                out.append(" D", "cyan")
            if obs.bidder == seat and obs.single is None:
                out.append(f" bid {obs.bid}", "magenta")
            if obs.single == seat:
                out.append(" alone", "magenta")
            return out

        def slot(seat: int) -> Text:
            if seat in trick:
                style = ""
                if shown_last:
                    style = "reverse" if seat == obs.tricks[-1][3] else "dim"
                return Text("[") + self.card_text(trick[seat], style) + Text("]")
            if obs.single is not None and seat == (obs.single + 2) % 4:
                return Text("sits out", "dim")
            if seat in calls:
                bid = calls[seat]
                return Text(f"bid {bid}" if bid else "pass", "italic" if bid else "dim italic")
            return Text("")

        def centre(text: Text) -> Text:
            pad = max(0, (w - text.cell_len) // 2)
            return Text(" " * pad) + text

        def sides(left: Text, right: Text) -> Text:
            pad = max(1, w - left.cell_len - right.cell_len)
            return left + Text(" " * pad) + right

        lines = [
            centre(label(2)),
            centre(slot(2)),
            Text(""),
            sides(label(1), label(3)),
            sides(Text("  ") + slot(1), slot(3) + Text("  ")),
            Text(""),
            centre(slot(0)),
            centre(label(0)),
            Text(""),
        ]
        caption = Text(style="dim")
        if shown_last:
            _leader, _cards, _seats, winner, pts = obs.tricks[-1]
            caption.append(f"Trick {len(obs.tricks)} to {self.names(winner)}, {pts} pt")
            caption.append("s" if pts != 1 else "")
        elif obs.phase in ("play", "pair") and obs.trick_leader is not None:
            caption.append(f"Trick {len(obs.tricks) + 1} · {self.names(obs.trick_leader)} led")
            if obs.tricks:
                _leader, cards, _seats, winner, pts = obs.tricks[-1]
                lines.append(centre(caption))
                caption = Text(style="dim")
                caption.append(f"last: {self.g.cards(cards)} to {self.names(winner)} ({pts})")
        elif obs.phase == "auction":
            caption.append("The auction")
        lines.append(centre(caption))
        if self.thinking and obs.to_act is not None and obs.to_act in self.table.bots:
            # obs.to_act, not the engine's: a pair decision is private to its holder
            lines.append(centre(Text(f"{SEAT_NAMES[obs.to_act]} is thinking…", "italic dim")))
        return Text("\n").join(lines)

    def render_hand(self, obs: Observation) -> Text:
        if self.holder is None:
            if self.handover is not None:
                return Text(f"\n(hidden: {SEAT_NAMES[self.handover]} takes the keyboard)", "dim")
            return Text("\n(the hands are hidden between turns)", "dim")
        mine = self.turn_seat == self.holder and obs.phase == "play"
        legal = legal_plays(obs) if mine else []
        numbers = Text(no_wrap=True)
        cards_line = Text(no_wrap=True)
        who = "Your hand" if self.names.you == self.holder else f"{SEAT_NAMES[self.holder]}'s hand"
        head = Text(f"{who} · {len(obs.hand)} cards", "dim")
        if obs.phase == "auction" or (obs.phase == "trump" and not obs.second_batch):
            head.append(" (first four)", "dim")
        for gi, (_suit, cards) in enumerate(hand_by_suit(obs)):
            if gi:
                numbers.append("  ")
                cards_line.append("  ")
            for c in cards:
                cell = self.g.card(c)
                pad = 3 - len(cell)  # ranks right-aligned, so the suits line up
                if c in legal:
                    numbers.append(
                        " " * pad + str(legal.index(c) + 1).ljust(len(cell) + 1), "bold yellow"
                    )
                else:
                    numbers.append(" " * 4)
                style = ""
                if mine and c not in legal:
                    style = "dim"
                if c == self.selected:
                    style = "reverse"
                cards_line.append(" " * pad)
                cards_line.append_text(self.card_text(c, style))
                cards_line.append(" ")
        return Text("\n").join([head, numbers, cards_line])

    def render_prompt(self, obs: Observation) -> Text:
        t = self.table
        line1 = Text(no_wrap=True, overflow="ellipsis")
        line2 = Text(no_wrap=True, overflow="ellipsis")
        if self.notice is not None:
            line2 = self.notice
        if t.deal_over:
            ev = next((e for e in reversed(t.events) if e.get("type") == "deal_end"), None)
            line1.append(self.result_text(obs, ev), "bold")
            if t.match_over:
                winner = t.match.winner
                assert winner is not None
                line2 = Text(f"{TEAM_SHORT[winner]} win the match!  Q leaves.", "bold green")
            elif self.last_deal_played:
                line2 = Text("That was the last deal.  Q leaves.", "bold")
            elif not self.watching and self.notice is None:
                line2 = Text("N or Enter: next deal", "bold yellow")
            return Text("\n").join([line1, line2])
        if self.handover is not None:
            next_seat = SEAT_NAMES[self.handover]
            line1.append(f"{next_seat}'s turn. Pass the keyboard to {next_seat}.", "bold")
            if self.notice is None:
                line2 = Text(f"Enter: {next_seat} is ready (the hand is shown)", "yellow")
            return Text("\n").join([line1, line2])
        seat = self.turn_seat
        if seat is None:
            to = obs.to_act
            if to is not None:
                line1.append(
                    f"{self.names(to)} to play…"
                    if obs.phase == "play"
                    else f"Waiting for {self.names(to)}…",
                    "dim",
                )
            else:
                line1.append("The table waits…", "dim")
            return Text("\n").join([line1, line2])
        who = "Your turn" if len(t.humans) == 1 else f"{SEAT_NAMES[seat]}'s turn"
        kinds = {a.kind for a in obs.legal}
        line1.append(f"{who}: ", "bold yellow")
        if obs.phase == "auction":
            bids = bid_range(obs)
            if bids:
                value = self.current_bid(obs)
                defend = (
                    obs.duel is not None and obs.duel.get("defender") == seat and len(bids) == 1
                )
                line1.append(
                    f"match {bids[0]} or pass" if defend else f"bid {bids[0]}–{bids[-1]} or pass"
                )
                ctl = Text()
                ctl.append("◂ " if self.g.unicode else "< ")
                ctl.append(f" {value} ", "reverse bold")
                ctl.append(" ▸" if self.g.unicode else " >")
                ctl.append("   B/Enter bid · P pass · ↑↓ or type to change", "dim")
                if self.notice is None:
                    line2 = ctl
            else:
                line1.append("pass (no bid is possible)")
                if self.notice is None:
                    line2 = Text("P pass", "dim")
        elif obs.phase == "trump":
            line1.append("choose trumps from your four cards")
            if self.notice is None:
                line2 = Text()
                for i, key in enumerate(TRUMP_KEYS):
                    line2.append(f"{key.upper()} ", "bold")
                    line2.append(
                        self.g.suit(i) + " " + SUIT_NAMES[i], RED if is_red(i, True) else ""
                    )
                    line2.append("   ")
                if SEVENTH in kinds:
                    line2.append("V seventh card", "bold")
        elif obs.phase in PHASE_QUESTIONS:
            flag = next(k for k in kinds if k != PASS)
            line1.append(PHASE_QUESTIONS[obs.phase])
            if self.notice is None:
                line2 = Text()
                line2.append(f"Y ({FLAG_KEYS[flag].upper()}) {FLAG_LABELS[flag]}", "bold")
                line2.append("   P no", "bold")
        elif obs.phase == "play":
            led = obs.led_suit
            if led is None:
                line1.append("lead a card")
            else:
                line1.append(f"play a card to {SUIT_NAMES[led]}")
            if self.selected is not None:
                line1.append("  · picked ")
                line1.append_text(self.card_text(self.selected))
                pts = POINTS[self.selected]
                if pts:
                    line1.append(f" ({pts} pt{'s' if pts > 1 else ''})", "dim")
            if self.notice is None:
                line2 = Text("1-8 or ←→ pick · Enter play", "dim")
                if REVEAL in kinds:
                    line2.append(" · R ask for trumps", "bold")
        return Text("\n").join([line1, line2])

    def result_text(self, obs: Observation, ev: dict[str, Any] | None) -> str:
        if ev is None:
            return "The deal is over."
        result = ev["result"]
        pts = ev["points"]
        delta = ev["delta"]
        if result == "cancelled":
            return "Cancelled: nobody scores."
        team = 0 if delta[0] else 1
        change = f"{TEAM_SHORT[team]} {signed(delta[team])}"
        if result.startswith("single"):
            return f"Single hand {'made' if result == 'single-made' else 'lost'}: {change}"
        bidder_team = obs.bidder & 1 if obs.bidder is not None else team
        need = obs.target
        took = pts[bidder_team]
        verb = "made" if result == "made" else "failed"
        return f"{TEAM_SHORT[bidder_team]} took {took} of {need}: {verb}, {change}"

    def render_keys(self, obs: Observation) -> Text:
        """The keys that do something now (the full list is behind ?)."""
        t = self.table
        tail = "? help · Q quit"
        if self.watching:
            keys = f"watching four bots, {self.delay:g} s a move · {tail}"
        elif t.deal_over:
            keys = f"N or Enter next deal · {tail}"
        elif self.handover is not None:
            keys = f"Enter take the keyboard · {tail}"
        elif self.turn_seat is None:
            keys = tail
        elif obs.phase == "auction":
            keys = f"↑↓ or digits set the bid · B or Enter bid · P pass · {tail}"
        elif obs.phase == "trump":
            keys = f"S H D C trumps · V seventh card · {tail}"
        elif obs.phase == "play":
            keys = f"1-8 or ←→ pick · Enter play · Esc unpick · R ask for trumps · {tail}"
        else:
            keys = f"Y yes · P no · {tail}"
        return Text(keys, no_wrap=True, overflow="ellipsis")

    def log_events(self) -> None:
        log = self.query_one("#log", RichLog)
        for ev in self.table.events_for(self.log_viewer, start=self.logged):
            line = describe(ev, self.names, self.g, plays=False)
            if not line:
                continue
            style = ""
            if ev["type"] in ("deal_end", "match_end"):
                style = "bold green"
            elif ev["type"] in (
                "contract",
                "reveal",
                "pair",
                "single",
                "double",
                "redouble",
                "set",
            ):
                style = "bold"
            elif ev["type"] == "deal_start":
                style = "bold cyan"
            log.write(Text(line, style))
            if ev["type"] == "deal_end":
                self.log_hands(log)
        self.logged = len(self.table.events)

    def log_hands(self, log: RichLog) -> None:
        """Once a deal is over every hand may be seen: write them to the log."""
        hands = self.table.observation(self.log_viewer).hands
        if hands is None:
            return
        log.write(Text("Hands were:", "dim"))
        for seat in range(4):
            line = Text(f"{SEAT_NAMES[seat][0]} ", "dim")
            for suit, cards in hand_by_suit_of(hands[seat]):
                line.append(self.g.suit(suit), RED if is_red(suit, True) else "")
                line.append(" ".join(self.g.rank(c) for c in cards) + " ")
            log.write(line)

    # ------------------------------------------------------------------ acting
    def current_bid(self, obs: Observation) -> int:
        bids = bid_range(obs)
        if self.bid_value is None or self.bid_value not in bids:
            self.bid_value = bids[0]
        return self.bid_value

    def after_change(self) -> None:
        self.selected = None
        self.bid_value = None
        self.digits = ""
        if self.table.hotseat and self.table.human_to_act != self.holder:
            self.holder = None
        self.log_events()
        self.refresh_all()

    def send(self, action: Action) -> None:
        self.notice = None
        try:
            self.table.act(action)
        except IllegalAction as err:
            self.warn(str(err))
            return
        self.after_change()
        self.advance()

    def warn(self, message: str) -> None:
        self.notice = Text(message, "bold red")
        self.refresh_all()

    @work(exclusive=True, group="bots")
    async def advance(self) -> None:
        """Let the bots play until a person must act (or the deal ends)."""
        t = self.table
        while True:
            if t.deal_over:
                if not self.watching or t.match_over:
                    return
                if self.last_deal_played:
                    return
                await asyncio.sleep(self.delay * 4)
                self.next_deal()
                continue
            if t.auto_pair_due:
                t.declare_pair()
                self.after_change()
                continue
            if not t.bot_to_act:
                self.refresh_all()
                return
            pause = self.delay
            if t.events and t.events[-1].get("type") == "trick":
                pause = self.delay * 2.5  # let the finished trick be seen
            self.thinking = True
            self.refresh_all()
            started = time.monotonic()
            action = await asyncio.to_thread(t.bot_action)
            rest = pause - (time.monotonic() - started)
            if rest > 0:
                await asyncio.sleep(rest)
            else:
                await asyncio.sleep(0)
            self.thinking = False
            try:
                t.act(action)
            except IllegalAction as err:  # a bot bug: say so rather than crash
                self.warn(f"bot error: {err}")
                return
            self.after_change()

    def next_deal(self) -> None:
        t = self.table
        if not t.deal_over or t.match_over:
            return
        if self.last_deal_played:
            return
        t.next_deal()
        self.deals_played += 1
        self.logged = 0
        self.notice = None
        self.after_change()
        self.advance()

    # ------------------------------------------------------------------ keys
    def on_key(self, event: events.Key) -> None:
        if len(self.screen_stack) > 1:
            return
        key = event.key
        char = (event.character or "").lower()
        event.stop()
        event.prevent_default()
        if char == "?" or key == "question_mark" or key == "f1":
            self.push_screen(HelpScreen(self.rules_text()))
            return
        if char == "q" or key == "ctrl+c":
            self.ask_quit()
            return
        t = self.table
        if t.deal_over:
            if char == "n" or key == "enter":
                self.next_deal()
            return
        if self.handover is not None:
            if key in ("enter", "space"):
                self.holder = self.handover
                self.notice = None
                self.refresh_all()
            return
        seat = self.turn_seat
        if seat is None:
            return
        obs = t.observation(seat)
        if obs.phase == "auction":
            self.key_auction(obs, key, char)
        elif obs.phase == "trump":
            self.key_trump(obs, key, char)
        elif obs.phase in PHASE_QUESTIONS:
            self.key_flag(obs, key, char)
        elif obs.phase == "play":
            self.key_play(obs, key, char)

    def pick(self, obs: Observation, kind: str, value: int | None = None) -> Action | None:
        for a in obs.legal:
            if a.kind == kind and (value is None or a.value == value):
                return a
        return None

    def key_auction(self, obs: Observation, key: str, char: str) -> None:
        bids = bid_range(obs)
        if char == "p":
            action = self.pick(obs, PASS)
            if action:
                self.send(action)
            return
        if not bids:
            self.warn("no bid is possible now: P passes")
            return
        value = self.current_bid(obs)
        if key in ("up", "plus", "equals_sign", "right"):
            self.bid_value = min(bids[-1], value + 1)
        elif key in ("down", "minus", "left"):
            self.bid_value = max(bids[0], value - 1)
        elif key in ("home",):
            self.bid_value = bids[0]
        elif key in ("end",):
            self.bid_value = bids[-1]
        elif char.isdigit() and len(char) == 1:
            now = time.monotonic()
            if now - self.digits_at > DIGIT_TIMEOUT or len(self.digits) >= 2:
                self.digits = ""
            self.digits += char
            self.digits_at = now
            n = int(self.digits)
            if n in bids:
                self.bid_value = n
                self.notice = None
            elif len(self.digits) == 2:
                self.warn(f"{n} is not possible: bid {bids[0]}–{bids[-1]}")
                self.digits = ""
                return
        elif char == "b" or key == "enter":
            action = self.pick(obs, BID, value)
            if action:
                self.send(action)
            return
        else:
            return
        self.notice = None
        self.refresh_all()

    def key_trump(self, obs: Observation, key: str, char: str) -> None:
        if char and char in TRUMP_KEYS:
            action = self.pick(obs, TRUMP, TRUMP_KEYS.index(char))
        elif char in ("v", "7"):
            action = self.pick(obs, SEVENTH)
            if action is None:
                self.warn("the seventh card is not allowed under these rules")
                return
        else:
            return
        if action:
            self.send(action)

    def key_flag(self, obs: Observation, key: str, char: str) -> None:
        flag = next(a for a in obs.legal if a.kind != PASS)
        if char in ("y", FLAG_KEYS.get(flag.kind, "y")):
            self.send(flag)
        elif char in ("p", "n"):
            action = self.pick(obs, PASS)
            if action:
                self.send(action)

    def key_play(self, obs: Observation, key: str, char: str) -> None:
        legal = legal_plays(obs)
        if char == "r":
            action = self.pick(obs, REVEAL)
            if action is None:
                self.warn("you may ask for trumps only when you cannot follow and they are hidden")
            else:
                self.send(action)
            return
        if len(char) == 1 and char.isdigit():
            n = int(char)
            hand = display_hand(obs)
            if 1 <= n <= len(legal):
                card = legal[n - 1]
                if self.selected == card:
                    self.send(Action.play(obs.seat or 0, card))
                    return
                self.selected = card
                self.notice = None
            elif 1 <= n <= len(hand):
                self.warn(
                    f"only {len(legal)} card{'s' if len(legal) > 1 else ''} can be played now"
                )
                return
            else:
                return
        elif key in ("left", "right"):
            if not legal:
                return
            step = 1 if key == "right" else -1
            if self.selected not in legal:
                self.selected = legal[0 if step > 0 else -1]
            else:
                self.selected = legal[(legal.index(self.selected) + step) % len(legal)]
            self.notice = None
        elif key in ("enter", "space"):
            if self.selected is None:
                if len(legal) == 1:
                    self.selected = legal[0]
                else:
                    self.warn("pick a card first: 1-8 or the arrows")
                    return
            if self.selected not in legal:
                self.warn(why_not_card(obs, self.selected))
                return
            self.send(Action.play(obs.seat or 0, self.selected))
            return
        elif key == "escape":
            self.selected = None
        else:
            return
        self.refresh_all()

    # ------------------------------------------------------------------ quitting & help
    @property
    def last_deal_played(self) -> bool:
        return self.max_deals is not None and self.deals_played >= self.max_deals

    @property
    def nothing_to_lose(self) -> bool:
        """Leaving now loses nothing: the match is decided, or the deal is over and
        no match is being played (single deals) or no other deal will come."""
        t = self.table
        if t.match_over:
            return True
        return t.deal_over and (t.rules.match_target is None or self.last_deal_played)

    def ask_quit(self) -> None:
        if self.nothing_to_lose or self.watching:
            self.exit(0)
            return

        def done(yes: bool | None) -> None:
            if yes:
                self.exit(0)

        what = "match" if self.table.rules.match_target else "game"
        self.push_screen(ConfirmScreen(f"Leave this {what}? It cannot be resumed."), done)

    def rules_text(self) -> str:
        r = self.table.rules
        lines = [f"[b]Rules: {r.profile}[/b] — {PROFILE_SUMMARIES.get(r.profile, '')}"]
        changed = r.overrides()
        for name, value in r.options().items():
            mark = " [yellow](changed)[/yellow]" if name in changed else ""
            lines.append(f"  {name} = {format_value(value)}{mark}  [dim]{OPTION_HELP[name]}[/dim]")
        return "\n".join(lines)
