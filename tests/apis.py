"""What the tests of the server's HTTP API share: a quick server over an in-memory
store, its lobby, and games played on by a random bot without a client.

Each test module keeps its own ``store`` and ``client`` fixtures (a fixture
imported by name is shadowed by every test's parameter of that name).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from twentynine.bots.characters import BY_ID
from twentynine.server.config import ServerConfig
from twentynine.server.game import Game
from twentynine.server.lobby import Lobby
from twentynine.server.session import GameSession
from twentynine.server.setup import parse_setup

QUICK = ServerConfig(bot_delay=0, bot_workers=0, warm_up=False)
QUICK_BOTS = [{"bot": "tara"}, {"bot": "bablu"}, {"bot": "pip"}]


def lobby_of(client: TestClient) -> Lobby:
    lobby: Lobby = client.app.state.lobby  # type: ignore[attr-defined]
    return lobby


def new_session(client: TestClient, **setup: Any) -> GameSession:
    """A game of one person (South) against ``QUICK_BOTS`` unless ``seats`` says otherwise."""
    setup.setdefault("seats", [{"human": True}, *QUICK_BOTS])
    return lobby_of(client).create(parse_setup(setup))


def drive(session: GameSession, until: Callable[[Game], bool], limit: int = 3000) -> None:
    """Play every seat with a random bot (next deals included) until ``until(game)``."""
    bot = BY_ID["pip"]
    for _ in range(limit):
        game = session.game
        if until(game):
            return
        if game.deal_over:
            game.next_deal()
        else:
            seat = game.to_act
            game.apply(bot.make(seat).act(game.observation(seat)))
        session._save()
    raise AssertionError("the game did not get there")
