"""Observation -> request body: what a seated protocol bot is told, and nothing more.

Every field is computed from the seat's ``Observation`` alone (the single
door for hidden information), so a protocol bot learns exactly what one of
our bots would. Players get the ids ``A1 B1 A2 B2`` in playing order from the
first player of the deal (the one after the dealer); ``playerIds`` lists them
in that order, so partners are two apart.

Choices where BHOOS.md is silent:

- ``bidHistory`` is sent to ``/chooseTrump`` and ``/play`` too (the
  "common fields"); a forced bid (nobody bid, the last player takes
  ``min_bid``) is written at its end as ``[lastId, 16]`` so that a bot can
  find the bidder there.
- ``bidState`` before anyone has bid names the player to speak as the
  defender and the next player as the challenger, both bids 0.
"""

from __future__ import annotations

from typing import Any

from ....game.actions import BID, PLAY, REVEAL, TRUMP
from ....game.observation import Observation
from ....game.rules import Rules
from .notation import PLAYER_IDS, card_out, suit_out


def playing_order(rules: Rules, dealer: int) -> list[int]:
    """The four seats in playing order, from the first player after ``dealer``."""
    first = rules.next_seat(dealer)
    order = [first]
    while len(order) < 4:
        order.append(rules.next_seat(order[-1]))
    return order


def seat_ids(obs: Observation) -> dict[int, str]:
    """Seat -> player id for this deal."""
    return {seat: PLAYER_IDS[i] for i, seat in enumerate(playing_order(obs.rules, obs.dealer))}


def endpoint_of(obs: Observation) -> str:
    """The endpoint that asks for this decision."""
    kinds = {a.kind for a in obs.legal}
    if BID in kinds or obs.phase == "auction":
        return "bid"
    if TRUMP in kinds:
        return "chooseTrump"
    if PLAY in kinds or REVEAL in kinds:
        return "play"
    raise ValueError(f"the protocol has no request for the {obs.phase!r} phase")


def bid_history(obs: Observation, ids: dict[int, str]) -> list[list[Any]]:
    history: list[list[Any]] = [[ids[seat], amount] for seat, amount in obs.auction]
    if obs.forced and obs.bidder is not None:
        history.append([ids[obs.bidder], obs.bid])
    return history


def bid_state(obs: Observation, ids: dict[int, str]) -> dict[str, Any]:
    duel = obs.duel or {}
    defender = duel.get("defender")
    if defender is None:  # nobody has bid: the speaker opens as defender
        assert obs.seat is not None
        order = playing_order(obs.rules, obs.dealer)
        i = order.index(obs.seat)
        challenger = order[i + 1] if i + 1 < 4 else None
        return {
            "defenderId": ids[obs.seat],
            "challengerId": ids[challenger] if challenger is not None else None,
            "defenderBid": 0,
            "challengerBid": 0,
        }
    challenger = duel.get("challenger")
    return {
        "defenderId": ids[defender],
        "challengerId": ids[challenger] if challenger is not None else None,
        "defenderBid": duel.get("defender_bid") or 0,
        "challengerBid": duel.get("challenger_bid") or 0,
    }


def _common(obs: Observation, time_remaining_ms: float) -> dict[str, Any]:
    assert obs.seat is not None
    ids = seat_ids(obs)
    order = playing_order(obs.rules, obs.dealer)
    return {
        "playerId": ids[obs.seat],
        "playerIds": [ids[s] for s in order],
        "timeRemaining": round(max(0.0, time_remaining_ms), 3),
        "cards": [card_out(c) for c in obs.hand],
        "bidHistory": bid_history(obs, ids),
    }


def bid_body(obs: Observation, time_remaining_ms: float) -> dict[str, Any]:
    body = _common(obs, time_remaining_ms)
    body["bidState"] = bid_state(obs, seat_ids(obs))
    return body


def choose_trump_body(obs: Observation, time_remaining_ms: float) -> dict[str, Any]:
    return _common(obs, time_remaining_ms)


def play_body(obs: Observation, time_remaining_ms: float) -> dict[str, Any]:
    ids = seat_ids(obs)
    body = _common(obs, time_remaining_ms)
    order = playing_order(obs.rules, obs.dealer)
    bidder_team = obs.bidder & 1 if obs.bidder is not None else None
    teams = []
    for first in order[:2]:  # the first player's team, then the second's
        team = first & 1
        teams.append(
            {
                "players": [ids[first], ids[(first + 2) % 4]],
                "bid": (obs.bid or 0) if team == bidder_team else 0,
                "won": obs.points[team],
            }
        )
    body["teams"] = teams
    body["played"] = [card_out(c) for _, c in obs.trick]
    body["handsHistory"] = [
        [ids[leader], [card_out(c) for c in cards], ids[winner]]
        for leader, cards, _seats, winner, _pts in obs.tricks
    ]
    body["trumpSuit"] = suit_out(obs.trump) if obs.trump is not None else False
    if obs.trump_revealed and obs.revealed_in_trick is not None:
        revealer = ids[obs.revealer] if obs.revealer is not None else None
        body["trumpRevealed"] = {"hand": obs.revealed_in_trick, "playerId": revealer}
    else:
        body["trumpRevealed"] = False
    return body


BUILDERS = {"bid": bid_body, "chooseTrump": choose_trump_body, "play": play_body}


def request_for(obs: Observation, time_remaining_ms: float) -> tuple[str, dict[str, Any]]:
    """The endpoint and body that ask ``obs.seat`` for this decision."""
    endpoint = endpoint_of(obs)
    return endpoint, BUILDERS[endpoint](obs, time_remaining_ms)
