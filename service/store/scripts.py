"""Lua scripts (and the live followers' reads) sent straight on a pooled connection.

`Script` sends one EVALSHA with redis-py's own pool, connection, retry policy and parser, and
nothing else; `Idle` keeps a connection that read its whole reply for the next call; `command`
is the same path for any command (the followers' blocking `XREAD`). Faults, lost scripts and
cluster clients go through redis-py as before: docs/architecture.md#measured-shortcuts.
"""

from __future__ import annotations

import contextlib
import os
import weakref
from typing import Any

import hiredis
import redis
from redis.exceptions import NoScriptError

KEPT = 32  # clean connections an `Idle` keeps at most, and never more than half its pool


class Idle:
    """A pool's connections that calls left clean (their whole reply read), for the next call
    of this process: newest first. On a blocking pool (the one requests share), at most `KEPT`
    and half the pool's connections, so the other commands on it keep the rest; a pool that
    makes connections on demand (the live followers') keeps all it lends. After a fork the
    parent's are forgotten (the pool starts afresh in the child too)."""

    def __init__(self, pool: redis.ConnectionPool) -> None:
        self.pool = pool
        blocking = isinstance(pool, redis.BlockingConnectionPool)
        most = pool.max_connections
        self.kept = max(1, min(KEPT, most // 2)) if blocking else most
        self.pid = os.getpid()
        self.conns: list[redis.Connection] = []

    def take(self) -> redis.Connection:
        if self.conns and self._ours():
            with contextlib.suppress(IndexError):  # another thread took the last one
                return self.conns.pop()
        return self.pool.get_connection()

    def keep(self, conn: redis.Connection) -> None:
        if len(self.conns) < self.kept and self._ours():
            self.conns.append(conn)
        else:
            self.pool.release(conn)

    def _ours(self) -> bool:
        if self.pid != os.getpid():
            self.pid, self.conns = os.getpid(), []
            return False
        return True


_IDLE: weakref.WeakKeyDictionary[redis.ConnectionPool, Idle] = weakref.WeakKeyDictionary()


def direct(client: Any) -> Idle | None:
    """The one `Idle` of a plain client's pool, shared by every call on it; None for a client
    that keeps redis-py's own path (a cluster, fakeredis, a client on one connection)."""
    if type(client) is not redis.Redis or client.connection is not None:
        return None
    pool = client.connection_pool
    idle = _IDLE.get(pool)
    if idle is None:
        idle = _IDLE[pool] = Idle(pool)
    return idle


def command(idle: Idle, *args: Any) -> Any:
    """One command sent on a connection of `idle`, with redis-py's retries; its reply as hiredis
    parses it (an error reply raised)."""
    packed = [hiredis.pack_command(args)]
    conn = idle.take()
    try:
        reply = conn.retry.call_with_retry(
            lambda: _sent(conn, packed), lambda _error: conn.disconnect()
        )
    except redis.ResponseError:  # an error reply, read whole: the connection is clean
        idle.keep(conn)
        raise
    except BaseException:  # cut short, a reply perhaps under way: never read by another call
        conn.disconnect()
        idle.pool.release(conn)
        raise
    idle.keep(conn)
    return reply


class Script:
    def __init__(self, client: Any, source: str) -> None:
        self.registered = client.register_script(source)
        self.script = source
        self.sha = self.registered.sha
        self._idle = direct(client)

    def __call__(self, keys: list | tuple = (), args: list | tuple = ()) -> Any:
        idle = self._idle
        if idle is not None:
            try:
                return command(idle, "EVALSHA", self.sha, len(keys), *keys, *args)
            except NoScriptError:  # the server lost it: redis-py's script loads it again
                pass
        return self.registered(keys=keys, args=args)


def _sent(conn: redis.Connection, packed: list[bytes]) -> Any:
    conn.send_packed_command(packed)
    return conn.read_response()
