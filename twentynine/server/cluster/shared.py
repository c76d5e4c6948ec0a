"""The limits of an address over every server process, counted in Redis.

Each process keeps its own limits (``limits.Guard``): messages per second
and per connection stay there, as a connection lives on one process. Two
limits would be escaped by spreading connections over the processes behind
a load balancer, so they are also counted here, over all of them:

- **open connections** of an address: a hash per address, one field per
  process, each process's count counted only while that process is alive
  (its ``alive`` key), so the connections of a process that died are not
  held against anyone;
- **unknown room codes** an address tried: the same token bucket as the
  process's own (``code_guesses`` at once, one more every
  ``code_guess_seconds``), as a script on one Redis key.

Each check is one round trip, made where a connection opens or a room code
is looked up, never per message.
"""

from __future__ import annotations

import time
from typing import Any

from ..limits import Limits
from .leases import PREFIX, alive_key

# KEYS[1] the address's hash; ARGV: this process, the limit, the alive-key prefix.
# Count the live processes' connections; -1 if the limit is reached, else add ours.
OPEN = """
local fields = redis.call('hgetall', KEYS[1])
local total = 0
for i = 1, #fields, 2 do
  local n = tonumber(fields[i + 1])
  if n > 0 and redis.call('exists', ARGV[3] .. fields[i]) == 1 then
    total = total + n
  end
end
if tonumber(ARGV[2]) > 0 and total >= tonumber(ARGV[2]) then
  return -1
end
redis.call('hincrby', KEYS[1], ARGV[1], 1)
redis.call('expire', KEYS[1], 86400)
return total + 1
"""
CLOSE = """
local n = redis.call('hincrby', KEYS[1], ARGV[1], -1)
if n <= 0 then redis.call('hdel', KEYS[1], ARGV[1]) end
return n
"""
# KEYS[1] the bucket; ARGV: now (s), rate (/s), burst, take (0: only look, 1: take one).
# 1 if a token is (was) there, else 0.
BUCKET = """
local now, rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local state = redis.call('hmget', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1]) or burst
local at = tonumber(state[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
local ok = tokens >= 1 and 1 or 0
if ARGV[4] == '1' then tokens = math.max(0, tokens - 1) end
redis.call('hset', KEYS[1], 'tokens', tokens, 'at', now)
local life = rate > 0 and math.ceil(burst / rate) + 1 or 3600
redis.call('expire', KEYS[1], life)
return ok
"""


def _open_key(address: str) -> str:
    return f"{PREFIX}open:{address}"


def _guess_key(address: str) -> str:
    return f"{PREFIX}guess:{address}"


class SharedLimits:
    """The counts of every process for the limits an address could otherwise multiply."""

    def __init__(self, redis: Any, process: str, limits: Limits) -> None:
        self.process = process
        self.limits = limits
        self._open = redis.register_script(OPEN)
        self._close = redis.register_script(CLOSE)
        self._bucket = redis.register_script(BUCKET)
        self.refused = 0

    async def open(self, key: str) -> str | None:
        """A connection from the address ``key`` (``Guard.key``): None, or why it is turned
        away (the address's connections on all processes are at the limit)."""
        limit = self.limits.connections
        got = await self._open(keys=[_open_key(key)], args=[self.process, limit, alive_key("")])
        if int(got) < 0:
            self.refused += 1
            return f"too many connections from this address (at most {limit})"
        return None

    async def close(self, key: str) -> None:
        await self._close(keys=[_open_key(key)], args=[self.process])

    async def may_guess(self, key: str) -> bool:
        """May this address try one more room code that may not exist, on any process?"""
        if not self.limits.code_guesses:
            return True
        ok = await self._guess(key, take=False)
        if not ok:
            self.refused += 1
        return ok

    async def missed(self, key: str) -> None:
        if self.limits.code_guesses:
            await self._guess(key, take=True)

    async def _guess(self, key: str, take: bool) -> bool:
        seconds = self.limits.code_guess_seconds
        rate = 1 / seconds if seconds > 0 else 0
        args = [f"{time.time():.3f}", rate, self.limits.code_guesses, "1" if take else "0"]
        return bool(await self._bucket(keys=[_guess_key(key)], args=args))


__all__ = ["SharedLimits"]
