"""The client's address behind trusted reverse proxies.

`BATAYO_TRUSTED_PROXIES` names the proxies by address or CIDR range (service/settings.py). A
request whose direct peer is one of them is taken to come from the address that `X-Forwarded-For`
names last outside the trusted ranges (each proxy appends the peer it saw, so the right-most
untrusted entry is the first one a trusted proxy vouches for). A peer outside the ranges is the
client, whatever its header says: nobody else can name its own address.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def networks(specs: Iterable[str]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(spec, strict=False) for spec in specs)


def trusted(address: str, ranges: tuple[Network, ...]) -> bool:
    """Whether `address` is inside one of `ranges` (False for anything that is not an address)."""
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return False
    return any(ip in net for net in ranges)


def client(peer: str, forwarded: str | None, ranges: tuple[Network, ...]) -> str:
    """The client's address: `peer` unless it is a trusted proxy that forwarded for someone."""
    if not forwarded or not trusted(peer, ranges):
        return peer
    hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
    for hop in reversed(hops):
        if not trusted(hop, ranges):
            try:
                return str(ipaddress.ip_address(hop))
            except ValueError:
                return peer  # a malformed entry: the chain cannot be followed past it
    return hops[0] if hops else peer  # every hop trusted: the first one is the origin


class Forwarded:
    """WSGI middleware: REMOTE_ADDR becomes the client the trusted proxies name."""

    def __init__(self, app, specs: Iterable[str]) -> None:
        self.app = app
        self.ranges = networks(specs)

    def __call__(self, environ, start_response):
        peer = environ.get("REMOTE_ADDR", "")
        environ["REMOTE_ADDR"] = client(peer, environ.get("HTTP_X_FORWARDED_FOR"), self.ranges)
        return self.app(environ, start_response)
