"""docker-compose.yml: Compose accepts it, and it is the production shape of the service:
HAProxy in front of `--scale api=N`, health checks that mean something, durable AOF, pinned
images, a lock file for the image, and a wheel that carries its static files and spec."""

from __future__ import annotations

import contextlib
import json
import os
import pydoc
import runpy
import shutil
import socket
import subprocess
import sys
import threading
import tomllib
import zipfile
from pathlib import Path

import pytest
import yaml
from gunicorn.workers.ggevent import GeventWorker

COMPOSE = Path(__file__).resolve().parent.parent / "docker-compose.yml"
ROOT = COMPOSE.parent
DOCKERFILE = ROOT / "Dockerfile"
HAPROXY_CFG = ROOT / "deploy" / "haproxy.cfg"
LOCK = ROOT / "requirements.lock"


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
        if os.environ.get("CI") or os.environ.get("BATAYO_REQUIRE_TOOLS"):
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
    # every acknowledged move on disk before its answer (docs/operations.md states the cost)
    assert redis["command"][redis["command"].index("--appendfsync") + 1] == "always"
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
    worker = pydoc.locate(conf["worker_class"])  # streams hold no thread: a gevent worker
    assert issubclass(worker, GeventWorker)
    assert all(services[name].get("init") for name in ("api", "worker"))  # signals forwarded
    assert services["worker"]["command"] == ["batayo", "worker"]  # RQ with its scheduler
    for name in ("api", "worker"):
        assert services[name]["depends_on"]["redis"]["condition"] == "service_healthy"


def services() -> dict:
    return yaml.safe_load(COMPOSE.read_text())["services"]


def _required(tool: str) -> None:
    """Skip without `tool`, unless CI (or BATAYO_REQUIRE_TOOLS) says it must be there."""
    if os.environ.get("CI") or os.environ.get("BATAYO_REQUIRE_TOOLS"):
        pytest.fail(f"CI installs {tool}: it must run this check")
    pytest.skip(f"{tool} is not installed")


def test_haproxy_accepts_its_config():
    """The load balancer's own config test (Debian's haproxy, as the image's)."""
    haproxy = shutil.which("haproxy") or (
        "/usr/sbin/haproxy" if Path("/usr/sbin/haproxy").exists() else None
    )
    if haproxy is None:
        _required("haproxy")
    checked = subprocess.run(
        [haproxy, "-c", "-f", str(HAPROXY_CFG)], capture_output=True, text=True, timeout=60
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_api_scales_behind_the_load_balancer():
    """`--scale api=N` works: no replica binds a host port, the balancer does and
    sends to every `api` replica whose /readyz answers; api and worker are health-checked."""
    found = services()
    assert "ports" not in found["api"] and found["lb"]["ports"] == ["8000:8000"]
    assert found["lb"]["depends_on"]["api"]["condition"] == "service_healthy"
    mount = next(v for v in found["lb"]["volumes"] if v.startswith("./deploy/haproxy.cfg:"))
    assert mount.split(":")[1] == "/usr/local/etc/haproxy/haproxy.cfg"
    cfg = HAPROXY_CFG.read_text()
    assert "server-template api" in cfg and "api:8000" in cfg and "resolvers docker" in cfg
    assert "option httpchk GET /readyz" in cfg and "option forwardfor" in cfg
    # the API believes X-Forwarded-For from the balancer's own fixed address, no one else's
    balancer = found["lb"]["networks"]["front"]["ipv4_address"]
    assert found["api"]["environment"]["BATAYO_TRUSTED_PROXIES"] == balancer
    assert "front" in found["api"]["networks"]
    assert found["api"]["healthcheck"]["test"] == ["CMD", "batayo", "healthcheck", "api"]
    assert found["worker"]["healthcheck"]["test"] == ["CMD", "batayo", "healthcheck", "worker"]
    # the timeouts let an event stream live: keep-alives every 15 s
    assert "timeout server 60s" in cfg and "timeout tunnel 65m" in cfg


def test_every_replica_and_worker_share_one_archive():
    """A finished game archived by a worker's sweep is read by any api
    replica, so both name the same archive, on one volume."""
    services = yaml.safe_load(COMPOSE.read_text())["services"]
    urls = {services[name]["environment"]["BATAYO_ARCHIVE_URL"] for name in ("api", "worker")}
    assert len(urls) == 1
    (url,) = urls
    for name in ("api", "worker"):
        assert any(v.split(":")[1] == url for v in services[name]["volumes"])


def test_every_image_is_pinned_to_a_version():
    """Pinned images (a full version, never a moving tag such as 7-alpine)."""
    images = [s["image"] for s in services().values() if "image" in s]
    base = next(
        line.split()[1] for line in DOCKERFILE.read_text().splitlines() if line.startswith("FROM")
    )
    for image in [*images, base]:
        tag = image.split(":", 1)[1]
        assert tag.split("-")[0].count(".") == 2, image  # major.minor.patch


def test_the_image_installs_the_lock_then_the_project_alone():
    """A lock file for the image: every dependency of pyproject.toml pinned (==) at
    a version its requirement accepts, installed before the project, which adds nothing."""
    from packaging.requirements import Requirement

    pins = {}
    for line in LOCK.read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version, f"not pinned: {line}"
            pins[name.lower().replace("_", "-")] = version
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for raw in project["dependencies"]:
        req = Requirement(raw)
        name = req.name.lower().replace("_", "-")
        assert name in pins, f"{name} is not in requirements.lock"
        assert req.specifier.contains(pins[name], prereleases=True), (name, pins[name])
        for extra in req.extras:  # gunicorn[gevent]
            assert extra in pins
    steps = [line for line in DOCKERFILE.read_text().splitlines() if line.startswith("RUN pip")]
    assert "-r requirements.lock" in steps[0] and "--no-deps ." in steps[1]


def test_the_redis_healthcheck_fails_while_redis_is_loading(tmp_path, redis_server):
    """`redis-cli ping` exits 0 on a Redis still loading its AOF; the healthcheck
    must not: it passes on a Redis that answers PONG and fails on one that answers LOADING."""
    if shutil.which("redis-cli") is None:
        _required("redis-cli")
    test = services()["redis"]["healthcheck"]["test"]
    assert test[0] == "CMD-SHELL"

    def health(port: int) -> int:
        command = test[1].replace("redis-cli", f"redis-cli -h 127.0.0.1 -p {port}")
        return subprocess.run(["sh", "-c", command], capture_output=True, timeout=30).returncode

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]

        def loading() -> None:  # a Redis reading its AOF: every command gets LOADING
            with contextlib.suppress(OSError):
                while True:
                    conn, _ = listener.accept()
                    with conn:
                        conn.recv(1024)
                        conn.sendall(b"-LOADING Redis is loading the dataset in memory\r\n")

        threading.Thread(target=loading, daemon=True).start()
        assert health(port) != 0
    assert health(redis_server.port) == 0


@pytest.mark.slow
def test_the_wheel_carries_the_static_files_and_the_spec(tmp_path):
    """The built wheel carries service/web/static and openapi.yaml (the pages 404
    outside the source folder otherwise), and the ladder's results (the bots' strength that
    GET /v1/rules shows, from service/ladder/ outside the source folder)."""
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(ROOT), "-w", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = tmp_path.glob("batayo-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    folder = ROOT / "service/web/static"  # the card faces too (static/cards/)
    static = {
        f"service/web/static/{p.relative_to(folder)}" for p in folder.rglob("*") if p.is_file()
    }
    assert static and static <= names
    assert "service/openapi.yaml" in names
    with zipfile.ZipFile(wheel) as z:
        assert z.read("service/openapi.yaml") == (ROOT / "openapi.yaml").read_bytes()
        ladder = sorted((ROOT / "bench/results").glob("ladder-*.json"))
        assert ladder
        for result in ladder:
            assert z.read(f"service/ladder/{result.name}") == result.read_bytes()
