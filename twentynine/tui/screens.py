"""The terminal game's dialogs and its event log: the help, the whole log, a report,
a yes-or-no question (modal screens over the table), and the log beside it that
keeps every line and shows the newest ones in the space it has."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import RichLog, Static

SCREEN_HELP = """\
[b]The screen[/b]
  The table shows each seat, whose turn it is (▸), the dealer (D), the
  bidder, and the cards of the trick; between tricks, the last trick.
  The log (beside the table, or under it on a small terminal) tells every
  bid, reveal, trick and result; L shows all of it.
  The match score is drawn as the pips of the sixes: filled pips count
  up (red) or down (black) to the target."""


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[Any]] = [
        Binding("escape,question_mark,q,enter", "dismiss", "close"),
    ]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    #help-box { width: 78; max-width: 100%; height: auto; max-height: 100%;
                border: round $accent;
                background: $surface; padding: 0 1; overflow-y: auto; }
    """

    def __init__(self, keys_text: str, rules_text: str) -> None:
        super().__init__()
        self.keys_text = keys_text
        self.rules_text = rules_text

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box"):
            yield Static(
                "\n\n".join([self.keys_text, SCREEN_HELP, self.rules_text])
                + "\n\n[dim]↑↓ scroll · Esc or ? closes[/dim]"
            )

    def on_mount(self) -> None:
        self.query_one("#help-box").focus()  # so the arrows scroll a long help

    async def action_dismiss(self, result: Any = None) -> None:
        self.dismiss(None)


class LogScreen(ModalScreen[None]):
    """The whole log of the game over the table, to read back what a small log hid."""

    BINDINGS: ClassVar[list[Any]] = [
        Binding("escape,l,q,enter", "dismiss", "close"),
    ]
    DEFAULT_CSS = """
    LogScreen { align: center middle; }
    #log-box { width: 90%; max-width: 100; height: 90%; border: round $accent;
               background: $surface; padding: 0 1; }
    #full-log { height: 1fr; scrollbar-size-vertical: 1; overflow-x: hidden; }
    #log-hint { height: 1; color: $text-muted; }
    """

    def __init__(self, entries: list[Text]) -> None:
        super().__init__()
        self.entries = entries

    def compose(self) -> ComposeResult:
        with Vertical(id="log-box"):
            yield RichLog(id="full-log", wrap=True, markup=False, min_width=10)
            yield Static("↑↓ PgUp PgDn scroll · Esc or L closes", id="log-hint")

    def on_mount(self) -> None:
        self.query_one("#log-box").border_title = "Log"
        log = self.query_one("#full-log", RichLog)
        for text in self.entries:
            log.write(text)
        log.focus()

    async def action_dismiss(self, result: Any = None) -> None:
        self.dismiss(None)


class ReportScreen(LogScreen):
    """A text over the table (the analysis of a deal, the bid chances)."""

    def __init__(self, title: str, text: str) -> None:
        super().__init__([Text(line) for line in text.splitlines()])
        self.title_text = title

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#log-box").border_title = self.title_text


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question (quitting a match)."""

    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    #confirm-box { width: 52; max-width: 100%; height: auto; max-height: 100%;
                   border: round $warning; background: $surface; padding: 1 2; }
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


class GameLog(RichLog):
    """The log, kept as text so it can be laid out again: a RichLog wraps a line once,
    at the width it has when the line is written, so after a resize the log is
    written anew at its new width. On a log of two or three rows (a small terminal)
    each entry takes one row, cut with an ellipsis, so no row is the tail of an
    entry whose head has scrolled away; L shows the whole log."""

    KEEP = 2000  # entries kept (the deals of a long match)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(wrap=True, markup=False, auto_scroll=True, min_width=10, **kwargs)
        self.entries: list[Text] = []
        self.one_row = False
        self.width_seen = 0
        self.can_focus = False

    def add(self, text: Text) -> None:
        self.entries.append(text)
        if len(self.entries) > self.KEEP:
            del self.entries[: len(self.entries) - self.KEEP]
        self.put(text)

    def put(self, text: Text) -> None:
        if self.one_row and self.width_seen:
            width = max(1, self.scrollable_content_region.width)
            text = text.copy()
            text.truncate(width, overflow="ellipsis")
        self.write(text)

    def rewrite(self) -> None:
        self.clear()
        for text in self.entries:
            self.put(text)

    def set_one_row(self, one_row: bool) -> None:
        if one_row != self.one_row:
            self.one_row = one_row
            if self.width_seen:
                self.rewrite()

    def on_resize(self, event: events.Resize) -> None:
        width = event.size.width
        if width != self.width_seen:
            self.width_seen = width
            self.rewrite()


__all__ = ["ConfirmScreen", "GameLog", "HelpScreen", "LogScreen", "ReportScreen"]
