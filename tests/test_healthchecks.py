"""The containers' health checks, run as compose runs them (`batayo healthcheck
api|worker`): healthy only while the API can take writes and while a worker of this host beats."""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.support.processes import wait_until
from tests.support.redis_server import free_port
from tests.support.serving import BATAYO, Server

pytestmark = [pytest.mark.redis, pytest.mark.slow]


def healthcheck(what: str, env: dict, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [BATAYO, "healthcheck", what, *extra],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_api_healthcheck_follows_readyz(tmp_path, redis_url):
    port = free_port()
    api = Server(
        [BATAYO, "serve", "--port", str(port)], {"REDIS_URL": redis_url}, tmp_path / "api.log", port
    )
    try:
        assert healthcheck("api", {}, "--url", f"http://127.0.0.1:{port}").returncode == 0
    finally:
        api.stop()
    gone = healthcheck("api", {}, "--url", f"http://127.0.0.1:{port}")
    assert gone.returncode == 1 and "not ready" in gone.stderr


def test_the_worker_healthcheck_needs_a_live_worker_of_this_host(tmp_path, redis_url):
    env = {"REDIS_URL": redis_url}
    none = healthcheck("worker", env)
    assert none.returncode == 1 and "no worker" in none.stderr
    with (tmp_path / "worker.log").open("ab") as out:
        worker = subprocess.Popen(
            [BATAYO, "worker"], env={**os.environ, **env}, stdout=out, stderr=subprocess.STDOUT
        )
    try:
        assert wait_until(lambda: healthcheck("worker", env).returncode == 0, 30)
    finally:
        worker.terminate()
        worker.wait(timeout=20)
    assert healthcheck("worker", env).returncode == 1  # a worker that stopped says so to RQ
