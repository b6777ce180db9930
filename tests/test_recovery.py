"""Workers that never lose a move, with real RQ worker processes and real Redis."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import redis
from rq import Queue

from service.config import Settings, connect
from service.engine import Engine
from service.engine.dispatch import QUEUE
from service.store import Store
from tests.support.processes import outbox, start_worker, wait_until

pytestmark = [pytest.mark.redis, pytest.mark.slow]


def stop(process: subprocess.Popen, sig=signal.SIGTERM) -> None:
    try:
        os.killpg(process.pid, sig)
    except ProcessLookupError:
        return
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def contiguous_and_verified(engine: Engine, gid: str) -> None:
    events = engine.all_events(gid)
    assert [e["version"] for e in events] == list(range(1, len(events) + 1))
    report = engine.verify(gid, None)
    assert report["ok"] or report["status"] == "incomplete", report


@pytest.fixture
def engine(real_redis) -> Engine:
    return Engine(Store(real_redis), outbox(real_redis))


def test_a_game_of_four_bots_finishes(engine, redis_url, tmp_path):
    worker = start_worker(tmp_path / "w.log", redis_url)
    try:
        gid = engine.create(
            {
                "game": "bataille",
                "options": {"players": 4, "max_rounds": 30},
                "seats": [{"bot": "greedy"}, {"bot": "random"}] * 2,
            }
        )["id"]
        assert wait_until(lambda: engine.load(gid)["status"] == "finished", 120)
        contiguous_and_verified(engine, gid)
    finally:
        stop(worker)


def test_a_human_who_never_moves_is_played_for_after_the_move_timeout(engine, redis_url, tmp_path):
    worker = start_worker(tmp_path / "w.log", redis_url)
    try:
        gid = engine.create(
            {
                "game": "bataille",
                "options": {"move_timeout_s": 1},
                "seats": [{"name": "ana"}, {"bot": "random"}],
            }
        )["id"]
        clock_moves = lambda: [e for e in engine.all_events(gid) if e["actor"] == "clock"]  # noqa: E731
        assert wait_until(lambda: len(clock_moves()) >= 2, 30)
        first = clock_moves()[0]
        assert first["type"] == "flipped" and first["data"]["seat"] == 0
        contiguous_and_verified(engine, gid)
    finally:
        stop(worker)


def test_killed_workers_then_a_fresh_worker_and_a_sweep_finish_every_game(
    engine, redis_url, tmp_path
):
    worker = start_worker(tmp_path / "w1.log", redis_url)
    games = [
        engine.create(
            {
                "game": "bataille",
                "options": {"max_rounds": 25},
                "seats": [{"bot": "random"}, {"bot": "greedy"}],
            }
        )["id"]
        for _ in range(3)
    ]
    moved = lambda: all(engine.load(g)["version"] > 3 for g in games)  # noqa: E731
    assert wait_until(moved, 60)  # every game under way
    stop(worker, signal.SIGKILL)  # mid-game, mid-job perhaps
    Queue(QUEUE, connection=engine.store.redis).empty()  # and every queued job lost with it
    assert any(engine.load(g)["status"] == "playing" for g in games)
    worker = start_worker(tmp_path / "w2.log", redis_url)
    try:
        env = {**os.environ, "REDIS_URL": redis_url}
        batayo = Path(sys.executable).parent / "batayo"
        swept = subprocess.run(
            [str(batayo), "sweep"], env=env, capture_output=True, text=True, timeout=60, check=True
        )
        assert "swept" in swept.stdout
        assert wait_until(lambda: all(engine.load(g)["status"] == "finished" for g in games), 120)
        for gid in games:
            contiguous_and_verified(engine, gid)
    finally:
        stop(worker)


def test_the_same_job_enqueued_three_times_appends_once(real_redis, redis_url, tmp_path):
    quiet = Engine(Store(real_redis), None)  # creates without enqueueing anything
    gid = quiet.create({"game": "bataille", "seats": [{"bot": "random"}, {"name": "ana"}]})["id"]
    version = quiet.store.version(gid)
    queue = Queue(QUEUE, connection=real_redis)
    jobs = [queue.enqueue("workers.jobs.bot_moves", gid, version) for _ in range(3)]
    worker = start_worker(tmp_path / "w.log", redis_url)
    try:
        done = lambda: all(j.get_status(refresh=True) == "finished" for j in jobs)  # noqa: E731
        assert wait_until(done, 30)  # all three have run to their end
        assert sorted(j.return_value() for j in jobs) == ["played", "stale", "stale"]
        events = quiet.all_events(gid)
        assert [e["type"] for e in events[version:]] == ["flipped"]  # one move, not three
    finally:
        stop(worker)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_redis(port: int, folder: Path) -> subprocess.Popen:
    process = subprocess.Popen(
        [
            "redis-server",
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(folder),
            "--appendonly",
            "yes",
            "--appendfsync",
            "always",
            "--save",
            "",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    client = redis.Redis(port=port)
    assert wait_until(lambda: _answers(client), 10)
    return process


def _answers(client: redis.Redis) -> bool:
    try:
        return client.ping()
    except redis.ConnectionError:
        return False


def test_every_acknowledged_event_survives_a_redis_crash(tmp_path):
    """appendonly + appendfsync always: an event acknowledged to a client is on disk."""
    port = free_port()
    server = start_redis(port, tmp_path)
    engine = Engine(Store(connect(Settings(redis_url=f"redis://127.0.0.1:{port}/0"))), None)
    try:
        gid = engine.create({"game": "bataille", "seats": [{"name": "ana"}, {"name": "bob"}]})["id"]
        acknowledged = []
        for _ in range(20):
            seat = engine.view(gid, None)["to_move"][0]
            _, state = engine.act(gid, seat, {"type": "flip"})
            acknowledged.append(state["version"])
        before = engine.all_events(gid)
        server.kill()  # a crash: no shutdown, no final save
        server.wait()
        server = start_redis(port, tmp_path)
        after = Engine(Store(connect(Settings(redis_url=f"redis://127.0.0.1:{port}/0"))), None)
        assert after.all_events(gid) == before
        assert after.store.version(gid) >= acknowledged[-1]
        contiguous_and_verified(after, gid)
        # and the service goes on: the restarted server takes the next action
        seat = after.view(gid, None)["to_move"][0]
        after.act(gid, seat, {"type": "flip"})
    finally:
        server.kill()
        server.wait()
