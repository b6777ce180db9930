"""The library internals the service relies on (listed in docs/architecture.md, "Library
internals"), checked to be where the service expects them: a library upgrade that moves one
fails here, naming the module that uses it, before it fails in production. pyproject.toml bounds
each of these libraries above the versions checked."""

from __future__ import annotations

import _socket
import inspect

import pytest


def test_redis_connections_keep_their_socket_and_hiredis_reader():
    """service/store/clients.py `Connection`: `_sock` (the connected socket) and the hiredis
    parser's `_reader` with `has_data()`, read by its `can_read` and `send_packed_command`."""
    import redis

    conn = redis.Connection()
    assert hasattr(conn, "_sock"), "redis.Connection._sock moved: see service/store/clients.py"
    assert hasattr(conn, "_parser"), "redis.Connection._parser moved: service/store/clients.py"
    from redis._parsers import _HiredisParser

    assert "_reader" in inspect.getsource(_HiredisParser.on_connect), (
        "hiredis parser's _reader moved: see service/store/clients.py"
    )
    import hiredis

    assert callable(getattr(hiredis.Reader(), "has_data", None))
    params = inspect.signature(redis.Connection.send_packed_command).parameters
    assert list(params)[:3] == ["self", "command", "check_health"], (
        "redis.Connection.send_packed_command changed: see service/store/clients.py"
    )


def test_gevent_sockets_wrap_the_system_socket_as_sock():
    """service/store/clients.py and service/wsgi_io.py send once on `gevent socket._sock`."""
    from gevent import socket as gsocket

    a, b = gsocket.socketpair()
    try:
        assert isinstance(getattr(a, "_sock", None), _socket.socket), (
            "gevent's socket no longer wraps the system socket as _sock: see service/wsgi_io.py"
        )
    finally:
        a.close()
        b.close()


def test_gevent_pywsgi_handler_sends_through_sendall():
    """service/wsgi_io.py `OneSend` overrides `WSGIHandler._sendall(data)` and
    `finalize_headers`, and reads `provided_date`, `response_headers`, `response_length`."""
    from gevent import pywsgi

    assert list(inspect.signature(pywsgi.WSGIHandler._sendall).parameters) == ["self", "data"]
    source = inspect.getsource(pywsgi.WSGIHandler)
    for name in ("provided_date", "response_headers", "response_length", "def finalize_headers"):
        assert name in source, f"gevent.pywsgi.WSGIHandler lost {name}: see service/wsgi_io.py"


def test_gunicorns_gevent_worker_and_handler_are_where_wsgi_io_takes_them():
    """service/wsgi_io.py subclasses gunicorn's `GeventPyWSGIWorker` (its `wsgi_handler`) and
    `PyWSGIHandler` (its `log_request`)."""
    from gunicorn.workers.ggevent import GeventPyWSGIWorker, PyWSGIHandler

    assert hasattr(GeventPyWSGIWorker, "wsgi_handler")
    assert callable(getattr(PyWSGIHandler, "log_request", None))


def test_rq_queues_enqueue_a_fetched_job_on_a_pipeline():
    """service/engine/dispatch.py `move_retries` puts RQ's due retries back into their queue
    with `Queue._enqueue_job(job, pipeline=...)` (RQ's scheduler's own call)."""
    from rq import Queue

    method = getattr(Queue, "_enqueue_job", None)
    assert method is not None, "rq.Queue._enqueue_job moved: see service/engine/dispatch.py"
    assert "pipeline" in inspect.signature(method).parameters


@pytest.mark.parametrize("name", ["redis", "gevent", "gunicorn", "rq", "hiredis"])
def test_each_library_whose_internals_are_used_is_bounded_above(name):
    import tomllib
    from pathlib import Path

    project = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    declared = [
        d for d in project["project"]["dependencies"] if d.split("[")[0].split(">")[0] == name
    ]
    assert declared and "<" in declared[0], f"{name} needs an upper bound in pyproject.toml"


def test_wsproto_frame_encoder_and_gevent_upgrade_flag():
    """service/live/wsframes.py encodes server frames with wsproto's `FrameProtocol` (shared by
    every socket); service/wsgi_io.py reads gevent's `connection_upgraded` after a 101."""
    from gevent import pywsgi
    from wsproto.frame_protocol import FrameProtocol

    encoder = FrameProtocol(client=False, extensions=[])
    assert bytes(encoder.send_data("{}", True)) == b"\x81\x02{}", (
        "wsproto's FrameProtocol.send_data moved: see service/live/wsframes.py"
    )
    assert bytes(encoder.ping(b"x")) == b"\x89\x01x"
    assert "connection_upgraded" in inspect.getsource(pywsgi.WSGIHandler.finalize_headers), (
        "gevent's connection_upgraded moved: see service/wsgi_io.py"
    )


def test_an_upgraded_connections_reader_is_freed_once_spent():
    """service/wsgi_io.py `Guarded.spend_reader`: gevent's handler holds a connection's buffered
    reader in its `rfile`, its `Input`'s `rfile` and the environ's `wsgi.input` (and the
    takeover holds it): once those let it go, the reader and its 8 KiB buffer are freed."""
    import gc
    import weakref

    import gevent
    from gevent import pywsgi, socket

    from service.wsgi_io import TAKEOVER, Guarded, Server

    freed = []

    def app(environ, start_response):
        _, reader, spend = environ[TAKEOVER]
        held = weakref.ref(reader)
        del reader
        spend()()
        gc.collect()
        freed.append(held() is None)
        start_response("200 OK", [("Content-Length", "0")])
        return [b""]

    class Handler(Guarded, pywsgi.WSGIHandler):
        pass

    server = Server(("127.0.0.1", 0), app, handler_class=Handler, log=None)
    server.start()
    try:
        client = socket.create_connection(("127.0.0.1", server.server_port))
        client.sendall(
            b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: close\r\n\r\n"
        )
        with gevent.Timeout(10):
            answer = client.recv(1024)
        client.close()
    finally:
        server.stop()
    assert answer.startswith(b"HTTP/1.1 200 ") and freed == [True]


def test_an_upgraded_connections_session_runs_once_the_app_has_returned():
    """service/wsgi_io.py `Guarded.handle_one_response`: the session an app leaves in the
    environ (`batayo.upgraded`) runs after the 101 is sent and the app's answer is closed, so a
    waiting socket's greenlet holds none of the app's frames; a plain answer runs nothing."""
    import gevent
    from gevent import pywsgi, socket

    from service.wsgi_io import TAKEOVER, UPGRADED, Guarded, Server

    seen = []

    class Answer(list):
        def close(self):
            seen.append("closed")

    def app(environ, start_response):
        sock = environ[TAKEOVER][0]

        def session():
            seen.append("session")
            sock.sendall(b"after")

        environ[UPGRADED] = session
        upgraded = environ["PATH_INFO"] == "/up"
        start_response("101 Switching Protocols" if upgraded else "200 OK", [])
        return Answer([b""])

    class Handler(Guarded, pywsgi.WSGIHandler):
        pass

    server = Server(("127.0.0.1", 0), app, handler_class=Handler, log=None)
    server.start()
    got = {}
    try:
        for path in ("/up", "/plain"):
            client = socket.create_connection(("127.0.0.1", server.server_port))
            client.sendall(
                b"GET %s HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: close\r\n\r\n"
                % path.encode()
            )
            data = b""
            with gevent.Timeout(10):
                while chunk := client.recv(1024):
                    data += chunk
            client.close()
            got[path] = data
    finally:
        server.stop()
    assert got["/up"].startswith(b"HTTP/1.1 101 ") and got["/up"].endswith(b"after")
    assert got["/plain"].startswith(b"HTTP/1.1 200 ") and not got["/plain"].endswith(b"after")
    assert seen == ["closed", "session", "closed"]


def test_gevent_servers_spawn_and_close_and_sendmsg_gives_0_when_still_full():
    """service/wsgi_io.py serves a connection another worker passed with the server's `_spawn`
    and `do_close`; service/handoff.py sends again when gevent's `sendmsg` gives 0."""
    from gevent import baseserver
    from gevent import socket as gsocket

    for name in ("_spawn", "do_close"):
        assert hasattr(baseserver.BaseServer, name), (
            f"gevent's BaseServer lost {name}: see service/wsgi_io.py"
        )
    assert "return 0" in inspect.getsource(gsocket.socket.sendmsg), (
        "gevent's sendmsg no longer gives 0 when its retry would block: see service/handoff.py"
    )
