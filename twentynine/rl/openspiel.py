"""29 as an OpenSpiel game: ``pyspiel.load_game("python_twentynine")``.

One deal of any profile, with every option: 32 chance nodes deal the cards
one at a time in the engine's dealing order (the first batch, then the
second), then the four players act through the engine. A player's
information state shows only what ``observe`` shows that seat, plus the
four cards it held during the auction (its own first batch), so the
strings and tensors keep perfect recall without leaking. Returns are the
game points the deal moves: per team (``returns=points``, general-sum, as
the rules score it) or own team minus the other (``returns=difference``,
zero-sum).

Parameters: ``profile`` (default ``pagat``), ``options`` (``"k:v;k:v"``,
the option overrides of ``twentynine rules``; ``k=v,k=v`` is read too), ``dealer`` (0..3),
``returns`` (``points`` or ``difference``).

``resample_from_infostate`` gives a full state the player cannot tell from
the real one (hidden cards, and a hidden trump), which OpenSpiel's ISMCTS
bot needs; it samples a world consistent with the voids shown and replays
the history on it through the engine, keeping only worlds whose
information state string is identical.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyspiel

from ..bots.knowledge import analyse
from ..bots.sampling import Impossible, deal_world
from ..game.cards import KING, QUEEN, SUITS, card_text, cards_of
from ..game.dealing import FIRST_BATCH, HAND_SIZE
from ..game.engine import OVER, PAIR_WINDOW, TRUMP_CHOICE, Deal, IllegalAction
from ..game.observation import Observation, observe_deal
from ..game.rules import Rules, RulesError, format_value, parse_assignments, resolve
from .encoding import (
    NUM_ACTIONS,
    OFFSETS,
    PASS_ID,
    SLICES,
    TENSOR_SIZE,
    TRUMP_BASE,
    Encoder,
    action_id,
    action_name,
    max_stake,
    to_action,
)

SHORT_NAME = "python_twentynine"
DEFAULTS: dict[str, Any] = {
    "profile": "pagat",
    "options": "",
    "dealer": 0,
    "returns": "points",
}
RETURNS = ("points", "difference")
CARDS = 32
RESAMPLE_TRIES = 2000

# The observation tensor (no perfect recall) keeps the slices that describe
# the table as it is now; the history slices stay in the information state.
HISTORY_SLICES = ("first_batch", "played_in", "trick_winner", "bids")
OBSERVATION_SLICES = tuple(name for name, _, _ in SLICES if name not in HISTORY_SLICES)
_OBS_INDEX = np.concatenate(
    [np.arange(OFFSETS[n][0], OFFSETS[n][0] + OFFSETS[n][1]) for n in OBSERVATION_SLICES]
)
OBSERVATION_SIZE = len(_OBS_INDEX)


def _game_type(utility: pyspiel.GameType.Utility) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=SHORT_NAME,
        long_name="Python Twenty-Nine (29)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=4,
        min_num_players=4,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(DEFAULTS),
    )


def max_decisions(rules: Rules) -> int:
    """An upper bound on the decisions of one deal (OpenSpiel's max_game_length)."""
    bids = rules.max_bid - rules.min_bid + 1
    auction = 4 + 3 * bids + 3  # opening passes, each bid and its passes, the last passes
    return auction + 1 + 4 + 3 + CARDS + 1 + 8  # trump, single, doubling, plays, ask, pairs


def options_text(rules: Rules) -> str:
    """The ``options`` parameter that gives ``rules`` over its profile, in the form that
    survives OpenSpiel's game strings (``k:v;k:v``: its parser owns ``,`` and ``=``)."""
    return ";".join(f"{k}:{format_value(v)}" for k, v in rules.overrides().items())


def rules_from_params(params: dict[str, Any]) -> Rules:
    """Rules from ``profile`` and ``options`` (``k:v`` or ``k=v``, by ``;`` or ``,``)."""
    text = str(params.get("options", ""))
    items = [x.replace(":", "=", 1) for x in text.replace(",", ";").split(";") if x.strip()]
    return resolve(str(params.get("profile", "pagat")), parse_assignments(items))


class _Shared:
    """What every state of one game shares; copying a state never copies it."""

    def __init__(self, rules: Rules, dealer: int, zero_sum: bool) -> None:
        self.rules = rules
        self.dealer = dealer
        self.zero_sum = zero_sum
        self.encoder = Encoder(rules)
        order = []
        seat = dealer
        for _ in range(4):
            seat = rules.next_seat(seat)
            order.append(seat)
        self.order = tuple(order)  # who receives the k-th card of each round

    def __deepcopy__(self, memo: dict[int, Any]) -> _Shared:
        return self


class TwentyNineGame(pyspiel.Game):
    """One deal of 29 under the rules named by the parameters."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        merged = {**DEFAULTS, **(params or {})}
        try:
            rules = rules_from_params(merged)
        except RulesError as e:
            raise ValueError(f"{SHORT_NAME}: {e}") from None
        dealer = merged["dealer"]
        if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer <= 3:
            raise ValueError(f"{SHORT_NAME}: dealer must be a seat 0..3, not {dealer!r}")
        if merged["returns"] not in RETURNS:
            raise ValueError(
                f"{SHORT_NAME}: returns must be 'points' or 'difference', not {merged['returns']!r}"
            )
        zero_sum = merged["returns"] == "difference"
        merged["profile"] = rules.profile
        merged["options"] = options_text(rules)
        stake = float(max_stake(rules))
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=CARDS,
            num_players=4,
            # Only the bidding (or single-hand) team's score moves, so even the
            # difference of the two teams stays within one stake.
            min_utility=-stake,
            max_utility=stake,
            utility_sum=0.0 if zero_sum else None,
            max_game_length=max_decisions(rules),
        )
        utility = (
            pyspiel.GameType.Utility.ZERO_SUM if zero_sum else pyspiel.GameType.Utility.GENERAL_SUM
        )
        super().__init__(_game_type(utility), info, merged)
        self.shared = _Shared(rules, dealer, zero_sum)

    @property
    def rules(self) -> Rules:
        return self.shared.rules

    def new_initial_state(self) -> TwentyNineState:
        return TwentyNineState(self)

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: Any = None
    ) -> TwentyNineObserver:
        perfect_recall = iig_obs_type is None or iig_obs_type.perfect_recall
        return TwentyNineObserver(perfect_recall, params)


class _Core:
    """The mutable part of a state, copied by hand (OpenSpiel deep-copies on clone)."""

    __slots__ = ("cards", "deal", "history", "pair_passes")

    def __init__(self) -> None:
        self.cards: list[int] = []  # chance outcomes so far, in dealing order
        self.deal: Deal | None = None
        self.history: list[tuple[int, int, str]] = []  # (seat, action id, phase before)
        self.pair_passes: list[tuple[int, int]] = []  # (seat, tricks done): private passes

    def __deepcopy__(self, memo: dict[int, Any]) -> _Core:
        new = _Core()
        new.cards = self.cards[:]
        new.deal = self.deal.clone() if self.deal is not None else None
        new.history = self.history[:]
        new.pair_passes = self.pair_passes[:]
        return new


class TwentyNineState(pyspiel.State):
    """A position of the deal: dealing (chance), deciding, or over."""

    def __init__(self, game: TwentyNineGame) -> None:
        super().__init__(game)
        self.shared = game.shared
        self.core = _Core()

    # ---- the deal as hands ------------------------------------------------
    def _hands(self, cards: Sequence[int]) -> list[list[int]]:
        hands: list[list[int]] = [[], [], [], []]
        order = self.shared.order
        for k, c in enumerate(cards):
            hands[order[k % 4]].append(c)
        return hands

    def _first_batch(self, player: int) -> list[int]:
        core = self.core
        if core.deal is not None:
            return list(core.deal.hands[player][:FIRST_BATCH])
        return self._hands(core.cards[: 4 * FIRST_BATCH])[player]

    # ---- the OpenSpiel API ------------------------------------------------
    def current_player(self) -> int:
        deal = self.core.deal
        if deal is None:
            return int(pyspiel.PlayerId.CHANCE)
        if deal.phase == OVER:
            return int(pyspiel.PlayerId.TERMINAL)
        return deal.to_act

    def is_terminal(self) -> bool:
        deal = self.core.deal
        return deal is not None and deal.phase == OVER

    def _legal_actions(self, player: int) -> list[int]:
        deal = self.core.deal
        if deal is None or deal.phase == OVER or player != deal.to_act:
            return []
        return sorted(action_id(a) for a in deal.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        dealt = set(self.core.cards)
        left = [c for c in range(CARDS) if c not in dealt]
        p = 1.0 / len(left)
        return [(c, p) for c in left]

    def _apply_action(self, action: int) -> None:
        core = self.core
        if core.deal is None:
            if not 0 <= action < CARDS or action in core.cards:
                raise ValueError(f"chance outcome {action} is not a card still in the deck")
            core.cards.append(action)
            if len(core.cards) == CARDS:
                shared = self.shared
                core.deal = Deal(shared.rules, shared.dealer, self._hands(core.cards))
            return
        deal = core.deal
        seat, phase = deal.to_act, deal.phase
        if not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"action {action} is not an action id (0..{NUM_ACTIONS - 1})")
        try:
            deal.apply(to_action(seat, action))
        except IllegalAction as e:
            legal = ", ".join(action_name(a) for a in self._legal_actions(seat))
            raise ValueError(
                f"player {seat} cannot {action_name(action)}: {e}; legal: {legal}"
            ) from None
        core.history.append((seat, action, phase))
        if phase == PAIR_WINDOW and action == PASS_ID:
            core.pair_passes.append((seat, len(deal.tricks)))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {card_text(action)}"
        return action_name(action)

    def returns(self) -> list[float]:
        deal = self.core.deal
        if deal is None or deal.phase != OVER:
            return [0.0, 0.0, 0.0, 0.0]
        d = deal.delta
        if self.shared.zero_sum:
            return [float(d[s & 1] - d[1 - (s & 1)]) for s in range(4)]
        return [float(d[s & 1]) for s in range(4)]

    def __str__(self) -> str:
        core = self.core
        hands = self._hands(core.cards)
        text = " | ".join(" ".join(card_text(c) for c in h) for h in hands)
        if core.deal is None:
            return f"dealing: {text}"
        moves = " ".join(f"{s}:{action_name(a)}" for s, a, _ in core.history)
        return f"{text} || {moves} || {core.deal.phase}"

    # ---- views ------------------------------------------------------------
    def observation_of(self, player: int) -> Observation | None:
        """The engine's view of ``player`` (None while the cards are being dealt)."""
        deal = self.core.deal
        return None if deal is None else observe_deal(deal, player)

    def info_text(self, player: int, perfect_recall: bool = True) -> str:
        first = self._first_batch(player)
        obs = self.observation_of(player)
        if obs is None:
            return f"p{player} dealing; first {_cards(first)}"
        parts = [
            f"p{player} {obs.phase}",
            f"to_act {_seat(obs.to_act)}",
            f"hand {_cards(obs.hand)}",
        ]
        if perfect_recall:
            parts.append(f"first {_cards(first)}")
            parts.append("auction " + " ".join(f"{s}:{b or 'p'}" for s, b in obs.auction))
        elif obs.auction:
            high = max(b for _, b in obs.auction)
            parts.append(f"high {high}" if high else "no bid")
        if obs.bidder is not None:
            parts.append(f"bidder {obs.bidder} bid {obs.bid}{' forced' if obs.forced else ''}")
        if obs.trump is not None:
            parts.append(f"trump {SUITS[obs.trump]}")
        if obs.seventh:
            parts.append("seventh")
        if obs.revealed_in_trick is not None:
            parts.append(f"revealed t{obs.revealed_in_trick} by {obs.revealer}")
        if obs.single is not None:
            parts.append(f"single {obs.single}")
        if obs.doubling > 1:
            parts.append(f"x{obs.doubling} by {obs.doubler}")
        if obs.pair is not None:
            parts.append(f"pair {obs.pair[0]} after t{obs.pair[2]}")
        if obs.target is not None:
            parts.append(f"target {obs.target}")
        if perfect_recall:
            for n, (leader, cards, _seats, winner, _pts) in enumerate(obs.tricks, 1):
                parts.append(f"t{n} {leader}:{_cards(cards)}>{winner}")
            mine = [t for s, t in self.core.pair_passes if s == player]
            if mine:
                parts.append("kept pair quiet after " + ",".join(f"t{t}" for t in mine))
        else:
            for s in range(4):
                played = obs.played_by(s)
                if played:
                    parts.append(f"{s} played {_cards(sorted(played))}")
        if obs.trick:
            parts.append("table " + " ".join(f"{s}:{card_text(c)}" for s, c in obs.trick))
        if obs.asked is not None:
            parts.append(f"asked {obs.asked}")
        parts.append(f"points {obs.points[0]}-{obs.points[1]}")
        if obs.hands is not None:
            parts.append(f"{obs.result} {obs.delta[0]}:{obs.delta[1]}")
            parts.append("hands " + " | ".join(_cards(h) for h in obs.hands))
        return "; ".join(parts)

    def info_tensor(self, player: int) -> np.ndarray:
        obs = self.observation_of(player)
        encoder = self.shared.encoder
        if obs is None:
            x = encoder.base.copy()
            x[OFFSETS["seat"][0] + player] = 1.0
            for c in self._first_batch(player):
                x[OFFSETS["hand"][0] + c] = 1.0
                x[OFFSETS["first_batch"][0] + c] = 1.0
            return x
        return encoder.encode(obs, self._first_batch(player))

    # ---- sampling a world the player cannot tell from this one -------------
    def resample_from_infostate(self, player_id: int, probability_sampler: Any = None) -> Any:
        """A state with the same information state for ``player_id``, hidden parts drawn
        at random (``probability_sampler``, a callable giving floats in [0, 1), seeds it)."""
        seed = int(probability_sampler() * 2**53) if probability_sampler is not None else None
        rng = random.Random(seed)
        want = self.info_text(player_id)
        game = self.get_game()
        for _ in range(RESAMPLE_TRIES):
            world = self._world(player_id, rng)
            if world is None:
                continue
            cards, trump = world
            state = game.new_initial_state()
            if self._replay(state, cards, trump, player_id) and (
                state.info_text(player_id) == want
                and state.current_player() == self.current_player()
            ):
                return state
        raise RuntimeError(
            f"no world consistent with player {player_id}'s information found "
            f"in {RESAMPLE_TRIES} tries"
        )

    def _world(self, player: int, rng: random.Random) -> tuple[list[int], int] | None:
        """Cards in dealing order and the trump choice of a world, or None to try again."""
        core = self.core
        deal = core.deal
        shared = self.shared
        slots = [(shared.order[k % 4], k // 4) for k in range(CARDS)]  # (seat, hand index)
        hands: list[list[int | None]] = [[None] * HAND_SIZE for _ in range(4)]
        if deal is None or not deal.second_batch:
            first = self._first_batch(player)
            hands[player][: len(first)] = first
            pool = [c for c in range(CARDS) if c not in first]
            rng.shuffle(pool)
            for s in range(4):
                for i in range(HAND_SIZE):
                    if hands[s][i] is None:
                        hands[s][i] = pool.pop()
            obs = self.observation_of(player)
            trump = None if obs is None or obs.trump is None else obs.trump
        else:
            obs = observe_deal(deal, player)
            know = analyse(obs)
            trump = obs.trump
            forbid: dict[int, int] = {}
            if obs.pair is not None and trump is not None:
                kq = (1 << (trump * 8 + KING)) | (1 << (trump * 8 + QUEEN))
                kq &= know.out
                forbid = {s: kq for s in range(4) if s not in (player, obs.pair[0])}
            try:
                held = deal_world(know, rng, trump, forbid=forbid)
            except Impossible:
                return None
            hands[player] = list(deal.hands[player])
            for s in range(4):
                if s == player:
                    continue
                own = cards_of(held[s] | know.played_by[s])
                rng.shuffle(own)
                if obs.seventh and s == obs.bidder and trump is not None:
                    trumps = [c for c in own if c >> 3 == trump]
                    if not trumps:
                        return None
                    pick = rng.choice(trumps)
                    own.remove(pick)
                    own.insert(6, pick)
                hands[s] = list(own)
        if trump is None:
            trump = rng.randrange(4)
        cards = [hands[s][i] for s, i in slots]
        if any(c is None for c in cards) or len(set(cards)) != CARDS:
            return None
        return [int(c) for c in cards if c is not None], trump

    def _replay(self, state: TwentyNineState, cards: list[int], trump: int, player: int) -> bool:
        """Apply this state's history to a fresh state dealt ``cards``; False if it breaks."""
        for c in cards[: len(self.core.cards)]:
            state.apply_action(c)
        deal = state.core.deal
        if deal is None:
            return len(self.core.cards) < CARDS
        pass_id = PASS_ID
        try:
            for seat, aid, phase in self.core.history:
                if phase == PAIR_WINDOW and seat != player and aid == pass_id:
                    continue  # another seat's quiet pass: the replay makes its own
                while (
                    deal.phase == PAIR_WINDOW
                    and deal.to_act != player
                    and not (seat == deal.to_act and phase == PAIR_WINDOW)
                ):
                    state.apply_action(pass_id)
                if phase == TRUMP_CHOICE and seat != player and TRUMP_BASE <= aid < TRUMP_BASE + 4:
                    aid = TRUMP_BASE + trump
                state.apply_action(aid)
            while deal.phase == PAIR_WINDOW and deal.to_act != player:
                state.apply_action(pass_id)
        except (ValueError, pyspiel.SpielError):
            return False
        return True


def _cards(cards: Sequence[int]) -> str:
    return " ".join(card_text(c) for c in cards) or "-"


def _seat(seat: int | None) -> str:
    return "-" if seat is None else str(seat)


class TwentyNineObserver:
    """OpenSpiel's observer: the information state (perfect recall) or the table now."""

    def __init__(self, perfect_recall: bool, params: Any) -> None:
        if params:
            raise ValueError(f"{SHORT_NAME}: observation parameters are not supported: {params}")
        self.perfect_recall = perfect_recall
        size = TENSOR_SIZE if perfect_recall else OBSERVATION_SIZE
        self.tensor = np.zeros(size, np.float32)
        self.dict: dict[str, np.ndarray] = {}
        at = 0
        for name, n, _ in SLICES:
            if perfect_recall or name in OBSERVATION_SLICES:
                self.dict[name] = self.tensor[at : at + n]
                at += n

    def set_from(self, state: TwentyNineState, player: int) -> None:
        x = state.info_tensor(player)
        self.tensor[:] = x if self.perfect_recall else x[_OBS_INDEX]

    def string_from(self, state: TwentyNineState, player: int) -> str:
        return state.info_text(player, self.perfect_recall)


def game_of(rules: Rules, dealer: int = 0, returns: str = "points") -> pyspiel.Game:
    """The pyspiel game of ``rules`` (registered under ``python_twentynine``)."""
    params = {
        "profile": rules.profile,
        "options": options_text(rules),
        "dealer": dealer,
        "returns": returns,
    }
    return pyspiel.load_game(SHORT_NAME, params)


pyspiel.register_game(_game_type(pyspiel.GameType.Utility.GENERAL_SUM), TwentyNineGame)

__all__ = [
    "OBSERVATION_SIZE",
    "SHORT_NAME",
    "TwentyNineGame",
    "TwentyNineState",
    "game_of",
]
