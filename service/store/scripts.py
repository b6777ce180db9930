"""Lua scripts (and the live followers' reads) sent straight on a pooled connection.

`Script` sends one EVALSHA with redis-py's own pool, connection, retry policy and parser, and
nothing else (in a server, batched by `Pipe`); `Idle` keeps a connection that read its whole
reply for the next call; `command` is the same path for any command (the followers' `XREAD`).
Faults, lost scripts and cluster clients go through redis-py as before:
docs/architecture.md#measured-shortcuts.
"""

from __future__ import annotations

import contextlib
import os
import weakref
from typing import Any

import gevent
import hiredis
import redis
from gevent import monkey
from gevent.event import AsyncResult
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
        self.pipe: Pipe | None = None  # set by `pipe`

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


class Pipe:
    """The script calls that greenlets of this process make in one turn of gevent's loop,
    written in one send on one connection and answered in the order sent (Redis answers a
    connection's commands in order): under load, fewer system calls and fewer wake-ups of
    Redis (docs/architecture.md#measured-shortcuts). `command` is the plain path, one call a
    connection, which a call alone in its turn takes; a batch cut short sends each unanswered
    call again on it, with redis-py's tries (one more in all than the plain path's)."""

    def __init__(self, idle: Idle) -> None:
        self.idle = idle
        self.waiting: list[tuple[bytes, tuple, AsyncResult]] = []
        self.batches = self.calls = 0  # written so far: how much the batching saves

    def call(self, *args: Any) -> Any:
        result = AsyncResult()
        if not self.waiting:  # the first of this turn: the batch goes once the others ran
            gevent.spawn(self._flush)
        self.waiting.append((hiredis.pack_command(args), args, result))
        return result.get()

    def _flush(self) -> None:
        batch, self.waiting = self.waiting, []
        self.batches, self.calls = self.batches + 1, self.calls + len(batch)
        if len(batch) == 1:  # alone in its turn: the plain path, its tries counted the same
            _, args, result = batch[0]
            return _plain(self.idle, args, result)
        try:
            conn = self.idle.take()
        except BaseException:  # no connection: each call meets that on its own
            return self._again(batch)
        answered = 0
        try:
            conn.send_packed_command([b"".join(packed for packed, _, _ in batch)])
            for _, _, result in batch:
                try:
                    result.set(conn.read_response())
                except redis.ResponseError as exc:  # that call's error reply, read whole
                    result.set_exception(exc)
                answered += 1
        except BaseException:  # cut short: replies perhaps under way, never read by another
            conn.disconnect()
            self.idle.pool.release(conn)
            return self._again(batch[answered:])
        self.idle.keep(conn)

    def _again(self, batch: list[tuple[bytes, tuple, AsyncResult]]) -> None:
        for _, args, result in batch:
            gevent.spawn(_plain, self.idle, args, result)


def _plain(idle: Idle, args: tuple, result: AsyncResult) -> None:
    try:
        result.set(command(idle, *args))
    except BaseException as exc:
        result.set_exception(exc)


def pipe(idle: Idle | None) -> Pipe | None:
    """The one `Pipe` of `idle`'s pool in a process whose sockets gevent patched (a server's);
    None elsewhere (threads, the RQ workers, the command line), which keep the plain path."""
    if idle is None or not monkey.is_module_patched("socket"):
        return None
    if idle.pipe is None:
        idle.pipe = Pipe(idle)
    return idle.pipe


class Script:
    def __init__(self, client: Any, source: str) -> None:
        self.registered = client.register_script(source)
        self.script = source
        self.sha = self.registered.sha
        self._idle = direct(client)
        self._pipe = pipe(self._idle)
        self.pipelined = self._pipe is not None

    def __call__(self, keys: list | tuple = (), args: list | tuple = ()) -> Any:
        idle = self._idle
        if idle is not None:
            try:
                if self._pipe is not None:
                    return self._pipe.call("EVALSHA", self.sha, len(keys), *keys, *args)
                return command(idle, "EVALSHA", self.sha, len(keys), *keys, *args)
            except NoScriptError:  # the server lost it: redis-py's script loads it again
                pass
        return self.registered(keys=keys, args=args)


def _sent(conn: redis.Connection, packed: list[bytes]) -> Any:
    conn.send_packed_command(packed)
    return conn.read_response()
