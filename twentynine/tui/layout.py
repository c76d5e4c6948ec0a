"""How the terminal game divides the screen, from the terminal's size alone.

Three arrangements, so the game reads at any size a player's window has:

- *compact* (under 80×24): one-line strips with short words, the table
  without its frame; the log beside the table when there is room for both
  to be read, otherwise under it at the full width.
- *normal* (80×24 and up): the table of 44 to 46 columns beside the log.
- *roomy* (110×32 and up): a table that grows with the window and draws
  the cards as cards.

Below ``MIN_WIDTH``×``MIN_HEIGHT`` nothing would be readable: the game says
which size it needs instead of drawing a table with parts missing.

``fit`` is the one way every strip meets the width: it takes the wordings
of a line from the longest to the shortest and keeps the first that fits,
so a line is shortened by choice of words, never cut in the middle.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rich.text import Text

MIN_WIDTH = 40  # eight cards in four suits and two seats side by side
MIN_HEIGHT = 12  # title, two status lines, the table, the log, hand and question
NORMAL = (80, 24)
ROOMY = (110, 32)
NORMAL_TABLE = 46  # the table's outer width in the normal arrangement
LOG_WIDTH = 36  # the least outer width of a log beside the table (32 columns of text)
LOG_BESIDE_FROM = 72  # in compact, the narrowest terminal with the log beside the table


@dataclass(frozen=True, slots=True)
class Layout:
    """Sizes of every part of the screen for one terminal size."""

    width: int
    height: int
    mode: str  # "small" (too small to play), "compact", "normal" or "roomy"
    log_beside: bool = True  # the log right of the table (else under it)
    framed: bool = True  # the table and log drawn in frames
    table_width: int = NORMAL_TABLE  # outer width (beside) of the table
    table_height: int = 0  # outer height of the table when the log is under it
    auction: bool = True  # the auction strip
    keys: bool = True  # the footer of keys
    hand_head: bool = True  # the line over the hand ("Your hand · 8 cards")
    card_boxes: bool = False  # cards drawn as little boxes (roomy)

    @property
    def line_width(self) -> int:
        """The width of a one-line strip's text (the strips have one cell of padding)."""
        return self.width - 2

    @property
    def table_inner(self) -> int:
        """The width the table's text may use."""
        outer = self.table_width if self.log_beside else self.width
        return outer - (4 if self.framed else 2)

    @property
    def hand_height(self) -> int:
        return (4 if self.card_boxes else 2) + (1 if self.hand_head else 0)

    @property
    def fixed_rows(self) -> int:
        """Rows used outside the table and the log."""
        return 1 + 2 + int(self.auction) + self.hand_height + 2 + int(self.keys)

    @property
    def middle_rows(self) -> int:
        return self.height - self.fixed_rows

    @property
    def log_rows(self) -> int:
        """Rows the log's text may use."""
        if self.log_beside:
            return self.middle_rows - (2 if self.framed else 0)
        return self.middle_rows - self.table_height

    @property
    def table_rows(self) -> int:
        """Rows the table's text may use."""
        rows = self.middle_rows if self.log_beside else self.table_height
        return rows - (2 if self.framed else 0)


def layout_for(width: int, height: int) -> Layout:
    """The arrangement for a terminal of ``width`` columns and ``height`` rows."""
    if width < MIN_WIDTH or height < MIN_HEIGHT:
        return Layout(width, height, "small")
    if width >= ROOMY[0] and height >= ROOMY[1]:
        table = max(NORMAL_TABLE, min(width - 44, width * 3 // 5))
        return Layout(width, height, "roomy", table_width=table, card_boxes=True)
    if width >= NORMAL[0] and height >= NORMAL[1]:
        return Layout(width, height, "normal", table_width=min(NORMAL_TABLE, width - LOG_WIDTH))
    # compact: every optional row goes first on a short terminal
    auction = height >= 18
    keys = height >= 16
    hand_head = height >= 20
    fixed = 1 + 2 + int(auction) + 2 + int(hand_head) + 2 + int(keys)
    middle = height - fixed
    if width >= LOG_BESIDE_FROM and middle >= 7:
        table = max(36, min(NORMAL_TABLE, width - LOG_WIDTH))
        return Layout(
            width,
            height,
            "compact",
            table_width=table,
            auction=auction,
            keys=keys,
            hand_head=hand_head,
        )
    # the log under the table, both at the full width: the table takes three rows
    # (North; West and East; South), four with the trick's caption, five with
    # whose turn it is; the log keeps at least two
    table_height = max(3, min(5, middle - 2 if middle < 9 else middle // 2))
    return Layout(
        width,
        height,
        "compact",
        log_beside=False,
        framed=False,
        table_height=table_height,
        auction=auction,
        keys=keys,
        hand_head=hand_head,
    )


def too_small_text(width: int, height: int) -> str:
    """What a terminal too small for the table shows instead: short lines, the
    needed size first, as the terminal may be tiny."""
    rows = [
        f"Too small: {width}×{height}.",
        f"29 needs {MIN_WIDTH}×{MIN_HEIGHT}.",
        "Enlarge the window",
        "or use --plain.",
        "Q quits.",
    ]
    if height >= 8:
        rows.insert(2, f"({NORMAL[0]}×{NORMAL[1]} reads best)")
    return "\n".join(rows)


def fit(variants: Iterable[Text | str], width: int) -> Text:
    """The first wording of a line that fits ``width`` cells, else the last one cut
    with an ellipsis. The result never wraps."""
    last = Text()
    for v in variants:
        text = v if isinstance(v, Text) else Text(v)
        last = text
        if text.cell_len <= width:
            break
    out = last.copy()
    out.no_wrap = True
    out.overflow = "ellipsis"
    if out.cell_len > width:
        out.truncate(max(0, width), overflow="ellipsis")
    return out


def lines(parts: Iterable[Text]) -> Text:
    """Lines joined into one text that never wraps (each already fits its width)."""
    out = Text("\n").join(parts)
    out.no_wrap = True
    out.overflow = "ellipsis"
    return out
