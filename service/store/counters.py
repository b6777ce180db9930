"""The service-wide counters that /metrics shows, sharded so no one key takes every append.

Each append adds to the shard of its game (`metrics:{N}`, N from the game id), so on a Redis
Cluster the counters' writes spread over the nodes like the games do; a read sums the SHARDS
hashes (a fixed number of keys: the cost does not grow with the games stored). The unsharded
`metrics` hash of older versions is summed in too, so no count is lost on an upgrade.
"""

from __future__ import annotations

import random
import zlib

SHARDS = 16
LEGACY = "metrics"


def shard(game_id: str | None = None) -> str:
    """The counter hash a write goes to: the game's shard, or any one for a write of no game."""
    n = zlib.crc32(game_id.encode()) % SHARDS if game_id else random.randrange(SHARDS)  # noqa: S311
    return f"metrics:{{{n}}}"


def every_shard() -> list[str]:
    return [LEGACY, *(f"metrics:{{{n}}}" for n in range(SHARDS))]


def add(pipe, increments: dict[str, int], game_id: str | None = None) -> None:
    """Queue the increments on `pipe` (a pipeline of any client)."""
    name = shard(game_id)
    for field, n in increments.items():
        pipe.hincrby(name, field, n)


def total(client) -> dict[str, int]:
    """Every counter summed over its shards."""
    pipe = client.pipeline(transaction=False)
    for name in every_shard():
        pipe.hgetall(name)
    sums: dict[str, int] = {}
    for found in pipe.execute():
        for field, value in found.items():
            sums[field.decode()] = sums.get(field.decode(), 0) + int(value)
    return sums
