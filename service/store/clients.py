"""Redis clients for the store and the job queue: a plain server or a Redis Cluster.

The store runs on either (every key of a game shares its hash tag, and so do the index's and
each counter shard's); which one is a setting, `BATAYO_REDIS_CLUSTER`, checked against what the
server says it is, so a cluster without the flag (every create a MOVED error) or the flag
without a cluster refuses to start with a clear message. The job queue (RQ) always needs a
plain Redis: RQ moves jobs between lists with multi-key commands a cluster refuses.
"""

from __future__ import annotations

import logging
import select
from typing import Any

import redis
from gevent import monkey
from redis.backoff import ExponentialBackoff, NoBackoff
from redis.cluster import ClusterNode, RedisCluster
from redis.exceptions import RedisClusterException
from redis.retry import Retry

from ..settings import masked_urls, redis_nodes

log = logging.getLogger(__name__)

# With maintenance notifications on ("auto", the default of recent redis-py: 8.1 here), its pool
# no longer discards a connection holding an unread reply, so the next command could read it
# as its own. They are a Redis Enterprise feature; off, the pool checks every connection again.
try:
    from redis.maint_notifications import MaintNotificationsConfig

    _CHECKED = {"maint_notifications_config": MaintNotificationsConfig(enabled=False)}
except ImportError:  # pragma: no cover - older redis-py: its pool always checks
    _CHECKED = {}

Client = redis.Redis | RedisCluster


class StartupError(Exception):
    """The settings and the servers they name do not fit: say what to change, then stop."""


_os_poll = monkey.get_original("select", "poll")  # the system's own, patched or not


class Connection(redis.Connection):
    """redis-py's connection, with two system calls made directly under gevent:

    - the check for unread data when the pool hands it out is a poll that must not wait;
      gevent's cooperative poll, which redis-py gets once gevent has patched the process,
      starts watchers and goes round its loop for it, a measurable share of an action's CPU
      (docs/performance.md#shortcuts-judged-in-paired-runs). Anything but a zero wait, a reply
      already buffered, or a socket with something to read goes to redis-py's own check;
    - a command is first sent with one plain non-blocking `send` (gevent's `sendall` asks the
      kernel for the buffer's size before each write, as service.wsgi_io explains); what did
      not fit, or an error, goes to redis-py's own send, which waits and raises as it does."""

    def can_read(self, timeout: float = 0) -> bool:
        sock, reader = self._sock, getattr(self._parser, "_reader", None)
        if timeout or sock is None or reader is None or reader.has_data():
            return super().can_read(timeout)
        poller = _os_poll()
        poller.register(sock.fileno(), select.POLLIN)
        return bool(poller.poll(0)) and super().can_read(timeout)

    def send_packed_command(self, command: Any, check_health: bool = True) -> None:
        if self._sock is None or isinstance(command, str | bytes):
            return super().send_packed_command(command, check_health)
        if check_health:
            self.check_health()  # before the first byte, as redis-py does
        raw = getattr(self._sock, "_sock", None)  # the non-blocking socket under gevent's
        if raw is None:  # a plain socket (no gevent): redis-py's send is already one call
            return super().send_packed_command(command, check_health=False)
        for i, item in enumerate(command):
            try:
                sent = raw.send(item)
            except OSError:  # it would block, or a real error: redis-py's send raises it
                sent = 0
            if sent < len(item):
                rest = [memoryview(item)[sent:], *command[i + 1 :]]
                return super().send_packed_command(rest, check_health=False)
        return None


def _retry() -> Retry:
    # transient errors (a restart, a failover) are retried with backoff before they surface
    return Retry(ExponentialBackoff(cap=2.0, base=0.05), retries=5)


def cluster_enabled(client: redis.Redis) -> bool | None:
    """Whether a plain client's server is a cluster node (None: it does not answer now)."""
    try:
        return bool(int(client.info("cluster").get("cluster_enabled", 0)))
    except (redis.ConnectionError, redis.TimeoutError):
        return None


def plain(url: str, pool_size: int, wait_s: float, socket_timeout: float, what: str) -> redis.Redis:
    """A client of one server on a blocking pool of `pool_size` connections (a caller that finds
    them all busy waits `wait_s`, then gets a ConnectionError: a 503, never a 500)."""
    # TLS and unix sockets keep redis-py's own connection class, which the URL chooses
    tcp = {"connection_class": Connection} if url.startswith("redis://") else {}
    pool = redis.BlockingConnectionPool.from_url(
        url,
        **tcp,
        **_CHECKED,
        max_connections=pool_size,
        timeout=wait_s,
        socket_timeout=socket_timeout,
        health_check_interval=30,
        retry=_retry(),
        retry_on_error=[redis.ConnectionError, redis.TimeoutError],
    )
    client = redis.Redis(connection_pool=pool)
    enabled = cluster_enabled(client)
    if enabled:
        raise StartupError(
            f"{what} names a Redis Cluster node ({masked_urls(url)}): "
            + (
                "set BATAYO_REDIS_CLUSTER=1 to run the store on the cluster"
                if what == "REDIS_URL"
                else "the job queue needs a plain Redis (RQ cannot run on a cluster)"
            )
        )
    if enabled is None:  # not up yet: requests get 503s until it is, /readyz says not ready
        log.warning("%s (%s) does not answer yet", what, masked_urls(url))
    return client


def cluster(url: str, pool_size: int, wait_s: float, socket_timeout: float) -> RedisCluster:
    """A cluster client from one or more nodes (REDIS_URL, comma-separated: see
    `settings.redis_nodes`): it starts from any one that answers, learns the others and the
    slots, and keeps a blocking pool of `pool_size` connections per node. The first URL gives
    every node's credentials and TLS."""
    first = url.split(",", 1)[0].strip()
    others = [ClusterNode(host, port) for host, port in redis_nodes(url)[1:]]
    try:
        return RedisCluster.from_url(
            first,
            startup_nodes=others,  # redis-py adds the first URL's node, and tries them all
            retry=_retry(),
            require_full_coverage=True,
            connection_pool_class=redis.BlockingConnectionPool,
            max_connections=pool_size,
            timeout=wait_s,
            socket_timeout=socket_timeout,
            health_check_interval=30,
        )
    except RedisClusterException as exc:
        if "not enabled" in str(exc).lower():
            raise StartupError(
                f"BATAYO_REDIS_CLUSTER=1 but REDIS_URL ({masked_urls(url)}) is not a cluster node: "
                "unset BATAYO_REDIS_CLUSTER for a single Redis, or name a node of the cluster"
            ) from None
        raise StartupError(
            f"the Redis Cluster at {masked_urls(url)} is not usable: {exc}"
        ) from None
    except (redis.ConnectionError, redis.TimeoutError) as exc:
        raise StartupError(
            f"the Redis Cluster at {masked_urls(url)} does not answer: {exc}"
        ) from None


def is_cluster(client: Any) -> bool:
    return isinstance(client, RedisCluster)


# what a node connection of a cluster client may be given again (the rest is the client's own)
_NODE_SETTINGS = {
    "socket_timeout",
    "socket_connect_timeout",
    "socket_keepalive",
    "username",
    "password",
    "health_check_interval",
    "client_name",
    *(f"ssl{s}" for s in ("", "_keyfile", "_certfile", "_cert_reqs", "_ca_certs", "_ca_data")),
}


def listener(client: redis.Redis) -> redis.Redis:
    """A plain client like `client` on a connection of its own for pub/sub, with no retries: a
    read that fails reaches its caller at once, which subscribes again when the store answers
    (and a listener closed on purpose ends instead of waiting out the backoff)."""
    pool = client.connection_pool
    kwargs = {**pool.connection_kwargs, "retry": Retry(NoBackoff(), 0)}
    return redis.Redis(
        connection_pool=redis.ConnectionPool(connection_class=pool.connection_class, **kwargs)
    )


def own_pool(client: Client) -> Client:
    """A client like `client` on connections of its own (a blocking reader must never hold one
    of the pool that answers requests)."""
    if isinstance(client, RedisCluster):
        given = client.get_connection_kwargs()
        kwargs = {k: v for k, v in given.items() if k in _NODE_SETTINGS}
        nodes = [ClusterNode(n.host, n.port) for n in client.get_nodes()]
        return RedisCluster(startup_nodes=nodes, retry=_retry(), **kwargs)
    pool = client.connection_pool
    return redis.Redis(
        connection_pool=redis.ConnectionPool(
            connection_class=pool.connection_class, **pool.connection_kwargs
        )
    )
