"""Event times: the server's clock, in the one format events use (so times compare as strings)."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from typing import Generic, TypeVar

T = TypeVar("T")


class EverySecond(Generic[T]):
    """A text made from the clock's second (`text(second)`), made once that second: formatting
    is most of what reading a clock as text costs, and it changes once a second. Kept as one
    tuple, so a thread never pairs one second's text with another second's number."""

    def __init__(self, text: Callable[[int], T]) -> None:
        self._text = text
        self._kept: tuple[int, T | None] = (-1, None)

    def __call__(self, second: int) -> T:
        kept = self._kept
        if kept[0] != second:
            kept = self._kept = (second, self._text(second))
        return kept[1]  # type: ignore[return-value] - made for this very second


_DAY_TIME = EverySecond(lambda second: time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second)))


def utc_now() -> str:
    """Now, as `2026-01-01T00:00:05.000000Z` (UTC, microseconds)."""
    second, ns = divmod(time.time_ns(), 1_000_000_000)
    return f"{_DAY_TIME(second)}.{ns // 1000:06d}Z"


def moment(at: str) -> datetime:
    """An event time (`2026-01-01T00:00:05.000000Z`) as an aware datetime."""
    return datetime.fromisoformat(at.replace("Z", "+00:00"))


def at_ms(at: str) -> int:
    """An event time in milliseconds since the epoch."""
    return int(moment(at).timestamp() * 1000)
