"""Reading requests and writing answers under gevent with less CPU, and keeping slow or greedy
clients from holding the server's connections.

`OneSend` writes with one plain `send` where one is enough, `RequestHeaders` parses the header
fields in one pass, `DATE` makes the `Date` field once a second, `Guarded` bounds the wait for
headers and the connections per address and lets the app take a connection over (a WebSocket),
`Worker` is gunicorn's gevent worker with this handler (its collector tuned by `collect_less`).
Why: docs/architecture.md, "Serving: gevent, no thread per stream" and "Measured shortcuts".
"""

from __future__ import annotations

import functools
import gc
import io
import time
import weakref
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, BinaryIO

import gevent
from gevent import pywsgi
from gunicorn.workers.ggevent import GeventPyWSGIWorker, PyWSGIHandler

from .core.times import EverySecond
from .handoff import Handoff, shared

if TYPE_CHECKING:
    from .settings import Settings

# the collector's thresholds in a server process: a young generation of this many objects before
# a collection, and older ones collected more rarely in proportion (see `collect_less`)
COLLECTOR_THRESHOLDS = (50_000, 20, 100)
REPORT_S = 0.1  # how often a worker tells the others how many games it follows
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
# answer, a measurable share of an action's CPU (docs/performance.md#shortcuts-judged-in-paired-runs)
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


class AddressCap:
    """Open connections per direct peer address; `limit` 0 is no cap. Loopback (unless
    `count_loopback`, the rule of the other per-client caps) and the trusted proxies, whose
    connections carry many clients, are not counted."""

    def __init__(self, limit: int, trusted: Iterable[str] = (), count_loopback: bool = False):
        # imported here, not above: gunicorn's master loads this module (the worker class)
        # before a worker patches the standard library, and the API must load after that
        from .api.proxies import networks

        self.limit, self.count_loopback = limit, count_loopback
        self.ranges = networks(trusted)
        self.open: dict[str, int] = {}

    def counts(self, address: str) -> bool:
        from .api.proxies import trusted
        from .engine.caps import capped

        return (
            self.limit > 0
            and capped(address, self.count_loopback)
            and not trusted(address, self.ranges)
        )

    def enter(self, address: str) -> bool:
        """Whether a new connection from `address` may be served; if so it is counted until
        `leave`. (No greenlet switch can come between the test and the count.)"""
        if not self.counts(address):
            return True
        held = self.open.get(address, 0)
        if held >= self.limit:
            return False
        self.open[address] = held + 1
        return True

    def leave(self, address: str) -> None:
        if self.counts(address):
            held = self.open.pop(address, 0) - 1
            if held > 0:
                self.open[address] = held


class Guard:
    """A server's connection rules: the header-read timeout (0: none) and the address cap;
    `refused` counts the connections the cap turned away (the app's metric, if it has one)."""

    def __init__(self, header_timeout_s: float, cap: AddressCap, refused: Any = None) -> None:
        self.header_timeout_s, self.cap, self.refused = header_timeout_s, cap, refused

    @classmethod
    def of(cls, settings: Settings, app: Any = None) -> Guard:
        from .api.metrics import CONNECTIONS_REFUSED

        cap = AddressCap(
            settings.connections_per_address, settings.trusted_proxies, settings.cap_loopback
        )
        refused = getattr(app, "extensions", {}).get(CONNECTIONS_REFUSED)
        return cls(settings.header_timeout_s, cap, refused)


# what a connection over the cap gets, before anything is read: a client behind a shared
# address (an office, a NAT) learns why and when to come back, where a reset says nothing
_REFUSED_BODY = b"too many connections from your address\n"
REFUSED = (
    b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\n"
    b"Content-Length: %d\r\nRetry-After: 5\r\nConnection: close\r\n\r\n%s"
) % (len(_REFUSED_BODY), _REFUSED_BODY)


# in a request's environ, to upgrade it: (socket, reader, a weak reference to `spend_reader`)
TAKEOVER = "batayo.takeover"
# in its environ, once the app answered 101: the upgraded connection's session, run by the handler
UPGRADED = "batayo.upgraded"
SPENT = io.BytesIO()  # what an upgraded connection's handler reads instead of its reader: nothing


def _peer(address: Any) -> str:
    """The direct peer's IP address ('' for a unix socket's peer)."""
    return address[0] if isinstance(address, tuple) and address else ""


class Guarded(OneSend):
    """The handler of both servers: the header-read timeout and the per-address cap."""

    over_cap = False  # this connection's address held its cap of connections already
    passed_in = False  # another worker accepted it and passed it here
    waited_s = 0.0  # how long its first bytes took to come, of the header timeout
    _headers_due: gevent.Timeout | None = None

    @property
    def guard(self) -> Guard:
        return self.server.guard  # a `Server`'s

    def get_environ(self) -> dict:
        environ = super().get_environ()
        if "HTTP_UPGRADE" in environ:  # only a request asking to upgrade may take it over
            # weakly: the environ is the handler's own, a strong reference would make a cycle
            environ[TAKEOVER] = (self.socket, self.rfile, weakref.WeakMethod(self.spend_reader))
        return environ

    def spend_reader(self) -> None:
        """Let the connection's buffered reader go, with its buffer: an upgraded connection's
        session took what it held and reads the socket itself from then on, and the handler
        reads no request after an upgrade (docs/architecture.md#the-games-websocket)."""
        self.rfile = SPENT
        if self.wsgi_input is not None:
            self.wsgi_input.rfile = SPENT
        environ = getattr(self, "environ", None)
        if environ is not None:
            environ["wsgi.input"] = SPENT
            environ.pop(TAKEOVER, None)

    def handle_one_response(self):
        super().handle_one_response()
        session = self.environ.pop(UPGRADED, None)
        if self.connection_upgraded:  # answered 101: the connection is the app's session's
            self.close_connection = True
            if session is not None:  # here, not in the answer's close: the app's stack is gone
                session()

    def handle(self) -> None:
        cap, peer = self.guard.cap, _peer(self.client_address)
        if not cap.enter(peer):
            self.over_cap = True  # the first handle_one_request answers it and closes
            return super().handle()
        try:
            if self.passed_on():
                self.rfile.close()  # the socket's own descriptor closes with the last reference
                self.socket.close()
            else:
                super().handle()
        finally:
            cap.leave(peer)

    def passed_on(self) -> bool:
        """Whether the connection went to the worker that owns its game (service/handoff.py),
        counted against its address until then, as any connection is while its request comes."""
        passing = self.server.handoff
        if passing is None or self.passed_in:
            return False
        started = time.monotonic()
        head = passing.peek(self.socket)
        self.waited_s = time.monotonic() - started  # the first request's headers had this long
        return head is None or passing.pass_on(self.socket, head, self.waited_s)

    def handle_one_request(self):
        if self.over_cap:
            if self.guard.refused is not None:
                self.guard.refused.inc()
            return ("503", REFUSED)  # gevent's own path for an early answer: sent, then closed
        seconds = self.guard.header_timeout_s
        if not seconds:
            return super().handle_one_request()
        seconds, self.waited_s = max(seconds - self.waited_s, 0.001), 0.0
        # a timer of its own for each request: a stopped timer started again resumes with the
        # time it had left, so one shared by a keep-alive connection's requests would add up
        # their waits and cut a busy connection
        due = self._headers_due = gevent.Timeout(seconds)
        due.start()
        try:
            return super().handle_one_request()
        except gevent.Timeout as timeout:
            if timeout is not due:
                raise
            return None  # close the connection
        finally:
            due.cancel()

    def read_request(self, raw_requestline: str) -> bool:
        try:
            return super().read_request(raw_requestline)
        finally:  # the headers are in (or refused): the body, the answer, a stream take their time
            if self._headers_due is not None:
                self._headers_due.cancel()


class Server(pywsgi.WSGIServer):
    """gevent's WSGI server with the connection rules of `settings` (the process's own by
    default, as in a gunicorn worker); one of several workers passes a player's socket to the
    worker that owns its game (service/handoff.py)."""

    handoff: Handoff | None = None

    def __init__(self, *args: Any, settings: Settings | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if settings is None:
            from .settings import current

            settings = current()
        self.guard = Guard.of(settings, self.application)
        folder = shared()
        if folder is not None and not self.ssl_enabled:  # TLS: the state is this process's
            from .api.metrics import SOCKETS_PASSED

            counted = getattr(self.application, "extensions", {}).get(SOCKETS_PASSED)
            self.handoff = Handoff(folder, wait_s=settings.header_timeout_s, counted=counted)

    def start(self) -> None:
        super().start()
        if self.handoff is not None:
            try:
                self.handoff.listen(self.served_here)
            except OSError:  # another server of this worker listens: this one passes nothing
                self.handoff = None
                return
            extensions = getattr(self.application, "extensions", {})
            engine, hub = extensions.get("batayo.engine"), extensions.get("batayo.live")
            if engine is not None and hub is not None:  # new games go to the least busy worker
                draw = engine.new_game_id
                engine.new_game_id = functools.partial(self.handoff.game_id, draw)
                gevent.spawn(self._report, hub)

    def _report(self, hub: Any) -> None:
        """This worker's count of games, for the others to read, while it serves."""
        while self.handoff is not None and not self.closed:
            self.handoff.report(hub.stats()["games"])
            gevent.sleep(REPORT_S)

    def served_here(self, sock: Any, address: Any, waited_s: float) -> None:
        """A connection another worker passed on, whose request took `waited_s` there so far:
        served as if accepted here."""
        self._spawn(self._serve_and_close, sock, address, waited_s)

    def _serve_and_close(self, sock: Any, address: Any, waited_s: float) -> None:
        try:
            handler = self.handler_class(sock, address, self)
            handler.passed_in = True  # its owner is here: never passed on again
            handler.waited_s = waited_s
            handler.handle()
        finally:
            self.do_close(sock, address)

    def close(self) -> None:
        if self.handoff is not None:
            self.handoff.close()
        super().close()


class Handler(Guarded, PyWSGIHandler):
    """gunicorn's handler (its access log) with one send per write and the connection rules."""

    def log_request(self) -> None:
        if getattr(self.server.log, "access_log_enabled", True):  # gunicorn's own test
            super().log_request()


class Worker(GeventPyWSGIWorker):
    server_class = Server
    wsgi_handler = Handler

    quitting = False

    def run(self) -> None:
        collect_less()  # the app is loaded: what it holds now stays for the worker's life
        super().run()

    def handle_quit(self, sig, frame) -> None:
        """A quick stop, once. Ctrl-C signals the master and its workers at once, and the master
        then sends each worker SIGQUIT: a second quit's exit would land in the interpreter's
        own shutdown and print a traceback."""
        if not self.quitting:
            self.quitting = True
            super().handle_quit(sig, frame)


def collect_less() -> None:
    """Tune the garbage collector of a server whose app is loaded. Its heap is mostly long-lived
    (modules, the app, the games it keeps) and its requests make many short-lived containers,
    which with Python's default thresholds start a young collection every 700 of them and an old
    one that walks the whole heap every 70,000: a share of a live move's CPU and most of its p99
    (docs/performance.md#where-a-socket-moves-cpu-goes). What is loaded is frozen out of the
    collector's walks, and the young generation holds more before it is collected. Cycles are
    still found: nothing the service makes depends on when."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*COLLECTOR_THRESHOLDS)
