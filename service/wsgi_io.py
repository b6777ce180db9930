"""Reading requests and writing answers under gevent with less CPU: one system call per write
where one is enough, and the request's header fields parsed in one pass.

gevent's `sendall` asks the kernel for the socket's send buffer size (a `getsockopt`) before
every write, to cut large payloads in chunks; for the small writes this service makes (an
answer of a few KiB, an event frame on a stream) that doubles the system calls, and in a
fan-out to thousands of streams it was a sixth of the worker's CPU (py-spy). `OneSend` tries a
plain non-blocking `send` first and hands only what did not fit to gevent's `sendall`, which
waits for the socket and keeps its error handling.

`RequestHeaders` parses the header fields: gevent's default goes through http.client and the
email package, about a twentieth of an action's server CPU (py-spy), for what is a list of
name-value pairs. It keeps http.client's limits and refuses what RFC 9112 says a server must
refuse (whitespace before the colon, a line with no colon); an obsolete folded line is joined
with one space.

`DATE` makes the `Date` field once a second instead of once an answer.

`Worker` is gunicorn's gevent worker running gevent's own WSGI server (headers and body in one
write) with this handler: `worker_class` in gunicorn.conf.py.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import BinaryIO

from gevent import pywsgi
from gunicorn.workers.ggevent import GeventPyWSGIWorker, PyWSGIHandler

from .core.clock import EverySecond

MAX_LINE = 65536  # http.client's limits, which gevent's parser had
MAX_FIELDS = 100
_END = (b"\r\n", b"\n", b"")


class RequestHeaders:
    """A request's header fields, as gevent's handler (and gunicorn's access log) reads them.
    `status` is empty, or says why the request is refused (gevent answers 400)."""

    __slots__ = ("fields", "status")

    def __init__(self, fp: BinaryIO, *_: object) -> None:
        self.status = ""
        self.fields: list[tuple[str, str]] = []
        while (line := fp.readline(MAX_LINE + 1)) not in _END:
            if len(line) > MAX_LINE:
                self.status = "Line too long"
                return
            text = line.decode("latin-1").rstrip("\r\n")
            if text[:1] in (" ", "\t") and self.fields:  # obs-fold: one space (RFC 9112 5.2)
                name, value = self.fields[-1]
                self.fields[-1] = (name, f"{value} {text.strip()}".strip())
                continue
            name, colon, value = text.partition(":")
            if not colon or not name or name != name.strip():
                self.status = "Invalid header line"
                return
            if len(self.fields) == MAX_FIELDS:
                self.status = "Too many headers"
                return
            self.fields.append((name, value.strip(" \t")))

    def get(self, name: str, default: str | None = None) -> str | None:
        name = name.lower()
        for key, value in self.fields:
            if key.lower() == name:
                return value
        return default

    getheader = get

    def __contains__(self, name: str) -> bool:
        return self.get(name) is not None

    def __delitem__(self, name: str) -> None:
        name = name.lower()
        self.fields = [(k, v) for k, v in self.fields if k.lower() != name]

    def items(self) -> list[tuple[str, str]]:
        return list(self.fields)

    @property
    def headers(self) -> Iterator[str]:
        """The fields as lines, which gevent turns into the environ's `HTTP_*` keys."""
        for key, value in self.fields:
            yield f"{key}: {value}\r\n"

    @property
    def typeheader(self) -> str | None:
        return self.get("content-type")


# the `Date` field (RFC 9110 5.6.7), made once a second: gevent formats the clock for every
# answer, 2% of an action's server CPU (py-spy)
DATE = EverySecond(pywsgi.format_date_time)


class OneSend(pywsgi.WSGIHandler):
    MessageClass = RequestHeaders

    def finalize_headers(self) -> None:
        if self.provided_date is None:  # the application gave none: this second's
            self.response_headers.append((b"Date", DATE(int(time.time()))))
            self.provided_date = True
        super().finalize_headers()

    def _sendall(self, data) -> None:
        raw = getattr(self.socket, "_sock", None)  # the non-blocking socket under gevent's
        sent = 0
        if raw is not None:
            try:
                sent = raw.send(data)
            except OSError:  # would block, or a real error: gevent's path raises it properly
                sent = 0
        if sent == len(data):
            self.response_length += sent
            return
        super()._sendall(memoryview(data)[sent:] if sent else data)
        self.response_length += sent


class Handler(OneSend, PyWSGIHandler):
    """gunicorn's handler (its access log) with one send per write."""

    def log_request(self) -> None:
        if getattr(self.server.log, "access_log_enabled", True):  # gunicorn's own test
            super().log_request()


class Worker(GeventPyWSGIWorker):
    wsgi_handler = Handler
