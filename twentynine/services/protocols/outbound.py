"""Calls to contest bots: the operator's allow-list held at the socket, a deadline, a cap.

A contest bot seated by URL makes our side call an address somebody typed.
On a user's own machine (the arena, the command line) that somebody is the
operator, and any address goes. A server takes URLs from players, so a call
from it is a request forgery waiting to happen (a player seats
``http://127.0.0.1:PORT/admin#`` and the answer shows up in the forfeit). So
a server calls only what its operator names in an ``AllowList`` (``hosts``,
``TWENTYNINE_BOT_HOSTS``), and the list is enforced where the connection is
made, not where the URL is read:

- ``GuardedBackend`` is the network backend of the HTTP client: it resolves
  the host itself, checks every address it got, and connects to a checked
  address. Nothing resolves the name a second time, so an answer that
  changes between a check and the connection (DNS rebinding) cannot slip
  through; TLS still verifies the certificate against the host name.
- Private, loopback, link-local, shared, reserved and multicast addresses
  are refused unless a network the operator named holds them; a public
  address needs a host name (or ``*``) the operator named.
- Every exchange has a deadline (``deadline``): each connect, read and
  write waits only for the time left of it, so a bot that drips its answer
  byte by byte is cut off on time. ``read_capped`` stops reading at a size
  cap. Redirects are never followed and no proxy is used.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import contextvars
import ipaddress
import socket
import ssl
import time
from collections.abc import Iterable, Iterator
from typing import Any

import httpcore
import httpx

from .hosts import ENV, NOWHERE, OPERATOR, Address, AllowList, OutboundRefused, host_name, kind_of

MAX_ANSWER_BYTES = 16 * 1024  # a contest answer is a few dozen bytes

# The end of the exchange under way in this thread (``time.monotonic``), or None.
_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "twentynine_outbound_deadline", default=None
)
_resolver = concurrent.futures.ThreadPoolExecutor(4, thread_name_prefix="twentynine-resolve")


class AnswerTooLarge(Exception):
    """An answer longer than the cap."""


# ---------------------------------------------------------------------- the deadline


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Every network wait inside ends ``seconds`` from now at the latest (this thread)."""
    token = _deadline.set(time.monotonic() + seconds)
    try:
        yield
    finally:
        _deadline.reset(token)


def _left(timeout: float | None, error: type[Exception]) -> float | None:
    """The time a wait may take: its own timeout, cut to what the deadline leaves."""
    end = _deadline.get()
    if end is None:
        return timeout
    left = end - time.monotonic()
    if left <= 0:
        raise error("the time for this answer is up")
    return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore.NetworkStream):
    """A connection whose every read and write waits no longer than the deadline."""

    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _left(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _left(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        inner = self._inner.start_tls(
            ssl_context, server_hostname, _left(timeout, httpcore.ConnectTimeout)
        )
        return _DeadlineStream(inner)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class GuardedBackend(httpcore.NetworkBackend):
    """Connections only to addresses the allow-list admits, checked after resolution."""

    def __init__(self, hosts: AllowList, inner: httpcore.NetworkBackend | None = None) -> None:
        self.hosts = hosts
        self._inner = inner or httpcore.SyncBackend()

    def resolve(self, host: str, port: int, timeout: float | None) -> list[Address]:
        """The addresses of ``host`` (itself if it is one), every one of them admitted."""
        name = host_name(host)
        try:
            found: list[Address] = [ipaddress.ip_address(name)]
        except ValueError:
            wait = _left(timeout, httpcore.ConnectTimeout)
            job = _resolver.submit(socket.getaddrinfo, name, port, type=socket.SOCK_STREAM)
            try:
                infos = job.result(timeout=wait)
            except concurrent.futures.TimeoutError:
                raise httpcore.ConnectTimeout(f"no address for {name} in time") from None
            except OSError as e:
                raise httpcore.ConnectError(f"cannot resolve {name}: {e}") from None
            found = []
            for info in infos:
                ip = ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])
                if ip not in found:
                    found.append(ip)
        for ip in found:  # one refused address refuses the name: its answers are not trusted
            why = self.hosts.refusal(name, ip)
            if why is not None:
                raise OutboundRefused(why)
        return found

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        error: Exception = httpcore.ConnectError(f"no address for {host}")
        for ip in self.resolve(host, port, timeout):
            try:
                stream = self._inner.connect_tcp(
                    str(ip),
                    port,
                    _left(timeout, httpcore.ConnectTimeout),
                    local_address,
                    socket_options,
                )
            except httpcore.ConnectError as e:
                error = e
                continue
            return _DeadlineStream(stream)
        raise error

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        raise OutboundRefused("a contest bot is called over TCP only")

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class _GuardedTransport(httpx.HTTPTransport):
    """httpx's own transport with its connection pool on a ``GuardedBackend``."""

    def __init__(self, hosts: AllowList) -> None:
        super().__init__(trust_env=False)
        # httpx has no public way to give its pool a network backend (encode/httpx#3749):
        # replace the pool it built, and refuse to run if it has none where expected, so
        # that a later httpx cannot leave the guard out without anyone noticing.
        if not isinstance(getattr(self, "_pool", None), httpcore.ConnectionPool):
            raise RuntimeError("this httpx cannot be guarded: its transport has no pool")
        self._pool = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(trust_env=False),
            max_connections=8,
            max_keepalive_connections=4,
            keepalive_expiry=30.0,
            network_backend=GuardedBackend(hosts),
        )


def guarded_client(base: str, hosts: AllowList) -> httpx.Client:
    """An HTTP client for one bot: the allow-list at the socket, no redirects, no proxy."""
    return httpx.Client(
        base_url=base,
        transport=_GuardedTransport(hosts),
        trust_env=False,
        follow_redirects=False,
        headers={"accept-encoding": "identity"},
    )


def read_capped(response: httpx.Response, limit: int = MAX_ANSWER_BYTES) -> bytes:
    """The body of a streamed response, as sent (no decoding); ``AnswerTooLarge`` past
    ``limit`` bytes, without reading further."""
    declared = response.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise AnswerTooLarge(f"the answer is {int(declared)} bytes long, over {limit}")
    body = bytearray()
    for chunk in response.iter_raw():
        body += chunk
        if len(body) > limit:
            raise AnswerTooLarge(f"the answer is over {limit} bytes long")
    return bytes(body)


__all__ = [
    "ENV",
    "MAX_ANSWER_BYTES",
    "NOWHERE",
    "OPERATOR",
    "Address",
    "AllowList",
    "AnswerTooLarge",
    "GuardedBackend",
    "OutboundRefused",
    "deadline",
    "guarded_client",
    "kind_of",
    "read_capped",
]
