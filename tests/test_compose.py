"""docker-compose.yml: Compose accepts it, and it is the production shape of issue 6."""

from __future__ import annotations

import json
import os
import runpy
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

COMPOSE = Path(__file__).resolve().parent.parent / "docker-compose.yml"
DOCKERFILE = COMPOSE.parent / "Dockerfile"


def compose_command() -> list[str] | None:
    docker = shutil.which("docker")
    if (
        docker
        and subprocess.run([docker, "compose", "version"], capture_output=True).returncode == 0
    ):
        return [docker, "compose"]
    legacy = shutil.which("docker-compose")
    return [legacy] if legacy else None


def test_compose_accepts_the_file():
    command = compose_command()
    if command is None:
        if os.environ.get("CI"):
            pytest.fail("CI installs docker-compose: it must check the file")
        pytest.skip("neither `docker compose` nor `docker-compose` is installed")
    checked = subprocess.run(
        [*command, "-f", str(COMPOSE), "config", "-q"], capture_output=True, text=True, timeout=60
    )
    assert checked.returncode == 0, checked.stderr


def test_redis_persists_the_api_streams_and_workers_schedule():
    services = yaml.safe_load(COMPOSE.read_text())["services"]
    redis = services["redis"]
    assert "--appendonly" in redis["command"] and "healthcheck" in redis
    assert any(v.endswith(":/data") for v in redis["volumes"])
    dockerfile_cmd = next(
        json.loads(line[4:])
        for line in DOCKERFILE.read_text().splitlines()
        if line.startswith("CMD ")
    )  # exec form (a JSON list), so gunicorn is PID 1 and gets the stop signal
    assert (
        services["api"]["command"]
        == dockerfile_cmd
        == [*("gunicorn", "-c", "gunicorn.conf.py", "service.wsgi:app")]
    )
    conf = runpy.run_path(str(COMPOSE.parent / "gunicorn.conf.py"))
    assert conf["worker_class"].startswith("gevent")  # streams hold no thread
    assert all(services[name].get("init") for name in ("api", "worker"))  # signals forwarded
    assert services["worker"]["command"] == ["batayo", "worker"]  # RQ with its scheduler
    for name in ("api", "worker"):
        assert services[name]["depends_on"]["redis"]["condition"] == "service_healthy"
