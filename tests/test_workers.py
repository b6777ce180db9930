"""Bots and clocks through real RQ workers on a real Redis server (started by the tests)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from service.dispatch import QUEUE, RQDispatcher
from service.engine import Engine
from service.store import Store
from service.verify import verify
from tests.conftest import REDIS_TEST_URL

pytestmark = [pytest.mark.redis, pytest.mark.slow]


def start_worker() -> subprocess.Popen:
    rq = Path(sys.executable).parent / "rq"
    env = {**os.environ, "REDIS_URL": REDIS_TEST_URL}
    return subprocess.Popen(
        [str(rq), "worker", "--with-scheduler", "--url", REDIS_TEST_URL, QUEUE],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def wait_until(check, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.1)
    return False


@pytest.fixture
def engine(real_redis) -> Engine:
    return Engine(Store(real_redis), RQDispatcher(real_redis), test_games=True)


@pytest.fixture
def worker():
    process = start_worker()
    yield process
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()


def test_a_bot_game_plays_itself_through_rq_jobs(engine, worker):
    created = engine.create(
        {
            "game": "bataille",
            "options": {"max_rounds": 25},
            "seats": [{"bot": "random"}, {"bot": "greedy"}],
        }
    )
    gid = created["id"]
    done = wait_until(lambda: engine.load(gid)["status"] == "finished", timeout=120)
    assert done, worker.stderr.read1().decode() if worker.poll() is not None else "still running"
    events = engine.all_events(gid)
    assert [e["version"] for e in events] == list(range(1, len(events) + 1))
    assert verify(events)["ok"]
    assert {e["actor"] for e in events} >= {"bot", "server"}


def test_a_stale_or_repeated_job_changes_nothing(engine):
    created = engine.create({"game": "bataille", "seats": [{"bot": "random"}, {"name": "ana"}]})
    gid, version = created["id"], created["version"]
    assert engine.bot_move(gid, 0, version) == "played"
    after = engine.store.version(gid)
    for _ in range(3):  # the same job again, and a job for a version long gone
        assert engine.bot_move(gid, 0, version) == "stale"
    assert engine.bot_move(gid, 1, after) == "stale"  # seat 1 is a person, not a bot
    assert engine.store.version(gid) == after
