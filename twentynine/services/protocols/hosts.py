"""Where a contest bot may be called: the operator's allow-list of hosts and networks.

A server takes bot URLs from its players, so it calls only what its
operator names (``TWENTYNINE_BOT_HOSTS``): host names for public addresses,
and addresses or networks for anything else. Private, loopback, link-local,
shared, reserved and multicast addresses (and the IPv6 forms of them) are
refused unless a named network holds them. This module only decides; the
decision is enforced where the connection is made (``outbound``), on the
addresses the host resolved to. It needs nothing beyond the standard
library, so the server's modules that read a URL seat load it anywhere
(the browser's Pyodide too).
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

ENV = "TWENTYNINE_BOT_HOSTS"
_NAME = re.compile(r"^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


class OutboundRefused(Exception):
    """A call the allow-list does not permit; the message says which address and why."""


def _embedded_v4(ip: Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one stands for (mapped, NAT64, 6to4, Teredo), if any."""
    if not isinstance(ip, ipaddress.IPv6Address):
        return None
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    return None


def kind_of(ip: Address) -> str | None:
    """Why an address is not public ("loopback", "private", ...), or None if it is."""
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return kind_of(ip.ipv4_mapped)
    for kind, test in (
        ("unspecified", ip.is_unspecified),
        ("loopback", ip.is_loopback),
        ("link-local", ip.is_link_local),
        ("multicast", ip.is_multicast),
        ("private", ip.is_private),
        ("reserved", ip.is_reserved),
        ("non-public", not ip.is_global),
    ):
        if test:
            return kind
    inner = _embedded_v4(ip)
    if inner is not None:
        through = kind_of(inner)
        if through is not None:
            return f"{through}, through {inner}"
    return None


@dataclass(frozen=True)
class AllowList:
    """Hosts and networks a contest bot may be called at.

    Entries: ``*`` (any host name, public addresses only), a host name
    (``bots.example.org``) or every name under a domain (``*.example.org``),
    both for public addresses, and addresses or networks (``127.0.0.1``,
    ``10.0.0.0/8``, ``::1``), which are allowed whatever their kind and
    whatever name leads to them. ``anywhere``: the caller is the operator
    (the arena on one's own machine); every address goes.
    """

    networks: tuple[Network, ...] = ()
    names: tuple[str, ...] = ()
    any_name: bool = False
    anywhere: bool = False

    @classmethod
    def parse(cls, text: str | None) -> AllowList:
        """Entries separated by commas or spaces; ``ValueError`` names a bad one."""
        networks: list[Network] = []
        names: list[str] = []
        any_name = False
        for raw in re.split(r"[\s,]+", (text or "").strip()):
            entry = raw.strip().lower().rstrip(".")
            if not entry:
                continue
            if entry == "*":
                any_name = True
                continue
            try:
                networks.append(ipaddress.ip_network(entry.strip("[]"), strict=False))
                continue
            except ValueError:
                pass
            if not _NAME.fullmatch(entry):
                raise ValueError(
                    f"{ENV}: {raw!r} is not a host name, an address or a network "
                    "(examples: bots.example.org, *.example.org, 127.0.0.1, 10.0.0.0/8, *)"
                )
            names.append(entry)
        return cls(tuple(networks), tuple(names), any_name)

    def __bool__(self) -> bool:
        return self.anywhere or self.any_name or bool(self.networks or self.names)

    def describe(self) -> str:
        if self.anywhere:
            return "any address"
        parts = (["*"] if self.any_name else []) + list(self.names)
        parts += [str(n) for n in self.networks]
        return ", ".join(parts) or "nowhere"

    def _names_host(self, host: str) -> bool:
        if self.any_name:
            return True
        for name in self.names:
            if name.startswith("*."):
                if host.endswith(name[1:]):
                    return True
            elif host == name:
                return True
        return False

    def refusal(self, host: str, ip: Address) -> str | None:
        """Why ``host`` may not be called at ``ip`` (None: it may)."""
        if self.anywhere or any(ip in n for n in self.networks if n.version == ip.version):
            return None
        mapped = _embedded_v4(ip)
        if mapped is not None and any(mapped in n for n in self.networks if n.version == 4):
            return None
        kind = kind_of(ip)
        if kind is not None:
            return f"{ip} is not a public address ({kind}); this server does not call it"
        if not self._names_host(host_name(host)):
            return f"{host_name(host)} is not among the hosts this server calls"
        return None

    def check_url(self, url: str) -> None:
        """What can be told from the URL alone: ``OutboundRefused`` if it can never pass.

        A host name that an entry names, or that may resolve into a named
        network, passes here; its addresses are checked when it is called.
        """
        if self.anywhere:
            return
        if not self:
            raise OutboundRefused("this server does not seat bots by URL")
        host = host_name(urlsplit(url).hostname or "")
        try:
            ip = ipaddress.ip_address(host)
        except ValueError:
            if not (self.networks or self._names_host(host)):
                raise OutboundRefused(f"{host} is not among the hosts this server calls") from None
            return
        why = self.refusal(host, ip)
        if why is not None:
            raise OutboundRefused(why)


NOWHERE = AllowList()
OPERATOR = AllowList(anywhere=True)


def host_name(host: str) -> str:
    return host.strip("[]").lower().rstrip(".")


__all__ = ["ENV", "NOWHERE", "OPERATOR", "Address", "AllowList", "OutboundRefused", "kind_of"]
