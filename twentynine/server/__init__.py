"""The game server: it owns every game, runs the bots and talks to browsers.

Layers: this package imports the engine, the rules and the bots; nothing
below it imports the server. ``game`` is the pure, synchronous game object
(a match rebuilt from rules, seed, first dealer and its action log);
``session`` wraps it for the event loop (clients, bot turns, pauses);
``lobby`` holds every game and room; ``protocol`` reads and checks the
websocket messages (``names`` the names in them); ``outbox`` sends to each
client without ever making a game wait; ``limits`` keeps what one connection
or address may ask; ``botpool`` runs the bots in worker processes;
``routes`` makes the Starlette endpoints.
"""

from __future__ import annotations

PROTOCOL_VERSION = 1

__all__ = ["PROTOCOL_VERSION"]
