"""Which process owns each live game and room: leases in Redis, kept by a heartbeat.

A lease is a Redis key, ``tn:lease:game:<id>`` or ``tn:lease:room:<code>``,
whose value is the owning process's id and which expires ``ttl`` seconds
after it was last renewed. The owner renews all of its leases every
``ttl / 4`` with one script call (``RENEW``) that extends each key only while
it still names this process, so a process that was paused past its lease
never extends another's; a key that ran out while nobody took it (a beat
came late, the process busy) is taken again. A process also keeps
``tn:alive:<id>``, on the same heartbeat: the others read it to know whether
a process they relay to still runs.

A process that dies stops renewing; its leases expire within ``ttl``, and
the first process asked for one of its games or rooms then claims it (``SET
NX``) and rebuilds it from the store. A renewal that finds the key taken is
a lease *lost*: the process stops serving that game or room (its clients are
told to reconnect) so that two processes never serve one. (Should two ever
both hold a game for a moment, the store still applies each move once: a
change of a game's log is written at its index, and the second writer of an
index fails.)

``NoLeases`` is the single process: every lease is its own, nothing is asked.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

log = logging.getLogger("twentynine.server")

PREFIX = "tn:"
GAME, ROOM = "game", "room"

# Every lease of a process in one call: KEYS its leases, ARGV[1] the process, ARGV[2]
# the time to live (ms). A key that names the process is extended; one that has run out
# (a beat came late: nobody took it meanwhile) is taken again; one that names another
# process is lost. Returns the (1-based) indexes of the keys lost.
RENEW = """
local lost = {}
for i, key in ipairs(KEYS) do
  local owner = redis.call('get', key)
  if owner == ARGV[1] then
    redis.call('pexpire', key, ARGV[2])
  elseif not owner then
    redis.call('set', key, ARGV[1], 'PX', ARGV[2])
  else
    lost[#lost + 1] = i
  end
end
return lost
"""
RENEW_BATCH = 2000  # keys per call: one call holds Redis for well under a millisecond
# Delete the key only if it names ARGV[1].
RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0
"""


def lease_key(kind: str, key: str) -> str:
    return f"{PREFIX}lease:{kind}:{key}"


def alive_key(process: str) -> str:
    return f"{PREFIX}alive:{process}"


class NoLeases:
    """One process alone: it owns everything, and nothing is written anywhere."""

    process = ""

    async def settled(self) -> None:
        pass

    def hold(self, kind: str, key: str) -> None:
        pass

    def drop(self, kind: str, key: str) -> None:
        pass

    async def claim(self, kind: str, key: str) -> bool:
        return True

    def holds(self, kind: str, key: str) -> bool:
        return True


class Leases:
    """The leases of this process (``process``) in Redis (``redis``: a ``redis.asyncio``
    client); ``on_lost(kind, key)`` is called for each lease a renewal finds lost."""

    def __init__(
        self,
        redis: Any,
        process: str,
        ttl: float = 2.0,
        on_lost: Callable[[str, str], None] | None = None,
    ) -> None:
        self.redis = redis
        self.process = process
        self.ttl_ms = max(200, int(ttl * 1000))
        self.on_lost = on_lost
        self.held: set[tuple[str, str]] = set()
        # taken by ``hold`` and not yet written: a renewal would find them missing
        self._fresh: set[tuple[str, str]] = set()
        self._renew = redis.register_script(RENEW)
        self._release = redis.register_script(RELEASE)
        self._pending: set[asyncio.Task[Any]] = set()
        self._beat: asyncio.Task[None] | None = None
        self.renewals = 0
        self.lost = 0

    # ---------------------------------------------------------------- claims
    def holds(self, kind: str, key: str) -> bool:
        return (kind, key) in self.held

    async def claim(self, kind: str, key: str) -> bool:
        """Take the lease if nobody holds it; True if this process holds it now."""
        if (kind, key) in self.held:
            return True
        name = lease_key(kind, key)
        if await self.redis.set(name, self.process, nx=True, px=self.ttl_ms):
            self.held.add((kind, key))
            return True
        if await self.redis.get(name) == self.process:  # (ours, from before a lost renewal)
            self.held.add((kind, key))
            return True
        return False

    def hold(self, kind: str, key: str) -> None:
        """Take the lease of something this process has just made (a new id: nobody else
        can hold it); written at once: ``settled`` waits for it, which the lobby does
        before anyone hears of the new id."""
        self.held.add((kind, key))
        self._fresh.add((kind, key))
        self._spawn(self._write(kind, key))

    async def _write(self, kind: str, key: str) -> None:
        try:
            if not await self.redis.set(
                lease_key(kind, key), self.process, nx=True, px=self.ttl_ms
            ):
                # (a new id another process holds: all but impossible) it stays theirs
                log.error("the new %s %s is another server's: not served here", kind, key)
                self.held.discard((kind, key))
                if self.on_lost is not None:
                    self.on_lost(kind, key)
        finally:
            self._fresh.discard((kind, key))

    def drop(self, kind: str, key: str) -> None:
        """Give the lease up (the game or room is no longer kept here)."""
        if (kind, key) not in self.held:
            return
        self.held.discard((kind, key))
        self._spawn(self._release(keys=[lease_key(kind, key)], args=[self.process]))

    async def owner(self, kind: str, key: str) -> str | None:
        """The process holding the lease, or None."""
        if (kind, key) in self.held:
            return self.process
        value = await self.redis.get(lease_key(kind, key))
        return value if isinstance(value, str) else None

    async def settled(self) -> None:
        """Wait until the leases taken or given up so far are written."""
        if self._pending:
            await asyncio.gather(*list(self._pending), return_exceptions=True)

    def _spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._pending.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._pending.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("a lease could not be written: %s", task.exception())

    # ---------------------------------------------------------------- heartbeat
    async def renew(self) -> list[tuple[str, str]]:
        """Extend every lease held and the process's own ``alive`` key; the leases lost."""
        held = [k for k in self.held if k not in self._fresh]
        await self.redis.set(alive_key(self.process), "1", px=self.ttl_ms)
        lost = []
        for start in range(0, len(held), RENEW_BATCH):
            part = held[start : start + RENEW_BATCH]
            keys = [lease_key(kind, key) for kind, key in part]
            gone = await self._renew(keys=keys, args=[self.process, self.ttl_ms])
            lost += [part[int(i) - 1] for i in gone]
        self.renewals += 1
        lost = [k for k in lost if k in self.held]
        for kind, key in lost:
            self.held.discard((kind, key))
            self.lost += 1
            log.warning("the lease of %s %s was lost: no longer served here", kind, key)
            if self.on_lost is not None:
                self.on_lost(kind, key)
        return lost

    def start(self) -> None:
        self._beat = asyncio.get_running_loop().create_task(self._heartbeat())

    async def _heartbeat(self) -> None:
        period = self.ttl_ms / 4000
        while True:
            try:
                await self.renew()
            except asyncio.CancelledError:
                raise
            except Exception as e:  # Redis away for a moment: try again at the next beat
                log.error("the leases could not be renewed: %s", e)
            await asyncio.sleep(period)

    async def close(self) -> None:
        """Stop renewing and give every lease up (a clean stop: others may take over at once)."""
        if self._beat is not None:
            self._beat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._beat
        held = list(self.held)
        self.held.clear()
        with contextlib.suppress(Exception):
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.delete(alive_key(self.process))
                for kind, key in held:
                    await self._release(
                        keys=[lease_key(kind, key)], args=[self.process], client=pipe
                    )
                await pipe.execute()
        await self.settled()


__all__ = ["GAME", "ROOM", "Leases", "NoLeases", "alive_key", "lease_key"]
