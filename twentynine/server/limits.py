"""Limits per connection and per address: how much one client may ask of the server.

Every game of a server shares one event loop, so a client that sends as
fast as it can takes time from every table. Each connection has a token
bucket of messages (``rate`` a second, ``burst`` at once), and so has each
address, for all its connections together; a message over either is
answered ``rate_limited`` and not handled, and a client that goes on being
refused (``refusals`` more, refilled one a second) is closed with
``outbox.LIMITED``. An address has at most ``connections`` open at once,
may open ``connects_per_minute`` a minute (with a burst of as many), and may
try ``code_guesses`` unknown room codes (one more every
``code_guess_seconds``): a room's code is its only secret until someone
sits. An address closed for going on past a limit may not connect again for
``cooldown`` seconds.

The defaults are far above what a person at a table sends (a few messages a
second; a reload or a reconnect is three or four at once) and what a
household behind one address does. Zero turns a limit off.

An address is the socket's peer, except from a trusted proxy
(``trusted_proxies``: addresses or networks), where the client is the last
address of ``X-Forwarded-For`` that is not itself a trusted proxy. IPv6
addresses count by their /64 network, which one device usually has whole.
"""

from __future__ import annotations

import collections
import ipaddress
import os
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from .outbox import OutboxLimits

# The key of the ASGI lifespan state under which the app puts its ``Guard`` (``web.app``),
# for the websocket protocol of ``twentynine serve`` (``web.sockets``).
GUARD_STATE = "twentynine.guard"
MAX_ADDRESSES = 50_000  # addresses remembered past this: the least recently seen idle go

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
clock = time.monotonic  # (the tests move a clock of their own)


@dataclass(frozen=True, slots=True)
class Limits:
    """The limits of a server (see the module's text); ``from_env`` reads them."""

    rate: float = 20.0  # messages a second, one connection
    burst: int = 60
    address_rate: float = 60.0  # messages a second, every connection of one address
    address_burst: int = 180
    refusals: int = 20  # refused messages a client may send before it is closed
    connections: int = 32  # open at once, per address
    connects_per_minute: int = 60
    code_guesses: int = 20  # unknown room codes, per address
    code_guess_seconds: float = 30.0  # one more guess after this many seconds
    cooldown: float = 10.0  # seconds an address closed for a limit may not connect
    trusted_proxies: tuple[str, ...] = ()  # whose X-Forwarded-For is believed
    outbox: OutboxLimits = field(default_factory=OutboxLimits)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Limits:
        """The ``TWENTYNINE_*`` variables (README: "Limits"); a bad value keeps the default."""
        env = os.environ if env is None else env
        d = cls()

        def num(name: str, default: float) -> float:
            try:
                return max(0.0, float(env.get(name, default)))
            except ValueError:
                return default

        proxies = tuple(p.strip() for p in env.get("TWENTYNINE_TRUSTED_PROXIES", "").split(","))
        outbox = OutboxLimits(
            messages=int(num("TWENTYNINE_OUTBOX_MESSAGES", d.outbox.messages)),
            max_bytes=int(num("TWENTYNINE_OUTBOX_KB", d.outbox.max_bytes // 1024) * 1024),
            send_timeout=num("TWENTYNINE_SEND_TIMEOUT_MS", d.outbox.send_timeout * 1000) / 1000,
        )
        return cls(
            rate=num("TWENTYNINE_MESSAGES_PER_SECOND", d.rate),
            burst=int(num("TWENTYNINE_MESSAGE_BURST", d.burst)),
            address_rate=num("TWENTYNINE_ADDRESS_MESSAGES_PER_SECOND", d.address_rate),
            address_burst=int(num("TWENTYNINE_ADDRESS_MESSAGE_BURST", d.address_burst)),
            refusals=int(num("TWENTYNINE_REFUSALS", d.refusals)),
            connections=int(num("TWENTYNINE_CONNECTIONS_PER_ADDRESS", d.connections)),
            connects_per_minute=int(num("TWENTYNINE_CONNECTS_PER_MINUTE", d.connects_per_minute)),
            code_guesses=int(num("TWENTYNINE_ROOM_CODE_GUESSES", d.code_guesses)),
            code_guess_seconds=d.code_guess_seconds,
            cooldown=num("TWENTYNINE_LIMIT_COOLDOWN_MS", d.cooldown * 1000) / 1000,
            trusted_proxies=tuple(p for p in proxies if p),
            outbox=outbox,
        )

    @classmethod
    def none(cls) -> Limits:
        """No limit on messages, connections or codes (the outbox keeps its bounds): for a
        harness that is not a person, such as a fuzzer or a load benchmark."""
        return cls(
            rate=0,
            address_rate=0,
            refusals=0,
            connections=0,
            connects_per_minute=0,
            code_guesses=0,
            cooldown=0,
        )

    def networks(self) -> tuple[Network, ...]:
        """The trusted proxies as networks; raises ``ValueError`` naming a bad one."""
        out = []
        for text in self.trusted_proxies:
            try:
                out.append(ipaddress.ip_network(text, strict=False))
            except ValueError:
                raise ValueError(f"not an address or network: {text!r}") from None
        return tuple(out)


# The environment of a server with no limit on messages, connections or codes (a load
# benchmark's simulated players act with no thought at all, far past a person's pace).
NO_LIMITS_ENV = {
    "TWENTYNINE_MESSAGES_PER_SECOND": "0",
    "TWENTYNINE_ADDRESS_MESSAGES_PER_SECOND": "0",
    "TWENTYNINE_CONNECTIONS_PER_ADDRESS": "0",
    "TWENTYNINE_CONNECTS_PER_MINUTE": "0",
    "TWENTYNINE_ROOM_CODE_GUESSES": "0",
}


class Bucket:
    """A token bucket: ``burst`` tokens at most, ``rate`` more a second; 0 rate: no limit."""

    __slots__ = ("burst", "rate", "stamp", "tokens")

    def __init__(self, rate: float, burst: float, now: float) -> None:
        self.rate = rate
        self.burst = max(1.0, burst)
        self.tokens = self.burst
        self.stamp = now

    def take(self, now: float, n: float = 1.0) -> bool:
        if self.rate <= 0:
            return True
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= n:
            self.tokens -= n
            return True
        return False

    def available(self, now: float) -> float:
        """The tokens there are now (without taking any)."""
        if self.rate <= 0:
            return self.burst
        return min(self.burst, self.tokens + (now - self.stamp) * self.rate)


class Address:
    """What one address has used."""

    __slots__ = ("banned_until", "connects", "guesses", "messages", "open", "seen", "told_until")

    def __init__(self, limits: Limits, now: float) -> None:
        self.messages = Bucket(limits.address_rate, limits.address_burst, now)
        per_minute = limits.connects_per_minute
        self.connects = Bucket(per_minute / 60, per_minute, now)
        guess_rate = 1 / limits.code_guess_seconds if limits.code_guess_seconds > 0 else 0
        self.guesses = Bucket(guess_rate if limits.code_guesses else 0, limits.code_guesses, now)
        self.open = 0
        self.banned_until = 0.0
        self.told_until = 0.0  # turned away with words until then; without, after
        self.seen = now


OK, REFUSE, CLOSE = "ok", "refuse", "close"
# What a message costs in a bucket, by type (1 otherwise): the whole state of a game, a
# new game or room (with its writes to the store) and a join are many times a move's work.
# A page asks for the whole state only when it missed a version, and joins once a
# connection.
COSTS = {"sync": 5.0, "create": 5.0, "room_create": 5.0, "join": 2.0, "room_join": 2.0}


class Ticket:
    """One connection's place in the limits: its own buckets and its address's."""

    __slots__ = ("_closed", "address", "guard", "messages", "refusals", "refused", "state")

    def __init__(self, guard: Guard, address: str, state: Address, now: float) -> None:
        limits = guard.limits
        self.guard = guard
        self.address = address
        self.state = state
        self.messages = Bucket(limits.rate, limits.burst, now)
        self.refusals = Bucket(1.0 if limits.refusals else 0, limits.refusals, now)
        self.refused = 0
        self._closed = False

    def admit(self, kind: str | None = None) -> str:
        """May this connection's next message (of type ``kind``) be handled: ``OK``,
        ``REFUSE`` (answer it ``rate_limited``) or ``CLOSE`` (it went on past the limit)."""
        now = clock()
        cost = COSTS.get(kind or "", 1.0)
        if self.messages.take(now, cost) and self.state.messages.take(now, cost):
            return OK
        self.refused += 1
        self.guard.refused += 1
        if self.refusals.take(now):
            return REFUSE
        self.guard.penalise(self, now)
        return CLOSE

    def close(self) -> None:
        """The connection ended (once is enough; more is harmless)."""
        if not self._closed:
            self._closed = True
            self.state.open -= 1
            self.state.seen = clock()


class Guard:
    """The limits of every address of one server."""

    def __init__(self, limits: Limits | None = None) -> None:
        self.limits = limits or Limits()
        self.trusted = self.limits.networks()
        self._addresses: collections.OrderedDict[str, Address] = collections.OrderedDict()
        # what was refused, for /healthz and the benchmarks
        self.refused = 0  # messages answered ``rate_limited``
        self.turned_away = 0  # connections refused at the door
        self.closed = 0  # connections closed for going on past a limit
        self.guesses_refused = 0

    def __len__(self) -> int:
        return len(self._addresses)

    # ------------------------------------------------------------ addresses
    def client_address(self, peer: str | None, forwarded: Iterable[str] = ()) -> str:
        """Whose connection this is: the peer, or the client a trusted proxy names."""
        peer = peer or ""
        if not self.trusted or not self._is_trusted(peer):
            return self.key(peer)
        hops = [h.strip() for value in forwarded for h in value.split(",") if h.strip()]
        for hop in reversed(hops):  # from the nearest proxy back to the client
            if not self._is_trusted(hop):
                return self.key(hop)
        return self.key(hops[0] if hops else peer)

    def _is_trusted(self, text: str) -> bool:
        try:
            ip = ipaddress.ip_address(text)
        except ValueError:
            return False
        return any(ip in net for net in self.trusted)

    @staticmethod
    def key(address: str) -> str:
        """The key an address counts under: itself, or its /64 for IPv6."""
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return address[:64]  # not an address (a test client, a Unix socket): as it is
        if isinstance(ip, ipaddress.IPv6Address):
            if ip.ipv4_mapped is not None:
                return str(ip.ipv4_mapped)
            return str(ipaddress.ip_network(f"{ip}/64", strict=False))
        return str(ip)

    def _state(self, address: str, now: float) -> Address:
        state = self._addresses.get(address)
        if state is None:
            self._forget_idle(now)
            state = self._addresses[address] = Address(self.limits, now)
        else:
            self._addresses.move_to_end(address)
        state.seen = now
        return state

    def _forget_idle(self, now: float) -> None:
        """Keep at most ``MAX_ADDRESSES``: the least recently seen idle ones go first."""
        if len(self._addresses) < MAX_ADDRESSES:
            return
        for address, state in list(self._addresses.items()):
            if len(self._addresses) < MAX_ADDRESSES * 0.9:
                break
            if state.open <= 0 and now - state.seen > 1.0:  # (one with a connection stays)
                del self._addresses[address]

    # ------------------------------------------------------------ connections
    def open(self, address: str) -> Ticket | str:
        """A new connection from ``address``: its ticket, or why it is turned away."""
        now = clock()
        state = self._state(address, now)
        limits = self.limits
        why = None
        if now < state.banned_until:
            why = "this address went on past a limit: wait a few seconds before connecting again"
        elif limits.connections and state.open >= limits.connections:
            why = f"too many connections from this address (at most {limits.connections})"
        elif limits.connects_per_minute and not state.connects.take(now):
            why = "this address connects too often: wait a few seconds"
        if why is not None:
            self.turned_away += 1
            return why
        state.open += 1
        return Ticket(self, address, state, now)

    def explain(self, address: str) -> bool:
        """Should a connection turned away be told why (accepted, told, closed), or only
        refused at the handshake? Once per ``cooldown`` (at least a second): a client that
        comes back at once has been told, and each explanation costs a websocket."""
        now = clock()
        state = self._state(address, now)
        if now < state.told_until:
            return False
        state.told_until = now + max(1.0, self.limits.cooldown)
        return True

    def refuses_early(self, peer: str) -> bool:
        """Would a connection from this peer be turned away, when it was told why a moment
        ago? Then it may be dropped before a byte of its handshake is read: a client that
        reconnects in a loop costs the server as little as can be. (Never for a trusted
        proxy: its clients are told apart only by their headers.)"""
        if self.trusted and self._is_trusted(peer):
            return False
        state = self._addresses.get(self.key(peer))
        if state is None:
            return False
        now = clock()
        limits = self.limits
        refused = now < state.told_until and (
            now < state.banned_until
            or (limits.connections > 0 and state.open >= limits.connections)
            or (limits.connects_per_minute > 0 and state.connects.available(now) < 1)
        )
        if refused:
            self.turned_away += 1
        return refused

    def penalise(self, ticket: Ticket, now: float) -> None:
        self.closed += 1
        ticket.state.banned_until = max(ticket.state.banned_until, now + self.limits.cooldown)

    # ------------------------------------------------------------ room codes
    def may_guess(self, address: str) -> bool:
        """May this address try one more room code that may not exist?"""
        if not self.limits.code_guesses:
            return True
        now = clock()
        if self._state(address, now).guesses.available(now) >= 1:
            return True
        self.guesses_refused += 1
        return False

    def missed(self, address: str) -> None:
        """An address tried a code no room has."""
        if self.limits.code_guesses:
            now = clock()
            self._state(address, now).guesses.take(now)

    def counts(self) -> dict[str, int]:
        return {
            "addresses": len(self._addresses),
            "refused": self.refused,
            "turned_away": self.turned_away,
            "closed": self.closed,
            "guesses_refused": self.guesses_refused,
        }


__all__ = [
    "CLOSE",
    "COSTS",
    "GUARD_STATE",
    "NO_LIMITS_ENV",
    "OK",
    "REFUSE",
    "Bucket",
    "Guard",
    "Limits",
    "Ticket",
]
