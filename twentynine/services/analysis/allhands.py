"""Values with every hand known: what each decision of a finished deal was worth
under best play by everyone from there on (double dummy).

Two games are solved. The *points game* is the one the record's JSON reports:
the bidding team's final card points when both sides play for card points (the
bidding team maximising, the defenders minimising), the last-trick point
included where the rules have it; a pair or a cancellation changes no card
point, so the points game ignores them. The *contract game* is what scores: did
the contract make, fail, or (trumps never revealed under ``unrevealed: cancel``)
get cancelled, with the pair rules in force. The two can disagree: the line
that takes most points is not always the one that is surest to make.

Only the deal's own state goes in (the engine's ``Deal``, every hand known): this
is the analysis of a finished deal, where nothing is hidden any more. What a
seat could know at the time is ``seatview``'s business.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...game.actions import PAIR, PASS, PLAY, REVEAL, SEVENTH, TRUMP, Action
from ...game.cards import SUITS, card_text
from ...game.contract import lowered_target, raised_target
from ...game.engine import (
    PAIR_WINDOW,
    PLAYING,
    SEVENTH_CARD_INDEX,
    TRUMP_CHOICE,
    Deal,
    partner_of,
)
from ...solver import Goal, Move, Outcome, Position, Solver
from ...solver.single import SinglePosition, SingleSolver

MADE = "made"
FAILED = "failed"
CANCELLED = "cancelled"
OUTCOME_NAMES = {Outcome.REACHED: MADE, Outcome.CANCELLED: CANCELLED, Outcome.MISSED: FAILED}
# How the bidding team ranks results (the defenders the other way round).
OUTCOME_RANK = {MADE: 1, CANCELLED: 0, FAILED: -1}


def outcome_rank(outcome: str, for_bidders: bool) -> int:
    """A result as one team prefers it: larger is better for that team."""
    r = OUTCOME_RANK[outcome]
    return r if for_bidders else -r


@dataclass(frozen=True)
class DDChoice:
    """One legal choice of a decision and what it leads to with every hand known.

    ``label`` is the choice as an action object without its seat (``{"play": "JS"}``,
    ``{"play": "7C", "reveal": true}`` for a card played after asking for the reveal,
    ``{"pair": true}``, ``{"trump": "H"}``...). ``points``: the bidding team's final
    card points after it in the points game; ``outcome``: the contract's result
    after it in the contract game.
    """

    label: dict[str, Any]
    points: int
    outcome: str

    def to_json(self) -> dict[str, Any]:
        return {**self.label, "points": self.points, "outcome": self.outcome}


@dataclass(frozen=True)
class DDDecision:
    """A decision valued with every hand known: its choices, and which were taken.

    ``chosen`` indexes the choices the record's action stands for: one card, or
    for a reveal request every card the seat might play after asking (it then
    plays the best of them, and the next action is valued on its own).
    """

    bidders: bool  # the seat deciding belongs to the bidding team
    choices: tuple[DDChoice, ...]
    chosen: tuple[int, ...]

    def _best_points(self, indexes: tuple[int, ...] | range) -> int:
        values = [self.choices[i].points for i in indexes]
        return max(values) if self.bidders else min(values)

    def _best_outcome(self, indexes: tuple[int, ...] | range) -> str:
        return max(
            (self.choices[i].outcome for i in indexes),
            key=lambda o: outcome_rank(o, self.bidders),
        )

    @property
    def points_after(self) -> int:
        return self._best_points(self.chosen)

    @property
    def best_points(self) -> int:
        return self._best_points(range(len(self.choices)))

    @property
    def cost_points(self) -> int:
        """Card points the seat's team lost by this choice (0: it was a best one)."""
        return abs(self.best_points - self.points_after)

    @property
    def outcome_after(self) -> str:
        return self._best_outcome(self.chosen)

    @property
    def best_outcome(self) -> str:
        return self._best_outcome(range(len(self.choices)))

    @property
    def outcome_lost(self) -> bool:
        """The choice turned a result the seat's team could force into a worse one."""
        return self.outcome_after != self.best_outcome

    @property
    def best_labels(self) -> list[dict[str, Any]]:
        """The choices that keep both the best points and the best result."""
        best_p, best_o = self.best_points, self.best_outcome
        return [c.label for c in self.choices if c.points == best_p and c.outcome == best_o]

    def to_json(self) -> dict[str, Any]:
        return {
            "dd_points_after": self.points_after,
            "dd_best_points": self.best_points,
            "dd_cost_points": self.cost_points,
            "dd_outcome_after": self.outcome_after,
            "dd_best_outcome": self.best_outcome,
            "dd_outcome_lost": self.outcome_lost,
            "dd_best": self.best_labels,
            "dd_choices": [c.to_json() for c in self.choices],
        }


# ---------------------------------------------------------------------- positions


def bidding_team(deal: Deal) -> int:
    """The team whose card points the values count: the bidder's, or the single
    hand's declarer's."""
    return (deal.single if deal.single >= 0 else deal.bidder) & 1


def play_position(deal: Deal, for_points: bool, declare_pair: bool = False) -> Position:
    """The solver's position for the deal as it stands in the play.

    ``for_points``: the points game (no pair, no cancellation). ``declare_pair``:
    at an open pair window, the position once the holder has declared.
    """
    rules = deal.rules
    pair_team: int | None = deal.pair_seat & 1 if deal.pair_seat >= 0 else None
    pending = rules.pair != "off" and deal.pair_seat < 0
    if declare_pair and deal.phase == PAIR_WINDOW:
        pair_team, pending = deal.to_act & 1, False
    if for_points:
        pair_team, pending = None, False
    return Position(
        hands=(deal.held[0], deal.held[1], deal.held[2], deal.held[3]),
        leader=deal.leader,
        trick=tuple(deal.trick_cards),
        points=(deal.points[0], deal.points[1]),
        tricks_played=len(deal.tricks),
        trump=deal.trump,
        revealed=deal.revealed_in_trick > 0,
        reveal=rules.reveal,  # type: ignore[arg-type]
        asked=deal.asked >= 0 and deal.asked == deal.to_act,
        unrevealed="score" if for_points else rules.unrevealed,  # type: ignore[arg-type]
        last_trick_point=rules.last_trick_point,
        pair_pending=pending,
        pair_team=pair_team,
        clockwise=rules.clockwise,
    )


def start_position(deal: Deal, trump: int, for_points: bool) -> Position:
    """The position at the first lead of ``deal`` (as dealt) with ``trump`` as trumps."""
    rules = deal.rules
    hands = [0, 0, 0, 0]
    for seat, cards in enumerate(deal.hands):
        for c in cards:
            hands[seat] |= 1 << c
    return Position(
        hands=(hands[0], hands[1], hands[2], hands[3]),
        leader=rules.next_seat(deal.dealer),
        trump=trump,
        reveal=rules.reveal,  # type: ignore[arg-type]
        unrevealed="score" if for_points else rules.unrevealed,  # type: ignore[arg-type]
        last_trick_point=rules.last_trick_point,
        pair_pending=not for_points and rules.pair != "off",
        clockwise=rules.clockwise,
    )


def contract_goal(deal: Deal) -> Goal:
    """What the bidding team plays for (its targets with and without a pair)."""
    team = deal.bidder & 1
    if deal.pair_seat >= 0:
        return Goal(team, deal.target, deal.target, deal.target)
    rules = deal.rules
    return Goal(team, deal.target, lowered_target(rules, deal.bid), raised_target(rules, deal.bid))


def single_position(deal: Deal) -> SinglePosition:
    """The single hand as it stands: the three hands in playing order from the declarer."""
    declarer = deal.single
    first = deal.rules.next_seat(declarer)
    second = deal.rules.next_seat(first)
    if second == partner_of(declarer):
        second = deal.rules.next_seat(second)
    order = (declarer, first, second)
    trick = tuple(deal.trick_cards)
    if deal.trick_seats and deal.trick_seats[0] != declarer:  # the declarer always leads
        raise ValueError("a single hand's trick must be led by the declarer")
    return SinglePosition(
        hands=(deal.held[order[0]], deal.held[order[1]], deal.held[order[2]]),
        trick=trick,
        tricks_played=len(deal.tricks),
    )


def plain(pos: Position) -> bool:
    """Whether the contract game is the points game with a target here: no deal can
    end void any more and no pair can be declared. Its result then follows from the
    card points, and needs no search of its own."""
    return not pos.cancellable and pos.pair_holder is None


def _reached(points: int, target: int) -> Outcome:
    return Outcome.REACHED if points >= target else Outcome.MISSED


# ---------------------------------------------------------------------- the values


@dataclass
class AllHands:
    """Values with every hand known, for the decisions of one deal.

    One per deal: the solver's transposition table is shared between the
    decisions (a card's successor is the next card's position), and so is the
    single-hand search's memory.
    """

    deal: Deal  # the deal as dealt (its hands and rules); not changed here
    solver: Solver
    _single: SingleSolver | None = field(default=None, repr=False)
    _start: dict[int, tuple[int, int]] = field(default_factory=dict, repr=False)
    # the points after the decision valued last: the likely value of the next one
    _last: int | None = field(default=None, repr=False)

    def start_points(self, suit: int) -> tuple[int, int]:
        """Both teams' card points with ``suit`` as trumps, from the first lead."""
        found = self._start.get(suit)
        if found is None:
            zero = self.solver.exact(start_position(self.deal, suit, True), Goal(0, 0)).margin
            assert zero is not None
            found = (zero, self.deal.rules.total_points - zero)
            self._start[suit] = found
        return found

    def decision(self, state: Deal, action: Action) -> DDDecision | None:
        """The value of ``action`` taken in ``state`` (the deal just before it), or
        None for a decision the solver has no say in (the auction, doubling, single)."""
        if state.bidder < 0 or state.to_act < 0:
            return None
        if state.phase == TRUMP_CHOICE:
            return self.trump_choice(state, action)
        if state.single >= 0:
            return self.single_play(state, action) if state.phase == PLAYING else None
        if state.phase == PLAYING and action.kind in (PLAY, REVEAL):
            return self.card(state, action)
        if state.phase == PAIR_WINDOW and action.kind in (PAIR, PASS):
            return self.pair(state, action)
        return None

    def card(self, state: Deal, action: Action) -> DDDecision:
        team = bidding_team(state)
        points = self.solver.moves_exact(play_position(state, True), Goal(team, 0), self._last)
        contract, goal = play_position(state, False), contract_goal(state)
        if plain(contract):
            target = goal.effective(contract.pair_team)
            outcomes = {m: _reached(v.margin or 0, target) for m, v in points.items()}
        else:
            outcomes = self.solver.moves_outcome(contract, goal)
        choices: list[DDChoice] = []
        chosen: list[int] = []
        for move, value in points.items():
            label: dict[str, Any] = {PLAY: card_text(move.card)}
            if move.reveal:
                label[REVEAL] = True
            assert value.margin is not None  # the points game is never cancelled
            if (action.kind == PLAY and move == Move(action.value or 0)) or (
                action.kind == REVEAL and move.reveal
            ):
                chosen.append(len(choices))
            choices.append(DDChoice(label, value.margin, OUTCOME_NAMES[outcomes[move]]))
        if not chosen:
            raise ValueError(f"{action} is not among the solver's moves")
        decision = DDDecision(state.to_act & 1 == team, tuple(choices), tuple(chosen))
        self._last = decision.points_after
        if not state.tricks and not state.trick_cards and state.trump not in self._start:
            # the first lead: its best is what this trump is worth from the start
            best = decision.best_points
            total = state.rules.total_points
            self._start[state.trump] = (best, total - best) if team == 0 else (total - best, best)
        return decision

    def pair(self, state: Deal, action: Action) -> DDDecision:
        team = bidding_team(state)
        points = self.solver.exact(play_position(state, True), Goal(team, 0)).margin
        assert points is not None
        goal = contract_goal(state)
        declared = self.solver.outcome(play_position(state, False, declare_pair=True), goal)
        passed = self.solver.outcome(play_position(state, False), goal)
        choices = (
            DDChoice({PAIR: True}, points, OUTCOME_NAMES[declared]),
            DDChoice({PASS: True}, points, OUTCOME_NAMES[passed]),
        )
        return DDDecision(state.to_act & 1 == team, choices, (0 if action.kind == PAIR else 1,))

    def trump_choice(self, state: Deal, action: Action) -> DDDecision:
        """Each trump the bidder could have named, played out from the first lead."""
        team = state.bidder & 1
        goal = contract_goal(state)
        choices: list[DDChoice] = []
        for suit in range(4):
            pts = self.start_points(suit)[team]
            start = start_position(state, suit, False)
            if plain(start):
                res = _reached(pts, goal.target)
            else:
                res = self.solver.outcome(start, goal)
            choices.append(DDChoice({TRUMP: SUITS[suit]}, pts, OUTCOME_NAMES[res]))
        if action.kind == SEVENTH:
            suit = state.hands[state.bidder][SEVENTH_CARD_INDEX] >> 3
            seventh = choices[suit]
            choices.append(DDChoice({SEVENTH: True}, seventh.points, seventh.outcome))
            chosen = len(choices) - 1
        else:
            chosen = action.value or 0
        self._last = choices[chosen].points
        return DDDecision(True, tuple(choices), (chosen,))

    def single_play(self, state: Deal, action: Action) -> DDDecision:
        if self._single is None:
            self._single = SingleSolver(state.rules.last_trick_point)
        pos = single_position(state)
        team = state.single & 1
        already = state.points[team]
        points = self._single.move_points(pos)
        sweeps = self._single.move_sweeps(pos)
        choices: list[DDChoice] = []
        chosen = -1
        for c in pos.legal_cards():
            if c == action.value:
                chosen = len(choices)
            outcome = MADE if sweeps[c] else FAILED
            choices.append(DDChoice({PLAY: card_text(c)}, already + points[c], outcome))
        return DDDecision(state.to_act == state.single, tuple(choices), (chosen,))

    def par(self) -> dict[str, Any]:
        """With every hand known, each team's card points as bidder with each trump
        (played out from the first lead, both sides playing for points; no pair)."""
        rules = self.deal.rules
        points = [self.start_points(suit) for suit in range(4)]
        teams = []
        for team in (0, 1):
            suit = max(range(4), key=lambda s: (points[s][team], -s))
            best = points[suit][team]
            teams.append(
                {
                    "team": team,
                    "best_trump": SUITS[suit],
                    "points": best,
                    "highest_bid": min(best, rules.max_bid) if best >= rules.min_bid else None,
                }
            )
        return {
            "by_trump": [{"trump": SUITS[suit], "points": list(points[suit])} for suit in range(4)],
            "teams": teams,
        }
