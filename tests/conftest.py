"""Shared fixtures. Hypothesis runs the `ci` profile by default (bounded, no deadline: the
machines are shared and noisy); `HYPOTHESIS_PROFILE=deep` for a long local run.

Real-Redis tests use a server the tests start themselves (`redis_server`), never one a user
may be running: its data is theirs, so each test may empty it."""

from __future__ import annotations

import json
import os
from collections import Counter

import fakeredis
import pytest
import redis
from hypothesis import HealthCheck, settings

from service.store import counters
from tests.support.helpers import COUNTS_DIR
from tests.support.redis_cluster import RedisClusterServers
from tests.support.redis_server import RedisServer
from tests.support.service import Service

# the browser tests' service, browser and pages (module-scoped fixtures)
pytest_plugins = ("tests.support.browser",)

settings.register_profile(
    "ci", max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "deep", max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def _started(start, what: str, errors: tuple[type[Exception], ...]):
    """`start()`, or a skip saying why `what` could not start (`errors`; a failure in CI, which
    requires it)."""
    try:
        return start()
    except errors as exc:
        if os.environ.get("BATAYO_REQUIRE_REDIS"):
            raise
        pytest.skip(f"no {what} for the tests: {exc}")


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory) -> RedisServer:
    """The tests' own Redis server, for the whole run."""
    server = _started(
        lambda: RedisServer(tmp_path_factory.mktemp("redis")),
        "Redis server",
        (FileNotFoundError, RuntimeError),
    )
    yield server
    counters.flush_all()  # the counts of its last tests, before their Redis is gone
    server.stop()


@pytest.fixture
def redis_url(redis_server) -> str:
    # the counts an earlier test's engines still hold are written now, not a second into this
    # test (a tally writes its counts a second after the first): then the server is emptied
    counters.flush_all()
    redis_server.client().flushall()  # the tests' own server: emptied for each test
    return redis_server.url


@pytest.fixture
def real_redis(redis_url) -> redis.Redis:
    return redis.Redis.from_url(redis_url, socket_timeout=30)


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory) -> RedisClusterServers:
    """The tests' own Redis Cluster (three masters on free ports), for the whole run."""
    servers = _started(
        lambda: RedisClusterServers(tmp_path_factory.mktemp("cluster")),
        "Redis Cluster",
        (FileNotFoundError, RuntimeError, redis.RedisError),
    )
    yield servers
    counters.flush_all()
    servers.stop()


@pytest.fixture
def cluster_redis(redis_cluster):
    """A cluster client on the tests' own cluster, emptied for each test (after the counts an
    earlier test's engines still hold are written, as for `redis_url`)."""
    counters.flush_all()
    redis_cluster.flushall()
    client = redis_cluster.client()
    yield client
    client.close()


@pytest.fixture(params=["redis", "cluster"])
def server_redis(request):
    """A real store: a single server, then the cluster (the store and race tests run
    on both)."""
    return request.getfixturevalue("real_redis" if request.param == "redis" else "cluster_redis")


@pytest.fixture(params=["fakeredis", "redis", "cluster"])
def any_redis(request) -> redis.Redis:
    """Each store test runs three times: on fakeredis, on a real server and on a cluster."""
    if request.param == "fakeredis":
        return fakeredis.FakeRedis()
    return request.getfixturevalue("real_redis" if request.param == "redis" else "cluster_redis")


@pytest.fixture
def svc() -> Service:
    """The service in-process on fakeredis (test games allowed), its jobs run on demand."""
    return Service()


def pytest_collection_modifyitems(items) -> None:
    """Every test needs an id of its own: pytest-xdist keys tests by id and would run one of a
    set of equal ids (schemathesis' cases of one test share an id under pytest 9)."""
    shared = [nodeid for nodeid, n in Counter(i.nodeid for i in items).items() if n > 1]
    if shared:
        raise pytest.UsageError(f"tests share an id (xdist would run one of each): {shared[:3]}")


# The reliability tests (fuzzing, leaks, races) record how much they checked; the run prints it.


def _count_files() -> list:
    return sorted(COUNTS_DIR.glob("counts-*.json"))


def pytest_sessionstart(session) -> None:
    if not hasattr(session.config, "workerinput"):  # the run itself, not a pytest-xdist worker
        for path in _count_files():
            path.unlink(missing_ok=True)


def pytest_terminal_summary(terminalreporter) -> None:
    counts: dict = {}
    for path in _count_files():  # each worker's (a file runs in one worker: keys never clash)
        counts.update(json.loads(path.read_text()))
    if counts:
        terminalreporter.write_sep("-", "reliability counts")
        for name, value in sorted(counts.items()):
            terminalreporter.write_line(f"{name}: {value}")
