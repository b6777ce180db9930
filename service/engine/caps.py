"""Which client addresses the per-client caps count (games in play, open streams).

A caller on loopback is this machine itself: the operator, a benchmark, or a reverse proxy on
the same host that was not declared with BATAYO_TRUSTED_PROXIES (then every user would share
its address, and one cap would lump them all together). The caps exist against one remote
client taking the service for itself, so loopback callers are not counted, unless
BATAYO_CAP_LOOPBACK=1. The rate limits (BATAYO_RATE_LIMIT) count every address alike.
"""

from __future__ import annotations

import ipaddress


def capped(client: str, count_loopback: bool = False) -> bool:
    """Whether the per-client caps count `client` (an address; '' for an unknown one)."""
    if not client:
        return False
    if count_loopback:
        return True
    try:
        return not ipaddress.ip_address(client).is_loopback
    except ValueError:
        return True
