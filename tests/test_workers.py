"""Bots and clocks through real RQ workers on a real Redis server (started by the tests)."""

from __future__ import annotations

import subprocess

import pytest

from service.core.game import add_seconds
from service.engine import Engine
from service.store import Store
from tests.support.processes import outbox, start_worker, wait_until

pytestmark = [pytest.mark.redis, pytest.mark.slow]


@pytest.fixture
def engine(real_redis) -> Engine:
    return Engine(Store(real_redis), outbox(real_redis), test_games=True)


@pytest.fixture
def worker(tmp_path, redis_url):
    process = start_worker(tmp_path / "worker.log", redis_url)
    process.log = tmp_path / "worker.log"
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
    assert done, worker.log.read_text()[-3000:]
    events = engine.all_events(gid)
    assert [e["version"] for e in events] == list(range(1, len(events) + 1))
    assert engine.verify(gid, None)["ok"]
    assert {e["actor"] for e in events} >= {"bot", "server"}


def test_a_stale_or_repeated_job_changes_nothing(engine):
    created = engine.create({"game": "bataille", "seats": [{"bot": "random"}, {"name": "ana"}]})
    gid, version = created["id"], created["version"]
    assert engine.bot_moves(gid, version) == "played"
    after = engine.store.version(gid)
    for _ in range(3):  # the same job again, and a job for a version long gone
        assert engine.bot_moves(gid, version) == "stale"
    assert engine.bot_moves(gid, after) == "idle"  # only seat 1, a person, is awaited
    assert engine.store.version(gid) == after


def test_a_timed_batayo_game_ends_on_the_clock(engine, worker):
    """docs/rules/batayo.md#rule-5: "With `time_limit_s`, the clock starts with the first trick.
    When it runs out, a trick under way ... is played to its end ...; then the game stops". The RQ
    scheduler fires the clock; ana never moves, so her move clock plays for her."""
    created = engine.create(
        {
            "game": "batayo",
            "options": {"time_limit_s": 2, "move_timeout_s": 1},
            "seats": [{"name": "ana"}, {"bot": "greedy"}],
        }
    )
    gid = created["id"]
    done = wait_until(lambda: engine.load(gid)["status"] == "finished", timeout=60)
    assert done, worker.log.read_text()[-3000:]
    events = engine.all_events(gid)
    time_up = [e for e in events if e["type"] == "time_up"]
    assert len(time_up) == 1 and time_up[0]["actor"] == "clock"
    started = events[1]["at"]
    assert time_up[0]["at"] >= add_seconds(started, 2)
    assert engine.load(gid)["result"]["reason"] in {"time", "sudden_death", "sudden_death_draw"}
    assert any(e["actor"] == "clock" and e["type"] == "committed" for e in events)
    assert engine.verify(gid, None)["ok"]
