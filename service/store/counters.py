"""What the service counts (events appended, actions, bot moves, clocks fired, games created):
this process's Prometheus counters (`/metrics`) and the service's totals in Redis
(`/metrics/service`).

Counts are added up in memory and written in one round trip within a second (and before a read
of the totals, and at exit), into the shard of each game (`metrics:{N}`) so a cluster spreads
them; a read sums the SHARDS hashes and the older unsharded `metrics` hash.
"""

from __future__ import annotations

import atexit
import logging
import random
import threading
import weakref
import zlib

from prometheus_client import CollectorRegistry, Counter

log = logging.getLogger(__name__)

NAMES = {
    "events_appended": "Events appended to game streams",
    "actions": "Actions applied (by seats, bots and clocks)",
    "bot_moves": "Moves played by bots",
    "timers_fired": "Clocks that ran out and acted (move clocks and game clocks)",
    "games_created": "Games created",
    "games_abandoned": "Games ended as abandoned (no new event for their abandon_after_s)",
}

# what this process did, whichever of its stores did it (the API's and its embedded worker's);
# in prometheus_client's multiprocess mode the values live in its files, summed per container
PROCESS = CollectorRegistry()
_DONE = {name: Counter(f"batayo_{name}", doc, registry=PROCESS) for name, doc in NAMES.items()}

SHARDS = 16
LEGACY = "metrics"


def shard(game_id: str | None = None) -> str:
    """The counter hash a write goes to: the game's shard, or any one for a write of no game."""
    n = zlib.crc32(game_id.encode()) % SHARDS if game_id else random.randrange(SHARDS)  # noqa: S311
    return f"metrics:{{{n}}}"


def every_shard() -> list[str]:
    return [LEGACY, *(f"metrics:{{{n}}}" for n in range(SHARDS))]


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


class Tally:
    """The counts this process added and has not written yet."""

    def __init__(self, client, every_s: float = 1.0) -> None:
        self.client = client
        self.every_s = every_s
        self._lock = threading.Lock()
        self._writing = threading.Lock()
        self._pending: dict[str, dict[str, int]] = {}
        self._armed = False
        _TALLIES.add(self)

    def add(self, increments: dict[str, int], game_id: str | None = None) -> None:
        if not increments:
            return
        for field, n in increments.items():
            if field in _DONE:
                _DONE[field].inc(n)
        name = shard(game_id)
        with self._lock:
            into = self._pending.setdefault(name, {})
            for field, n in increments.items():
                into[field] = into.get(field, 0) + n
            if self._armed:
                return
            self._armed = True
        timer = threading.Timer(self.every_s, self.flush)
        timer.daemon = True
        timer.start()

    def flush(self, at_exit: bool = False) -> None:
        """Write what is pending, one shard at a time (a shard that fails is kept for the next try).

        One flush at a time: two threads sharing a cluster client's pipelines race inside
        redis-py, and a pipeline that fails halfway over several nodes cannot say which counts
        landed. Each shard is one key, so its write is one transaction that lands whole or not.
        """
        with self._writing:
            with self._lock:
                pending, self._pending, self._armed = self._pending, {}, False
            failed: dict[str, dict[str, int]] = {}
            for name, fields in pending.items():
                try:
                    pipe = self.client.pipeline(transaction=True)
                    for field, n in fields.items():
                        pipe.hincrby(name, field, n)
                    pipe.execute()
                except Exception as exc:  # a Redis away, or a client closed under it
                    # at exit there is no next write: a Redis gone first is no news then
                    (log.debug if at_exit else log.warning)(
                        "counters not written, kept for the next write: %s", exc
                    )
                    failed[name] = fields
            if failed:
                # kept, and written with the next counts (no timer of its own: a store whose
                # Redis is gone for good does not retry forever)
                with self._lock:
                    for name, fields in failed.items():
                        into = self._pending.setdefault(name, {})
                        for field, n in fields.items():
                            into[field] = into.get(field, 0) + n


_TALLIES: weakref.WeakSet[Tally] = weakref.WeakSet()


@atexit.register
def flush_all() -> None:
    """Write every tally's pending counts now (at exit, and before a test stops its Redis)."""
    for tally in list(_TALLIES):
        try:
            tally.flush(at_exit=True)
        except Exception:
            log.debug("counters lost at exit", exc_info=True)
