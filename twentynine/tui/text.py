"""Words and symbols of the terminal game, shared by the Textual app and ``--plain``.

Everything here reads an ``Observation`` or an event *view* (what one seat
may see), never the engine's state.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..game.actions import BID, PASS, PLAY, REVEAL, SEVENTH, TRUMP, Action
from ..game.cards import POINTS, RANKS, SUIT_NAMES, SUITS, parse_card, parse_suit
from ..game.observation import Observation
from .session import SEAT_NAMES, TEAM_NAMES, TEAM_SHORT

FLAG_WORDS = {
    "single": "play a single hand",
    "double": "double",
    "redouble": "redouble",
    "set": "set",
    "pair": "show the pair",
    "reveal": "ask for trumps",
    "seventh": "call the seventh card",
}
PHASE_QUESTIONS = {
    "single": "Play a single hand (alone, no trumps, every trick)?",
    "double": "Double the stake?",
    "redouble": "Redouble?",
    "set": "Set (x6)?",
    "pair": "Show the pair (king and queen of trumps)?",
}


@dataclass(frozen=True, slots=True)
class Glyphs:
    """Suit symbols and pips, or plain letters for terminals without them."""

    unicode: bool = True

    def suit(self, suit: int) -> str:
        return "♠♥♦♣"[suit] if self.unicode else SUITS[suit]

    def rank(self, card: int) -> str:
        r = RANKS[card & 7]
        return "10" if r == "T" and self.unicode else r

    def card(self, card: int) -> str:
        return self.rank(card) + self.suit(card >> 3)

    def cards(self, cards: Iterable[int]) -> str:
        return " ".join(self.card(c) for c in cards)

    def pips(self, score: int, target: int) -> str:
        """The six that keeps the score: filled pips up to the score, out of the target."""
        full, empty = ("●", "○") if self.unicode else ("*", ".")
        n = min(abs(score), target)
        return full * n + empty * (target - n)

    @property
    def bullet(self) -> str:
        return "·" if self.unicode else "-"


def detect_glyphs(stream: Any = None) -> Glyphs:
    """Unicode when the output can encode the suit symbols."""
    stream = stream or sys.stdout
    encoding = getattr(stream, "encoding", None) or "ascii"
    try:
        "♠♥♦♣●○·".encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return Glyphs(False)
    return Glyphs(True)


def is_red(card_or_suit: int, is_suit: bool = False) -> bool:
    suit = card_or_suit if is_suit else card_or_suit >> 3
    return suit in (1, 2)


def signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


# --------------------------------------------------------------------- names


class Namer:
    """How seats are named to a viewer: ``You`` for the one person at the table."""

    def __init__(self, labels: Sequence[str], you: int | None) -> None:
        self.labels = list(labels)
        self.you = you

    def __call__(self, seat: int) -> str:
        return "You" if seat == self.you else SEAT_NAMES[seat]

    def full(self, seat: int) -> str:
        return self.labels[seat]

    def verb(self, seat: int, plain: str, third: str) -> str:
        return f"{self(seat)} {plain if seat == self.you else third}"


# --------------------------------------------------------------------- events


def describe(
    ev: dict[str, Any],
    names: Namer,
    g: Glyphs,
    plays: bool = True,
    end: Observation | None = None,
) -> str | None:
    """One event view in words (None: nothing worth a line); ``end`` is the deal as
    it ended, which the result's sentence reads for who bid and what they needed."""
    kind = ev.get("type")
    seat = ev.get("seat", -1)
    if kind == "deal_start":
        return f"Deal {ev['deal'] + 1}: {SEAT_NAMES[ev['dealer']]} deals."
    if kind == "bid":
        return names.verb(seat, "bid", "bids") + f" {ev['bid']}."
    if kind == "pass":
        stage = ev.get("stage")
        if stage == "auction":
            return names.verb(seat, "pass", "passes") + "."
        if stage == "pair":
            return f"{names(seat)} keep{'' if seat == names.you else 's'} the pair back for now."
        what = {"single": "play alone", "double": "double", "redouble": "redouble", "set": "set"}
        return names.verb(seat, "do not", "does not") + f" {what.get(stage or '', stage)}."
    if kind == "contract":
        if ev.get("forced"):
            return f"Nobody bid: {names(ev['bidder'])} must play for {ev['bid']}."
        return names.verb(ev["bidder"], "win", "wins") + f" the auction at {ev['bid']}."
    if kind == "redeal":
        return "Nobody bid: the deal is void."
    if kind == "trump_chosen":
        if ev.get("seventh"):
            return names.verb(seat, "call", "calls") + " the seventh card: its suit is trumps."
        if "trump" in ev:
            suit = parse_suit(ev["trump"])
            return f"{names(seat)} chose {g.suit(suit)} {SUIT_NAMES[suit]} as trumps (secret)."
        return names.verb(seat, "choose", "chooses") + " trumps in secret."
    if kind == "second_batch":
        line = "Four more cards each."
        if "trump" in ev:
            suit = parse_suit(ev["trump"])
            line += f" Your seventh card makes {SUIT_NAMES[suit]} trumps."
        return line
    if kind == "single":
        return names.verb(seat, "play", "plays") + " a single hand!"
    if kind in ("double", "redouble", "set"):
        verb = {"double": "double", "redouble": "redouble", "set": "set"}[kind]
        return names.verb(seat, verb, verb + "s") + f" (x{ev['multiplier']})."
    if kind == "reveal":
        suit = parse_suit(ev["trump"])
        shown = f"{g.suit(suit)} {SUIT_NAMES[suit]}"
        if ev.get("asked"):
            return names.verb(seat, "ask", "asks") + f" for trumps: {shown}."
        return names.verb(seat, "cannot", "cannot") + f" follow: trumps are {shown}."
    if kind == "play":
        if not plays:
            return None
        return names.verb(seat, "play", "plays") + f" {g.card(parse_card(ev['card']))}."
    if kind == "trick":
        cards = " ".join(g.card(parse_card(c)) for c in ev["cards"])
        who = names(ev["winner"])
        pts = ev["points"]
        verb = "win" if ev["winner"] == names.you else "wins"
        return f"Trick {ev['trick']}: {who} {verb} {pts} ({cards})."
    if kind == "pair":
        suit = parse_suit(ev["trump"])
        return (
            names.verb(seat, "show", "shows")
            + f" K and Q of {SUIT_NAMES[suit]}: target now {ev['target']}."
        )
    if kind == "deal_end":
        return deal_end_text(ev, end)
    if kind == "match_end":
        return f"{TEAM_NAMES[ev['winner']]} win the match ({score_text(ev['score'])})."
    return None


def score_text(score: Sequence[int]) -> str:
    return f"{TEAM_SHORT[0]} {signed(score[0])}, {TEAM_SHORT[1]} {signed(score[1])}"


def deal_end_text(ev: dict[str, Any], obs: Observation | None = None) -> str:
    """The deal's result in one sentence (``obs``: the deal as it ended, for who bid
    and what they needed)."""
    return result_words(ev, obs)[0] + "."


def result_words(ev: dict[str, Any], obs: Observation | None) -> list[str]:
    """The deal's result, longest wording first: who needed how many points and took
    how many, made or failed and by how much, and the change to the score."""
    result = ev["result"]
    delta = ev["delta"]
    pts = ev["points"]
    changes = [f"{TEAM_SHORT[t]} {signed(delta[t])}" for t in (0, 1) if delta[t]]
    change = ", ".join(changes) or "nobody scores"
    if result == "cancelled":
        if obs is not None and obs.bidder is not None and not obs.trump_revealed:
            return [
                "Trumps were never shown: the deal is void, nobody scores",
                "Trumps never shown: void",
            ]
        return ["The deal is cancelled: nobody scores", "Cancelled: nobody scores"]
    if result in ("single-made", "single-failed"):
        who = SEAT_NAMES[obs.single] if obs is not None and obs.single is not None else "The"
        made = result == "single-made"
        verb = "made: every trick taken" if made else "lost: a trick went to the other side"
        return [
            f"{who}'s single hand is {verb} · {change}",
            f"Single hand {'made' if made else 'lost'} · {change}",
        ]
    team = obs.bidder & 1 if obs is not None and obs.bidder is not None else (0 if delta[0] else 1)
    need = obs.target if obs is not None else None
    took = pts[team]
    side = TEAM_SHORT[team]
    short_change = signed(delta[team]) if delta[team] else "no change"
    if need is None:  # no observation to say what was needed
        verb = "made" if result == "made" else "failed"
        return [
            f"{side} took {took} points: contract {verb} · {change}",
            f"{side} {verb} · {change}",
        ]
    total = obs.rules.total_points if obs is not None else None
    stopped = total is not None and pts[0] + pts[1] < total  # the deal ended early
    if result == "made":
        if stopped:
            return [
                f"{side} needed {need} and reached it ({took} when play stopped): made · {change}",
                f"Made: {side} reached {need} ({took} taken) · {change}",
                f"{side} made it ({took}, needed {need}) · {short_change}",
            ]
        spare = took - need
        extra = f", with {spare} to spare" if spare else ", exactly"
        return [
            f"{side} needed {need} and took {took}: made{extra} · {change}",
            f"Made: {side} took {took}, needed {need} · {change}",
            f"{side} made {took} (needed {need}) · {short_change}",
        ]
    if stopped:
        return [
            f"{side} needed {need}; with {took} taken they could no longer reach it: "
            f"failed · {change}",
            f"Failed: {side} could no longer reach {need} ({took} taken) · {change}",
            f"{side} failed (needed {need}) · {short_change}",
        ]
    short = need - took
    return [
        f"{side} needed {need} and took {took}: failed by {short} · {change}",
        f"Failed by {short}: {side} took {took}, needed {need} · {change}",
        f"{side} failed by {short} (needed {need}) · {short_change}",
    ]


# --------------------------------------------------------------------- the observation


def contract_text(obs: Observation, names: Namer) -> str:
    if obs.single is not None:
        return f"{names(obs.single)} alone"
    if obs.bidder is not None and obs.bid is not None:
        text = f"{names(obs.bidder)} {obs.bid}"
        if obs.forced:
            text += " (forced)"
        if obs.doubling > 1:
            text += f" x{obs.doubling}"
        return text
    high = highest_bid(obs)
    if high is not None:
        return f"{names(high[0])} {high[1]} so far"
    return "no bid yet"


def highest_bid(obs: Observation) -> tuple[int, int] | None:
    best = None
    for seat, bid in obs.auction:
        if bid:
            best = (seat, bid)
    return best


def trump_text(obs: Observation, g: Glyphs) -> str:
    if obs.single is not None:
        return "none (single hand)"
    if obs.trump_revealed and obs.trump is not None:
        suit = f"{g.suit(obs.trump)} {SUIT_NAMES[obs.trump]}"
        return f"{suit}, revealed in trick {obs.revealed_in_trick}"
    if obs.trump is not None and obs.phase == "over":
        return f"{g.suit(obs.trump)} {SUIT_NAMES[obs.trump]}, never shown"
    if obs.trump is not None:
        return f"{g.suit(obs.trump)} {SUIT_NAMES[obs.trump]}, your secret"
    if obs.bidder is not None and obs.phase != "trump":
        return "seventh card, hidden" if obs.seventh else "hidden"
    return "not chosen"


def target_text(obs: Observation) -> str | None:
    if obs.target is None:
        return None
    if obs.pair is not None:
        return f"{obs.target} after the pair"
    return str(obs.target)


def auction_text(obs: Observation, names: Namer) -> str:
    if not obs.auction:
        return "Auction: " + ("no bids yet" if obs.phase == "auction" else "none")
    calls = ", ".join(f"{names(s)} {b if b else 'pass'}" for s, b in obs.auction)
    return f"Auction: {calls}"


def hand_by_suit(obs: Observation) -> list[tuple[int, list[int]]]:
    """The hand grouped by suit (S H C D: colours alternate), highest card first."""
    return hand_by_suit_of(obs.hand)


def hand_by_suit_of(hand: Iterable[int]) -> list[tuple[int, list[int]]]:
    held = list(hand)
    out = []
    for suit in (0, 1, 3, 2):
        cards = sorted((c for c in held if c >> 3 == suit), key=lambda c: -(c & 7))
        if cards:
            out.append((suit, cards))
    return out


def display_hand(obs: Observation) -> list[int]:
    return [c for _suit, cards in hand_by_suit(obs) for c in cards]


def legal_plays(obs: Observation) -> list[int]:
    """The cards ``obs`` may play, in the order the hand shows them."""
    playable = {a.value for a in obs.legal if a.kind == PLAY}
    return [c for c in display_hand(obs) if c in playable]


def hand_text(obs: Observation, g: Glyphs, numbered: bool = False) -> str:
    legal = legal_plays(obs) if numbered else []
    groups = []
    for suit, cards in hand_by_suit(obs):
        parts = []
        for c in cards:
            tag = f"{legal.index(c) + 1}:" if c in legal else ""
            parts.append(tag + g.rank(c))
        groups.append(f"{g.suit(suit)} {' '.join(parts)}")
    return "  ".join(groups) if groups else "(no cards)"


def bid_range(obs: Observation) -> list[int]:
    return sorted(a.value for a in obs.legal if a.kind == BID and a.value is not None)


def play_duty(obs: Observation, g: Glyphs, ask_key: str = "ask for trumps") -> list[str]:
    """What the seat to play must play now, as the rules say, longest wording first:
    lead, follow the suit led, the trump owed after asking for trumps, or any card
    (and whether trumps may still be asked for, ``ask_key`` naming how)."""
    led = obs.led_suit
    if led is None:
        return ["lead a card"]
    suit = SUIT_NAMES[led]
    if any(c >> 3 == led for c in obs.hand):
        return [f"play a card to {suit}", f"follow {suit}"]
    if obs.asked is not None and obs.asked == obs.seat and obs.trump is not None:
        named = f"{g.suit(obs.trump)} {SUIT_NAMES[obs.trump]}"
        held = {c for c in obs.hand if c >> 3 == obs.trump}
        if not held:
            return [
                f"you asked for trumps ({named}) and hold none: play any card",
                "no trump: play any card",
            ]
        if set(legal_plays(obs)) < held:
            return [
                f"you asked for trumps: play a trump ({named}) that wins the trick",
                f"play a winning trump ({g.suit(obs.trump)})",
            ]
        return [
            f"you asked for trumps: play a trump ({named})",
            f"play a trump ({g.suit(obs.trump)})",
        ]
    if any(a.kind == REVEAL for a in obs.legal):
        return [
            f"you have no {suit}: play any card, or {ask_key}",
            f"no {suit}: any card or {ask_key}",
            f"no {suit}: any card",  # the keys under the question say how to ask
        ]
    return [f"you have no {suit}: play any card", f"no {suit}: any card"]


def decision_prompt(obs: Observation, g: Glyphs) -> str:
    """The question the seat to act must answer, with what it may answer."""
    kinds = {a.kind for a in obs.legal}
    if obs.phase == "auction":
        bids = bid_range(obs)
        if not bids:
            return "Only a pass is possible: pass"
        if len(bids) == 1 and obs.duel and obs.duel.get("defender") == obs.seat:
            return f"You defend: match {bids[0]} or pass"
        return f"Bid {bids[0]}-{bids[-1]} or pass"
    if obs.phase == "trump":
        extra = ", or seventh" if SEVENTH in kinds else ""
        return f"Choose trumps: S H D C{extra}"
    if obs.phase in PHASE_QUESTIONS:
        flag = next(k for k in kinds if k != PASS)
        return f"{PHASE_QUESTIONS[obs.phase]} {flag} / pass"
    if obs.phase == "play":
        cards = legal_plays(obs)
        duty = play_duty(obs, g, ask_key="reveal (ask for trumps)")[0]
        return (
            duty[0].upper()
            + duty[1:]
            + ": "
            + " ".join(f"{i + 1}:{g.card(c)}" for i, c in enumerate(cards))
        )
    return "Wait"


def card_points(cards: Iterable[int]) -> int:
    return sum(POINTS[c] for c in cards)


# --------------------------------------------------------------------- reading a command


class CommandError(ValueError):
    """A command the game cannot take now; the message says what would do."""


QUIT_WORDS = ("q", "quit", "exit")
# Words that work at every prompt. None of them may read as an answer to any
# prompt (``h`` is hearts at the trump prompt, so help is ``?`` or ``help``).
HELP_WORDS = ("?", "help")
STATE_WORDS = ("state", "look", "l", "show")
NEXT_WORDS = ("", "n", "next", "next deal", "deal")


def read_action(text: str, obs: Observation) -> Action:
    """The action a typed command means for the seat of ``obs`` (it must be its turn)."""
    seat = obs.seat
    assert seat is not None
    legal = list(obs.legal)
    words = text.strip().lower().split()
    if not words:
        raise CommandError("type a command (? for help)")
    kinds = {a.kind for a in legal}

    def pick(kind: str, value: int | None = None) -> Action:
        for a in legal:
            if a.kind == kind and (value is None or a.value == value):
                return a
        raise CommandError(_not_now(kind, value, obs))

    w = words[0]
    if w in ("p", "pass", "no", "n"):
        return pick(PASS)
    if obs.phase == "auction":
        if w in ("b", "bid"):
            if len(words) == 1:
                bids = bid_range(obs)
                if not bids:
                    raise CommandError("no bid is possible now: pass")
                return pick(BID, bids[0])
            w = words[1]
        if w.isdigit():
            bids = bid_range(obs)
            n = int(w)
            if n not in bids:
                if not bids:
                    raise CommandError("no bid is possible now: pass")
                raise CommandError(f"bid {n} is not possible: bid {bids[0]}-{bids[-1]} or pass")
            return pick(BID, n)
        raise CommandError("bid a number or pass")
    if obs.phase == "trump":
        if w in ("seventh", "7th", "v"):
            return pick(SEVENTH)
        suit_word = words[1] if w == "trump" and len(words) > 1 else w
        names = {n: i for i, n in enumerate(SUIT_NAMES)}
        if suit_word in names:
            return pick(TRUMP, names[suit_word])
        try:
            return pick(TRUMP, parse_suit(suit_word))
        except Exception as err:
            raise CommandError("choose trumps: S, H, D or C (or trump S)") from err
    if w in ("y", "yes"):
        flags = [a for a in legal if a.kind not in (PASS, PLAY, BID, TRUMP, REVEAL)]
        if len(flags) == 1:
            return flags[0]
        raise CommandError("yes to what? type the card or the decision")
    if w in FLAG_WORDS or w == "ask":
        kind = "reveal" if w == "ask" else w
        if kind in kinds:
            return pick(kind)
        raise CommandError(_not_now(kind, None, obs))
    if obs.phase == "play":
        cards = legal_plays(obs)
        if w.isdigit():
            i = int(w)
            if 1 <= i <= len(cards):
                return pick(PLAY, cards[i - 1])
            raise CommandError(f"choose 1-{len(cards)}, or type the card (e.g. JS)")
        try:
            card = parse_card(words[-1] if w == "play" and len(words) > 1 else w)
        except Exception as err:
            raise CommandError(
                f"{text.strip()!r} is not a card: type e.g. JS, 10h or 1-{len(cards)}"
            ) from err
        if card not in obs.hand:
            raise CommandError(f"you do not hold {g_plain(card)}")
        if card not in cards:
            raise CommandError(why_not_card(obs, card))
        return pick(PLAY, card)
    flag = next((k for k in kinds if k != PASS), None)
    raise CommandError(f"answer {flag} or pass" if flag else "pass")


def g_plain(card: int) -> str:
    return Glyphs(False).card(card)


def why_not_card(obs: Observation, card: int) -> str:
    led = obs.led_suit
    if not obs.is_my_turn:
        return "it is not your turn"
    if led is not None and any(c >> 3 == led for c in obs.hand) and card >> 3 != led:
        return f"you must follow {SUIT_NAMES[led]}"
    if obs.asked == obs.seat:
        return "you asked for trumps: you must play a trump (one that wins if you can)"
    return f"{g_plain(card)} cannot be played now"


def _not_now(kind: str, value: int | None, obs: Observation) -> str:
    if kind == PASS:
        return "you cannot pass now"
    if kind == "reveal":
        return "you may ask for trumps only when you cannot follow and they are hidden"
    return f"you cannot {FLAG_WORDS.get(kind, kind)} now"
