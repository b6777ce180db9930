"""gunicorn's settings for the API in production (the Docker image runs
`gunicorn -c gunicorn.conf.py service.wsgi:app`; flags on the command line override these).

gevent workers (gevent's WSGI server): each connection is a greenlet, so an open event stream costs a few kilobytes
and no thread, and redis-py cooperates once gevent has patched the standard library (the worker
does it before the app is loaded). Each worker process follows each live game once for all of its
streams and sockets (service/live), passes a player's socket to the worker that owns its game
(service/handoff.py), and tunes its garbage collector once the app is loaded
(service/wsgi_io.py's `collect_less`).
"""

import contextlib
import shutil
import signal
import sys
import tempfile
import threading
from pathlib import Path

from service import handoff
from service.settings import SettingsError, current, share_metrics

try:
    _settings = current()  # the settings checked once, before any worker starts
except SettingsError as exc:
    sys.exit(f"batayo: {exc}")
bind = _settings.bind


def _metrics_folder() -> Path:
    """The workers' metrics files (prometheus_client's multiprocess mode), so that each one's
    /metrics adds up every worker of this server: emptied, since the counts start again."""
    folder = _settings.metrics_dir or Path(tempfile.mkdtemp(prefix="batayo-metrics-"))
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("*.db"):
        stale.unlink()
    return folder


workers = _settings.web_concurrency
# gevent's own HTTP server inside gunicorn's gevent worker: it writes an answer's headers and
# body in one send (gunicorn's parser sends them apart), and service.wsgi_io makes that one
# system call (paired turns in the bench: docs/architecture.md#measured-shortcuts)
worker_class = "service.wsgi_io.Worker"
# streams and requests a worker holds at once: above BATAYO_STREAMS_MAX (10,000 by default), so
# a full worker answers 503 `streams_full` rather than leaving connections unanswered
worker_connections = 12_000
# gevent's WSGI server does not read gunicorn's `keepalive`: BATAYO_HEADER_TIMEOUT_S closes an
# idle keep-alive connection (and one that is slow to send its headers), BATAYO_CONNECTIONS_PER_
# ADDRESS caps one address's connections per worker (service/wsgi_io.py, as in `batayo serve`)
keepalive = 5
timeout = 30
graceful_timeout = 10  # SIGTERM: requests under way get this long; streams end at once
accesslog = None
# gunicorn 25+'s control socket lives in $HOME by default: one path for every gunicorn of the
# user (several on one box would take it from each other) and none for the image's system user
control_socket_disable = True


def on_starting(server):
    """Every stream is a socket: the most open files the system allows (workers inherit it);
    the metrics folder, and the folder of the workers' addresses for passing a player's socket
    to its game's worker (service/handoff.py), which every worker inherits too. Without
    REDIS_URL the store is embedded in one process's data folder: one worker only."""
    import resource

    if _settings.embedded and server.cfg.workers > 1:
        sys.exit(
            f"batayo: {server.cfg.workers} workers share a store: set REDIS_URL (without it the "
            "store is embedded and serves one process: `batayo serve`, or WEB_CONCURRENCY=1)"
        )

    share_metrics(_metrics_folder())
    handoff.share(Path(tempfile.mkdtemp(prefix="batayo-workers-")))

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        with contextlib.suppress(ValueError, OSError):  # an unlimited hard limit: keep soft
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def post_worker_init(worker):
    """SIGTERM also ends every event stream cleanly at once (clients resume with Last-Event-ID),
    so the worker stops as soon as its requests under way are answered."""
    import gevent
    from gevent import monkey

    from service.live import shutdown_all

    previous = signal.getsignal(signal.SIGTERM)

    def on_term(signum, frame):
        if callable(previous):
            previous(signum, frame)  # gunicorn's: stop accepting, finish requests under way
        if monkey.is_module_patched("threading"):  # gevent: the handler runs in its loop
            gevent.spawn(shutdown_all)
        else:
            threading.Thread(target=shutdown_all, daemon=True).start()

    signal.signal(signal.SIGTERM, on_term)


def child_exit(server, worker):
    """A worker that stopped: its counts stay in the sums, its live gauges leave them."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)
    handoff.forget(handoff.shared(), worker.pid)  # its games go to the workers left


def on_exit(server):
    folder = handoff.shared()
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
