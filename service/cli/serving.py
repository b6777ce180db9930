"""`batayo serve`: the API on gevent's WSGI server (service.wsgi_io's server and handler, as
in production), and its clean stop.

SIGTERM or Ctrl-C: stop accepting, end the streams cleanly, let requests under way and the
in-process worker finish within the grace, save the embedded store, exit 0. A second signal
stops the embedded store at once (it still saves) and exits 130.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys

import click

from .searchers import Children

log = logging.getLogger("batayo.serve")
MAX_CONNECTIONS = 12_000  # above BATAYO_STREAMS_MAX's default, so a full server answers 503


def _more_open_files() -> None:
    """Every stream is a socket: take the most open files the system allows this process."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def _signing_key(settings) -> None:
    """The quick start (embedded) makes the deployment's signing key if there is none; with
    REDIS_URL every box must read one shared key, made once with `batayo keys init`."""
    from ..engine import keys

    path = settings.signing_key_path
    if settings.embedded:
        try:
            ring, made = keys.init(path)
        except (OSError, ValueError) as exc:
            raise click.ClickException(f"the signing key {path}: {exc}") from None
        click.echo(f"batayo: {'made the' if made else 'the'} signing key {ring.kid} in {path}")
    elif not path.exists():
        click.echo(f"batayo: no signing key at {path}: logs go unsigned (`batayo keys init`)")


def site_url(host: str, port: int) -> str:
    """Where a browser on this machine opens the site: a wildcard host is reached on loopback."""
    if host in ("", "0.0.0.0", "::"):  # noqa: S104 - a name compared, nothing bound
        host = "127.0.0.1"
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}/"


def _searches_off_the_loop(cap_s: float) -> Children:
    """The searching bots' moves (and hints) in child processes: the in-process worker is a
    greenlet on the API's event loop (service/cli/searchers.py says why not a thread), each
    search capped in wall clock as a safety net."""
    from ..core import bots

    children = Children(cap_s=cap_s)
    bots.offload(children)
    return children


def run(host: str, port: int, grace: float) -> None:
    from gevent import monkey

    monkey.patch_all()  # before redis-py, Flask and threading are put to work

    import gevent
    from gevent.pool import Pool

    from .. import logs, wsgi_io
    from ..api import create_app
    from ..config import StartupError, build_engine, stop
    from ..embedded import InUse
    from ..live import shutdown_all
    from ..settings import SettingsError, current, masked_urls

    class Handler(wsgi_io.Guarded):
        """Knows when its connection is idle between requests, so a stop can close it."""

        def read_requestline(self):
            if self.server.stopping:
                return ""
            self.server.idle[self] = gevent.getcurrent()
            try:
                return super().read_requestline()
            finally:
                self.server.idle.pop(self, None)

        def handle_one_response(self):
            if self.server.stopping:
                self.close_connection = True
            return super().handle_one_response()

    class Server(wsgi_io.Server):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            self.idle: dict = {}
            self.stopping = False

        def drain(self) -> None:
            """Stop accepting; end the streams and the idle connections; `serve_forever` then
            waits for the requests under way (up to its stop timeout)."""
            self.stopping = True
            shutdown_all()
            for greenlet in list(self.idle.values()):
                greenlet.kill(block=False)
            self.close()

    logs.setup()
    _more_open_files()
    try:
        settings = current()
    except SettingsError as exc:
        raise click.ClickException(str(exc)) from None
    children = None
    if settings.embedded:
        click.echo(
            f"batayo: no REDIS_URL, so using an embedded store in {settings.data_dir} "
            "and an in-process worker (games are kept across restarts)"
        )
        children = _searches_off_the_loop(settings.strong_move_cap_s)
    else:
        where = masked_urls(settings.redis_url or "")  # never a password in the output
        click.echo(f"batayo: using Redis at {where}; run workers with `batayo worker`")
    if settings.test_games:
        click.echo("batayo: BATAYO_TEST_GAMES=1: fixed seeds and deals are accepted")
    _signing_key(settings)
    try:
        engine = build_engine(settings)
    except (InUse, StartupError) as exc:
        raise click.ClickException(str(exc)) from None
    server = Server(
        (host, port),
        create_app(engine, settings=settings),
        handler_class=Handler,
        spawn=Pool(MAX_CONNECTIONS),
        settings=settings,
        log=None,  # no access log (as before); errors go to the JSON log
        error_log=logging.getLogger("batayo.http"),
    )
    try:
        server.init_socket()
    except OSError as exc:
        stop(engine)
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc.strerror}") from None

    signals = {"count": 0}

    def on_signal() -> None:
        signals["count"] += 1
        if signals["count"] == 1:
            click.echo("batayo: stopping (again to stop at once)", err=True)
            server.drain()
            return
        # at once: the embedded store still gets SIGTERM, on which Redis saves and exits
        click.echo("batayo: stopped at once", err=True)
        try:
            stop(engine, save=True, within=0.1)
        finally:
            os._exit(130)

    for signum in (signal.SIGTERM, signal.SIGINT):
        gevent.signal_handler(signum, on_signal)
    wsgi_io.collect_less()
    click.echo(f"batayo: the site is at {site_url(host, server.server_port)} (the API under /v1)")
    # requests under way get most of the grace; the worker's job and the save the rest
    server.serve_forever(stop_timeout=max(0.2, grace * 0.6))
    stop(engine, save=True, within=max(0.2, grace * 0.3))
    if children is not None:
        children.close()
    click.echo("batayo: stopped", err=True)
    sys.exit(0)
