"""Lua scripts called straight on a pooled connection.

redis-py's path from a registered script to the socket goes through a dozen Python layers
(the script object, `evalsha`, `execute_command`, observability hooks, the packer's argument
checks, the response callbacks): about a tenth of an action's server CPU (py-spy), for one
EVALSHA whose reply is taken as it comes. `Script` sends that EVALSHA with redis-py's own pool,
connection, retry policy and parser, and nothing else:

- a lost connection or a timeout is retried as redis-py retries it (the connection's `Retry`,
  the connection dropped before each new try), so a fault costs the same tries as before, and a
  resent append carries the same command id, so it lands once;
- a server that lost its scripts (a restart, a failover) gets the script through redis-py's
  registered script, which loads it again;
- a cluster client, or any other, keeps redis-py's registered script.

A call that read its whole reply leaves its connection to the next call in the process (`Idle`),
without going through the pool: redis-py's pool records observability metrics and checks the
connection for unread data on every get and release, about a twentieth of an action's server
CPU (py-spy), for a connection known to be clean. A call that failed in any way gives its
connection back to the pool, which checks it as it always does.
"""

from __future__ import annotations

import contextlib
import os
import weakref
from typing import Any

import hiredis
import redis
from redis.exceptions import NoScriptError

KEPT = 8  # clean connections an `Idle` keeps at most; the rest go back to the pool


class Idle:
    """A pool's connections that script calls left clean (their whole reply read), for the
    next call of this process: newest first, at most `KEPT`. After a fork the parent's are
    forgotten (the pool starts afresh in the child too)."""

    def __init__(self, pool: redis.ConnectionPool) -> None:
        self.pool = pool
        self.pid = os.getpid()
        self.conns: list[redis.Connection] = []

    def take(self) -> redis.Connection:
        if self.conns and self._ours():
            with contextlib.suppress(IndexError):  # another thread took the last one
                return self.conns.pop()
        return self.pool.get_connection()

    def keep(self, conn: redis.Connection) -> None:
        if len(self.conns) < KEPT and self._ours():
            self.conns.append(conn)
        else:
            self.pool.release(conn)

    def _ours(self) -> bool:
        if self.pid != os.getpid():
            self.pid, self.conns = os.getpid(), []
            return False
        return True


_IDLE: weakref.WeakKeyDictionary[redis.ConnectionPool, Idle] = weakref.WeakKeyDictionary()


class Script:
    def __init__(self, client: Any, source: str) -> None:
        self.registered = client.register_script(source)
        self.script = source
        self.sha = self.registered.sha
        plain = type(client) is redis.Redis and client.connection is None
        self._idle = _idle(client.connection_pool) if plain else None

    def __call__(self, keys: list | tuple = (), args: list | tuple = ()) -> Any:
        idle = self._idle
        if idle is None:
            return self.registered(keys=keys, args=args)
        packed = [hiredis.pack_command(("EVALSHA", self.sha, len(keys), *keys, *args))]
        conn = idle.take()
        try:
            reply = conn.retry.call_with_retry(
                lambda: _sent(conn, packed), lambda _error: conn.disconnect()
            )
        except NoScriptError:  # its reply read whole: the connection is clean
            idle.keep(conn)
        except BaseException:  # the pool checks it before it is used again
            idle.pool.release(conn)
            raise
        else:
            idle.keep(conn)
            return reply
        return self.registered(keys=keys, args=args)


def _idle(pool: redis.ConnectionPool) -> Idle:
    """The one `Idle` of `pool`, shared by every script on it."""
    idle = _IDLE.get(pool)
    if idle is None:
        idle = _IDLE[pool] = Idle(pool)
    return idle


def _sent(conn: redis.Connection, packed: list[bytes]) -> Any:
    conn.send_packed_command(packed)
    return conn.read_response()
