"""The game server's websocket protocol: strict input, one door for hidden cards.

Driven through Starlette's TestClient (no browser): malformed messages,
illegal actions, wrong seats and resends get an error for that client only
and change nothing; a client never receives another seat's cards, a hidden
trump or the seed; a game is rebuilt exactly from its log.
"""

from __future__ import annotations

import concurrent.futures
import json
import re
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient, WebSocketTestSession

from helpers import played

from twentynine.bots.characters import BY_ID
from twentynine.game.actions import Action
from twentynine.game.record import replay_record
from twentynine.server import protocol as P
from twentynine.server.config import ServerConfig
from twentynine.server.game import Game, GameError
from twentynine.server.setup import SetupError, parse_setup
from twentynine.web.app import create_app

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

QUICK_BOTS = [{"bot": "tara"}, {"bot": "bablu"}, {"bot": "pip"}]
CARD = re.compile(r'"([JQKAT987][SHDC])"')
_pool = concurrent.futures.ThreadPoolExecutor(4)


@pytest.fixture
def client() -> Iterator[TestClient]:
    app = create_app(ServerConfig(bot_delay=0, bot_workers=0, warm_up=False))
    with TestClient(app) as c:
        yield c


def recv(ws: WebSocketTestSession, timeout: float = 10) -> dict[str, Any]:
    """The next server message, failing (not hanging) if none comes."""
    text: str = _pool.submit(ws.receive_text).result(timeout=timeout)
    msg: dict[str, Any] = json.loads(text)
    assert "v" in msg, f"server message without a version: {msg}"
    return msg


def send(ws: WebSocketTestSession, **msg: Any) -> None:
    ws.send_text(json.dumps(msg))


def recv_until(
    ws: WebSocketTestSession, pred: Callable[[dict[str, Any]], bool], log: list[dict[str, Any]]
) -> dict[str, Any]:
    for _ in range(500):
        msg = recv(ws)
        log.append(msg)
        if pred(msg):
            return msg
    raise AssertionError("no such message")


def open_socket(client: TestClient) -> WebSocketTestSession:
    ws = client.websocket_connect("/ws").__enter__()
    hello = recv(ws)
    assert hello["type"] == "welcome" and hello["v"] == 0
    return ws


def create(
    ws: WebSocketTestSession, log: list[dict[str, Any]] | None = None, **setup: Any
) -> dict[str, Any]:
    setup.setdefault("seats", [{"human": True}, *QUICK_BOTS])
    send(ws, type="create", id="create-1", setup=setup)
    return recv_until(ws, lambda m: m["type"] == "state", log if log is not None else [])


def my_turn(msg: dict[str, Any], seat: int = 0) -> bool:
    view = msg.get("views", {}).get(str(seat))
    return bool(view and view["to_act"] == seat and view["legal"])


def next_decision(
    ws: WebSocketTestSession,
    log: list[dict[str, Any]],
    until: Callable[[dict[str, Any]], bool],
    choose: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Play South (first legal action, or ``choose``) until ``until(message)``."""
    msg = log[-1]
    n = 0
    while not until(msg):
        n += 1
        pair = my_turn(msg) and msg["views"]["0"]["phase"] == "pair"
        if msg["hold"] == "trick" and not pair:
            send(ws, type="continue", id=f"go-{n}", at=msg["hold_at"])
        elif my_turn(msg):
            view = msg["views"]["0"]
            action = choose(view) if choose else view["legal"][0]
            send(ws, type="act", id=f"act-{n}", action=action)
        msg = recv_until(
            ws, lambda m: m["type"] == "update" and (my_turn(m) or m["hold"] is not None), log
        )
    return msg


# ---------------------------------------------------------------------- bad input


def test_malformed_messages_get_an_error_and_the_connection_lives_on(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        assert recv(ws)["type"] == "welcome"
        cases: list[tuple[str | bytes, str]] = [
            ("{not json", P.BAD_JSON),
            ("[1, 2]", P.BAD_MESSAGE),
            (json.dumps({"type": "dance", "id": "a1"}), P.UNKNOWN_TYPE),
            (json.dumps({"type": "act", "action": {"seat": 0, "pass": True}}), P.BAD_MESSAGE),
            (json.dumps({"type": "act", "id": "a2", "action": "JS"}), P.BAD_MESSAGE),
            (json.dumps({"type": "act", "id": "a3", "action": {}, "x": 1}), P.BAD_MESSAGE),
            (
                json.dumps({"type": "act", "id": "a4", "action": {"seat": 0, "pass": True}}),
                P.NO_GAME,
            ),
            (json.dumps({"type": "act", "id": "a5" * 40, "action": {}}), P.BAD_MESSAGE),
            ("x" * (P.MAX_MESSAGE_BYTES + 1), P.TOO_LARGE),
            (b"\x00\x01binary", P.BAD_MESSAGE),
        ]
        for text, code in cases:
            if isinstance(text, bytes):
                ws.send_bytes(text)
            else:
                ws.send_text(text)
            reply = recv(ws)
            assert reply["type"] == "error", (text, reply)
            assert reply["code"] == code, (text, reply)
            assert reply["message"], "an error must say what is wrong"
        send(ws, type="ping")
        assert recv(ws)["type"] == "pong"


@pytest.mark.parametrize(
    ("setup", "words"),
    [
        ({"profile": "chess"}, "unknown profile"),
        ({"options": {"min_bid": 25, "max_bid": 20}}, "min_bid 25 is above max_bid 20"),
        ({"options": {"colour": "red"}}, "unknown option"),
        ({"seats": [{"bot": "pip"}, {"bot": "pip"}, {"bot": "pip"}, {"bot": "pip"}]}, "South"),
        (
            {"seats": [{"human": True}, {"bot": "hal"}, {"bot": "pip"}, {"bot": "pip"}]},
            "unknown bot",
        ),
        ({"seed": -3}, "seed"),
        ({"length": "forever"}, "length"),
        ({"pace": "warp"}, "pace"),
    ],
)
def test_a_setup_that_makes_no_sense_is_refused_clearly(
    client: TestClient, setup: dict[str, Any], words: str
) -> None:
    with client.websocket_connect("/ws") as ws:
        recv(ws)
        send(ws, type="create", id="c1", setup=setup)
        reply = recv(ws)
        assert reply["type"] == "error" and reply["code"] == P.BAD_SETUP
        assert words in reply["message"]
    assert client.app.state.lobby.sessions == {}  # type: ignore[attr-defined]


def test_illegal_action_wrong_seat_and_bad_action_change_nothing(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        recv(ws)
        log: list[dict[str, Any]] = []
        state = create(ws, log, profile="pagat", seed=7, first_dealer=3, length="single")
        assert state["views"]["0"]["to_act"] == 0  # dealer East: South speaks first
        v = state["v"]
        attempts = [
            ({"seat": 0, "bid": 3}, P.ILLEGAL),  # below min_bid
            ({"seat": 0, "play": state["views"]["0"]["hand"][0]}, P.ILLEGAL),  # in the auction
            ({"seat": 0, "double": True}, P.ILLEGAL),
            ({"seat": 1, "pass": True}, P.NOT_YOUR_SEAT),
            ({"seat": 2, "bid": 16}, P.NOT_YOUR_SEAT),
            ({"seat": 0, "bid": "sixteen"}, P.BAD_ACTION),
            ({"seat": 0, "bid": 16, "pass": True}, P.BAD_ACTION),
            ({"seat": 7, "pass": True}, P.BAD_ACTION),
            ({"pass": True}, P.BAD_ACTION),
        ]
        for i, (action, code) in enumerate(attempts):
            send(ws, type="act", id=f"bad-{i}", action=action)
            reply = recv(ws)
            assert reply["type"] == "error" and reply["code"] == code, (action, reply)
            assert reply["id"] == f"bad-{i}"
            assert reply["v"] == v, "a refused action must not change the game"
        send(ws, type="sync", id="s1")
        again = recv(ws)
        assert again["type"] == "state" and again["v"] == v
        assert again["views"] == state["views"]


def test_a_resent_action_is_applied_once(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        recv(ws)
        log: list[dict[str, Any]] = []
        state = create(ws, log, profile="pagat", seed=7, first_dealer=3, length="single")
        send(ws, type="act", id="same", action={"seat": 0, "bid": 16})
        first = recv_until(ws, lambda m: m["type"] in ("ack", "error"), log)
        assert first["type"] == "ack"
        send(ws, type="act", id="same", action={"seat": 0, "bid": 16})
        second = recv_until(ws, lambda m: m.get("id") == "same", log)
        assert second["type"] == "ack" and second.get("duplicate") is True
        assert second["v"] == first["v"]
        game = next(iter(client.app.state.lobby.sessions.values())).game  # type: ignore[attr-defined]
        bids = [a for a in game.log if a.get("seat") == 0 and "bid" in a]
        assert bids == [{"seat": 0, "bid": 16}]
        assert first["v"] > state["v"]


def test_versions_grow_by_one_per_update(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        recv(ws)
        log: list[dict[str, Any]] = []
        state = create(ws, log, profile="arcade", seed=3, length="single")
        last = state["v"]
        play_deal(ws, log)
        for msg in log[1:]:
            if msg["type"] == "update":
                assert msg["v"] == last + 1
                last = msg["v"]


def test_join_needs_the_token_and_a_second_client_follows_the_game(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        recv(ws)
        state = create(ws, profile="pagat", seed=9, length="single")
        game, token = state["game"], state["token"]
        with client.websocket_connect("/ws") as other:
            recv(other)
            send(other, type="join", id="j1", game=game, token="nope")
            assert recv(other)["code"] == P.FORBIDDEN
            send(other, type="join", id="j2", game="no-such-game", token=token)
            assert recv(other)["code"] == P.NOT_FOUND
            send(other, type="join", id="j3", game=game, token=token)
            joined = recv(other)
            assert joined["type"] == "state" and "token" not in joined
            assert joined["views"]["0"]["hand"] == state["views"]["0"]["hand"]


# ---------------------------------------------------------------------- hidden information


def play_deal(
    ws: WebSocketTestSession,
    log: list[dict[str, Any]],
    choose: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Play South through one deal (first legal action, or ``choose``); return the last update."""
    return next_decision(ws, log, lambda m: m["hold"] == "deal", choose)


def cards_in(msg: dict[str, Any]) -> set[str]:
    return set(CARD.findall(json.dumps(msg)))


@pytest.mark.parametrize("profile", ["pagat", "modern", "bhoos", "bangladesh", "arcade"])
def test_a_client_never_sees_another_hand_a_hidden_trump_or_the_seed(
    client: TestClient, profile: str
) -> None:
    with client.websocket_connect("/ws") as ws:
        recv(ws)
        log: list[dict[str, Any]] = []
        seed = 424242
        create(ws, log, profile=profile, seed=seed, length="single")
        end = play_deal(ws, log)
        session = next(iter(client.app.state.lobby.sessions.values()))  # type: ignore[attr-defined]
        deal = session.game.match.deals[0]
        from twentynine.game.cards import card_text

        mine = {card_text(c) for c in deal.hands[0]}
        played: set[str] = set()
        revealed = False
        for msg in log:
            text = json.dumps(msg)
            assert str(seed) not in text, "the seed names every deal: it must stay on the server"
            if msg["type"] not in ("state", "update"):
                continue
            assert set(msg["views"]) == {"0"} and set(msg["events"]) == {"0"}
            view = msg["views"]["0"]
            for ev in msg["events"]["0"]:
                if ev["type"] == "play":
                    played.add(ev["card"])
                if ev["type"] == "reveal":
                    revealed = True
            for t in view["tricks"]:
                played.update(t["cards"])
            played.update(x["card"] for x in view["trick"])
            if view["phase"] == "over":
                continue  # after the deal, the whole deal may be shown
            assert view["hands"] is None
            leaked = cards_in(msg) - mine - played
            assert not leaked, f"cards of other seats reached the client: {leaked}"
            if view["bidder"] not in (None, 0) and not revealed:
                assert view["trump"] is None, "a hidden trump reached a defender"
                for ev in msg["events"]["0"]:
                    assert "trump" not in ev or ev["type"] == "reveal"
        assert end["views"]["0"]["hands"] is not None


def test_a_pair_decision_is_not_shown_to_the_other_seats() -> None:
    # The engine hides whose turn it is during a pair window; the server passes that on.
    for seed in range(1, 300):
        game = Game(parse_setup({"profile": "pagat", "seed": seed, "length": "single"}))
        while not game.deal_over:
            if game.pair_pending and game.to_act != 0:
                view = game.view(0)
                assert view["to_act"] is None and view["legal"] == []
                return
            seat = game.to_act
            game.apply(BY_ID["pip"].make(seat).act(game.observation(seat)))
    pytest.fail("no pair window found for a bot in 300 deals")


# ---------------------------------------------------------------------- game object


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_game_is_rebuilt_exactly_from_its_log(seed: int) -> None:
    game = played(seed)
    again = Game(game.setup, game.log)
    assert again.log == game.log
    assert again.match.score == game.match.score
    for seat in range(4):
        assert again.view(seat) == game.view(seat)
    record = game.record()
    replayed, fault = replay_record(record)
    assert fault is None
    finished = [d for d in game.match.deals if d.is_over()]
    assert [d.verdict() for d in replayed.deals] == [d.verdict() for d in finished]


def test_undo_takes_back_the_last_card_and_the_bots_after_it(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        recv(ws)
        log: list[dict[str, Any]] = []
        create(ws, log, profile="arcade", seed=5, length="single")
        msg = next_decision(
            ws, log, lambda m: my_turn(m) and m["views"]["0"]["phase"] == "play" and not m["hold"]
        )
        assert not msg["can_undo"]
        hand_before = msg["views"]["0"]["hand"]
        table_before = msg["views"]["0"]["trick"]
        card = next(a["play"] for a in msg["views"]["0"]["legal"] if "play" in a)
        send(ws, type="act", id="the-card", action={"seat": 0, "play": card})
        after = recv_until(ws, lambda m: m["type"] == "update" and m["can_undo"], log)
        assert card not in after["views"]["0"]["hand"]
        send(ws, type="undo", id="u1", seat=0)
        undone = recv_until(ws, lambda m: m["type"] == "update" and m.get("reset"), log)
        view = undone["views"]["0"]
        assert view["hand"] == hand_before and view["trick"] == table_before
        assert view["to_act"] == 0 and undone["hold"] is None


def test_undo_is_refused_in_a_match_that_counts() -> None:
    game = Game(parse_setup({"profile": "pagat", "seed": 2}))
    assert not game.setup.undo_allowed
    with pytest.raises(GameError):
        game.undo_last_card(0)
    practice = parse_setup({"profile": "pagat", "seed": 2, "undo": True})
    assert practice.undo_allowed
    hotseat = parse_setup(
        {
            "seed": 2,
            "undo": True,
            "seats": [{"human": True}, {"bot": "pip"}, {"human": True}, {"bot": "pip"}],
        }
    )
    assert not hotseat.undo_allowed


def test_bots_wait_while_a_finished_trick_is_on_show(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        recv(ws)
        log: list[dict[str, Any]] = []
        create(ws, log, profile="arcade", seed=11, length="single")
        n = 0
        while True:
            msg = recv_until(
                ws, lambda m: m["type"] in ("update", "state") and (my_turn(m) or m["hold"]), log
            )
            if msg["hold"] == "trick":
                break
            n += 1
            send(ws, type="act", id=f"a{n}", action=msg["views"]["0"]["legal"][0])
        v = msg["v"]
        send(ws, type="ping")
        pong = recv(ws)
        assert pong["type"] == "pong" and pong["v"] == v, "nothing may happen during the hold"
        send(ws, type="continue", id="go", at=msg["hold_at"])
        later = recv_until(ws, lambda m: m["type"] == "update", log)
        assert later["hold"] is None and later["v"] == v + 1


def test_setup_defaults() -> None:
    setup = parse_setup({})
    assert setup.rules.profile == "pagat" and setup.human_seats == (0,)
    assert parse_setup({"length": "single"}).rules.match_target is None
    assert parse_setup({"profile": "arcade", "length": "match"}).rules.match_target == 6
    assert parse_setup({"length": "match", "target": 3}).rules.match_target == 3
    with pytest.raises(SetupError):
        parse_setup({"seats": [{"human": True}]})


def test_bots_think_in_a_worker_process() -> None:
    app = create_app(ServerConfig(bot_delay=0, bot_workers=1, warm_up=True))
    with TestClient(app) as client, client.websocket_connect("/ws") as ws:
        recv(ws)
        log: list[dict[str, Any]] = []
        create(ws, log, profile="pagat", seed=5, first_dealer=0, length="single")
        # dealer South: West, North and East (bots) speak before South
        msg = recv_until(ws, lambda m: m["type"] == "update" and my_turn(m), log)
        assert len(msg["views"]["0"]["auction"]) == 3
        pool = app.state.lobby.pool
        assert isinstance(pool.executor, concurrent.futures.ProcessPoolExecutor)


def test_every_action_json_round_trips() -> None:
    for seat in range(4):
        for action in (Action.pass_(seat), Action.bid(seat, 16), Action.play(seat, 5)):
            assert Action.from_json(action.to_json()) == action


def test_a_resent_create_joins_the_game_it_made(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        recv(ws)
        first = create(ws, profile="arcade", seed=1, length="single")
        again = create(ws, profile="arcade", seed=1, length="single")
        assert again["game"] == first["game"]
        assert len(client.app.state.lobby.sessions) == 1  # type: ignore[attr-defined]
