"""Writing answers under gevent with one system call where one is enough.

gevent's `sendall` asks the kernel for the socket's send buffer size (a `getsockopt`) before
every write, to cut large payloads in chunks; for the small writes this service makes (an
answer of a few KiB, an event frame on a stream) that doubles the system calls, and in a
fan-out to thousands of streams it was a sixth of the worker's CPU (py-spy). `OneSend` tries a
plain non-blocking `send` first and hands only what did not fit to gevent's `sendall`, which
waits for the socket and keeps its error handling.

`Worker` is gunicorn's gevent worker running gevent's own WSGI server (headers and body in one
write) with this handler: `worker_class` in gunicorn.conf.py.
"""

from __future__ import annotations

from gevent import pywsgi
from gunicorn.workers.ggevent import GeventPyWSGIWorker, PyWSGIHandler


class OneSend(pywsgi.WSGIHandler):
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


class Worker(GeventPyWSGIWorker):
    wsgi_handler = Handler
