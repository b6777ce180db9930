"""The server's clock: one fixed-width UTC format, so event times compare as strings."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from service.core.times import utc_now

FORMAT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z")


def _instant(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


def test_utc_now_is_now_in_the_event_format():
    before = datetime.now(UTC)
    now = utc_now()
    after = datetime.now(UTC)
    assert FORMAT.fullmatch(now)
    assert before.replace(microsecond=before.microsecond // 1000 * 1000) <= _instant(now) <= after


def test_the_kept_second_follows_the_clock(monkeypatch):
    # 2026-01-01T00:00:05Z, then within that second, the next second, and back (a clock step)
    start = 1_767_225_605 * 1_000_000_000
    readings = iter([start + 999_999_999, start + 1_000_000_000, start + 1_000_001_000, start])
    monkeypatch.setattr("service.core.times.time.time_ns", lambda: next(readings))
    assert [utc_now() for _ in range(4)] == [
        "2026-01-01T00:00:05.999999Z",
        "2026-01-01T00:00:06.000000Z",
        "2026-01-01T00:00:06.000001Z",
        "2026-01-01T00:00:05.000000Z",
    ]
