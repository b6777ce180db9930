"""Redis faults, injected on the tests' own real server: a reply lost after the server applied
the command (redis-py then sends it again, as it does in production), a stream rolled back to
an older copy (a failover to a replica that lagged, a restore), the queue's keys lost."""

from __future__ import annotations

import contextlib
import threading

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

# as `service.config.connect` sets up a client for REDIS_URL: transient errors retried 5 times
RETRIES = 5


class LostReplies:
    """Which replies to lose: `arm(marker, times)` loses the next `times` replies to commands
    whose bytes contain `marker` (a script's SHA, a key name). The command itself is applied:
    the reply is read, then the connection dropped, as a network cut after the server wrote."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._armed: list[list] = []  # [marker, times left]
        self.lost = 0

    def arm(self, marker: str | bytes, times: int = 1) -> None:
        with self._lock:
            self._armed.append([marker.encode() if isinstance(marker, str) else marker, times])

    def _take(self, packed: bytes) -> bool:
        with self._lock:
            for armed in self._armed:
                if armed[1] > 0 and armed[0] in packed:
                    armed[1] -= 1
                    self.lost += 1
                    return True
        return False

    def client(self, port: int) -> redis.Redis:
        """A client whose connections lose the armed replies (retried like production's)."""
        faults = self

        class Losing(redis.connection.Connection):
            _lose_next = False

            def send_packed_command(self, command, check_health=True):
                packed = command if isinstance(command, bytes) else b"".join(command)
                if faults._take(packed):
                    self._lose_next = True
                return super().send_packed_command(command, check_health)

            def read_response(self, *args, **kwargs):
                if not self._lose_next:
                    return super().read_response(*args, **kwargs)
                self._lose_next = False
                # the server answered (an error reply is an answer too): lose it
                with contextlib.suppress(redis.ResponseError):
                    super().read_response(*args, **kwargs)
                self.disconnect()
                raise redis.ConnectionError("the reply was lost (injected)")

        pool = redis.ConnectionPool(
            host="127.0.0.1",
            port=port,
            connection_class=Losing,
            socket_timeout=30,
            retry=Retry(NoBackoff(), RETRIES),
            retry_on_error=[redis.ConnectionError, redis.TimeoutError],
        )
        return redis.Redis(connection_pool=pool)


def roll_back(client: redis.Redis, name: str, dumped: bytes) -> None:
    """Put a key back as an older DUMP of it had it (what a lagging replica promoted holds)."""
    client.restore(name, 0, dumped, replace=True)


def lose_queue(client: redis.Redis) -> int:
    """Delete every key of the job queue (RQ's `rq:*`): jobs, schedules, the sweep's chain."""
    names = list(client.scan_iter("rq:*", count=1000))
    if names:
        client.delete(*names)
    return len(names)
