"""The table of the terminal game: the four seats and the cards of the trick.

Drawn at the size it is given, in one of three arrangements:

- *compact* (3 to 5 rows): each seat and its card on one line, North, West
  and East, South; then, as the rows allow, the trick's caption and who is
  thinking;
- *full* (7 rows and more): each seat's name over or beside its card, the
  caption and the last trick under them (with blank rows between, as the
  rows allow);
- *cards* (17 rows and more, when the screen is roomy): the cards drawn as
  little cards, the seats spread over the space.

Seat names shorten (``West · Meera``, then ``West``, then ``W``) until the
seats facing each other fit on one line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text

from ..game.observation import Observation
from .session import SEAT_NAMES
from .text import Glyphs, Namer, is_red

RED = "bold red"


@dataclass
class Board:
    """Draws the table for whoever's observation it is given."""

    labels: Sequence[str]  # each seat's full label (``West · Meera``)
    names: Namer
    g: Glyphs

    # ------------------------------------------------------------------ parts
    def card(self, card: int, style: str = "") -> Text:
        base = RED if is_red(card) else "bold"
        return Text(self.g.card(card), f"{base} {style}".strip())

    def label(self, obs: Observation, seat: int, level: int) -> Text:
        """The seat's name and marks; ``level`` 0 full, 1 seat name, 2 letter."""
        out = Text()
        to_act = obs.to_act if obs.phase != "over" else None
        if to_act == seat:
            out.append("▸ " if self.g.unicode else "> ", "bold yellow")
        you = seat == self.names.you
        if level == 0:
            name = "South · you" if you else self.labels[seat]
        elif level == 1:
            name = "You" if you else SEAT_NAMES[seat]
        else:
            name = "You" if you else SEAT_NAMES[seat][0]
        out.append(name, "bold")
        if seat == obs.dealer:
            out.append(" D", "cyan")
        if obs.bidder == seat and obs.single is None and obs.bid is not None:
            out.append(f" bid {obs.bid}" if level < 2 else f" {obs.bid}", "magenta")
        if obs.single == seat:
            out.append(" alone", "magenta")
        return out

    def trick_shown(self, obs: Observation) -> tuple[dict[int, int], bool]:
        """The cards on the table by seat, and whether they are the last trick
        (shown between tricks so its end can be seen)."""
        trick = dict(obs.trick)
        if not trick and obs.tricks and obs.phase in ("play", "pair", "over"):
            _leader, cards, seats, _winner, _pts = obs.tricks[-1]
            return dict(zip(seats, cards, strict=True)), True
        return trick, False

    def calls(self, obs: Observation) -> dict[int, int]:
        """Each seat's last call, while the auction lasts (then the bidder's label
        says the contract)."""
        return dict(obs.auction) if obs.phase == "auction" else {}

    def slot(self, obs: Observation, seat: int) -> Text:
        """What lies before a seat: its card, its last call, or nothing."""
        trick, last = self.trick_shown(obs)
        if seat in trick:
            style = ""
            if last:
                style = "reverse" if seat == obs.tricks[-1][3] else "dim"
            return Text("[") + self.card(trick[seat], style) + Text("]")
        return self.note(obs, seat)

    def note(self, obs: Observation, seat: int) -> Text:
        if obs.single is not None and seat == (obs.single + 2) % 4:
            return Text("sits out", "dim")
        calls = self.calls(obs)
        if seat in calls:
            bid = calls[seat]
            return Text(f"bid {bid}" if bid else "pass", "italic" if bid else "dim italic")
        return Text("")

    def captions(self, obs: Observation) -> list[Text]:
        """The trick's caption, then the last trick's (when the trick has begun)."""
        _trick, last = self.trick_shown(obs)
        if last:
            _leader, _cards, _seats, winner, pts = obs.tricks[-1]
            s = "s" if pts != 1 else ""
            return [Text(f"Trick {len(obs.tricks)} to {self.names(winner)}, {pts} pt{s}", "dim")]
        if obs.phase in ("play", "pair") and obs.trick_leader is not None:
            out = [Text(f"Trick {len(obs.tricks) + 1} · {self.names(obs.trick_leader)} led", "dim")]
            if obs.tricks:
                _leader, cards, _seats, winner, pts = obs.tricks[-1]
                out.append(
                    Text(f"last: {self.g.cards(cards)} to {self.names(winner)} ({pts})", "dim")
                )
            return out
        if obs.phase == "auction":
            return [Text("The auction", "dim")]
        return []

    # ------------------------------------------------------------------ drawing
    def draw(
        self, obs: Observation, width: int, rows: int, boxes: bool, thinking: int | None
    ) -> Text:
        """The table in ``width`` columns and at most ``rows`` rows; ``thinking``
        names the bot whose move is awaited."""
        if boxes and rows >= 17 and width >= 40:
            out = self.draw_cards(obs, width, rows, thinking)
        elif rows >= 7:
            out = self.draw_full(obs, width, rows, thinking)
        else:
            out = self.draw_compact(obs, width, rows, thinking)
        out.no_wrap = True
        out.overflow = "ellipsis"
        return out

    def level_for(self, obs: Observation, width: int, widths: Sequence[int]) -> int:
        """The longest naming under which West's and East's lines fit ``width``;
        ``widths`` is what each side adds to its label."""
        for level in (0, 1, 2):
            left = self.label(obs, 1, level).cell_len + widths[0]
            right = self.label(obs, 3, level).cell_len + widths[1]
            north = self.label(obs, 2, level).cell_len + widths[2]
            south = self.label(obs, 0, level).cell_len + widths[2]
            if left + right + 2 <= width and max(north, south) <= width:
                return level
        return 2

    def draw_compact(self, obs: Observation, width: int, rows: int, thinking: int | None) -> Text:
        slots = [self.slot(obs, s) for s in range(4)]
        gap = [Text(" ") if slots[s].cell_len else Text() for s in range(4)]
        level = self.level_for(
            obs,
            width,
            (
                slots[1].cell_len + gap[1].cell_len,
                slots[3].cell_len + gap[3].cell_len,
                max(slots[0].cell_len, slots[2].cell_len) + 1,
            ),
        )
        lab = [self.label(obs, s, level) for s in range(4)]
        out = [
            centre(lab[2] + gap[2] + slots[2], width),
            sides(lab[1] + gap[1] + slots[1], slots[3] + gap[3] + lab[3], width),
            centre(lab[0] + gap[0] + slots[0], width),
        ]
        extra = self.captions(obs)[:1]
        if thinking is not None:
            extra.append(Text(f"{SEAT_NAMES[thinking]} is thinking…", "italic dim"))
        out.extend(centre(t, width) for t in extra[: max(0, rows - 3)])
        return Text("\n").join(spread(out, rows))

    def draw_full(self, obs: Observation, width: int, rows: int, thinking: int | None) -> Text:
        slots = [self.slot(obs, s) for s in range(4)]
        level = self.level_for(obs, width, (0, 0, 0))
        lab = [self.label(obs, s, level) for s in range(4)]
        seats = [
            [centre(lab[2], width), centre(slots[2], width)],
            [
                sides(lab[1], lab[3], width),
                sides(Text("  ") + slots[1], slots[3] + Text("  "), width),
            ],
            [centre(slots[0], width), centre(lab[0], width)],
        ]
        extra = [centre(t, width) for t in self.captions(obs)]
        if thinking is not None:
            extra.append(centre(Text(f"{SEAT_NAMES[thinking]} is thinking…", "italic dim"), width))
        # a blank row between the seats and before the captions, as the rows allow;
        # then the captions that still fit (whose turn, the trick, the last trick)
        gaps = max(0, min(3, rows - 6 - len(extra)))
        out: list[Text] = []
        for i, block in enumerate(seats):
            out.extend(block)
            if i < gaps:
                out.append(Text(""))
        out.extend(extra[: max(0, rows - len(out))])
        return Text("\n").join(spread(out, rows))

    def box(self, obs: Observation, seat: int, big: bool) -> list[Text]:
        """A seat's card drawn as a card (or its note in the card's place, or nothing),
        as rows of exactly the card's width."""
        size = BIG if big else SMALL
        trick, last = self.trick_shown(obs)
        if seat not in trick:
            note = self.note(obs, seat)
            if not note.cell_len and obs.phase == "play":
                return place_of_card(self.g, size)  # the card still to come
            note = pad_to(note, size[0])
            blank = Text(" " * size[0])
            return [note if i == size[1] // 2 else blank for i in range(size[1])]
        card = trick[seat]
        face = RED if is_red(card) else "bold"
        frame = ""
        if last:
            won = seat == obs.tricks[-1][3]
            frame = "bold yellow" if won else "dim"
            face = face if won else "dim"
        return drawn_card(self.g, card, big, frame, face)

    def draw_cards(self, obs: Observation, width: int, rows: int, thinking: int | None) -> Text:
        big = rows >= 26 and width >= 60
        card_w = (BIG if big else SMALL)[0]
        # West's and East's cards as far from the middle as a quarter of the table,
        # the same on both sides, each name outside its card: the names shorten
        # until both fit, else the table is drawn without drawn cards
        mid = (width - card_w) // 2  # where North's and South's cards begin
        for level in (0, 1, 2):
            lab = [self.label(obs, s, level) for s in range(4)]
            room = min(mid - 2 - lab[1].cell_len, width - mid - card_w - 2 - lab[3].cell_len)
            if room >= card_w + 2:
                break
        else:
            return self.draw_full(obs, width, rows, thinking)
        reach = min(width // 4, room)
        boxes = [self.box(obs, s, big) for s in range(4)]
        north = [centre(lab[2], width), *(centre(b, width) for b in boxes[2])]
        south = [*(centre(b, width) for b in boxes[0]), centre(lab[0], width)]
        west_at = mid - reach
        middle = []
        for i, (w_row, e_row) in enumerate(zip(boxes[1], boxes[3], strict=True)):
            name = i == len(boxes[1]) // 2
            west = lab[1] if name else Text(" " * lab[1].cell_len)
            line = Text(" " * max(0, west_at - 2 - west.cell_len)) + west + Text("  ") + w_row
            line.append(" " * max(1, mid + reach - line.cell_len))
            line.append_text(e_row)
            if name:
                line.append("  ")
                line.append_text(lab[3])
            middle.append(line)
        extra = [centre(t, width) for t in self.captions(obs)]
        if thinking is not None:
            extra.append(centre(Text(f"{SEAT_NAMES[thinking]} is thinking…", "italic dim"), width))
        blocks = [north, middle, south, extra]
        used = sum(len(b) for b in blocks)
        gap = min(3, max(0, rows - used) // 5)  # between the blocks, at most three rows
        top = max(0, rows - used - 3 * gap) // 2
        out: list[Text] = [Text("")] * top
        for i, block in enumerate(blocks):
            if i:
                out.extend([Text("")] * gap)
            out.extend(block)
        return Text("\n").join(out[:rows])


SMALL = (5, 3)  # a drawn card's width and height: ╭───╮ │10♠│ ╰───╯
BIG = (7, 5)  # with the rank in two corners and the suit in the middle


def place_of_card(g: Glyphs, size: tuple[int, int]) -> list[Text]:
    """The dim outline where a seat's card will be laid."""
    inner = size[0] - 2
    if g.unicode:
        top, side, bottom = "╭" + "┄" * inner + "╮", "┆", "╰" + "┄" * inner + "╯"
    else:
        top, side, bottom = "." + "." * inner + ".", ":", "." + "." * inner + "."
    middle = [Text(side + " " * inner + side, "dim") for _ in range(size[1] - 2)]
    return [Text(top, "dim"), *middle, Text(bottom, "dim")]


def drawn_card(g: Glyphs, card: int, big: bool, frame: str = "", face: str = "") -> list[Text]:
    """A card drawn as a card, in rows of its exact width."""
    rank, suit = g.rank(card), g.suit(card >> 3)
    if g.unicode:
        tl, tr, bl, br, h, v = "╭", "╮", "╰", "╯", "─", "│"
    else:
        tl = tr = bl = br = "+"
        h, v = "-", "|"
    inner = (BIG if big else SMALL)[0] - 2
    faces = [(rank + suit).rjust(inner)]
    if big:
        faces = [rank.ljust(inner), suit.center(inner), rank.rjust(inner)]
    out = [Text(tl + h * inner + tr, frame)]
    for f in faces:
        out.append(Text(v, frame) + Text(f, face) + Text(v, frame))
    out.append(Text(bl + h * inner + br, frame))
    return out


def centre(text: Text, width: int, cell: int | None = None) -> Text:
    """``text`` centred in ``width``; ``cell`` centres as if it were that wide
    (so the rows of a drawn card line up)."""
    size = text.cell_len if cell is None else cell
    pad = max(0, (width - size) // 2)
    return Text(" " * pad) + text


def sides(left: Text, right: Text, width: int) -> Text:
    pad = max(1, width - left.cell_len - right.cell_len)
    return left + Text(" " * pad) + right


def pad_to(text: Text, width: int) -> Text:
    """``text`` centred in exactly ``width`` cells (a note under a drawn card's place)."""
    if text.cell_len >= width:
        return text
    left = (width - text.cell_len) // 2
    return Text(" " * left) + text + Text(" " * (width - text.cell_len - left))


def spread(lines: list[Text], rows: int) -> list[Text]:
    """Lines centred vertically in ``rows`` rows."""
    top = max(0, (rows - len(lines)) // 2)
    return [Text("")] * top + lines
