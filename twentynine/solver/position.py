"""A play-phase position as the solver sees it, and the rules of play in plain Python.

The search kernel carries its own copy of these rules, written for speed and for
numba; this module is the readable version. It checks every position before a
search starts (a solver fed an impossible position answers nonsense silently),
gives the legal moves of the seat to move, and is what the brute-force reference
in ``brute.py`` is built on, so the kernel is tested against an independent text.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from functools import total_ordering
from typing import Literal, NamedTuple

from twentynine.game.cards import (
    FULL_DECK,
    KING,
    NUM_CARDS,
    POINTS,
    QUEEN,
    SUIT_MASK,
    SUITS,
    TOTAL_POINTS,
    card,
    card_text,
    cards_of,
    mask_points,
    suit_of,
)

SEATS = 4
TEAMS = 2
CARDS_PER_HAND = 8
TRICKS_PER_DEAL = 8
CARDS_PER_TRICK = 4
# The bonus for the eighth trick when the last-trick point is played.
LAST_TRICK_POINT = 1
# Seat steps round the table: clockwise play goes to (s + 1) % 4, anticlockwise to (s + 3) % 4.
CLOCKWISE_STEP = 1
ANTICLOCKWISE_STEP = 3

RevealMode = Literal["auto", "ask"]
UnrevealedRule = Literal["score", "cancel"]


def team_of(seat: int) -> int:
    """Partners sit opposite, so a seat's team is its parity."""
    return seat & 1


def suit_cards(mask: int, suit: int) -> int:
    return mask & SUIT_MASK[suit]


def pair_mask(trump: int) -> int:
    """The King and Queen of trumps: holding both is the pair."""
    return (1 << card(trump, KING)) | (1 << card(trump, QUEEN))


def beats(new: int, best: int, trump: int | None, trumps_active: bool) -> bool:
    """Whether ``new``, played after ``best`` (the card winning so far), takes the trick.

    A higher card of the same suit wins; a card of another suit wins only as an
    active trump over a non-trump. Applied card by card from the lead this gives
    the highest active trump if there is one, else the highest card of the suit led.
    """
    if suit_of(new) == suit_of(best):
        return new > best
    return trumps_active and trump is not None and suit_of(new) == trump


def winning_index(trick: tuple[int, ...], trump: int | None, trumps_active: bool) -> int:
    """Index in ``trick`` (0 = the lead) of the card that wins it so far."""
    best = 0
    for i in range(1, len(trick)):
        if beats(trick[i], trick[best], trump, trumps_active):
            best = i
    return best


def ask_obligation(hand: int, trick: tuple[int, ...], trump: int, partner_wins: bool) -> int:
    """Cards a seat may play right after asking for the reveal (``reveal: ask``).

    ``partner_wins`` tells whether the mover's partner wins the trick with trumps
    active. The asker must overtake the best card on the table with a trump if it
    can, else play any trump; any trump will do when the partner already wins with a
    trump; a seat without trumps may play anything.
    """
    trumps = suit_cards(hand, trump)
    if not trumps:
        return hand
    best = trick[winning_index(trick, trump, True)]
    if suit_of(best) != trump:
        return trumps
    if partner_wins:
        return trumps
    higher = trumps & ~((2 << best) - 1)
    return higher or trumps


class Move(NamedTuple):
    """A card to play; ``reveal`` is a request for the trump reveal before it (``ask`` only).

    Under ``reveal: auto`` the reveal is no decision, so a move there never carries
    ``reveal=True`` even when playing it reveals trumps.
    """

    card: int
    reveal: bool = False

    def __str__(self) -> str:
        return ("reveal+" if self.reveal else "") + card_text(self.card)


class Outcome(IntEnum):
    """Result of a deal for the team the solver plays for; larger is better for it."""

    MISSED = -1
    CANCELLED = 0
    REACHED = 1


@total_ordering
@dataclass(frozen=True)
class Value:
    """Exact result for the team the solver plays for.

    ``margin`` is the team's final points minus its effective target (the target in
    force at the end of the deal, after any pair), so ``margin >= 0`` means the
    target is reached. ``None`` means the deal is cancelled (trumps never revealed
    under ``unrevealed: cancel``). Values are ordered as the team prefers them: every
    reached result above a cancellation, a cancellation above every miss.
    """

    margin: int | None

    @property
    def cancelled(self) -> bool:
        return self.margin is None

    @property
    def reached(self) -> bool:
        return self.margin is not None and self.margin >= 0

    @property
    def outcome(self) -> Outcome:
        if self.margin is None:
            return Outcome.CANCELLED
        return Outcome.REACHED if self.margin >= 0 else Outcome.MISSED

    @property
    def rank(self) -> int:
        """One integer with the team's order: ``2 * margin``, or -1 for a cancellation."""
        return -1 if self.margin is None else 2 * self.margin

    @classmethod
    def from_rank(cls, rank: int) -> Value:
        return cls(None) if rank == -1 else cls(rank // 2)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Value):
            return NotImplemented
        return self.rank < other.rank

    def __str__(self) -> str:
        return "cancelled" if self.margin is None else f"{self.margin:+d}"


@dataclass(frozen=True)
class Goal:
    """What the solver plays for: ``team`` wants at least its effective target.

    ``target`` applies while no pair is declared; ``target_own_pair`` once ``team``
    has declared the pair and ``target_their_pair`` once the other team has. The
    caller computes them from its rules (floors and caps included); one is only
    needed when that pair can happen in the position. For the defenders of a
    contract, the target is the points that beat it, e.g. ``29 - bid`` without the
    last-trick point.
    """

    team: int
    target: int
    target_own_pair: int | None = None
    target_their_pair: int | None = None

    def __post_init__(self) -> None:
        if self.team not in (0, 1):
            raise ValueError(f"goal team must be 0 or 1, not {self.team!r}")
        for name in ("target", "target_own_pair", "target_their_pair"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
                raise ValueError(f"goal {name} must be an integer, not {value!r}")

    def effective(self, pair_team: int | None) -> int:
        """The target in force once ``pair_team`` (or nobody) has declared the pair."""
        if pair_team is None:
            return self.target
        chosen = self.target_own_pair if pair_team == self.team else self.target_their_pair
        if chosen is None:
            who = "own" if pair_team == self.team else "their"
            raise ValueError(
                f"the pair may be declared by team {pair_team}: give target_{who}_pair"
            )
        return chosen


@dataclass(frozen=True)
class Position:
    """Everything the play of the rest of a deal depends on, all hands known.

    - ``hands``: the cards each seat still holds, as masks.
    - ``leader``: the seat that led the trick in progress (or leads the next one);
      ``trick`` holds the cards already played to it, in order from the leader.
    - ``points``: card points already won by team 0 (seats 0, 2) and team 1.
    - ``tricks_played``: finished tricks, 0..8.
    - ``trump``: the trump suit, ``None`` when there are no trumps (e.g. single hand).
      ``revealed`` tells whether trumps are active; while hidden, ``reveal`` says how
      the reveal comes (``auto`` or ``ask``). ``asked`` is set when the seat to move
      has just asked for the reveal and must now play by the ask rule.
    - ``unrevealed``: ``cancel`` voids a deal whose trumps were never revealed.
    - ``pair_pending``: the pair rule is on and nobody has declared the pair yet;
      ``pair_team``: the team that has declared it, if any. A pair window open at
      this very position (a trick just won) is the caller's to settle: declaring is
      always worth it, so pass the position after the declaration.
    - ``clockwise``: the direction of play.
    """

    hands: tuple[int, int, int, int]
    leader: int
    trick: tuple[int, ...] = ()
    points: tuple[int, int] = (0, 0)
    tricks_played: int = 0
    trump: int | None = None
    revealed: bool = False
    reveal: RevealMode = "auto"
    asked: bool = False
    unrevealed: UnrevealedRule = "score"
    last_trick_point: bool = False
    pair_pending: bool = False
    pair_team: int | None = None
    clockwise: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "hands", tuple(self.hands))
        object.__setattr__(self, "trick", tuple(self.trick))
        object.__setattr__(self, "points", tuple(self.points))
        _validate(self)

    # -- derived facts -------------------------------------------------------------

    @property
    def step(self) -> int:
        return CLOCKWISE_STEP if self.clockwise else ANTICLOCKWISE_STEP

    def seat_at(self, index: int) -> int:
        """The seat that plays the ``index``-th card of the trick in progress."""
        return (self.leader + index * self.step) % SEATS

    @property
    def to_move(self) -> int:
        return self.seat_at(len(self.trick))

    @property
    def is_over(self) -> bool:
        return self.tricks_played == TRICKS_PER_DEAL

    @property
    def remaining_points(self) -> int:
        """Points not yet won by anyone, the last-trick point included while it is due."""
        pending = LAST_TRICK_POINT if self.last_trick_point and not self.is_over else 0
        table = sum(POINTS[c] for c in self.trick)
        return sum(mask_points(h) for h in self.hands) + table + pending

    @property
    def cancellable(self) -> bool:
        """Whether the deal can still end void: hidden trumps under ``unrevealed: cancel``."""
        return self.unrevealed == "cancel" and self.trump is not None and not self.revealed

    @property
    def pair_holder(self) -> int | None:
        """The seat that can still declare the pair, if any."""
        if not self.pair_pending or self.trump is None:
            return None
        kq = pair_mask(self.trump)
        for seat in range(SEATS):
            if self.hands[seat] & kq == kq:
                return seat
        return None

    @property
    def reveals_now(self) -> bool:
        """Whether the seat to move triggers the automatic reveal (``reveal: auto``)."""
        if not self.trick or self.revealed or self.trump is None or self.reveal != "auto":
            return False
        return not suit_cards(self.hands[self.to_move], suit_of(self.trick[0]))

    # -- rules -----------------------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        """Moves of the seat to move, cards in ascending order, discards before asks."""
        if self.is_over:
            return []
        seat = self.to_move
        hand = self.hands[seat]
        if not self.trick:
            return [Move(c) for c in cards_of(hand)]
        if self.asked:
            return [Move(c) for c in cards_of(self._obligation(hand, seat))]
        follow = suit_cards(hand, suit_of(self.trick[0]))
        if follow:
            return [Move(c) for c in cards_of(follow)]
        if self.revealed or self.trump is None or self.reveal == "auto":
            return [Move(c) for c in cards_of(hand)]
        discards = [Move(c) for c in cards_of(hand)]
        return discards + [Move(c, True) for c in cards_of(self._obligation(hand, seat))]

    def _obligation(self, hand: int, seat: int) -> int:
        assert self.trump is not None
        best = winning_index(self.trick, self.trump, True)
        partner_wins = team_of(self.seat_at(best)) == team_of(seat)
        return ask_obligation(hand, self.trick, self.trump, partner_wins)

    def play(self, move: Move | int) -> Position:
        """The position after ``move`` (a card alone means no reveal request)."""
        if isinstance(move, int):
            move = Move(move)
        if move not in self.legal_moves():
            raise ValueError(f"{move} is not a legal move for seat {self.to_move}")
        return self.advance(move)

    def advance(self, move: Move) -> Position:
        """``play`` without the legality check, for searches that only try legal moves.

        A legal move from a valid position gives a valid position, so the successor
        skips validation: the brute force calls this millions of times.
        """
        seat = self.to_move
        hands = list(self.hands)
        hands[seat] &= ~(1 << move.card)
        revealed = self.revealed or move.reveal or self.reveals_now
        trick = (*self.trick, move.card)
        if len(trick) < CARDS_PER_TRICK:
            return self._successor(
                hands=(hands[0], hands[1], hands[2], hands[3]),
                trick=trick,
                revealed=revealed,
                asked=False,
            )
        winner = self.seat_at(winning_index(trick, self.trump, revealed))
        tricks_played = self.tricks_played + 1
        gained = sum(POINTS[c] for c in trick)
        if self.last_trick_point and tricks_played == TRICKS_PER_DEAL:
            gained += LAST_TRICK_POINT
        points = list(self.points)
        points[team_of(winner)] += gained
        pair_pending, pair_team = self.pair_pending, self.pair_team
        if pair_pending and revealed and self.trump is not None:
            kq = pair_mask(self.trump)
            for holder in range(SEATS):
                if hands[holder] & kq == kq and team_of(holder) == team_of(winner):
                    pair_pending, pair_team = False, team_of(winner)
        return self._successor(
            hands=(hands[0], hands[1], hands[2], hands[3]),
            leader=winner,
            trick=(),
            points=(points[0], points[1]),
            tricks_played=tricks_played,
            revealed=revealed,
            asked=False,
            pair_pending=pair_pending,
            pair_team=pair_team,
        )

    def _successor(self, **changes: object) -> Position:
        new = object.__new__(Position)
        new.__dict__.update(self.__dict__)
        new.__dict__.update(changes)
        return new

    def final_value(self, goal: Goal) -> Value:
        """The result of a finished deal for ``goal.team``."""
        if not self.is_over:
            raise ValueError("the deal is not over")
        if self.cancellable:
            return Value(None)
        return Value(self.points[goal.team] - goal.effective(self.pair_team))


def _validate(pos: Position) -> None:
    """Refuse positions that no deal can reach: the search would silently mislead."""
    if len(pos.hands) != SEATS:
        raise ValueError(f"need {SEATS} hands, got {len(pos.hands)}")
    for seat, hand in enumerate(pos.hands):
        if not isinstance(hand, int) or isinstance(hand, bool) or not 0 <= hand <= FULL_DECK:
            raise ValueError(f"hand of seat {seat} must be a 32-bit card mask, not {hand!r}")
    for a in range(SEATS):
        for b in range(a + 1, SEATS):
            common = pos.hands[a] & pos.hands[b]
            if common:
                shared = " ".join(card_text(c) for c in cards_of(common))
                raise ValueError(f"seats {a} and {b} both hold {shared}")
    if pos.leader not in range(SEATS):
        raise ValueError(f"leader must be a seat 0..3, not {pos.leader!r}")
    if len(pos.trick) >= CARDS_PER_TRICK:
        raise ValueError(f"a trick in progress has at most 3 cards, got {len(pos.trick)}")
    held = pos.hands[0] | pos.hands[1] | pos.hands[2] | pos.hands[3]
    seen = 0
    for c in pos.trick:
        if not isinstance(c, int) or not 0 <= c < NUM_CARDS:
            raise ValueError(f"trick card {c!r} is not a card 0..31")
        if (seen | held) >> c & 1:
            raise ValueError(f"{card_text(c)} is both on the table and elsewhere")
        seen |= 1 << c
    if not isinstance(pos.tricks_played, int) or not 0 <= pos.tricks_played <= TRICKS_PER_DEAL:
        raise ValueError(f"tricks_played must be 0..8, not {pos.tricks_played!r}")
    if pos.tricks_played == TRICKS_PER_DEAL and pos.trick:
        raise ValueError("no trick can be in progress after the eighth")
    left = CARDS_PER_HAND - pos.tricks_played
    for index in range(CARDS_PER_TRICK):
        seat = pos.seat_at(index)
        want = left - 1 if index < len(pos.trick) else left
        have = pos.hands[seat].bit_count()
        if have != want:
            raise ValueError(
                f"seat {seat} holds {have} cards; after {pos.tricks_played} tricks"
                f" and {len(pos.trick)} cards of this one it must hold {want}"
            )
    if len(pos.points) != TEAMS or any(
        not isinstance(p, int) or isinstance(p, bool) or p < 0 for p in pos.points
    ):
        raise ValueError(f"points must be two non-negative integers, not {pos.points!r}")
    in_play = sum(mask_points(h) for h in pos.hands) + sum(POINTS[c] for c in pos.trick)
    bonus = LAST_TRICK_POINT if pos.last_trick_point and pos.is_over else 0
    if pos.points[0] + pos.points[1] + in_play != TOTAL_POINTS + bonus:
        raise ValueError(
            f"points won {pos.points} and {in_play} points in play"
            f" do not add up to {TOTAL_POINTS + bonus}"
        )
    if pos.trump is not None and pos.trump not in range(len(SUITS)):
        raise ValueError(f"trump must be a suit 0..3 or None, not {pos.trump!r}")
    if pos.reveal not in ("auto", "ask"):
        raise ValueError(f"reveal must be 'auto' or 'ask', not {pos.reveal!r}")
    if pos.unrevealed not in ("score", "cancel"):
        raise ValueError(f"unrevealed must be 'score' or 'cancel', not {pos.unrevealed!r}")
    if pos.trump is None and pos.revealed:
        raise ValueError("trumps cannot be revealed without a trump suit")
    if pos.trump is None and pos.unrevealed == "cancel":
        raise ValueError("without trumps nothing can be revealed: use unrevealed='score'")
    if pos.pair_team is not None and pos.pair_team not in (0, 1):
        raise ValueError(f"pair_team must be 0, 1 or None, not {pos.pair_team!r}")
    if pos.pair_team is not None and pos.pair_pending:
        raise ValueError("the pair cannot be both declared and pending")
    if pos.pair_team is not None and not pos.revealed:
        raise ValueError("the pair is declared only after the reveal")
    if not pos.revealed and pos.reveal == "auto" and pos.trick:
        led = suit_of(pos.trick[0])
        if any(suit_of(c) != led for c in pos.trick):
            raise ValueError(
                "a card off the suit led under reveal 'auto' means trumps are revealed"
            )
    if pos.asked:
        if pos.reveal != "ask" or not pos.revealed or not pos.trick:
            raise ValueError("'asked' needs reveal 'ask', revealed trumps and a trick in progress")
        if suit_cards(pos.hands[pos.to_move], suit_of(pos.trick[0])):
            raise ValueError("a seat that can follow suit cannot have asked for the reveal")
