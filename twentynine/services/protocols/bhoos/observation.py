"""Request body -> Observation: what the asking player may know, rebuilt from the request alone.

There is no engine state behind a request, so one is rebuilt: a *minimal
consistent deal*. The asking player's cards are the real ones; the cards it
has not seen are handed to the other players at random among the ways that
agree with everything public (a player who did not follow a suit holds none
of it; a player who asked for the reveal and played no trump, or a trump
too low, holds no trump that would have won). The bid history, the trump
choice, the reveal and every card played are then replayed through the
engine, which checks each of them against the rules, and the observation is
``observe_deal(deal, seat)``: the engine's own single door, which shows the
player its own hand only, never the invented cards of the others. Legal
actions are therefore the engine's ``legal_actions()`` (the duel auction,
following suit, the reveal and the obligation to trump after asking).

When a non-bidder does not know trumps yet, the rebuilt deal needs some trump
suit: a placeholder is chosen. It cannot matter: hidden trumps have no power,
and nothing in the observation shows it.

Player ids map to seats by playing order: the first player of the deal (the
first speaker of the bid history; without one, the asker of an empty
``/bid``, or ``playerIds[0]``) gets seat 0 and the others follow in the
rules' direction, so partners (two apart in ``playerIds``) are partners.

Any request that is malformed or disagrees with itself (cards twice, a
winner that did not win, teams' points that do not add up, an illegal card
in the history) raises ``ProtocolError`` with a message naming the field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ....bots.knowledge import trick_winner
from ....game.actions import Action
from ....game.cards import FULL_DECK, SUIT_MASK, cards_of, mask_of
from ....game.engine import AUCTION, PLAYING, TRICKS, TRUMP_CHOICE, Deal, IllegalAction
from ....game.observation import Observation, observe_deal
from ....game.rules import Rules
from .notation import (
    PASS_BID,
    ProtocolError,
    card_in,
    card_out,
    is_int,
    is_number,
    protocol_rules,
    suit_in,
)

FIRST_SEAT = 0
HAND = 8
FIRST_BATCH = 4
PLACEHOLDER_TRUMP = 0  # for a deal whose trump the asker does not know (never shown)


@dataclass(frozen=True)
class Table:
    """Who sits where: player ids in playing order and their seats."""

    ids: tuple[str, str, str, str]  # playing order from the first player
    seats: tuple[int, int, int, int]  # the seat of each of them
    dealer: int

    def seat(self, player: str) -> int:
        return self.seats[self.ids.index(player)]

    def id_of(self, seat: int) -> str:
        return self.ids[self.seats.index(seat)]

    def words(self, message: str) -> str:
        """An engine message with its seat numbers replaced by player ids."""
        return re.sub(r"\bseat (\d)\b", lambda m: self.id_of(int(m.group(1))), message)


@dataclass(frozen=True)
class Request:
    """A parsed request: the rebuilt observation and what the bot's answer needs."""

    endpoint: str
    observation: Observation
    deal: Deal  # the rebuilt deal (holds invented cards: never show it to a bot)
    table: Table
    player: str
    time_remaining_ms: float

    @property
    def seat(self) -> int:
        assert self.observation.seat is not None
        return self.observation.seat


# ---------------------------------------------------------------- field readers


def _field(body: Mapping[str, Any], name: str) -> Any:
    if name not in body:
        raise ProtocolError(f"missing field {name!r}")
    return body[name]


def _player_ids(body: Mapping[str, Any]) -> list[str]:
    ids = _field(body, "playerIds")
    if not isinstance(ids, list) or len(ids) != 4:
        raise ProtocolError("playerIds must be a list of the four player ids")
    for pid in ids:
        if not isinstance(pid, str) or not pid:
            raise ProtocolError(f"playerIds: {pid!r} is not a player id (a non-empty string)")
    if len(set(ids)) != 4:
        raise ProtocolError("playerIds: the four ids must be different")
    return ids


def _player(body: Mapping[str, Any], ids: list[str], name: str) -> str:
    return _id(_field(body, name), ids, name)


def _id(pid: Any, ids: list[str], where: str) -> str:
    if not isinstance(pid, str) or pid not in ids:
        raise ProtocolError(f"{where}: {pid!r} is not one of playerIds {ids}")
    return pid


def _cards(value: Any, where: str, lo: int = 0, hi: int = HAND) -> list[int]:
    if not isinstance(value, list):
        raise ProtocolError(f"{where} must be a list of cards")
    cards = [card_in(x, f"{where}[{i}]") for i, x in enumerate(value)]
    if not lo <= len(cards) <= hi:
        what = f"{lo}" if lo == hi else f"{lo} to {hi}"
        raise ProtocolError(f"{where} must hold {what} cards, not {len(cards)}")
    if len(set(cards)) != len(cards):
        raise ProtocolError(f"{where} names a card twice")
    return cards


def _time(body: Mapping[str, Any]) -> float:
    value = _field(body, "timeRemaining")
    if not is_number(value):
        raise ProtocolError(f"timeRemaining must be a number of milliseconds, not {value!r}")
    return float(value)


def _bid_history(body: Mapping[str, Any], ids: list[str], rules: Rules) -> list[tuple[str, int]]:
    history = _field(body, "bidHistory")
    if not isinstance(history, list):
        raise ProtocolError("bidHistory must be a list of [playerId, bid] pairs")
    out = []
    for i, entry in enumerate(history):
        if not isinstance(entry, list) or len(entry) != 2:
            raise ProtocolError(f"bidHistory[{i}] must be a [playerId, bid] pair")
        pid, amount = entry
        _id(pid, ids, f"bidHistory[{i}][0]")
        if not is_int(amount) or not (
            amount == PASS_BID or rules.min_bid <= amount <= rules.max_bid
        ):
            raise ProtocolError(
                f"bidHistory[{i}][1] must be 0 (pass) or a bid "
                f"{rules.min_bid}..{rules.max_bid}, not {amount!r}"
            )
        out.append((pid, amount))
    return out


def _table(ids: list[str], first: str, rules: Rules) -> Table:
    """Seats for the ids, ``first`` being the first player of the deal."""
    start = ids.index(first)
    order = tuple(ids[(start + i) % 4] for i in range(4))
    seats = [FIRST_SEAT]
    while len(seats) < 4:
        seats.append(rules.next_seat(seats[-1]))
    dealer = seats[-1]
    return Table(
        (order[0], order[1], order[2], order[3]),
        (seats[0], seats[1], seats[2], seats[3]),
        dealer,
    )


# ---------------------------------------------------------------- rebuilding


def _fill_hands(
    mine: int, seat: int, played_by: list[list[int]], forbid: list[int], table: Table
) -> list[list[int]]:
    """Eight cards per seat: the asker's own, the others' played ones plus unseen cards
    dealt so that nobody holds a card the history says it cannot hold."""
    seen = mine
    for cards in played_by:
        seen |= mask_of(cards)
    unseen = cards_of(FULL_DECK & ~seen)
    need = {s: HAND - len(played_by[s]) for s in range(4) if s != seat}
    if any(n < 0 for n in need.values()):
        raise ProtocolError("a player has played more than eight cards")
    if sum(need.values()) != len(unseen):
        raise ProtocolError(
            f"the cards do not add up: {len(unseen)} cards unseen by {table.id_of(seat)} "
            f"for {sum(need.values())} places in the other hands"
        )
    # A bipartite matching of cards to free places (Kuhn's augmenting paths).
    places = [s for s in sorted(need) for _ in range(need[s])]
    holder: list[int | None] = [None] * len(places)  # the card in each place

    def place(card: int, tried: set[int]) -> bool:
        for i, s in enumerate(places):
            if i in tried or forbid[s] >> card & 1:
                continue
            tried.add(i)
            moved = holder[i]
            if moved is None or place(moved, tried):
                holder[i] = card
                return True
        return False

    for card in unseen:
        if not place(card, set()):
            raise ProtocolError(
                "no deal fits the history: the cards unseen by "
                f"{table.id_of(seat)} cannot be held by the players who did not follow suit"
            )
    slots: dict[int, list[int]] = {s: [] for s in need}
    for i, held in enumerate(holder):
        assert held is not None
        slots[places[i]].append(held)
    hands = []
    for s in range(4):
        if s == seat:
            hands.append(cards_of(mine))
        else:
            hands.append(sorted(played_by[s]) + sorted(slots[s]))
    return hands


def _apply(deal: Deal, action: Action, table: Table, where: str) -> None:
    try:
        deal.apply(action)
    except IllegalAction as e:
        raise ProtocolError(f"{where}: {table.words(str(e))}") from None


def _replay_auction(deal: Deal, history: list[tuple[str, int]], table: Table, rules: Rules) -> None:
    for i, (pid, amount) in enumerate(history):
        seat = table.seat(pid)
        where = f"bidHistory[{i}] ({pid} {'passes' if amount == PASS_BID else amount})"
        if deal.phase != AUCTION:
            # The record of a forced bid: the last player takes min_bid.
            if (
                deal.forced
                and i == len(history) - 1
                and seat == deal.bidder
                and amount == rules.min_bid
            ):
                continue
            raise ProtocolError(f"{where}: the auction was already over")
        if deal.to_act != seat:
            raise ProtocolError(
                f"{where}: it was {table.id_of(deal.to_act)}'s turn to bid, not {pid}'s"
            )
        action = Action.pass_(seat) if amount == PASS_BID else Action.bid(seat, amount)
        _apply(deal, action, table, where)


def _first_player(history: list[tuple[str, int]], fallback: str) -> str:
    return history[0][0] if history else fallback


def _common(
    body: Any, endpoint: str, rules: Rules
) -> tuple[list[str], str, float, list[tuple[str, int]]]:
    if not isinstance(body, Mapping):
        raise ProtocolError(f"the body of /{endpoint} must be a JSON object")
    ids = _player_ids(body)
    player = _player(body, ids, "playerId")
    time_ms = _time(body)
    history = _bid_history(body, ids, rules)
    return ids, player, time_ms, history


def _auction_deal(
    rules: Rules, table: Table, seat: int, cards: list[int], history: list[tuple[str, int]]
) -> Deal:
    """A deal whose auction is the history, the asker holding its real first batch."""
    mine = mask_of(cards)
    rest = cards_of(FULL_DECK & ~mine)
    hands: list[list[int]] = []
    for s in range(4):
        if s == seat:
            hands.append(cards + rest[: HAND - FIRST_BATCH])
            rest = rest[HAND - FIRST_BATCH :]
        else:
            hands.append(rest[:HAND])
            rest = rest[HAND:]
    deal = Deal(rules, table.dealer, hands)
    _replay_auction(deal, history, table, rules)
    return deal


def parse_bid(body: Any, rules: Rules | None = None) -> Request:
    """``POST /bid``: the observation of the player asked to bid."""
    rules = rules or protocol_rules()
    ids, player, time_ms, history = _common(body, "bid", rules)
    cards = _cards(_field(body, "cards"), "cards", FIRST_BATCH, FIRST_BATCH)
    table = _table(ids, _first_player(history, player), rules)
    seat = table.seat(player)
    deal = _auction_deal(rules, table, seat, cards, history)
    if deal.phase != AUCTION:
        raise ProtocolError("bidHistory: the auction is already over; nobody bids now")
    if deal.to_act != seat:
        raise ProtocolError(f"it is {table.id_of(deal.to_act)}'s turn to bid, not {player}'s")
    obs = observe_deal(deal, seat)
    _check_bid_state(body, ids, obs, table)
    return Request("bid", obs, deal, table, player, time_ms)


def _check_bid_state(body: Mapping[str, Any], ids: list[str], obs: Observation, t: Table) -> None:
    """``bidState`` must be an object with the four fields; once a bid stands it must
    agree with the bid history (before that, engines word the opening differently)."""
    state = _field(body, "bidState")
    if not isinstance(state, Mapping):
        raise ProtocolError("bidState must be an object")
    for name in ("defenderId", "challengerId"):
        if name not in state:
            raise ProtocolError(f"bidState: missing field {name!r}")
        pid = state[name]
        if pid is not None and pid not in ids:
            raise ProtocolError(f"bidState.{name}: {pid!r} is not one of playerIds {ids}")
    for name in ("defenderBid", "challengerBid"):
        if name not in state:
            raise ProtocolError(f"bidState: missing field {name!r}")
        if not is_int(state[name]) or state[name] < 0:
            raise ProtocolError(f"bidState.{name} must be a whole number, not {state[name]!r}")
    duel = obs.duel or {}
    defender, challenger = duel.get("defender"), duel.get("challenger")
    if defender is None:
        return
    expected = {
        "defenderId": t.id_of(defender),
        "challengerId": t.id_of(challenger) if challenger is not None else None,
        "defenderBid": duel.get("defender_bid") or 0,
        "challengerBid": duel.get("challenger_bid") or 0,
    }
    for name, want in expected.items():
        if state[name] != want:
            raise ProtocolError(
                f"bidState.{name} is {state[name]!r} but bidHistory makes it {want!r}"
            )


def parse_choose_trump(body: Any, rules: Rules | None = None) -> Request:
    """``POST /chooseTrump``: the observation of the bidder choosing trumps."""
    rules = rules or protocol_rules()
    ids, player, time_ms, history = _common(body, "chooseTrump", rules)
    cards = _cards(_field(body, "cards"), "cards", FIRST_BATCH, FIRST_BATCH)
    if not history:
        raise ProtocolError("bidHistory is empty: nobody has won the auction yet")
    table = _table(ids, _first_player(history, player), rules)
    seat = table.seat(player)
    deal = _auction_deal(rules, table, seat, cards, history)
    if deal.phase != TRUMP_CHOICE:
        raise ProtocolError("bidHistory: the auction is not over yet")
    if deal.bidder != seat:
        raise ProtocolError(
            f"{table.id_of(deal.bidder)} won the auction and chooses trumps, not {player}"
        )
    return Request("chooseTrump", observe_deal(deal, seat), deal, table, player, time_ms)


def _tricks(body: Mapping[str, Any], ids: list[str]) -> list[tuple[str, list[int], str]]:
    history = _field(body, "handsHistory")
    if not isinstance(history, list) or len(history) >= TRICKS:
        raise ProtocolError("handsHistory must be a list of at most seven finished tricks")
    out = []
    for i, entry in enumerate(history):
        where = f"handsHistory[{i}]"
        if not isinstance(entry, list) or len(entry) != 3:
            raise ProtocolError(f"{where} must be [leaderId, [4 cards], winnerId]")
        leader = _id(entry[0], ids, f"{where}[0]")
        cards = _cards(entry[1], f"{where}[1]", 4, 4)
        winner = _id(entry[2], ids, f"{where}[2]")
        out.append((leader, cards, winner))
    return out


def _reveal_info(body: Mapping[str, Any], ids: list[str]) -> tuple[int, str] | None:
    value = _field(body, "trumpRevealed")
    if value is False or value is None:
        return None
    if not isinstance(value, Mapping):
        raise ProtocolError("trumpRevealed must be false or {hand, playerId}")
    hand = value.get("hand")
    if not is_int(hand) or not 1 <= hand <= TRICKS:
        raise ProtocolError(f"trumpRevealed.hand must be a trick number 1..8, not {hand!r}")
    return hand, _id(value.get("playerId"), ids, "trumpRevealed.playerId")


def _teams(body: Mapping[str, Any], ids: list[str]) -> list[tuple[set[str], int, int]]:
    teams = _field(body, "teams")
    if not isinstance(teams, list) or len(teams) != 2:
        raise ProtocolError("teams must be a list of two {players, bid, won} objects")
    out = []
    for i, team in enumerate(teams):
        if not isinstance(team, Mapping):
            raise ProtocolError(f"teams[{i}] must be an object {{players, bid, won}}")
        players = team.get("players")
        if not isinstance(players, list) or len(players) != 2:
            raise ProtocolError(f"teams[{i}].players must list two player ids")
        for p in players:
            _id(p, ids, f"teams[{i}].players")
        for name in ("bid", "won"):
            if not is_int(team.get(name)) or team[name] < 0:
                raise ProtocolError(
                    f"teams[{i}].{name} must be a whole number, not {team.get(name)!r}"
                )
        out.append((set(players), team["bid"], team["won"]))
    return out


def parse_play(body: Any, rules: Rules | None = None) -> Request:
    """``POST /play``: the observation of the player to play (or to ask for trumps)."""
    rules = rules or protocol_rules()
    ids, player, time_ms, history = _common(body, "play", rules)
    held = _cards(_field(body, "cards"), "cards", 1, HAND)
    played_now = _cards(_field(body, "played"), "played", 0, 3)
    tricks = _tricks(body, ids)
    trump_text = _field(body, "trumpSuit")
    trump_known = None if trump_text is False else suit_in(trump_text, "trumpSuit")
    reveal = _reveal_info(body, ids)
    teams = _teams(body, ids)
    if not history:
        raise ProtocolError("bidHistory is empty: there is no contract to play")
    table = _table(ids, _first_player(history, ids[0]), rules)
    seat = table.seat(player)
    if len(held) != HAND - len(tricks):
        raise ProtocolError(
            f"cards: {player} should hold {HAND - len(tricks)} cards after "
            f"{len(tricks)} tricks, not {len(held)}"
        )
    if reveal is not None and trump_known is None:
        raise ProtocolError("trumpRevealed is set but trumpSuit is false")
    if reveal is not None and reveal[0] > len(tricks) + 1:
        raise ProtocolError(
            f"trumpRevealed.hand is {reveal[0]} but trick {len(tricks) + 1} is being played"
        )

    # Who played what: each trick's seats follow from its leader.
    def seats_from(leader: str, n: int) -> list[int]:
        order = list(table.seats)
        start = order.index(table.seat(leader))
        return [order[(start + i) % 4] for i in range(n)]

    current_leader = tricks[-1][2] if tricks else table.ids[0]
    all_tricks = [(leader, cards, seats_from(leader, len(cards))) for leader, cards, _ in tricks]
    all_tricks.append((current_leader, played_now, seats_from(current_leader, len(played_now))))
    played_by: list[list[int]] = [[], [], [], []]
    seen = mask_of(held)
    for _leader, cards, seats in all_tricks:
        for s, c in zip(seats, cards, strict=True):
            if seen >> c & 1:
                raise ProtocolError(f"card {card_out(c)} appears twice in the request")
            seen |= 1 << c
            played_by[s].append(c)
    forbid = _forbidden(all_tricks, seat, reveal, trump_known, table)
    mine = mask_of(held) | mask_of(played_by[seat])
    hands = _fill_hands(mine, seat, played_by, forbid, table)

    deal = Deal(rules, table.dealer, hands)
    _replay_auction(deal, history, table, rules)
    if deal.phase != TRUMP_CHOICE:
        raise ProtocolError("bidHistory: the auction is not over, so nobody plays yet")
    bidder = deal.bidder
    if reveal is None and bidder == seat and trump_known is None:
        raise ProtocolError(f"trumpSuit is false but {player} is the bidder and chose trumps")
    if reveal is None and bidder != seat and trump_known is not None:
        raise ProtocolError(
            f"trumpSuit is set but trumps are hidden and {player} is not the bidder"
        )
    trump = trump_known if trump_known is not None else PLACEHOLDER_TRUMP
    _apply(deal, Action.trump(bidder, trump), table, "trumpSuit")
    for n, (leader, cards, seats) in enumerate(all_tricks, start=1):
        where = f"handsHistory[{n - 1}]" if n <= len(tricks) else "played"
        if cards and deal.to_act != table.seat(leader):
            raise ProtocolError(f"{where}: {table.id_of(deal.to_act)} led trick {n}, not {leader}")
        for i, (s, c) in enumerate(zip(seats, cards, strict=True)):
            if reveal is not None and reveal[0] == n and table.seat(reveal[1]) == s:
                _apply(deal, Action.flag(s, "reveal"), table, f"trumpRevealed (trick {n})")
            _apply(
                deal,
                Action.play(s, c),
                table,
                f"{where}[1][{i}]" if n <= len(tricks) else f"{where}[{i}]",
            )
        if n <= len(tricks):
            winner = deal.tricks[-1][3]
            if table.id_of(winner) != tricks[n - 1][2]:
                raise ProtocolError(
                    f"{where}: {table.id_of(winner)} won trick {n}, not {tricks[n - 1][2]}"
                )
    if deal.phase != PLAYING or deal.to_act != seat:
        raise ProtocolError(f"it is {_whose(deal, table)} turn to play, not {player}'s")
    if reveal is not None and not deal.revealed_in_trick:
        if table.seat(reveal[1]) != seat:
            raise ProtocolError(
                f"trumpRevealed: {reveal[1]} asked in trick {reveal[0]} but has not played in it"
            )
        _apply(deal, Action.flag(seat, "reveal"), table, "trumpRevealed")
    _check_teams(teams, deal, table)
    return Request("play", observe_deal(deal, seat), deal, table, player, time_ms)


def _whose(deal: Deal, table: Table) -> str:
    return f"{table.id_of(deal.to_act)}'s" if deal.to_act >= 0 else "nobody's"


def _forbidden(
    tricks: Sequence[tuple[str, list[int], list[int]]],
    me: int,
    reveal: tuple[int, str] | None,
    trump: int | None,
    table: Table,
) -> list[int]:
    """Per seat, the cards it cannot hold now, from what it did in the tricks so far."""
    forbid = [0, 0, 0, 0]
    for n, (_leader, cards, seats) in enumerate(tricks, start=1):
        if not cards:
            continue
        led = cards[0] >> 3
        for i, (s, c) in enumerate(zip(seats, cards, strict=True)):
            if s == me:
                continue
            if c >> 3 != led:
                forbid[s] |= SUIT_MASK[led]
            if reveal is None or trump is None or reveal[0] != n or table.seat(reveal[1]) != s:
                continue
            # It asked for the reveal, then had to trump (and to win if it could).
            if c >> 3 != trump:
                forbid[s] |= SUIT_MASK[trump]
                continue
            if i == 0:
                continue
            best_index = trick_winner(cards[:i], trump, True)
            best, best_seat = cards[best_index], seats[best_index]
            if best >> 3 == trump and best_seat != (s + 2) % 4 and c < best:
                forbid[s] |= SUIT_MASK[trump] & ~((2 << best) - 1)
    return forbid


def _check_teams(teams: list[tuple[set[str], int, int]], deal: Deal, table: Table) -> None:
    expected = []
    for team in (0, 1):
        players = {table.id_of(s) for s in range(4) if s & 1 == team}
        bid = deal.bid if deal.bidder & 1 == team else 0
        expected.append((players, bid, deal.points[team]))
    if {frozenset(t[0]) for t in teams} != {frozenset(e[0]) for e in expected}:
        raise ProtocolError(
            "teams: the players must be partners two apart in playerIds: "
            + " and ".join("/".join(sorted(e[0])) for e in expected)
        )
    for i, (players, bid, won) in enumerate(teams):
        want = next(e for e in expected if e[0] == players)
        if bid != want[1]:
            raise ProtocolError(f"teams[{i}].bid is {bid} but bidHistory makes it {want[1]}")
        if won != want[2]:
            raise ProtocolError(f"teams[{i}].won is {won} but handsHistory makes it {want[2]}")


PARSERS = {"bid": parse_bid, "chooseTrump": parse_choose_trump, "play": parse_play}


def parse_request(endpoint: str, body: Any, rules: Rules | None = None) -> Request:
    """The observation behind a request to ``endpoint`` (``bid``, ``chooseTrump``, ``play``)."""
    if endpoint not in PARSERS:
        raise ProtocolError(f"unknown endpoint /{endpoint}")
    return PARSERS[endpoint](body, rules)


def observation_from_request(endpoint: str, body: Any, rules: Rules | None = None) -> Observation:
    return parse_request(endpoint, body, rules).observation
