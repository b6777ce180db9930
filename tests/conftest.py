"""Shared fixtures. Hypothesis runs the `ci` profile by default (bounded, no deadline: the
machines are shared and noisy); `HYPOTHESIS_PROFILE=deep` for a long local run."""

from __future__ import annotations

import json
import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "deep", max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


import fakeredis  # noqa: E402
import pytest  # noqa: E402
import redis  # noqa: E402

REDIS_TEST_URL = os.environ.get("REDIS_TEST_URL", "redis://127.0.0.1:6379/15")


def _real_redis() -> redis.Redis:
    client = redis.Redis.from_url(REDIS_TEST_URL, socket_timeout=30)
    try:
        client.ping()
    except redis.ConnectionError:
        if os.environ.get("BATAYO_REQUIRE_REDIS"):
            raise
        pytest.skip(f"no Redis server at {REDIS_TEST_URL}")
    client.flushdb()  # the test database (15 by default) is the tests' own
    return client


@pytest.fixture
def real_redis() -> redis.Redis:
    return _real_redis()


@pytest.fixture(params=["fakeredis", "redis"])
def any_redis(request) -> redis.Redis:
    """Each store test runs twice: on fakeredis and on the real server."""
    if request.param == "fakeredis":
        return fakeredis.FakeRedis()
    return _real_redis()


# The reliability tests (fuzzing, leaks, races) record how much they checked; the run prints it.
from tests.helpers import COUNTS  # noqa: E402


def pytest_sessionstart(session) -> None:
    COUNTS.unlink(missing_ok=True)


def pytest_terminal_summary(terminalreporter) -> None:
    if COUNTS.exists():
        terminalreporter.write_sep("-", "reliability counts")
        for name, value in sorted(json.loads(COUNTS.read_text()).items()):
            terminalreporter.write_line(f"{name}: {value}")
