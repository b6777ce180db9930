"""`batayo serve` stops cleanly and fast, its embedded redis-server never outlives it,
one server per data folder; `batayo worker` and the Docker image's command stop within their
grace. Seconds are asserted with a 2x margin (the machine is shared)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest
import redis
from rq import Queue

from service.embedded import executable
from tests.support.processes import wait_until
from tests.support.serving import BATAYO, Stream, call, flip, new_game, production, serve

pytestmark = pytest.mark.slow


def _redis_of(data: Path) -> int:
    """The pid of the running redis-server of this data folder (named in its pid file)."""
    pid = int((data / "redis.pid").read_text())
    assert b"redis-server" in Path(f"/proc/{pid}/cmdline").read_bytes()
    return pid


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/status")
    return not (status.exists() and "State:\tZ" in status.read_text())


def test_sigterm_ends_streams_cleanly_saves_and_exits_0_within_3_s(tmp_path):
    server = serve(tmp_path)
    try:
        _stop_with_sigterm(tmp_path, server)
    finally:
        server.stop()


def _stop_with_sigterm(tmp_path, server) -> None:
    gid, tokens = new_game(server.port)
    flip(server.port, gid, tokens)
    stream = Stream(server.port, f"/v1/games/{gid}/stream")
    stream.read(lambda s: len(s.messages) >= 3)
    store = _redis_of(tmp_path / "data")
    idle = Stream(server.port, "/healthz")  # a keep-alive connection left idle after its answer
    idle.response.read()
    started = time.monotonic()
    server.signal(signal.SIGTERM)
    assert server.process.wait(timeout=6) == 0
    assert time.monotonic() - started < 6  # 3 s, with the margin
    stream.read(timeout=5)
    assert stream.ended  # a clean end: the client resumes with Last-Event-ID
    assert not _alive(store)
    again = serve(tmp_path, name="again")  # the data was saved
    try:
        status, view, _ = call(again.port, "GET", f"/v1/games/{gid}")
        assert status == 200 and view["version"] == 3
    finally:
        again.stop()


def test_a_second_ctrl_c_exits_at_once_and_still_stops_the_store(tmp_path):
    server = serve(tmp_path, {"BATAYO_GRACE_S": "30"})
    try:
        _two_ctrl_c(server, tmp_path)
    finally:
        server.stop()


def _two_ctrl_c(server, tmp_path) -> None:
    store = _redis_of(tmp_path / "data")
    # a request under way (its body still coming) holds the first, graceful stop
    held = socket.create_connection(("127.0.0.1", server.port))
    held.sendall(b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n")
    held.sendall(b"Content-Length: 100\r\n\r\n{")
    time.sleep(0.2)  # let the server read the headers: the request is under way
    server.signal(signal.SIGINT)
    assert wait_until(lambda: "stopping" in server.text(), 10)
    assert server.process.poll() is None  # still waiting for that request
    started = time.monotonic()
    server.signal(signal.SIGINT)
    assert server.process.wait(timeout=4) == 130
    assert time.monotonic() - started < 4
    assert wait_until(lambda: not _alive(store), 10)
    held.close()


def test_a_killed_serve_leaves_no_redis_server(tmp_path):
    server = serve(tmp_path)
    pid = _redis_of(tmp_path / "data")
    server.signal(signal.SIGKILL)
    server.process.wait(timeout=10)
    assert wait_until(lambda: not _alive(pid), 10)


def test_a_stale_redis_server_of_the_folder_is_stopped_by_the_next_start(tmp_path):
    """Whatever left one running (an older batayo, a hand start): its pid file names it."""
    data = tmp_path / "data"
    data.mkdir()
    orphan = subprocess.Popen(
        [executable(), "--port", "0", "--dir", str(data), "--save", ""],
        stdout=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        (data / "redis.pid").write_text(f"{orphan.pid}\n")
        server = serve(tmp_path)
        try:
            assert orphan.wait(timeout=10) is not None  # stopped by the new serve
            assert call(server.port, "GET", "/readyz")[0] == 200
        finally:
            server.stop()
    finally:
        if orphan.poll() is None:
            orphan.kill()
            orphan.wait()


def test_one_server_per_data_folder(tmp_path):
    server = serve(tmp_path)
    try:
        second = subprocess.run(
            [BATAYO, "serve", "--port", "0"],
            env={**os.environ, "BATAYO_DATA_DIR": str(tmp_path / "data"), "REDIS_URL": ""},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert second.returncode != 0
        assert "in use" in second.stderr and str(server.process.pid) in second.stderr
        assert server.answers()  # the first one is untouched
    finally:
        server.stop()


def test_the_production_command_ends_streams_and_stops_within_its_grace(tmp_path, redis_url):
    server = production(tmp_path, redis_url)
    try:
        _stop_production(server)
    finally:
        server.stop()


def _stop_production(server) -> None:
    gid, _ = new_game(server.port)
    stream = Stream(server.port, f"/v1/games/{gid}/stream")
    stream.read(lambda s: len(s.messages) >= 2)
    started = time.monotonic()
    server.signal(signal.SIGTERM)
    stream.read(timeout=10)
    assert stream.ended
    assert server.process.wait(timeout=20) == 0
    assert time.monotonic() - started < 20  # gunicorn's graceful_timeout is 10 s
    assert "Traceback" not in server.text()


def test_ctrl_c_stops_the_production_command_at_once_without_a_traceback(tmp_path, redis_url):
    """Ctrl-C signals the master and its workers together; the master then tells each worker
    to quit too: a worker quits once, and nothing but the stop is logged."""
    server = production(tmp_path, redis_url, {"WEB_CONCURRENCY": "2"})
    try:
        new_game(server.port)
        os.killpg(server.process.pid, signal.SIGINT)  # the terminal's whole foreground group
        assert server.process.wait(timeout=20) == 0
        assert "Shutting down: Master" in server.text()
        assert "Traceback" not in server.text() and "SystemExit" not in server.text()
    finally:
        server.stop()


def test_a_worker_finishes_its_job_on_sigterm_and_exits_within_its_grace(tmp_path, redis_url):
    env = {**os.environ, "REDIS_URL": redis_url, "BATAYO_WORKER_GRACE_S": "5"}
    with (tmp_path / "worker.log").open("ab") as out:
        worker = subprocess.Popen([BATAYO, "worker"], env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        client = redis.Redis.from_url(redis_url)
        job = Queue("batayo", connection=client).enqueue("time.sleep", 1.5)
        assert wait_until(lambda: job.get_status(refresh=True) == "started", 30)
        started = time.monotonic()
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(timeout=10) == 0
        assert time.monotonic() - started < 10  # its grace is 5 s
        assert job.get_status(refresh=True) == "finished"  # the job under way was finished
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
