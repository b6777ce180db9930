"""The server's clock, in the one format events use (so times compare as strings)."""

from __future__ import annotations

import time

# the second's text, kept: formatting it is most of the cost, and it changes once a second
# (one tuple, so a thread never reads one second's text with another's number)
_second: tuple[int, str] = (-1, "")


def utc_now() -> str:
    """Now, as `2026-01-01T00:00:05.000000Z` (UTC, microseconds)."""
    global _second
    second, ns = divmod(time.time_ns(), 1_000_000_000)
    kept = _second
    if kept[0] != second:
        kept = _second = (second, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second)))
    return f"{kept[1]}.{ns // 1000:06d}Z"
