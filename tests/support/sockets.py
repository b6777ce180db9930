"""What the game's WebSocket tests share (tests/test_socket.py, tests/test_socket_protocol.py):
a `batayo serve` with short keep-alives and small caps, a game, the socket's URL, a client of
the websockets library, and reading messages until one holds."""

from __future__ import annotations

import json
import time

from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from tests.support import serving
from tests.support.serving import call, serve

ORIGIN = "https://cards.example"
SERVER_ENV = {
    "BATAYO_STREAM_KEEPALIVE_S": "1",  # a pong may come late on a loaded machine
    "BATAYO_STREAM_BACKLOG": "2",
    "BATAYO_CORS_ORIGINS": ORIGIN,
    "BATAYO_STREAMS_PER_CLIENT": "6",
    "BATAYO_CAP_LOOPBACK": "1",  # the tests' client is on loopback, which is not counted
    "BATAYO_HEADER_TIMEOUT_S": "1",  # never cuts an open socket
    "BATAYO_RATE_LIMIT_TOKEN": "0",
}


def module_server(tmp_path_factory):
    """`batayo serve` with `SERVER_ENV`, for a module's tests (each module makes it its `server`
    fixture)."""
    s = serve(tmp_path_factory.mktemp("socket"), SERVER_ENV)
    yield s
    s.stop()


def new_game(port: int, rounds: int = 10_000) -> tuple[str, dict[int, str]]:
    """tests/support/serving.py's game, long enough that no socket test reaches its end."""
    return serving.new_game(port, rounds)


def socket_url(port: int, gid: str, query: str = "") -> str:
    return f"ws://127.0.0.1:{port}/v1/games/{gid}/socket{query}"


def open_socket(port: int, gid: str, token: str | None = None, query: str = "", **kw):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    ws = connect(socket_url(port, gid, query), additional_headers=headers, open_timeout=10, **kw)
    return ws.__enter__()  # held across calls, closed by each test


def until(ws, test, timeout: float = 10) -> list[dict]:
    """Messages until `test(message)` holds (that one included)."""
    out: list[dict] = []
    deadline = time.monotonic() + timeout
    while True:
        message = json.loads(ws.recv(timeout=max(0.01, deadline - time.monotonic())))
        out.append(message)
        if test(message):
            return out


def events_of(port: int, gid: str, token: str | None = None) -> list[dict]:
    status, page, _ = call(port, "GET", f"/v1/games/{gid}/events?limit=1000", token=token)
    assert status == 200
    return page["events"]


def opens(port: int, gid: str) -> bool:
    """Whether a spectator's socket of the game opens (not refused by a cap)."""
    try:
        open_socket(port, gid).close()
        return True
    except InvalidStatus:
        return False
