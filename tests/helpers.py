"""Shared helpers for the rule tests: readable hands, action scripts, trick tables.

Seats may be written as numbers (0..3) or as letters S W N E
(0 South, 1 West, 2 North, 3 East).

Action scripts are whitespace-separated tokens ``seat:what`` where ``what`` is

- a whole number: a bid (``N:20``);
- ``pass`` (or ``p``);
- ``trump=S``: the trump choice;
- a flag: ``seventh``, ``single``, ``double``, ``redouble``, ``set``,
  ``pair``, ``reveal``;
- a card: ``JS``, ``10H``, ``7C``: a play.

A *trick table* lists tricks as ``(leader, "c1 c2 c3 c4")`` with the cards in
playing order from the leader; a card written ``!7C`` means the seat first
asks for the reveal (``reveal: ask``) and then plays ``7C``. The hands of a
deal can be built from such a table (each seat holds exactly the cards it
plays, in playing order, so its first batch is what it plays in tricks 1-4).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from twentynine.benchmarks.localhost import free_port, stop
from twentynine.game.actions import FLAG_KINDS, Action
from twentynine.game.cards import (
    SUIT_MASK,
    card_text,
    cards_of,
    parse_card,
    parse_cards,
    parse_suit,
)
from twentynine.game.engine import PAIR_WINDOW, Deal
from twentynine.game.match import Match
from twentynine.game.rules import Rules, resolve

SEATS = {"S": 0, "W": 1, "N": 2, "E": 3}
SEAT_LETTERS = "SWNE"

Trick = tuple[str | int, str]


def seat_of(text: str | int) -> int:
    if isinstance(text, int):
        return text
    t = text.strip().upper()
    if t in SEATS:
        return SEATS[t]
    return int(t)


def cards(text: str) -> list[int]:
    return parse_cards(text)


def make_hands(*hands: str) -> list[list[int]]:
    """Four hands from text, e.g. ``make_hands("JS 9S AS TS KS QS 8S 7S", ...)``."""
    assert len(hands) == 4, "four hands, one per seat"
    out = [parse_cards(h) for h in hands]
    for s, h in enumerate(out):
        assert len(h) == 8, f"seat {s} has {len(h)} cards"
    return out


def fill_hands(
    fixed: dict[str | int, str], void: dict[str | int, str] | None = None
) -> list[list[int]]:
    """Hands holding the ``fixed`` cards, completed with the rest of the deck.

    The remaining cards go, lowest first, to the first seat (0..3) that has
    room and is not listed in ``void`` as void in that suit (suit letters).
    """
    hands: list[list[int]] = [[], [], [], []]
    for seat, text in fixed.items():
        hands[seat_of(seat)].extend(parse_cards(text))
    voids = {seat_of(s): v.upper() for s, v in (void or {}).items()}
    used = {c for h in hands for c in h}
    for c in range(32):
        if c in used:
            continue
        for s in range(4):
            if len(hands[s]) < 8 and "SHDC"[c // 8] not in voids.get(s, ""):
                hands[s].append(c)
                break
        else:
            raise AssertionError(f"no seat can take {card_text(c)}")
    for s in range(4):
        assert len(hands[s]) == 8, f"seat {s} holds {len(hands[s])} cards"
    return hands


def rules_of(profile: str = "pagat", **options: Any) -> Rules:
    return resolve(profile, options)


def new_deal(
    hands: Sequence[Sequence[int]], dealer: int | str = 0, profile: str = "pagat", **options: Any
) -> Deal:
    return Deal(rules_of(profile, **options), seat_of(dealer), hands)


def action_of(token: str) -> Action:
    """One script token ``seat:what`` as an action."""
    seat_text, _, what = token.partition(":")
    assert what, f"bad token {token!r}: write seat:what"
    seat = seat_of(seat_text)
    w = what.strip()
    low = w.lower()
    if low.lstrip("-").isdigit():
        return Action.bid(seat, int(low))
    if low in ("pass", "p"):
        return Action.pass_(seat)
    if low.startswith("trump="):
        return Action.trump(seat, parse_suit(w[6:]))
    if low in FLAG_KINDS:
        return Action.flag(seat, low)
    return Action.play(seat, parse_card(w))


def act(game: Deal | Match, script: str) -> list[dict[str, Any]]:
    """Apply every action of ``script`` in order; return all the events."""
    events: list[dict[str, Any]] = []
    for token in script.split():
        events.extend(game.apply(action_of(token)))
    return events


def seats_in_order(rules: Rules, leader: int, n: int = 4, skip: int | None = None) -> list[int]:
    """Seats from ``leader`` in the direction of play (worked out here, not by the engine)."""
    step = 1 if rules.direction == "clockwise" else 3
    out = []
    s = leader
    while len(out) < n:
        if s != skip:
            out.append(s)
        s = (s + step) % 4
    return out


RANK_ORDER = "78QKTA9J"  # low to high
CARD_POINTS = {"J": 3, "9": 2, "A": 1, "T": 1}


def rank_value(c: int) -> int:
    return RANK_ORDER.index(card_text(c)[0])


def card_points(c: int) -> int:
    return CARD_POINTS.get(card_text(c)[0], 0)


def reference_winner(played: Sequence[tuple[int, int]], trump: int | None) -> int:
    """The winner of a finished trick by the rules: ``played`` is (seat, card) in order."""
    led = played[0][1] // 8
    trumps = [(s, c) for s, c in played if trump is not None and c // 8 == trump]
    pool = trumps or [(s, c) for s, c in played if c // 8 == led]
    return max(pool, key=lambda sc: rank_value(sc[1]))[0]


def hands_from_tricks(
    rules: Rules,
    tricks: Sequence[Trick],
    rest: dict[str | int, str] | None = None,
    single: int | str | None = None,
) -> list[list[int]]:
    """The hands implied by a trick table (plus ``rest``: cards never played).

    With ``single`` (the declarer of a single hand) tricks have three cards and
    the declarer's partner sits out.
    """
    skip = None if single is None else (seat_of(single) + 2) % 4
    size = 3 if skip is not None else 4
    hands: list[list[int]] = [[], [], [], []]
    for leader, text in tricks:
        played = [parse_card(c.lstrip("!")) for c in text.split()]
        assert len(played) == size, f"trick {text!r} needs {size} cards"
        for seat, c in zip(seats_in_order(rules, seat_of(leader), size, skip), played, strict=True):
            hands[seat].append(c)
    for seat, text in (rest or {}).items():
        hands[seat_of(seat)].extend(parse_cards(text))
    for s, h in enumerate(hands):
        assert len(h) == 8, f"seat {s} would hold {len(h)} cards: {[card_text(c) for c in h]}"
    return hands


def play_tricks(
    game: Deal | Match,
    tricks: Iterable[Trick],
    after: dict[int, str] | None = None,
    pass_pairs: bool = True,
) -> list[dict[str, Any]]:
    """Play a trick table through the engine.

    Before each trick the engine must expect the table's leader. ``after``
    maps a trick number (from 1) to a script played right after that trick
    (e.g. a pair declaration). Without one, an open pair window is passed
    when ``pass_pairs``.
    """
    deal = game.deal if isinstance(game, Match) else game
    rules = deal.rules
    skip = (deal.single + 2) % 4 if deal.single >= 0 else None
    events: list[dict[str, Any]] = []
    for number, (leader, text) in enumerate(tricks, start=1):
        lead = seat_of(leader)
        assert deal.to_act == lead, (
            f"trick {number}: the engine expects seat {deal.to_act} to lead, "
            f"the table says seat {lead}"
        )
        tokens = text.split()
        for seat, tok in zip(seats_in_order(rules, lead, len(tokens), skip), tokens, strict=True):
            if tok.startswith("!"):
                events.extend(game.apply(Action.flag(seat, "reveal")))
                tok = tok[1:]
            events.extend(game.apply(Action.play(seat, parse_card(tok))))
        if after and number in after:
            events.extend(act(game, after[number]))
        elif pass_pairs and deal.phase == PAIR_WINDOW:
            events.extend(game.apply(Action.pass_(deal.to_act)))
    return events


def play_out(game: Deal | Match) -> None:
    """Finish the current deal with the first legal action each time (pairs passed)."""
    deal = game.deal if isinstance(game, Match) else game
    while not deal.is_over():
        legal = deal.legal_actions()
        passes = [a for a in legal if a.kind == "pass"]
        plays = [a for a in legal if a.kind == "play"]
        game.apply(plays[0] if plays else passes[0] if passes else legal[0])


def snapshot(deal: Deal) -> tuple[Any, ...]:
    """Everything observable about a deal, to prove an illegal action changed nothing."""
    return (
        deal.verdict(),
        [a.to_json() for a in deal.legal_actions()],
        deal.to_act,
        deal.phase,
        list(deal.held),
        list(deal.trick_cards),
        list(deal.log),
    )


def event_types(events: Iterable[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


# ---------------------------------------------------------------------------
# Two layouts that make whole deals easy to force.

_SUIT_TEXT = {
    "S": "JS 9S AS TS KS QS 8S 7S",
    "H": "JH 9H AH TH KH QH 8H 7H",
    "D": "JD 9D AD TD KD QD 8D 7D",
    "C": "JC 9C AC TC KC QC 8C 7C",
}


def one_suit_hands(spades_seat: int) -> list[list[int]]:
    """Seat ``spades_seat`` holds all eight spades; the other seats, in seat order,
    hold all the hearts, all the diamonds and all the clubs.

    With spades trumps, the spades seat wins every trick whoever leads: the
    first trick reveals trumps (everyone else is void in spades, and the
    spades seat is void in every other suit), and it takes all 28 points.
    """
    texts = [""] * 4
    texts[spades_seat] = _SUIT_TEXT["S"]
    for suit, seat in zip("HDC", (s for s in range(4) if s != spades_seat), strict=True):
        texts[seat] = _SUIT_TEXT[suit]
    return make_hands(*texts)


# Everyone holds two cards of each suit, so nobody is ever void if each trick
# is led in a suit everyone still holds: South J and 9, West A and T, North K
# and Q, East 8 and 7. Leading jacks then nines, South wins every trick and
# trumps are never revealed.
NO_VOID_HANDS = make_hands(
    "JS JH JD JC 9S 9H 9D 9C",
    "AS AH AD AC TS TH TD TC",
    "KS KH KD KC QS QH QD QC",
    "8S 8H 8D 8C 7S 7H 7D 7C",
)
NO_VOID_TRICKS: list[Trick] = [
    ("S", "JS AS KS 8S"),
    ("S", "JH AH KH 8H"),
    ("S", "JD AD KD 8D"),
    ("S", "JC AC KC 8C"),
    ("S", "9S TS QS 7S"),
    ("S", "9H TH QH 7H"),
    ("S", "9D TD QD 7D"),
    ("S", "9C TC QC 7C"),
]


# Spades trumps, East leads the first trick (dealer North): East-West take 17
# points, North-South 11, trumps revealed in trick 3.
TABLE_EW17_NS11: list[Trick] = [
    ("E", "QH TH JH AH"),  # W wins 5
    ("W", "9D KD QD TD"),  # W wins 3
    ("W", "8H 9C 9H 9S"),  # North void in hearts: reveal (spades); S trumps, wins 6
    ("S", "QC 7C AC KC"),  # N wins 1
    ("N", "KS 7S AS QS"),  # S wins 1
    ("S", "JC TS 8C TC"),  # W trumps with T♠, wins 5
    ("W", "7D JD 8S AD"),  # E trumps with 8♠, wins 4
    ("E", "KH 8D 7H JS"),  # N trumps with J♠, wins 3
]


def played(seed: int, profile: str = "modern", steps: int = 400, **raw: Any) -> Any:
    """A server game played by random bots (next deals included), ``steps`` entries at most."""
    from twentynine.bots.characters import BY_ID
    from twentynine.server.game import Game
    from twentynine.server.setup import parse_setup

    game = Game(parse_setup({"profile": profile, "seed": seed, **raw}))
    bot = BY_ID["pip"]
    for _ in range(steps):
        if game.match_over:
            break
        if game.deal_over:
            game.next_deal()
            continue
        seat = game.to_act
        game.apply(bot.make(seat).act(game.observation(seat)))
    return game


# ---------------------------------------------------------------------------
# Our own contest bot behind its HTTP protocol, as an external bot would run.


def loopback_port() -> int:
    """A TCP port free on 127.0.0.1 at the time of asking."""
    return free_port()


@contextmanager
def bot_serve(level: str = "casual", seconds: float = 60) -> Iterator[str]:
    """``twentynine bot-serve --level LEVEL`` as a subprocess on a free loopback port.

    Yields the bot's URL once it answers ``/hi``; the process is stopped on exit.
    """
    import subprocess
    import sys
    import time

    import httpx

    port = loopback_port()
    cmd = [sys.executable, "-m", "twentynine.cli.main", "bot-serve", "--level", level]
    proc = subprocess.Popen(
        [*cmd, "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + seconds
        while True:
            if proc.poll() is not None:
                err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
                raise AssertionError(f"bot-serve stopped with status {proc.returncode}: {err}")
            try:
                if httpx.get(f"{url}/hi", timeout=1, trust_env=False).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, f"bot-serve did not answer within {seconds} s"
            time.sleep(0.1)
        yield url
    finally:
        stop(proc)
        if proc.stderr is not None:
            proc.stderr.close()


def swap_hidden_cards(deal: Deal, seat: int, rng: random.Random) -> list[list[int]] | None:
    """Hands of another deal that ``seat`` cannot tell apart from ``deal``.

    Cards of one suit still held by two other seats are exchanged; both seats
    hold that suit, so every play so far stays legal and nothing the seat saw
    changes. Returns None if no such exchange exists.
    """
    others = [s for s in range(4) if s != seat]
    for _ in range(50):
        a, b = rng.sample(others, 2)
        suit = rng.randrange(4)
        ca = cards_of(deal.held[a] & SUIT_MASK[suit])
        cb = cards_of(deal.held[b] & SUIT_MASK[suit])
        if not ca or not cb:
            continue
        x, y = rng.choice(ca), rng.choice(cb)
        hands = [list(h) for h in deal.hands]
        ia, ib = hands[a].index(x), hands[b].index(y)
        # Keep the batches: the exchanged cards must both be from the second batch
        # or both from the first, so that the auction saw the same hands.
        if (ia < 4) != (ib < 4):
            continue
        hands[a][ia], hands[b][ib] = y, x
        return hands
    return None
