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
"""

from __future__ import annotations

from typing import Any

import hiredis
import redis
from redis.exceptions import NoScriptError


class Script:
    def __init__(self, client: Any, source: str) -> None:
        self.registered = client.register_script(source)
        self.script = source
        self.sha = self.registered.sha
        plain = type(client) is redis.Redis and client.connection is None
        self._pool = client.connection_pool if plain else None

    def __call__(self, keys: list | tuple = (), args: list | tuple = ()) -> Any:
        pool = self._pool
        if pool is None:
            return self.registered(keys=keys, args=args)
        packed = [hiredis.pack_command(("EVALSHA", self.sha, len(keys), *keys, *args))]
        conn = pool.get_connection()
        try:
            return conn.retry.call_with_retry(
                lambda: _sent(conn, packed), lambda _error: conn.disconnect()
            )
        except NoScriptError:
            pass
        finally:
            pool.release(conn)
        return self.registered(keys=keys, args=args)


def _sent(conn: redis.Connection, packed: list[bytes]) -> Any:
    conn.send_packed_command(packed)
    return conn.read_response()
