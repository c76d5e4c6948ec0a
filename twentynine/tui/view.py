"""What the terminal app draws in each strip, at the width the layout gives it.

``TableView`` holds the state of the screen that is not the game (whose hand
is shown, the card picked, the bid being typed, the notice of the moment)
and turns an observation into the title, status, auction, hand, question
and keys strips. Each strip is made with ``fit`` from its wordings, longest
first, so a narrow terminal gets shorter words rather than cut lines.
"""

from __future__ import annotations

from rich.text import Text

from ..game.actions import PASS, REVEAL, SEVENTH
from ..game.cards import POINTS, SUIT_NAMES
from ..game.observation import Observation
from .advice import hint_refusal
from .board import Board, drawn_card
from .keys import FLAG_KEYS, FLAG_LABELS, TRUMP_KEYS
from .layout import Layout, fit, lines
from .session import SEAT_NAMES, TEAM_SHORT, Table
from .text import (
    PHASE_QUESTIONS,
    Glyphs,
    Namer,
    bid_range,
    hand_by_suit,
    highest_bid,
    is_red,
    legal_plays,
    play_duty,
    result_words,
    signed,
)

RED = "bold red"
SEP = " │ "


class TableView:
    """The screen's own state and the drawing of its strips (mixed into the app)."""

    table: Table
    g: Glyphs
    names: Namer
    board: Board
    watching: bool
    holder: int | None
    selected: int | None
    bid_value: int | None
    digits: str
    notice: Text | None
    thinking: bool
    delay: float
    max_deals: int | None
    deals_played: int

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

    @property
    def last_deal_played(self) -> bool:
        return self.max_deals is not None and self.deals_played >= self.max_deals

    def current_bid(self, obs: Observation) -> int:
        bids = bid_range(obs)
        if self.bid_value is None or self.bid_value not in bids:
            self.bid_value = bids[0]
        return self.bid_value

    def card_text(self, card: int, style: str = "") -> Text:
        return self.board.card(card, style)

    # ------------------------------------------------------------------ title and status
    def render_title(self, obs: Observation, lay: Layout) -> Text:
        t = self.table
        r = t.rules
        deal = f"deal {obs.deal_index + 1}"
        long_length = f"match to ±{r.match_target}" if r.match_target else "single deals"
        short = [f"29 · {r.profile}"] + ([f"±{r.match_target}"] if r.match_target else [])
        lefts = [
            f"29 · {r.profile} · {long_length} · {deal} · seed {t.seed}",
            " · ".join([*short, deal, f"seed {t.seed}"]),
            " · ".join([*short, deal]),
        ]
        who = "watching" if self.watching else ("hot-seat" if t.hotseat else "you: South")
        rights = [f"{who} · ? help · q quit", "? help · q quit", "? help"]
        if not lay.keys:  # no footer: the title is where help is offered
            rights.insert(1, "? help · L log · q quit")
        width = lay.line_width
        variants = []
        for left in lefts:  # a shorter left before no help at all
            for right in rights:
                pad = width - len(left) - len(right)
                if pad >= 2:
                    variants.append(left + " " * pad + right)
        variants += [*lefts, f"29 · {deal}"]
        return fit(variants, width)

    def render_status(self, obs: Observation, lay: Layout) -> Text:
        width = lay.line_width
        first = fit([self.status_terms(obs, level) for level in range(4)], width)
        second = fit([self.score_terms(obs, level) for level in range(3)], width)
        return lines([first, second])

    def status_terms(self, obs: Observation, level: int) -> Text:
        """Contract, target and trumps; ``level`` 0 in full words to 3 in the fewest."""
        line = Text()
        contract = obs.single is not None or obs.bidder is not None
        if level < 2:
            line.append("Contract " if contract else "Highest bid ", "dim")
        if obs.single is not None:
            line.append(f"{self.seat_word(obs.single, level)} alone", "bold")
        elif obs.bidder is not None and obs.bid is not None:
            dot = " · " if level == 0 else " "
            line.append(f"{self.seat_word(obs.bidder, level)}{dot}{obs.bid}", "bold")
            if obs.forced:
                line.append(" forced", "dim")
            if obs.doubling > 1:
                line.append(f" x{obs.doubling}", "bold yellow")
        else:
            high = highest_bid(obs)
            if high:
                by = "by " if level < 2 else "bid by "
                line.append(f"{high[1]} {by}{self.seat_word(high[0], level)}")
            else:
                line.append("none yet" if level < 2 else "no bid yet")
        if obs.target is not None and (obs.pair is not None or obs.target != obs.bid):
            line.append(SEP, "dim")
            line.append("Target " if level < 2 else "→ ", "dim")
            line.append(str(obs.target), "bold")
            if obs.pair is not None and level < 3:
                line.append(" (pair)", "dim")
        line.append(SEP, "dim")
        if level < 2:
            line.append("Trumps ", "dim")
        line.append_text(self.trump_state(obs, level))
        return line

    def seat_word(self, seat: int, level: int) -> str:
        return self.names(seat) if level < 3 or seat == self.names.you else SEAT_NAMES[seat][0]

    def trump_state(self, obs: Observation, level: int = 0) -> Text:
        g = self.g
        # from level 2 on the status has no "Trumps" label: the words say it
        if obs.single is not None:
            return Text("none (single hand)" if level < 2 else "no trumps")
        if obs.trump is not None:
            name = (
                f"{g.suit(obs.trump)} {SUIT_NAMES[obs.trump]}" if level < 3 else g.suit(obs.trump)
            )
            suit = Text(name, RED if is_red(obs.trump, True) else "bold")
            if obs.trump_revealed:
                n = obs.revealed_in_trick
                how = [
                    f", revealed in trick {n}",
                    f" (shown in trick {n})",
                    f" (shown trick {n})",
                    f" shown t{n}",
                ][level]
            elif obs.phase == "over":
                how = ", never shown" if level < 3 else " unseen"
            else:
                how = ", your secret" if level < 2 else " secret"
            return suit + Text(how, "dim")
        if obs.bidder is not None and obs.phase != "trump":
            if obs.seventh:
                return Text("seventh card, hidden" if level < 2 else "trumps hidden (7th)")
            return Text("hidden" if level < 2 else "trumps hidden")
        return Text("not chosen" if level < 2 else "trumps not chosen", "dim")

    def score_terms(self, obs: Observation, level: int) -> Text:
        """Both teams' points in the deal and the match; ``level`` 0 with the pips."""
        line = Text()
        line.append("Points " if level < 2 else "Pts ", "dim")
        mine = None if obs.seat is None or self.watching else obs.seat & 1
        for team in (0, 1):
            style = "bold reverse" if team == mine else "bold"
            line.append(f" {TEAM_SHORT[team]} {obs.points[team]} ", style)
            line.append(" " if level == 0 else "")
        target = self.table.rules.match_target
        line.append(SEP if level else "│ ", "dim")
        if target:
            line.append(f"Match ±{target} " if level < 2 else f"±{target} ", "dim")
            for team in (0, 1):
                s = obs.score[team]
                line.append(f"{TEAM_SHORT[team]} {signed(s)} ", "bold")
                if level == 0:
                    n = min(abs(s), target)
                    full, empty = self.g.pips(1, 1), self.g.pips(0, 1)
                    line.append(full * n, "red" if s > 0 else "white on black")
                    line.append(empty * (target - n), "dim")
                    line.append("  ")
        else:
            line.append("Total " if level < 2 else "", "dim")
            line.append(
                f"{TEAM_SHORT[0]} {signed(obs.score[0])}  {TEAM_SHORT[1]} {signed(obs.score[1])}",
                "bold",
            )
        line.rstrip()
        return line

    def render_auction(self, obs: Observation, lay: Layout) -> Text:
        width = lay.line_width
        head = Text("Auction: ")
        if not obs.auction:
            return fit([head + Text("—" if obs.phase != "auction" else "no call yet")], width)
        tail = Text()
        if obs.bidder is not None and obs.bid is not None:
            tail.append(f"  → {self.names(obs.bidder)} {obs.bid}", "bold")
        variants = []
        calls = list(obs.auction)
        for start in range(len(calls)):  # the latest calls matter most: drop the oldest
            text = head.copy()
            if start:
                text.append("… ")
            for i, (seat, bid) in enumerate(calls[start:]):
                if i:
                    text.append(", ")
                text.append(f"{SEAT_NAMES[seat][0]} ")
                text.append(str(bid) if bid else "pass", "bold" if bid else "dim")
            variants.append(text + tail)
        return fit(variants, width)

    # ------------------------------------------------------------------ the table and the hand
    def render_table(self, obs: Observation, lay: Layout) -> Text:
        thinking = None
        if self.thinking and obs.to_act is not None and obs.to_act in self.table.bots:
            # obs.to_act, not the engine's: a pair decision is private to its holder
            thinking = obs.to_act
        return self.board.draw(obs, lay.table_inner, lay.table_rows, lay.card_boxes, thinking)

    def render_hand(self, obs: Observation, lay: Layout) -> Text:
        width = lay.line_width
        if self.holder is None:
            if self.handover is not None:
                note = f"(hidden: {SEAT_NAMES[self.handover]} takes the keyboard)"
            else:
                note = "(the hands are hidden between turns)"
            text = fit([note], width)
            text.stylize("dim")
            return lines([Text("")] * (lay.hand_height - 2) + [text])
        mine = self.turn_seat == self.holder and obs.phase == "play"
        legal = legal_plays(obs) if mine else []
        who = "Your hand" if self.names.you == self.holder else f"{SEAT_NAMES[self.holder]}'s hand"
        count = f"{len(obs.hand)} card{'s' if len(obs.hand) != 1 else ''}" if obs.hand else "empty"
        head = Text(f"{who} · {count}", "dim")
        if obs.phase == "auction" or (obs.phase == "trump" and not obs.second_batch):
            head.append(" (first four)", "dim")
        if lay.card_boxes:
            rows = self.hand_boxes(obs, legal, mine)
        else:
            rows = self.hand_rows(obs, legal, mine, width)
        if lay.hand_head:
            rows.insert(0, fit([head], width))
        return lines(rows)

    def hand_rows(self, obs: Observation, legal: list[int], mine: bool, width: int) -> list[Text]:
        """The number of each playable card over the cards, grouped by suit."""
        for gap in ("  ", " "):
            numbers = Text()
            cards_line = Text()
            for gi, (_suit, cards) in enumerate(hand_by_suit(obs)):
                if gi:
                    numbers.append(gap)
                    cards_line.append(gap)
                for c in cards:
                    cell = self.g.card(c)
                    pad = 3 - len(cell)  # ranks right-aligned, so the suits line up
                    if c in legal:
                        numbers.append(
                            " " * pad + str(legal.index(c) + 1).ljust(len(cell) + 1), "bold yellow"
                        )
                    else:
                        numbers.append(" " * 4)
                    style = "dim" if mine and c not in legal else ""
                    if c == self.selected:
                        style = "reverse"
                    cards_line.append(" " * pad)
                    cards_line.append_text(self.card_text(c, style))
                    cards_line.append(" ")
            cards_line.rstrip()
            if cards_line.cell_len <= width:
                break
        return [numbers, cards_line]

    def hand_boxes(self, obs: Observation, legal: list[int], mine: bool) -> list[Text]:
        """The hand drawn as cards, each playable one numbered over it."""
        rows = [Text() for _ in range(4)]
        for gi, (_suit, cards) in enumerate(hand_by_suit(obs)):
            for i, c in enumerate(cards):
                if gi or i:
                    for row in rows:
                        row.append("   " if gi and not i else " ")
                number = str(legal.index(c) + 1) if c in legal else ""
                rows[0].append(number.center(5), "bold yellow")
                frame = "dim" if mine and c not in legal else ""
                face = "dim" if mine and c not in legal else ("bold red" if is_red(c) else "bold")
                if c == self.selected:
                    frame = face = "reverse"
                for row, part in zip(
                    rows[1:], drawn_card(self.g, c, False, frame, face), strict=True
                ):
                    row.append_text(part)
        return rows

    # ------------------------------------------------------------------ the question
    def render_prompt(self, obs: Observation, lay: Layout) -> Text:
        width = lay.line_width
        first, second = self.prompt_lines(obs)
        if self.notice is not None:
            second = [self.notice]
        return lines([fit(first, width), fit(second, width)])

    def prompt_lines(self, obs: Observation) -> tuple[list[Text], list[Text]]:
        """Wordings of the question (longest first) and of the line under it."""
        t = self.table
        if t.deal_over:
            ev = next((e for e in reversed(t.events) if e.get("type") == "deal_end"), None)
            words = result_words(ev, obs) if ev is not None else ["The deal is over."]
            first = [Text(w, "bold") for w in words]
            if t.match_over:
                winner = t.match.winner
                assert winner is not None
                return first, [
                    Text(f"{TEAM_SHORT[winner]} win the match!  Q leaves.", "bold green")
                ]
            if self.last_deal_played:
                return first, [Text("That was the last deal.  Q leaves.", "bold")]
            if not self.watching:
                return first, [Text("N or Enter: next deal", "bold yellow")]
            return first, [Text("")]
        if self.handover is not None:
            name = SEAT_NAMES[self.handover]
            return (
                [
                    Text(f"{name}'s turn. Pass the keyboard to {name}.", "bold"),
                    Text(f"{name}'s turn."),
                ],
                [
                    Text(f"Enter: {name} is ready (the hand is shown)", "yellow"),
                    Text("Enter: ready"),
                ],
            )
        seat = self.turn_seat
        if seat is None:
            to = obs.to_act
            if to is None:
                return [Text("The table waits…", "dim")], [Text("")]
            what = (
                f"{self.names(to)} to play…"
                if obs.phase == "play"
                else f"Waiting for {self.names(to)}…"
            )
            return [Text(what, "dim")], [Text("")]
        who = Text(
            "Your turn: " if len(t.humans) == 1 else f"{SEAT_NAMES[seat]}'s turn: ", "bold yellow"
        )
        kinds = {a.kind for a in obs.legal}
        if obs.phase == "auction":
            return self.auction_question(obs, who)
        if obs.phase == "trump":
            keys = Text()
            for i, key in enumerate(TRUMP_KEYS):
                keys.append(f"{key.upper()} ", "bold")
                keys.append(self.g.suit(i) + " " + SUIT_NAMES[i], RED if is_red(i, True) else "")
                keys.append("   ")
            short = Text()
            for i, key in enumerate(TRUMP_KEYS):
                short.append(f"{key.upper()} ", "bold")
                short.append(self.g.suit(i) + "  ", RED if is_red(i, True) else "")
            if SEVENTH in kinds:
                keys.append("V seventh card", "bold")
                short.append("V 7th", "bold")
            return [
                who + Text("choose trumps from your four cards"),
                who + Text("choose trumps"),
            ], [keys, short]
        if obs.phase in PHASE_QUESTIONS:
            flag = next(k for k in kinds if k != PASS)
            answer = Text()
            answer.append(f"Y ({FLAG_KEYS[flag].upper()}) {FLAG_LABELS[flag]}", "bold")
            answer.append("   P no", "bold")
            return [who + Text(PHASE_QUESTIONS[obs.phase])], [answer]
        return self.play_question(obs, who, kinds)

    def auction_question(self, obs: Observation, who: Text) -> tuple[list[Text], list[Text]]:
        bids = bid_range(obs)
        if not bids:
            return [who + Text("pass (no bid is possible)")], [Text("P pass", "dim")]
        value = self.current_bid(obs)
        defend = obs.duel is not None and obs.duel.get("defender") == obs.seat and len(bids) == 1
        if defend:
            ask = f"match {bids[0]} or pass"
        elif len(bids) == 1:
            ask = f"bid {bids[0]} (the highest) or pass"
        else:
            ask = f"bid {bids[0]}–{bids[-1]} or pass"
        if len(bids) == 1:
            only = Text(f" {bids[0]} ", "reverse bold")
            only.append("   B/Enter bid · P pass", "dim")
            return [who + Text(ask)], [only]
        ctl = Text()
        ctl.append("◂ " if self.g.unicode else "< ")
        ctl.append(f" {self.digits}_ " if self.digits else f" {value} ", "reverse bold")
        ctl.append(" ▸" if self.g.unicode else " >")
        long, short = ctl.copy(), ctl.copy()
        if self.digits:
            long.append("   type the second digit · Backspace clears", "dim")
            short.append("  2nd digit · Backspace clears", "dim")
        else:
            long.append("   B/Enter bid · P pass · ↑↓ or type to change", "dim")
            short.append("  B bid · P pass · ↑↓ change", "dim")
        return [who + Text(ask)], [long, short, ctl]

    def play_question(
        self, obs: Observation, who: Text, kinds: set[str]
    ) -> tuple[list[Text], list[Text]]:
        duty = play_duty(obs, self.g, ask_key="R asks for trumps")
        picked = Text()
        short_pick = Text()
        if self.selected is not None:
            picked.append("  · picked ")
            picked.append_text(self.card_text(self.selected))
            short_pick.append(" · ")
            short_pick.append_text(self.card_text(self.selected))
            pts = POINTS[self.selected]
            if pts:
                picked.append(f" ({pts} pt{'s' if pts > 1 else ''})", "dim")
        first = [who + Text(w) + p for w in duty for p in (picked, short_pick)]
        n = len(legal_plays(obs))
        pick = f"1-{n} or ←→ pick · " if n > 1 else ""
        keys = Text(
            f"{pick}Enter play" if n > 1 else "only one card can be played: Enter plays it", "dim"
        )
        short = Text(f"1-{n} ←→ pick · Enter play" if n > 1 else "Enter plays it", "dim")
        if REVEAL in kinds:
            keys.append(" · R ask for trumps", "bold")
            short.append(" · R ask", "bold")
        return first, [keys, short]

    # ------------------------------------------------------------------ the keys
    def render_keys(self, obs: Observation, lay: Layout) -> Text:
        """The keys that do something now, and only those (the rest is behind ?):
        each with its words, then shorter words, then the keys alone."""
        items = self.key_items(obs)
        tail = [("?", "help"), ("Q", "quit")]
        if not lay.log_beside or lay.log_rows < 8:
            tail.insert(0, ("L", "log"))
        variants = []
        for form in (0, 1):
            parts = [
                f"{k} {words[form] if isinstance(words, tuple) else words}".strip()
                for k, words in items
            ]
            parts += [f"{k} {w}" for k, w in tail]
            variants.append(" · ".join(parts))
        variants.append(" · ".join([k for k, _ in items] + [k for k, _ in tail]))
        return fit(variants, lay.line_width)

    def key_items(self, obs: Observation) -> list[tuple[str, str | tuple[str, str]]]:
        """(key, words or (words, short words)) of each key that may be pressed now."""
        t = self.table
        if self.watching:
            return [("", (f"watching four bots, {self.delay:g} s a move", "watching"))]
        if t.deal_over:
            analyse = ("A", ("analysis of the deal", "analyse"))
            if t.match_over or self.last_deal_played:
                return [analyse]
            return [("N/Enter", ("next deal", "deal")), analyse]
        if self.handover is not None:
            return [("Enter", ("take the keyboard", "ready"))]
        if self.turn_seat is None:
            return []
        kinds = {a.kind for a in obs.legal}
        items: list[tuple[str, str | tuple[str, str]]] = []
        if obs.phase == "auction":
            bids = bid_range(obs)
            if len(bids) > 1:
                items.append(("↑↓/0-9", ("set the bid", "")))
            if bids:
                items.append(
                    ("B/Enter", ("bid it", "bid") if len(bids) > 1 else (f"bid {bids[0]}", "bid"))
                )
                if self.digits:
                    items.append(("Backspace", ("clear the typed digit", "clear")))
            if PASS in kinds:
                items.append(("P", "pass"))
        elif obs.phase == "trump":
            items.append(("S H D C", ("trumps", "")))
            if SEVENTH in kinds:
                items.append(("V", ("seventh card", "7th")))
        elif obs.phase == "play":
            n = len(legal_plays(obs))
            if n > 1:
                items.append((f"1-{n} ←→", ("pick", "")))
            items.append(("Enter", ("play", "play") if n > 1 else ("play it", "play")))
            if self.selected is not None:
                items.append(("Esc", ("unpick", "")))
            if REVEAL in kinds:
                items.append(("R", ("ask for trumps", "ask")))
        elif obs.phase in PHASE_QUESTIONS:
            flag = next(k for k in kinds if k != PASS)
            items += [(f"Y/{FLAG_KEYS[flag].upper()}", FLAG_LABELS[flag]), ("P/N", "no")]
        if hint_refusal(t) is None and len(obs.legal) > 1:
            items.append(("I", ("hint", "hint")))
            if obs.phase == "auction":
                items.append(("T", ("bid chances", "chances")))
        return items
