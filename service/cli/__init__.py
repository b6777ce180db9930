"""The `batayo` command: serve, worker, simulate, verify."""

from __future__ import annotations

import json
import re
import secrets
import sys

import click


@click.group()
def main() -> None:
    """batayo: an event-sourced card-game service."""


def _settings():
    """The settings, read as the command starts, or a clean exit saying which variable to fix."""
    from ..settings import SettingsError, load

    try:
        return load()
    except SettingsError as exc:
        raise click.ClickException(str(exc)) from None


def _default(name: str):
    """An option's default: the setting `name` (service/settings.py)."""
    return lambda: getattr(_settings(), name)


def _grace(setting: str, help: str):
    """A stop's grace, in seconds (default: the setting `setting`)."""
    from ..settings import Settings

    env = Settings.model_fields[setting].validation_alias
    return click.option(
        "--grace",
        default=_default(setting),
        show_default=f"{env}, {Settings.model_fields[setting].default}",
        type=click.FloatRange(0.5),
        help=help,
    )


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=int)
@_grace("grace_s", "Seconds a stop may take: requests under way finish, the store is saved.")
def serve(host: str, port: int, grace: float) -> None:
    """Run the API (gevent). Without REDIS_URL: an embedded store and an in-process worker."""
    from .serving import run

    run(host, port, grace)


@main.command()
@click.option("--burst", is_flag=True, help="Stop when the queue is empty.")
@click.option("--fork", is_flag=True, help="Run each job in a forked child (RQ's default).")
@_grace(
    "worker_grace_s", "SIGTERM: seconds the job under way may take before the worker stops anyway."
)
def worker(burst: bool, fork: bool, grace: float) -> None:
    """Run an RQ worker on the `batayo-clocks` and `batayo` queues (clocks first), with a pump
    that moves the jobs due in the store's outbox into them (needs REDIS_URL).

    By default jobs run in the worker's own process (RQ's SimpleWorker): they are short, and
    keeping the engine's state cache across jobs answers a move ~20x sooner than forking a
    child per job (bench/latency.py).

    The job queue away (a restart, a network cut): the worker and its pump try again every
    second or two and go on by themselves once it answers; jobs made due meanwhile wait in the
    store. SIGTERM (or Ctrl-C): the job under way finishes, then the worker exits; past the
    grace it stops anyway (RQ's cold shutdown: a job cut short is done again from the log by
    the sweep)."""
    from workers import jobs, pump, watchdog

    from .. import logs
    from ..config import StartupError, connect_queue
    from ..engine.dispatch import QUEUES, RQDispatcher
    from .working import run, worker_class

    settings = _settings()
    if settings.embedded:
        raise click.UsageError("set REDIS_URL: the embedded service runs its own worker")
    logs.setup()
    try:
        connection = connect_queue(settings)
        engine = jobs.engine()  # the store's settings checked now, not at the first job
    except StartupError as exc:
        raise click.ClickException(str(exc)) from None
    every = settings.sweep_every_s
    engine.dispatcher.enqueue("sweep", (every,))  # restore lost work, then every minute
    queue = RQDispatcher(connection)
    liveness = pump.Liveness()
    mover = pump.Pump(engine.store, queue, liveness)
    if burst:
        mover.once()
    else:
        pump.start(mover)
        watchdog.start(engine, every)  # the sweep's chain started again if the queue loses it
    names = list(QUEUES)
    cls = worker_class(fork, grace, liveness)
    try:
        run(
            lambda: cls(names, connection=connection, worker_ttl=WORKER_TTL_S),
            connection,
            burst=burst,
            liveness=liveness,
        )
    finally:
        import contextlib

        with contextlib.suppress(Exception):  # the store away: the beats go stale by themselves
            mover.forget()


# RQ's own record of a worker lives this long without a heartbeat (RQ's tools read it); the
# healthcheck reads the beats the pump writes to the store (`service.store.outbox.Beats`).
WORKER_TTL_S = 60


@main.command()
@click.argument("what", type=click.Choice(["api", "worker"]))
@click.option("--url", default="http://127.0.0.1:8000", show_default=True, help="The API (api).")
def healthcheck(what: str, url: str) -> None:
    """Exit 0 if this box's API answers /readyz (`api`), or if a `batayo worker` of this host is
    alive (`worker`: its loop and its pump beat within seconds); else say why and exit 1. For
    container health checks."""
    if what == "api":
        import urllib.error
        import urllib.request

        try:
            with urllib.request.urlopen(f"{url.rstrip('/')}/readyz", timeout=3) as r:  # noqa: S310
                ready = r.status == 200
        except (urllib.error.URLError, OSError) as exc:
            raise click.ClickException(f"the API is not ready: {exc}") from None
        if not ready:
            raise click.ClickException("the API is not ready")
        click.echo("ready")
        return
    import socket
    import time

    from ..config import StartupError, connect
    from ..store.outbox import STALE_MS, Beats

    host = socket.gethostname()
    try:
        alive, dead = Beats(connect(_settings())).alive(int(time.time() * 1000), host)
    except StartupError as exc:
        raise click.ClickException(str(exc)) from None
    except Exception as exc:  # the store does not answer: the beats cannot be read
        raise click.ClickException(f"the store does not answer: {exc}") from None
    if not alive:
        why = "; ".join(f"{who.rpartition('|')[2]}: {reason}" for who, reason in dead)
        raise click.ClickException(
            f"no worker of {host} is alive (none beat in {STALE_MS // 1000} s)"
            + (f": {why}" if why else "")
        )
    click.echo(f"{len(alive)} worker(s) alive on {host}")


@main.command()
def sweep() -> None:
    """Restore the due work (bot moves, clocks) of every game in play, once."""
    from ..config import StartupError, build_engine, stop
    from ..embedded import InUse

    try:
        engine = build_engine()
    except (
        InUse,
        StartupError,
    ) as exc:  # a `batayo serve` holds the folder: its own worker sweeps every minute
        raise click.ClickException(str(exc)) from None
    try:
        click.echo(f"swept {engine.sweep()} games in play")
    finally:
        stop(engine)


def _parse_option(text: str) -> tuple[str, object]:
    if "=" not in text:
        raise click.BadParameter(f"{text!r}: use key=value")
    key, raw = text.split("=", 1)
    value: object = raw
    if re.fullmatch(r"-?[0-9]+", raw):  # ASCII only: "²".isdigit() is true, int("²") raises
        value = int(raw)
    elif raw in ("true", "false"):
        value = raw == "true"
    elif raw == "null":
        value = None
    return key, value


@main.command()
@click.argument("game")
@click.option("--games", "count", default=100, show_default=True, type=click.IntRange(1))
@click.option("--option", "options", multiple=True, help="A game option, key=value (repeatable).")
@click.option("--seats", default="random", show_default=True, help="Bots by seat, comma-separated.")
@click.option("--seed", default=None, help="Hex seed: the same seed plays the same games.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--details", is_flag=True, help="With --json: add the game's own statistics.")
@click.option(
    "--jobs",
    type=click.IntRange(1),
    default=None,
    help="Processes to play on (default: every core); the results do not depend on it.",
)
def simulate(
    game: str,
    count: int,
    options: tuple[str, ...],
    seats: str,
    seed: str | None,
    as_json: bool,
    details: bool,
    jobs: int | None,
) -> None:
    """Play COUNT all-bot games in memory and report outcomes."""
    from ..core.options import resolve_options
    from ..core.registry import GAMES
    from ..sim.simulate import cores, seats_for
    from ..sim.simulate import simulate as run

    if game not in GAMES:
        raise click.BadParameter(f"unknown game; games: {', '.join(GAMES)}", param_hint="GAME")
    opts = dict(_parse_option(o) for o in options)
    try:
        resolve_options(GAMES[game], opts)
        seats_for(game, opts, seats.split(","))
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None
    try:
        seed_bytes = bytes.fromhex(seed) if seed else secrets.token_bytes(16)
    except ValueError:
        raise click.BadParameter("the seed must be hexadecimal", param_hint="--seed") from None
    summarize = GAMES[game].summarize
    jobs = jobs or cores()
    if as_json or not sys.stdout.isatty():
        summary, finals = run(game, count, opts, seats.split(","), seed_bytes, jobs=jobs)
    else:
        from rich.progress import Progress

        with Progress(transient=True) as bar:
            task = bar.add_task(f"{game}: {count} games", total=count)
            summary, finals = run(
                game,
                count,
                opts,
                seats.split(","),
                seed_bytes,
                lambda done: bar.advance(task, done),
                jobs=jobs,
            )
    extra = summarize(finals) if summarize else None
    if as_json:
        if details and extra is not None:
            summary["details"] = extra
        click.echo(json.dumps(summary))
        return
    _print_summary(game, summary, extra, seed_bytes.hex())


def _print_summary(game: str, summary: dict, extra: dict | None, seed: str) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"batayo simulate {game} (seed {seed})", show_header=False)
    r = summary["rounds"]
    rows = [
        ("games", str(summary["games"])),
        ("rounds mean / median", f"{r['mean']:.1f} / {r['median']}"),
        ("rounds min / max", f"{r['min']} / {r['max']}"),
        ("wins by seat", ", ".join(f"{s}: {n}" for s, n in summary["wins"].items())),
        ("draws", str(summary["draws"])),
        ("end reasons", ", ".join(f"{k}: {v}" for k, v in summary["reasons"].items())),
        ("games per second", f"{summary['games_per_s']:.1f}"),
    ]
    for row in rows:
        table.add_row(*row)
    if extra:
        for k, v in extra.items():
            table.add_row(str(k), json.dumps(v) if not isinstance(v, str) else v)
    Console().print(table)


@main.command()
@click.argument("game_id")
@click.option("--url", default=_default("url"), show_default="BATAYO_URL")
def export(game_id: str, url: str) -> None:
    """Print a finished game in full (every event and the seed): batayo export ID > game.json"""
    import urllib.error
    import urllib.parse
    import urllib.request

    if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
        raise click.BadParameter("the service's address must be http:// or https://")
    target = f"{url.rstrip('/')}/v1/games/{urllib.parse.quote(game_id, safe='')}/export"
    try:
        with urllib.request.urlopen(target, timeout=60) as answer:  # noqa: S310 - http(s) only
            click.echo(answer.read().decode())
    except urllib.error.HTTPError as exc:
        try:
            detail = json.loads(exc.read()).get("detail", exc.reason)
        except ValueError:
            detail = exc.reason
        raise click.ClickException(f"{exc.code}: {detail}") from None
    except (urllib.error.URLError, OSError) as exc:
        raise click.ClickException(f"cannot reach {url}: {exc}") from None


@main.command()
@click.argument("path", type=click.File("r"))
def verify(path) -> None:
    """Check an exported game file offline, as FAIRNESS.md says and with the rules: the chain,
    every opening, the seed, the client seeds, every draw, and the play refolded. Says `ok`,
    `incomplete` (exit 3: the log stops before its end) or where it fails (exit 1)."""
    from ..core.verify import verify as check

    try:
        doc = json.load(path)
    except (ValueError, UnicodeDecodeError) as exc:
        raise click.ClickException(f"{path.name} is not JSON: {exc}") from None
    events = doc.get("events") if isinstance(doc, dict) else doc
    if not isinstance(events, list):
        raise click.ClickException('expected {"events": [...]} (batayo export) or a list of events')
    report = check(events)
    checked = report["checked"]
    if report["status"] == "ok":
        click.echo(
            f"ok: {report['events']} events chained, {checked['openings']} openings, "
            f"{checked['draws']} draws and {checked['play']} batches of play checked"
            + (" (a test game: its seed was fixed, never fair)" if report["test_game"] else "")
        )
        return
    if report["status"] == "incomplete":
        click.echo(
            f"incomplete: the log stops at version {report['events']} before the game's end; "
            f"what it holds is sound ({checked['chain']} events chained, "
            f"{checked['openings']} openings checked)"
        )
        sys.exit(3)
    click.echo(f"FAILED at version {report['version']}: {report['reason']}")
    sys.exit(1)


def _register() -> None:
    from .replay import replay
    from .showing import settings

    main.add_command(replay)
    main.add_command(settings)


_register()


if __name__ == "__main__":  # pragma: no cover
    from ..settings import unbuffered

    unbuffered()
    main()
