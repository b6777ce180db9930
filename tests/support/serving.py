"""Real server processes for the live-stream and lifecycle tests: `batayo serve` and the
Docker image's command, on free loopback ports, with their logs in files; and a raw SSE reader
that sees comments, the end of a stream and what came before it."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.support.processes import wait_until
from tests.support.redis_server import free_port

ROOT = Path(__file__).resolve().parents[2]
BATAYO = str(Path(sys.executable).parent / "batayo")


class Server:
    """A server process we started; `stop()` ends it by its pid (and waits)."""

    def __init__(self, command: list[str], env: dict, log: Path, port: int) -> None:
        self.port, self.log = port, log
        with log.open("ab") as out:
            self.process = subprocess.Popen(
                command,
                cwd=ROOT,
                env={**os.environ, **env},
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        if not wait_until(lambda: self.answers() or self.process.poll() is not None, 60):
            self.stop()
            raise RuntimeError(f"the server did not answer: {self.text()}")
        if self.process.poll() is not None:
            raise RuntimeError(f"the server exited: {self.text()}")

    def answers(self) -> bool:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
            conn.request("GET", "/healthz")
            return conn.getresponse().status == 200
        except OSError:
            return False

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def signal(self, signum: int) -> None:
        os.kill(self.process.pid, signum)

    def workers(self) -> list[int]:
        """The pids of the processes the server forked (a gunicorn's workers)."""
        pid = self.process.pid
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def serve(tmp: Path, env: dict | None = None, name: str = "serve") -> Server:
    """`batayo serve` (embedded store in `tmp/data` unless env has REDIS_URL)."""
    port = free_port()
    env = {"BATAYO_DATA_DIR": str(tmp / "data"), "BATAYO_RATE_LIMIT": "0", **(env or {})}
    env.setdefault("REDIS_URL", "")
    return Server([BATAYO, "serve", "--port", str(port)], env, tmp / f"{name}.log", port)


def dockerfile_command() -> list[str]:
    lines = (ROOT / "Dockerfile").read_text().splitlines()
    return next(json.loads(line[4:]) for line in lines if line.startswith("CMD "))


def production(tmp: Path, redis_url: str, env: dict | None = None) -> Server:
    """The Docker image's command, run directly (its executable from this venv)."""
    port = free_port()
    command = dockerfile_command()
    command[0] = str(Path(sys.executable).parent / command[0])
    env = {
        "REDIS_URL": redis_url,
        "BATAYO_BIND": f"127.0.0.1:{port}",
        "WEB_CONCURRENCY": "1",
        "BATAYO_RATE_LIMIT": "0",
        **(env or {}),
    }
    return Server(command, env, tmp / "gunicorn.log", port)


def scrape(port: int, path: str = "/metrics") -> str:
    """A server's metrics, as Prometheus reads them."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", path)
    answer = conn.getresponse()
    assert answer.status == 200
    return answer.read().decode()


def metric(text: str, name: str, labels: str = "") -> float:
    """One sample's value in scraped metrics."""
    pattern = rf"^{re.escape(name)}{re.escape(labels)} ([0-9.e+]+)$"
    found = re.search(pattern, text, re.MULTILINE)
    assert found, f"{name}{labels} missing"
    return float(found.group(1))


def call(
    port: int,
    method: str,
    path: str,
    body: dict | None = None,
    token: str | None = None,
    headers: dict | None = None,
):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = dict(headers or {})
    if body is not None:
        headers["Content-Type"] = "application/json"
    if token:
        headers["Authorization"] = f"Bearer {token}"
    conn.request(method, path, json.dumps(body) if body is not None else None, headers)
    answer = conn.getresponse()
    raw = answer.read()
    conn.close()
    data = json.loads(raw) if raw else None
    return answer.status, data, dict(answer.getheaders())


def new_game(port: int, rounds: int | None = None) -> tuple[str, dict[int, str]]:
    """Two human seats of Bataille (`rounds`: its `max_rounds`, else the default): nothing moves
    until a test acts."""
    body = {"game": "bataille", "seats": [{"name": "a"}, {"name": "b"}]}
    if rounds is not None:
        body["options"] = {"max_rounds": rounds}
    status, created, _ = call(port, "POST", "/v1/games", body)
    assert status == 201, created
    return created["id"], {s["seat"]: s["token"] for s in created["seats"]}


def no_traceback(server: Server) -> None:
    """The server's log holds no traceback and no error line."""
    text = server.text()
    assert "Traceback" not in text and '"level": "error"' not in text, text[-3000:]


def flip(port: int, gid: str, tokens: dict[int, str]) -> dict:
    """One flip by a seat the game awaits; the answer's view."""
    _, view, _ = call(port, "GET", f"/v1/games/{gid}")
    seat = view["to_move"][0]
    status, body, _ = call(port, "POST", f"/v1/games/{gid}/actions", {"type": "flip"}, tokens[seat])
    assert status == 200, body
    return body["game"]


class Stream:
    """One SSE connection read line by line: messages, comments, and whether it ended cleanly
    (the chunked body's last chunk arrived)."""

    def __init__(
        self, port: int, path: str, token: str | None = None, last_id: int | None = None
    ) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        headers = {"Accept": "text/event-stream"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if last_id is not None:
            headers["Last-Event-ID"] = str(last_id)
        self.conn.request("GET", path, headers=headers)
        self.response = self.conn.getresponse()
        self.status = self.response.status
        self.messages: list[dict] = []  # {"id", "event", "data"}
        self.comments = 0
        self.ended = False  # the server closed the body cleanly

    def problem(self) -> dict:
        return json.loads(self.response.read())

    def read(self, until=lambda s: False, timeout: float = 30) -> Stream:
        """Read until `until(self)` holds, the stream ends, or `timeout` passes."""
        self.conn.sock.settimeout(timeout)
        fields: dict = {}
        deadline = time.monotonic() + timeout
        while not until(self) and time.monotonic() < deadline:
            try:
                line = self.response.readline()
            except TimeoutError:
                return self
            if not line:  # the last chunk: a clean end of the body
                self.ended = True
                return self
            line = line.decode().rstrip("\n")
            if not line:
                if "data" in fields:
                    data = json.loads(fields["data"])
                    self.messages.append({**fields, "id": int(fields["id"]), "data": data})
                fields = {}
            elif line.startswith(":"):
                self.comments += 1
            else:
                key, _, value = line.partition(": ")
                fields[key] = value
        return self

    def events(self) -> list[dict]:
        return [m for m in self.messages if m["event"] != "view"]

    def versions(self) -> list[int]:
        return [m["id"] for m in self.events()]

    def close(self) -> None:
        self.conn.close()
