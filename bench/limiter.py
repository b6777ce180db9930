"""The rate limiter's counting against the `limits` library's: `python bench/limiter.py`.

The service counts each limited request with one Lua script (service/api/limits.py): one round
trip that returns the count and the window's time left, both needed for the `RateLimit`
headers. `limits` (with `pip install limits`) takes a `hit` and a `get_window_stats` for the
same. Client CPU per count, the median of `--rounds` alternating rounds on a local Redis (its
database `--db`, keys of this bench only, deleted after), as a ratio of the service's own.
An action counts twice (its client and its token).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import uuid
from pathlib import Path

import redis

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.api.limits import Limiter


def per_call_us(call, n: int) -> float:
    start = time.process_time()
    for _ in range(n):
        call()
    return (time.process_time() - start) / n * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="redis://127.0.0.1:6379")
    parser.add_argument("--db", type=int, default=14)
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    try:
        from limits import RateLimitItemPerMinute
        from limits.storage import RedisStorage
        from limits.strategies import FixedWindowRateLimiter
    except ImportError:
        sys.exit("bench/limiter.py needs `pip install limits`")
    url = f"{args.url}/{args.db}"
    client = redis.Redis.from_url(url)
    tag = f"bench-limiter-{uuid.uuid4().hex[:8]}"
    ours = Limiter(client, 60)
    theirs = FixedWindowRateLimiter(RedisStorage(url))
    item = RateLimitItemPerMinute(10**9)

    def with_limits() -> None:
        theirs.hit(item, tag, "b")
        theirs.get_window_stats(item, tag, "b")

    times: dict[str, list[float]] = {"service": [], "limits": []}
    try:
        for _ in range(args.rounds):
            times["service"].append(per_call_us(lambda: ours.count(tag, "a"), args.calls))
            times["limits"].append(per_call_us(with_limits, args.calls))
    finally:
        for name in client.scan_iter(f"*{tag}*"):
            client.delete(name)
    service, lib = (statistics.median(times[k]) for k in ("service", "limits"))
    print(f"service's script: {service:.1f} µs CPU a count")
    print(f"limits hit + get_window_stats: {lib:.1f} µs CPU a count ({lib / service:.2f}x)")
    print(f"an action (two counts) would pay {2 * (lib - service):.0f} µs more")


if __name__ == "__main__":
    main()
