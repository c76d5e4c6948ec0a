"""``twentynine play``: the terminal game, a Textual app laid out for its window.

The screen, top to bottom: a title line, the contract / target / trumps and
points / match strips, the auction, the table (the trick, the seats, whose
turn) beside the event log (under it on a narrow terminal), the hand grouped
by suit, the question of the moment and the keys that answer it. How much of
this shows, and in how many words, is ``layout``'s choice from the size of
the terminal; the drawing is ``view``'s and ``board``'s. Everything shown
comes from the observation of the person at the keyboard (``Table.viewer``)
or, in hot-seat, of the person whose turn it is once they have taken the
keyboard; the log is the public one in hot-seat.

Keys: digits and arrows pick, Enter confirms, B bids, P passes, S H D C
choose trumps, Y says yes to the question (double, pair, single hand...),
R asks for trumps, N deals again, L shows the whole log, ? shows help, Q
quits (after asking, while a match would be lost)."""

from __future__ import annotations

import asyncio
import time
from typing import Any, ClassVar

from rich.text import Text
from textual import events, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.geometry import Size
from textual.widgets import Static

from ..game.actions import BID, PASS, REVEAL, SEVENTH, TRUMP, Action
from ..game.engine import IllegalAction
from ..game.observation import Observation
from ..game.rules import OPTION_HELP, PROFILE_SUMMARIES, format_value
from .advice import advice_text, deal_report, hint_refusal, hint_text
from .board import Board
from .keys import FLAG_KEYS, TRUMP_KEYS, help_keys
from .layout import Layout, layout_for, too_small_text
from .screens import ConfirmScreen, GameLog, HelpScreen, LogScreen, ReportScreen
from .session import SEAT_NAMES, Table
from .text import (
    PHASE_QUESTIONS,
    Glyphs,
    Namer,
    bid_range,
    describe,
    display_hand,
    hand_by_suit_of,
    is_red,
    legal_plays,
    why_not_card,
)
from .view import RED, TableView

ENTER_GUARD = 0.6  # seconds after a deal ends in which Enter does not deal again


class PlayApp(TableView, App[int]):
    """The terminal table."""

    TITLE = "29"
    # Ctrl+Q and Ctrl+C leave as Q does (asking first during a match), not at once;
    # Textual's command palette has nothing for a card player
    BINDINGS: ClassVar[list[Any]] = [
        Binding("ctrl+q", "ask_quit", show=False, priority=True),
        Binding("ctrl+c", "ask_quit", show=False, priority=True),
    ]
    ENABLE_COMMAND_PALETTE = False
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
    #title, #status, #auction, #table, #hand, #prompt, #keys {
        text-wrap: nowrap; text-overflow: ellipsis; }
    #small { height: 1fr; content-align: center middle; text-align: center; padding: 0 1; }
    #middle.-stacked { layout: vertical; }
    #middle.-stacked #table { border: none; padding: 0 1; }
    #middle.-stacked #log { width: 100%; height: 1fr; border: none; padding: 0 1;
                            background: $boost; scrollbar-size-vertical: 0; }
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
        self.board = Board([p.label for p in table.players], self.names, self.g)
        self.lay: Layout | None = None
        self.log_viewer = table.viewer  # the public log in hot-seat
        self.logged = 0
        self.selected: int | None = None
        self.bid_value: int | None = None
        self.digits = ""  # the first digit of a bid being typed
        self.ended_at = 0.0  # when the deal on screen ended (0: it goes on)
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
            yield GameLog(id="log")
        yield Static(id="hand")
        yield Static(id="prompt")
        yield Static(id="keys")
        yield Static(id="small")

    def on_mount(self) -> None:
        self.query_one("#table").border_title = "Table"
        self.query_one("#log").border_title = "Log"
        self.log_events()
        self.refresh_all()
        self.advance()

    def obs(self) -> Observation:
        return self.table.observation(self.holder)

    # ------------------------------------------------------------------ rendering
    def apply_layout(self, lay: Layout) -> None:
        """Size and show the parts of the screen for ``lay`` (only when it changes)."""
        self.lay = lay
        small = lay.mode == "small"
        for wid in ("title", "status", "auction", "middle", "hand", "prompt", "keys"):
            self.query_one(f"#{wid}").display = not small
        self.query_one("#small").display = small
        if small:
            return
        self.query_one("#auction").display = lay.auction
        self.query_one("#keys").display = lay.keys
        middle = self.query_one("#middle")
        middle.set_class(not lay.log_beside, "-stacked")
        table = self.query_one("#table")
        if lay.log_beside:
            table.styles.width = lay.table_width
            table.styles.height = "100%"
        else:
            table.styles.width = "100%"
            table.styles.height = lay.table_height
        self.query_one("#hand").styles.height = lay.hand_height
        self.query_one("#log", GameLog).set_one_row(lay.log_rows <= 3)

    def refresh_all(self, size: Size | None = None) -> None:
        size = size or self.size
        lay = layout_for(size.width, size.height)
        if lay != self.lay:
            self.apply_layout(lay)
        if lay.mode == "small":
            self.query_one("#small", Static).update(too_small_text(lay.width, lay.height))
            return
        obs = self.obs()
        self.query_one("#title", Static).update(self.render_title(obs, lay))
        self.query_one("#status", Static).update(self.render_status(obs, lay))
        self.query_one("#auction", Static).update(self.render_auction(obs, lay))
        self.query_one("#table", Static).update(self.render_table(obs, lay))
        self.query_one("#hand", Static).update(self.render_hand(obs, lay))
        self.query_one("#prompt", Static).update(self.render_prompt(obs, lay))
        self.query_one("#keys", Static).update(self.render_keys(obs, lay))

    def on_resize(self, event: events.Resize) -> None:
        # called before the app takes the new size in: go by the event's
        self.refresh_all(event.size)

    def log_events(self) -> None:
        log = self.query_one("#log", GameLog)
        end = self.table.observation(self.log_viewer) if self.table.deal_over else None
        for ev in self.table.events_for(self.log_viewer, start=self.logged):
            line = describe(ev, self.names, self.g, plays=False, end=end)
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
            log.add(Text(line, style))
            if ev["type"] == "deal_end":
                self.log_hands(log)
        self.logged = len(self.table.events)

    def log_hands(self, log: GameLog) -> None:
        """Once a deal is over every hand may be seen: write them to the log."""
        hands = self.table.observation(self.log_viewer).hands
        if hands is None:
            return
        log.add(Text("Hands were:", "dim"))
        for seat in range(4):
            line = Text(f"{SEAT_NAMES[seat][0]} ", "dim")
            for suit, cards in hand_by_suit_of(hands[seat]):
                line.append(self.g.suit(suit), RED if is_red(suit, True) else "")
                line.append(" ".join(self.g.rank(c) for c in cards) + " ")
            log.add(line)

    # ------------------------------------------------------------------ acting
    def after_change(self) -> None:
        if self.table.deal_over and not self.ended_at:
            self.ended_at = time.monotonic()
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

    @work(exclusive=True, group="advice")
    async def show_hint(self, obs: Observation, char: str) -> None:
        """I: the expert's choice and why (in the prompt); T: the bid chances (over
        the table). Worked out on a thread: the sampled deals take a moment."""
        refusal = hint_refusal(self.table)
        if refusal is not None:
            self.warn(refusal)
            return
        self.notice = Text("thinking…", "dim")
        self.refresh_all()
        if char == "t":
            text = await asyncio.to_thread(advice_text, obs)
            self.notice = None
            self.refresh_all()
            self.push_screen(ReportScreen("Bid chances", text))
            return
        text = await asyncio.to_thread(hint_text, obs)
        if self.table.observation(obs.seat) == obs:  # the table has not moved on
            self.notice = Text(text, "bold")
            self.refresh_all()

    @work(exclusive=True, group="advice")
    async def show_analysis(self) -> None:
        """A: the finished deal's turning points and what each of your cards cost."""
        seat = self.holder if self.holder is not None else self.table.viewer or 0
        deal = self.table.match.deal
        self.notice = Text("analysing the deal…", "dim")
        self.refresh_all()
        text = await asyncio.to_thread(deal_report, deal, seat)
        self.notice = None
        self.refresh_all()
        self.push_screen(ReportScreen("Analysis", text))

    def next_deal(self) -> None:
        t = self.table
        if not t.deal_over or t.match_over:
            return
        if self.last_deal_played:
            return
        t.next_deal()
        self.ended_at = 0.0
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
            self.push_screen(HelpScreen(help_keys(self.table.rules), self.rules_text()))
            return
        if char == "q":
            self.ask_quit()
            return
        if self.lay is not None and self.lay.mode == "small":
            return  # nothing else may be done on a table that cannot be seen
        if char == "l":
            self.push_screen(LogScreen(list(self.query_one("#log", GameLog).entries)))
            return
        t = self.table
        if char == "a" and t.deal_over:
            self.show_analysis()
            return
        if t.deal_over:
            # a second Enter pressed with the deal's last card must not skip its result
            just_ended = time.monotonic() - self.ended_at < ENTER_GUARD
            if char == "n" or (key == "enter" and not just_ended):
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
        if char == "i" or (char == "t" and obs.phase == "auction"):
            self.show_hint(obs, char)
            return
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
        elif key in ("backspace", "escape", "delete"):
            pass  # clears the typed digit below
        elif char.isdigit() and len(char) == 1:
            self.type_digit(char, bids)
            return
        elif char == "b" or key == "enter":
            if self.digits:
                self.warn(
                    f"{self.digits}_ needs its second digit (Backspace clears it), "
                    "or use ↑↓ and Enter"
                )
                return
            action = self.pick(obs, BID, value)
            if action:
                self.send(action)
            return
        else:
            return
        self.digits = ""
        self.notice = None
        self.refresh_all()

    def type_digit(self, char: str, bids: list[int]) -> None:
        """A digit of a typed bid. A first digit that begins some bid waits, shown,
        for the next one however long it takes; a digit that can begin or make no
        bid is refused with the reason."""
        typed = self.digits + char
        longer = [b for b in bids if str(b).startswith(typed) and str(b) != typed]
        if int(typed) in bids and str(int(typed)) == typed:
            self.bid_value = int(typed)
            self.digits = typed if longer else ""
        elif longer:
            self.digits = typed
        else:
            self.digits = ""
            span = f"bid {bids[0]}–{bids[-1]}"
            if len(typed) == 1:
                self.warn(f"no bid starts with {typed}: {span}")
            else:
                self.warn(f"{typed} is not possible: {span}")
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
    def nothing_to_lose(self) -> bool:
        """Leaving now loses nothing: the match is decided, or the deal is over and
        no match is being played (single deals) or no other deal will come."""
        t = self.table
        if t.match_over:
            return True
        return t.deal_over and (t.rules.match_target is None or self.last_deal_played)

    def action_ask_quit(self) -> None:
        if len(self.screen_stack) == 1:
            self.ask_quit()

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
