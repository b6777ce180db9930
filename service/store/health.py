"""Whether the store can take writes now: what /readyz reports.

A PING is not enough: a Redis still loading its data, out of memory, refusing writes after a
failed save, or a replica answers PING but refuses the append. So the probe writes a short-lived
key on every node that holds games: on a plain server one key, on a cluster one key in a slot of
each primary (the cluster must also say its state is ok).
"""

from __future__ import annotations

import socket

from redis.crc import key_slot

from .clients import Client, is_cluster

PROBE_TTL_MS = 10_000


class NotWritable(Exception):
    """The store cannot take a write now (the reason is the message)."""


def _probe_name(tag: str) -> str:
    return f"readyz:{{{tag}}}"


def _probe_keys(owned: list[range], nodes: int) -> list[str]:
    """One probe key in each node's slots (`owned[i]`: node i's slot ranges, flattened)."""
    wanted, found, n = set(range(nodes)), [], 0
    while wanted and n < 100_000:
        slot = key_slot(_probe_name(str(n)).encode())
        for i in list(wanted):
            if any(slot in r for r in owned[i]):
                wanted.discard(i)
                found.append(_probe_name(str(n)))
        n += 1
    return found


def check(client: Client) -> None:
    """Raise NotWritable (or the client's error) unless every node holding games takes a write."""
    stamp = socket.gethostname()
    if not is_cluster(client):
        client.set(_probe_name("0"), stamp, px=PROBE_TTL_MS)
        return
    state = client.cluster_info().get("cluster_state")
    if str(state) != "ok":
        raise NotWritable(f"the cluster's state is {state}")
    primaries = client.get_primaries()
    slots = client.cluster_slots()  # {(start, end): {'primary': (host, port), ...}}
    owned: list[list[range]] = [[] for _ in primaries]
    for (start, end), holders in slots.items():
        host, port = holders["primary"][:2]
        for i, node in enumerate(primaries):
            if (node.host, node.port) == (host, int(port)):
                owned[i].append(range(int(start), int(end) + 1))
    keys = _probe_keys(owned, len(primaries))
    if len(keys) < len(primaries):
        raise NotWritable("some primary of the cluster holds no slot")
    for name in keys:
        client.set(name, stamp, px=PROBE_TTL_MS)
