"""The live streams' settings (declared with every other in service/settings.py, which says
what each does): caps per client and per process, lifetime, keep-alive and backlog."""

from __future__ import annotations

from dataclasses import dataclass

from ..settings import Settings

# Below the Redis client's socket timeout (config.SOCKET_TIMEOUT_S), so a follower's blocking
# read never trips the client's own timeout.
FOLLOW_BLOCK_MS = 10_000


def _default(name: str):
    return Settings.model_fields[name].default


@dataclass(frozen=True)
class LiveSettings:
    per_client: int = _default("streams_per_client")
    per_process: int = _default("streams_max")
    lifetime_s: float = _default("stream_lifetime_s")
    keepalive_s: float = _default("stream_keepalive_s")
    backlog: int = _default("stream_backlog")
    block_ms: int = FOLLOW_BLOCK_MS

    @classmethod
    def of(cls, settings: Settings) -> LiveSettings:
        return cls(
            per_client=settings.streams_per_client,
            per_process=settings.streams_max,
            lifetime_s=settings.stream_lifetime_s,
            keepalive_s=settings.stream_keepalive_s,
            backlog=settings.stream_backlog,
        )
