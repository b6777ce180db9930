"""The server's own request-header parser (service/wsgi_io.py) reads what http.client's (gevent's
default) reads, and refuses what RFC 9112 says a server must refuse; on a real server, a request
with bad header lines is a 400, never a 500 or a hang."""

from __future__ import annotations

import email.utils
import gc
import io
import json
import socket
import subprocess
import sys
import time
import weakref
from http import client

import pytest
from gevent import pywsgi

from service import wsgi_io
from service.core.times import EverySecond
from service.wsgi_io import MAX_FIELDS, MAX_LINE, RequestHeaders

from .support.serving import production

BLOCKS = [
    b"Host: x\r\nContent-Type: application/json\r\nContent-Length: 12\r\n\r\nbody",
    b"host: x\r\nAuthorization: Bearer a.b.c\r\nX-Many: 1\r\nX-Many: 2\r\n\r\n",
    b'Accept:   */*  \r\nEmpty:\r\nIf-Match: "1", "2"\r\n\n',
    b"Cookie: a=1\r\nCookie: b=2\r\n\r\n",
    b"X-Latin: caf\xe9\r\n\r\n",
    b"Host: x\r\n",  # the connection ended before the blank line
]


def _theirs(block: bytes) -> list[tuple[str, str]]:
    parsed = client.parse_headers(io.BytesIO(block))
    return [(k, v.strip()) for k, v in parsed.items()]


@pytest.mark.parametrize("block", BLOCKS)
def test_fields_are_http_clients(block):
    ours = RequestHeaders(io.BytesIO(block))
    assert ours.status == "" and ours.items() == _theirs(block)
    theirs = client.parse_headers(io.BytesIO(block))
    for name in ("host", "Content-Type", "CONTENT-LENGTH", "x-many", "missing", "empty"):
        assert ours.get(name) == (theirs.get(name).strip() if name in theirs else None)
    assert ours.typeheader == theirs.get("content-type")
    assert list(ours.headers) == [f"{k}: {v}\r\n" for k, v in _theirs(block)]


def test_the_rest_of_the_stream_is_left_unread():
    fp = io.BytesIO(BLOCKS[0])
    RequestHeaders(fp)
    assert fp.read() == b"body"


def test_deleting_a_field_removes_every_copy():
    ours = RequestHeaders(io.BytesIO(b"Content-Length: 1\r\ncontent-length: 2\r\nA: b\r\n\r\n"))
    del ours["Content-Length"]
    assert ours.items() == [("A", "b")] and "content-length" not in ours


def test_a_folded_line_is_joined_with_one_space():
    ours = RequestHeaders(io.BytesIO(b"X-Long: one\r\n   two\r\n\tthree\r\nY: z\r\n\r\n"))
    assert ours.items() == [("X-Long", "one two three"), ("Y", "z")]


@pytest.mark.parametrize(
    "block, why",
    [
        (b"Host : x\r\n\r\n", "Invalid header line"),  # RFC 9112 5.1: no space before ':'
        (b" Host: x\r\n\r\n", "Invalid header line"),  # a fold with nothing to fold into
        (b"no colon here\r\n\r\n", "Invalid header line"),
        (b": no name\r\n\r\n", "Invalid header line"),
        (b"X: " + b"a" * MAX_LINE + b"\r\n\r\n", "Line too long"),
        (b"".join(b"X-%d: 1\r\n" % i for i in range(MAX_FIELDS + 1)) + b"\r\n", "Too many headers"),
    ],
)
def test_refusals(block, why):
    assert RequestHeaders(io.BytesIO(block)).status == why


def test_the_most_fields_are_taken():
    block = b"".join(b"X-%d: 1\r\n" % i for i in range(MAX_FIELDS)) + b"\r\n"
    assert len(RequestHeaders(io.BytesIO(block)).items()) == MAX_FIELDS


@pytest.fixture(scope="module")
def server(redis_server, tmp_path_factory):
    """The Docker image's command (gunicorn, this handler), on the tests' own Redis."""
    running = production(tmp_path_factory.mktemp("wsgi_io"), redis_server.url)
    yield running.port
    running.stop()


def _raw(port: int, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        out = b""
        while chunk := sock.recv(65536):
            out += chunk
        return out


@pytest.mark.parametrize(
    "headers",
    [b"Host : x\r\n", b"no colon\r\n", b"X: " + b"a" * (MAX_LINE + 10) + b"\r\n"],
)
def test_the_server_answers_bad_header_lines_with_400(server, headers):
    answer = _raw(server, b"GET /healthz HTTP/1.1\r\n" + headers + b"Connection: close\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 400 ")


def test_the_server_reads_a_request_through_it(server):
    answer = _raw(
        server,
        b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Folded: a\r\n b\r\nConnection: close\r\n\r\n",
    )
    assert answer.startswith(b"HTTP/1.1 200 ") and answer.endswith(b'{"status": "ok"}')


def test_the_date_field_is_the_clocks_second_as_gevent_writes_it():
    date = EverySecond(pywsgi.format_date_time)  # as DATE, the server's own
    now = 1_764_600_000
    assert date(now) == pywsgi.format_date_time(now) == b"Mon, 01 Dec 2025 14:40:00 GMT"
    assert date(now) is date(now)  # the same second: the same text, made once
    assert date(now + 1) == b"Mon, 01 Dec 2025 14:40:01 GMT"  # the next second: it moves on
    assert date(now - 4) == pywsgi.format_date_time(now - 4)  # a clock set back as well


def test_every_answer_carries_one_date_field_of_now(server):
    answer = _raw(server, b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    head = answer.split(b"\r\n\r\n", 1)[0].decode().split("\r\n")[1:]
    dates = [line.split(":", 1)[1].strip() for line in head if line.lower().startswith("date:")]
    assert len(dates) == 1
    sent = email.utils.parsedate_to_datetime(dates[0]).timestamp()
    assert abs(sent - time.time()) < 5


@pytest.fixture
def collector():
    """The collector as it was, back after the test."""
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


def test_a_server_collects_less_often_and_still_frees_cycles(collector):
    """What was loaded before is frozen out of the collector's walks, the young generation holds
    more before a collection, and a cycle made afterwards is still freed."""
    gc.unfreeze()
    wsgi_io.collect_less()
    assert gc.get_threshold() == wsgi_io.COLLECTOR_THRESHOLDS
    assert gc.get_freeze_count() > 0
    assert wsgi_io.COLLECTOR_THRESHOLDS[0] > 700  # Python's default

    class Node:
        pass

    cycle = Node()
    cycle.me = cycle
    freed = weakref.ref(cycle)
    del cycle
    gc.collect()
    assert freed() is None


def test_the_app_loads_every_game_before_its_first_request():
    """Importing the games held a worker's loop for over 100 ms in its first request; they now
    load with the app, before the collector's freeze, in a process of their own here."""
    code = (
        "import json, sys, fakeredis\n"
        "from service.engine import Engine\n"
        "from service.engine.dispatch import QueueDispatcher\n"
        "from service.store import Store\n"
        "engine = Engine(Store(fakeredis.FakeRedis()), QueueDispatcher())\n"
        "games = ('bataille', 'batak', 'batayo', 'roylet')\n"
        "loaded = lambda: [f'service.games.{g}' in sys.modules for g in games]\n"
        "before = loaded()\n"
        "from service.api import create_app\n"
        "create_app(engine)\n"
        "print(json.dumps([before, loaded()]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert json.loads(done.stdout) == [[False] * 4, [True] * 4], done.stderr
