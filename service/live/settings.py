"""The live streams' settings, from the environment (each read when the app is created).

- `BATAYO_STREAMS_PER_CLIENT`: open streams per client address in one API process (default 32;
  0 turns the cap off). Over it: 429 `too_many_streams`.
- `BATAYO_STREAMS_MAX`: open streams in one API process (default 10,000). Over it: 503
  `streams_full` with `Retry-After`.
- `BATAYO_STREAM_LIFETIME_S`: a stream closes cleanly after this long (default 3,600 s); the
  client resumes with `Last-Event-ID`, which also spreads reconnections over time.
- `BATAYO_STREAM_KEEPALIVE_S`: a comment line after this long without an event (default 15 s;
  sent at the hub's tick, from three quarters of it on), so proxies and clients see an idle
  stream is alive.
- `BATAYO_STREAM_BACKLOG`: how many batches of events a reader may fall behind before its
  stream is closed (default 64): a slow reader costs a bounded amount of memory.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import env

# Below the Redis client's socket timeout (config.SOCKET_TIMEOUT_S), so a follower's blocking
# read never trips the client's own timeout.
FOLLOW_BLOCK_MS = 10_000


@dataclass(frozen=True)
class LiveSettings:
    per_client: int = 32
    per_process: int = 10_000
    lifetime_s: float = 3600.0
    keepalive_s: float = 15.0
    backlog: int = 64
    block_ms: int = FOLLOW_BLOCK_MS

    @classmethod
    def from_env(cls) -> LiveSettings:
        return cls(
            per_client=int(env.number("BATAYO_STREAMS_PER_CLIENT", cls.per_client)),
            per_process=int(env.number("BATAYO_STREAMS_MAX", cls.per_process)),
            lifetime_s=env.number("BATAYO_STREAM_LIFETIME_S", cls.lifetime_s),
            keepalive_s=max(0.05, env.number("BATAYO_STREAM_KEEPALIVE_S", cls.keepalive_s)),
            backlog=max(1, int(env.number("BATAYO_STREAM_BACKLOG", cls.backlog))),
        )
