"""The server's statistics of a browser's games (``POST /api/stats``).

The figures are checked against the verdict the rules give of each game's
own record (``replay_text``), not against the code that counts them: a
verdict's deals say who declared and whether the contract was made. A game
counts once however many of its tokens are given, only for the seats a
token controls, only for finished deals; the same game gives the same
figures live and from the store; bad input is a 400 with a message.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from apis import QUICK, drive, lobby_of, new_session

from twentynine.bots.characters import BY_ID
from twentynine.game.engine import OVER
from twentynine.game.record import replay_text
from twentynine.server.game import Game
from twentynine.server.setup import parse_setup
from twentynine.server.store import SQLiteStore, hash_token
from twentynine.web.app import create_app

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def store() -> Iterator[SQLiteStore]:
    s = SQLiteStore(":memory:")
    yield s
    s.close()


@pytest.fixture
def client(store: SQLiteStore) -> Iterator[TestClient]:
    with TestClient(create_app(QUICK, store)) as c:
        yield c


def finished(n: int) -> Callable[[Game], bool]:
    return lambda g: sum(d.phase == OVER for d in g.match.deals) >= n


def stats(client: TestClient, *pairs: tuple[str, str]) -> dict[str, Any]:
    r = client.post("/api/stats", json={"games": [{"game": g, "token": t} for g, t in pairs]})
    assert r.status_code == 200, r.text
    assert r.headers["cache-control"] == "no-store"
    answer: dict[str, Any] = r.json()
    return answer


def expected(records: list[tuple[dict[str, Any], int]]) -> dict[str, Any]:
    """The deal and contract figures from the rules' verdicts, seen from ``seat``."""
    out = {"played": 0, "won": 0, "bidding": 0, "made": 0, "defending": 0, "beaten": 0}
    for record, seat in records:
        verdict = replay_text(json.dumps(record))
        assert verdict.ok, verdict.data
        for deal in verdict.data["deals"]:
            declarer = deal["single"] if deal["single"] is not None else deal["bidder"]
            if declarer is None or deal["result"] == "cancelled":
                continue
            made = deal["result"] in ("made", "single-made")
            ours = declarer % 2 == seat % 2
            out["played"] += 1
            out["won"] += ours == made
            out["bidding" if ours else "defending"] += 1
            out["made"] += ours and made
            out["beaten"] += not ours and not made
    return out


def figures(answer: dict[str, Any]) -> dict[str, int]:
    return {
        "played": answer["deals"]["played"],
        "won": answer["deals"]["won"],
        "bidding": answer["bidder"]["played"],
        "made": answer["bidder"]["made"],
        "defending": answer["defender"]["played"],
        "beaten": answer["defender"]["beaten"],
    }


def test_the_figures_are_the_verdicts_of_the_games_records(
    client: TestClient, store: SQLiteStore
) -> None:
    match = new_session(client, profile="pagat", seed=3, length="match", target=2)
    drive(match, lambda g: g.match_over, limit=4000)
    single = new_session(client, profile="modern", seed=4, length="single")
    drive(single, finished(1), limit=4000)
    answer = stats(client, (match.ident, match.token), (single.ident, single.token))
    want = expected([(match.game.record(), 0), (single.game.record(), 0)])
    assert want["played"] > 0
    assert figures(answer) == want
    assert answer["games"] == 2 and answer["missing"] == []
    winner = match.game.match.winner
    assert answer["matches"] == {"played": 1, "won": int(winner == 0)}
    # by profile and by bot: the deals split by rules, every deal faced the two opponents
    per_profile = answer["byProfile"]
    assert set(per_profile) == {"pagat", "modern"}
    assert sum(t["played"] for t in per_profile.values()) == want["played"]
    assert set(answer["byBot"]) == {"tara", "pip"}  # seats 1 and 3; bablu is the partner
    assert all(t == answer["deals"] for t in answer["byBot"].values())
    assert answer["names"]["tara"] == BY_ID["tara"].name

    # the same games from the store, once their sessions are gone: the same figures
    lobby = lobby_of(client)
    del lobby.sessions[match.ident], lobby.sessions[single.ident]
    again = stats(client, (match.ident, match.token), (single.ident, single.token))
    assert again == answer
    assert match.ident not in lobby.sessions  # nothing woken up


def test_a_deal_in_play_counts_nothing_and_wrong_tokens_count_nothing(
    client: TestClient,
) -> None:
    game = new_session(client, profile="pagat", seed=5, length="match", target=20)
    drive(
        game, lambda g: g.match.deal.phase == "play" and len(g.match.deal.tricks) >= 3, limit=4000
    )
    answer = stats(client, (game.ident, game.token))
    assert answer["games"] == 1 and answer["deals"] == {"played": 0, "won": 0}
    assert answer["matches"] == {"played": 0, "won": 0}
    drive(game, finished(1), limit=4000)
    one = stats(client, (game.ident, game.token))
    assert figures(one) == expected([(game.game.record(), 0)])
    # a wrong token, an unknown game: missing, nothing counted; the same game twice: once
    answer = stats(client, (game.ident, "nope"), ("nosuchgame", "t"))
    assert answer["missing"] == [game.ident, "nosuchgame"] and answer["games"] == 0
    twice = stats(client, (game.ident, game.token), (game.ident, game.token))
    assert twice == one


def test_a_room_seat_is_counted_from_its_own_side(client: TestClient) -> None:
    """A room gives each seat a token of its own: each sees the deals from its side."""
    tokens = ["seat-zero", "seat-one", "", ""]
    seats = [{"human": True}, {"human": True}, {"bot": "tara"}, {"bot": "pip"}]
    setup = parse_setup(
        {"profile": "pagat", "seed": 6, "length": "match", "target": 1, "seats": seats}
    )
    hashes = tuple(hash_token(t) if t else "" for t in tokens)
    session = lobby_of(client).create(setup, token_hashes=hashes)
    drive(session, lambda g: g.match_over, limit=4000)
    record = session.game.record()
    winner = session.game.match.winner
    for seat in (0, 1):
        answer = stats(client, (session.ident, tokens[seat]))
        assert figures(answer) == expected([(record, seat)])
        assert answer["matches"] == {"played": 1, "won": int(winner == seat % 2)}
        # the opponents of this seat's side: seat 1 faces tara (seat 2), seat 0 pip (3)
        assert set(answer["byBot"]) == ({"pip"} if seat == 0 else {"tara"})
    both = stats(client, (session.ident, tokens[1]), (session.ident, tokens[0]))
    assert figures(both) == expected([(record, 0)])  # the first seat held is the side


@pytest.mark.parametrize(
    "body",
    [b"", b"[]", b'{"games": 3}', b'{"games": [{"game": "g"}]}', b'{"x": []}', b"\xff"],
)
def test_bad_bodies_get_a_400_with_a_message(client: TestClient, body: bytes) -> None:
    r = client.post("/api/stats", content=body)
    assert r.status_code == 400 and r.json()["error"]
    assert client.get("/api/stats").status_code == 405
