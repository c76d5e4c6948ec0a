"""Many equal server processes, on one machine or many, sharing PostgreSQL and Redis.

With ``--redis`` (``$TWENTYNINE_REDIS``) a ``twentynine serve`` process is
one of many: its games are kept in the shared PostgreSQL store (``--db``),
and Redis holds which process owns each live game and room (``leases``),
carries the messages of a client connected to one process to the process
that owns its table and back (``relay``), and keeps the limits that an
address must not escape by spreading its connections (``shared``). Any
process accepts any client; a process that dies has its tables taken over
by the next one asked for them, from the store, within a lease's time.

Without Redis the server is one process and none of this runs.
"""

from __future__ import annotations

import logging
import secrets
from typing import TYPE_CHECKING, Any

from .leases import GAME, ROOM, Leases, NoLeases
from .relay import Relay, RemoteClient, Route
from .shared import SharedLimits

if TYPE_CHECKING:
    from ..lobby import Lobby

log = logging.getLogger("twentynine.server")


class Cluster:
    """This process's place among the others: its id, its leases and its channel."""

    def __init__(self, url: str, lobby: Lobby, ttl: float = 2.0) -> None:
        import redis.asyncio as aioredis

        self.url = url
        self.process = secrets.token_hex(6)
        # Many tasks wait on Redis at once (joins, relays, limits): they queue for a
        # connection instead of failing past the pool's size.
        pool = aioredis.BlockingConnectionPool.from_url(
            url, decode_responses=True, max_connections=64, timeout=20
        )
        self.pool = pool
        self.redis: Any = aioredis.Redis(connection_pool=pool)
        self.leases = Leases(self.redis, self.process, ttl, on_lost=lobby.lost)
        self.relay = Relay(self.redis, self.process, lobby, self.leases)
        self.shared = SharedLimits(self.redis, self.process, lobby.config.limits)

    async def start(self) -> None:
        await self.redis.ping()  # fails here, at the start, if Redis cannot be reached
        await self.leases.renew()
        self.leases.start()
        await self.relay.start()
        log.info("server process %s joined the cluster at %s", self.process, self.url)

    async def close(self) -> None:
        await self.relay.close()
        await self.leases.close()
        await self.redis.aclose()
        await self.pool.disconnect()

    def counts(self) -> dict[str, Any]:
        return {
            "process": self.process,
            "leases": len(self.leases.held),
            "relayed_out": len(self.relay.routes),
            "relayed_in": len(self.relay.remotes),
            "sent": self.relay.sent,
            "received": self.relay.received,
            "lost": self.leases.lost,
            "refused_shared": self.shared.refused,
        }


__all__ = [
    "GAME",
    "ROOM",
    "Cluster",
    "Leases",
    "NoLeases",
    "Relay",
    "RemoteClient",
    "Route",
    "SharedLimits",
]
