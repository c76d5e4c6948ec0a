"""Clients of one process playing at another's tables: messages over Redis pub/sub.

Every process listens on its own channel, ``tn:proc:<id>``. A client's
socket stays with the process it reached (the *front*); each of its
messages goes to the process that owns the game or room it is about (the
*owner*, by its lease, ``leases``), which handles it exactly as a message
of one of its own clients, and sends the replies back the same way.

- On the front, a ``Route`` per connection knows where its messages go: a
  ``join`` (by game id) or ``room_join`` (by code) looks the owner up; one
  nobody owns is served here (the lobby claims it and rebuilds it from the
  store); ``create`` and ``room_create`` are served here. Everything else
  follows the last of those.
- On the owner, a ``RemoteClient`` stands for the client: the lobby and the
  sessions put messages in it as in any connection (never waiting), and the
  relay sends them in order, many at a time, to the front.
- An owner that dies leaves its clients' sockets open on the fronts: a front
  checks that the processes it relays to are alive (their ``alive`` key,
  renewed with their leases) and closes such clients with ``SLOW``, which the
  page answers by reconnecting at once and joining again, by then at the
  process that took the game over.

One publisher task writes everything this process sends, so messages from
one process to another arrive in the order they were sent.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import logging
import secrets
from typing import TYPE_CHECKING, Any

from .. import protocol as P
from ..outbox import SLOW, encode
from .leases import GAME, ROOM, Leases, alive_key

if TYPE_CHECKING:
    from ..lobby import Lobby
    from ..outbox import Outbox
    from ..session import GameSession

log = logging.getLogger("twentynine.server")

PREFIX = "tn:proc:"
OPENING = ("create", "room_create")  # always served by the front itself
MOVED = "the game moved to another server: reconnect"


def channel(process: str) -> str:
    return f"{PREFIX}{process}"


class RemoteClient:
    """A client of another process, as this process's lobby and sessions see it."""

    def __init__(self, relay: Relay, process: str, cid: str, address: str) -> None:
        self.relay = relay
        self.process = process
        self.cid = cid
        self.address = address  # what its limits count against (``limits.Guard.key``)
        self.session: GameSession | None = None
        self.inbox: collections.deque[str] = collections.deque()
        self.task: asyncio.Task[None] | None = None
        self.gone = False  # its front said it left

    def send(self, data: dict[str, Any]) -> None:
        relay = self.relay
        relay.post(self.process, {"k": "out", "p": relay.process, "c": self.cid, "m": encode(data)})

    def drop(self, reason: str) -> None:
        """Close the client's socket on its front with ``SLOW`` (reconnect now)."""
        relay = self.relay
        relay.post(self.process, {"k": "close", "p": relay.process, "c": self.cid, "r": reason})

    async def run(self) -> None:
        lobby = self.relay.lobby
        while self.inbox:
            text = self.inbox.popleft()
            try:
                msg = P.parse_message(text)
            except P.ProtocolError as e:  # (the front parsed it already: not expected)
                self.send(P.error(e.code, str(e), e.ident, 0, e.reason, e.params))
                continue
            self.session = await lobby.answer(self, self.session, msg)
            if self.gone:  # it left while its message was handled
                lobby.leave(self, self.session)
                break
        self.task = None


class Route:
    """Where the messages of one client of this process go (``owner`` None: here)."""

    def __init__(self, relay: Relay, outbox: Outbox, address: str) -> None:
        self.relay = relay
        self.outbox = outbox
        self.address = address
        self.cid = secrets.token_hex(8)
        self.owner: str | None = None

    async def forwards(self, msg: P.Message, text: str) -> bool:
        """Send the message to its owner if that is another process (True), else leave
        it to this process's lobby (False)."""
        relay = self.relay
        if msg.type in OPENING:
            self._leave()
            return False
        if msg.type in ("join", "room_join"):
            owner = await relay.owner_of(msg)
            if owner is None or owner == relay.process:
                self._leave()
                return False
            if owner != self.owner:
                self._leave()
                self.owner = owner
                relay.routes[self.cid] = self
        if self.owner is None:
            return False
        relay.post(
            self.owner, {"k": "in", "p": relay.process, "c": self.cid, "a": self.address, "m": text}
        )
        return True

    def _leave(self) -> None:
        if self.owner is not None:
            self.relay.post(self.owner, {"k": "bye", "p": self.relay.process, "c": self.cid})
            self.relay.routes.pop(self.cid, None)
            self.owner = None

    def close(self) -> None:
        """The client's socket closed."""
        self._leave()


class Relay:
    """This process's channel: what it receives for its clients and its tables, and one
    publisher for what it sends."""

    def __init__(self, redis: Any, process: str, lobby: Lobby, leases: Leases) -> None:
        self.redis = redis
        self.process = process
        self.lobby = lobby
        self.leases = leases
        self.routes: dict[str, Route] = {}  # this process's clients served elsewhere
        self.remotes: dict[tuple[str, str], RemoteClient] = {}  # others' clients served here
        self._out: dict[str, list[dict[str, Any]]] = {}
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._pubsub: Any = None
        self.sent = 0
        self.received = 0

    # ---------------------------------------------------------------- sending
    def post(self, process: str, envelope: dict[str, Any]) -> None:
        """Queue one message to another process; never waits."""
        self._out.setdefault(process, []).append(envelope)
        self._wake.set()

    async def _publish(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            out, self._out = self._out, {}
            if not out:
                continue
            try:
                async with self.redis.pipeline(transaction=False) as pipe:
                    for process, envelopes in out.items():
                        pipe.publish(channel(process), json.dumps(envelopes))
                    await pipe.execute()
                self.sent += sum(len(e) for e in out.values())
            except asyncio.CancelledError:
                raise
            except Exception as e:
                log.error("messages to other servers were lost: %s", e)

    # ---------------------------------------------------------------- receiving
    async def _listen(self) -> None:
        while True:
            try:
                message = await self._pubsub.get_message(
                    ignore_subscribe_messages=True, timeout=1.0
                )
            except asyncio.CancelledError:
                raise
            except Exception as e:
                log.error("the server channel failed: %s", e)
                await asyncio.sleep(0.5)
                continue
            if message is None:
                continue
            try:
                envelopes = json.loads(message["data"])
            except (TypeError, ValueError):
                log.error("a message on the server channel is not JSON")
                continue
            for envelope in envelopes if isinstance(envelopes, list) else ():
                self.received += 1
                try:
                    self._receive(envelope)
                except Exception:  # one bad message must not stop the channel
                    log.exception("a message from another server failed")

    def _receive(self, e: dict[str, Any]) -> None:
        kind = e.get("k")
        if kind == "out":
            # (from the client's owner only: one it has just left may still be talking)
            route = self.routes.get(e["c"])
            if route is not None and route.owner == e.get("p"):
                route.outbox.put_text(e["m"])
        elif kind == "close":
            route = self.routes.get(e["c"])
            if route is not None and route.owner == e.get("p"):
                route.outbox.close(SLOW, str(e.get("r") or MOVED))
        elif kind == "in":
            key = (str(e["p"]), str(e["c"]))
            client = self.remotes.get(key)
            if client is None:
                client = self.remotes[key] = RemoteClient(self, key[0], key[1], str(e["a"]))
            client.inbox.append(str(e["m"]))
            if client.task is None:
                client.task = asyncio.get_running_loop().create_task(client.run())
        elif kind == "bye":
            client = self.remotes.pop((str(e["p"]), str(e["c"])), None)
            if client is not None:
                client.gone = True
                client.inbox.clear()
                if client.task is None:
                    self.lobby.leave(client, client.session)

    # ---------------------------------------------------------------- owners
    async def owner_of(self, msg: P.Message) -> str | None:
        """The live process that owns what a ``join`` or ``room_join`` is about (None:
        nobody does, or its owner died and its lease has run out by now)."""
        if msg.type == "join":
            kind, key = GAME, str(msg.body["game"])
        else:
            from ..room import normal_code

            code = normal_code(str(msg.body["code"]))
            if not code:
                return None
            kind, key = ROOM, code
        owner = await self._live_owner(kind, key)
        if owner is None and kind == ROOM and self.lobby.store is not None:
            # nobody holds the room: its game, once started, may be held by itself
            kept = self.lobby.store.room(key)
            if kept is not None and kept[1]:
                owner = await self._live_owner(GAME, kept[1])
        return owner

    async def _live_owner(self, kind: str, key: str) -> str | None:
        owner = await self.leases.owner(kind, key)
        if owner is None or owner == self.process:
            return owner
        if await self.redis.exists(alive_key(owner)):
            return owner
        # Its owner is gone and the lease not yet expired: wait for it (within a ttl).
        deadline = asyncio.get_running_loop().time() + self.leases.ttl_ms / 1000 + 0.5
        while asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.1)
            owner = await self.leases.owner(kind, key)
            if owner is None or owner == self.process:
                return owner
        return owner

    async def _watch(self) -> None:
        """Close this process's clients whose owner died (they reconnect and join again),
        and let go of the clients of a front that died (their seats are away)."""
        period = self.leases.ttl_ms / 2000
        while True:
            await asyncio.sleep(period)
            owners = {r.owner for r in self.routes.values() if r.owner}
            fronts = {c.process for c in self.remotes.values()}
            others = sorted(owners | fronts)
            if not others:
                continue
            try:
                alive = await self.redis.exists(*[alive_key(p) for p in others])
                if alive == len(others):
                    continue
                async with self.redis.pipeline(transaction=False) as pipe:
                    for p in others:
                        pipe.exists(alive_key(p))
                    states = await pipe.execute()
            except asyncio.CancelledError:
                raise
            except Exception as e:
                log.error("cannot check the other servers: %s", e)
                continue
            dead = {p for p, up in zip(others, states, strict=True) if not up}
            for route in list(self.routes.values()):
                if route.owner in dead:
                    self.routes.pop(route.cid, None)
                    route.owner = None
                    route.outbox.close(SLOW, MOVED)
            for key, client in list(self.remotes.items()):
                if client.process in dead:
                    del self.remotes[key]
                    client.gone = True
                    client.inbox.clear()
                    if client.task is None:
                        self.lobby.leave(client, client.session)

    # ---------------------------------------------------------------- life
    async def start(self) -> None:
        self._pubsub = self.redis.pubsub()
        await self._pubsub.subscribe(channel(self.process))
        loop = asyncio.get_running_loop()
        self._tasks = [
            loop.create_task(self._publish()),
            loop.create_task(self._listen()),
            loop.create_task(self._watch()),
        ]

    async def close(self) -> None:
        # the clients relayed elsewhere are leaving: say so to their owners
        for route in list(self.routes.values()):
            route.close()
        if self._out:
            self._wake.set()
            await asyncio.sleep(0)
            with contextlib.suppress(Exception):
                async with asyncio.timeout(1.0):
                    while self._out:
                        await asyncio.sleep(0.01)
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()


__all__ = ["Relay", "RemoteClient", "Route", "channel"]
