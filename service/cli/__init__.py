"""The `batayo` command: serve, worker, simulate, export, verify, keys."""

from __future__ import annotations

import importlib
import json
import re
import secrets
import sys

import click


class _Commands(click.Group):
    """The commands, those of their own module loaded only when called (click's lazy group):
    `batayo simulate` starts without the settings, the replay's client or the report."""

    LAZY = {
        "balance": "service.cli.balancing:balance",
        "replay": "service.cli.replay:replay",
        "settings": "service.cli.showing:settings",
    }

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *self.LAZY])

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.LAZY:
            module, attribute = self.LAZY[name].split(":")
            return getattr(importlib.import_module(module), attribute)
        return super().get_command(ctx, name)


@click.group(cls=_Commands)
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


class _SettingOption(click.Option):
    """An option whose default is a setting, named in --help: the settings are read only when
    a command uses the option or shows its help."""

    def __init__(self, *args, setting: str, **kwargs) -> None:
        self.setting = setting
        super().__init__(*args, default=_default(setting), show_default=True, **kwargs)

    def get_help_extra(self, ctx: click.Context) -> dict:
        from ..settings import Settings

        declared = Settings.model_fields[self.setting]
        extra = super().get_help_extra(ctx)
        extra["default"] = f"{declared.validation_alias}, {declared.default}"
        return extra


def _grace(setting: str, help: str):
    """A stop's grace, in seconds (default: the setting `setting`)."""
    return click.option(
        "--grace", cls=_SettingOption, setting=setting, type=click.FloatRange(0.5), help=help
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
    from ..core import search

    search.time_cap(settings.strong_move_cap_s)  # a safety net; simulate never caps
    logs.setup()
    try:
        connection = connect_queue(settings)
        engine = jobs.engine()  # the store's settings checked now, not at the first job
    except StartupError as exc:
        raise click.ClickException(str(exc)) from None
    if settings.worker_metrics_port:
        _serve_metrics(settings.worker_metrics_port)
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
            # a job cut short by the lost queue, into the outbox again (due at once)
            give_back=lambda job: engine.dispatcher.enqueue(
                job.func_name.rpartition(".")[2], tuple(job.args), job_id=job.id
            ),
        )
    finally:
        import contextlib

        with contextlib.suppress(Exception):  # the store away: the beats go stale by themselves
            mover.forget()


def _serve_metrics(port: int) -> None:
    """What this worker did (bot moves, clocks, events appended), for Prometheus to scrape."""
    from prometheus_client import start_http_server

    from ..store.counters import PROCESS

    try:
        start_http_server(port, registry=PROCESS)
    except OSError as exc:
        raise click.ClickException(f"the metrics port {port}: {exc}") from None
    click.echo(f"batayo: this worker's metrics on port {port} (/metrics)")


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
        from batayo_client import http

        try:
            ready = http.send("GET", f"{url.rstrip('/')}/readyz", timeout=3).status == 200
        except (http.Unreachable, ValueError) as exc:
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


def bot_run(
    game: str, options: tuple[str, ...], seats: str, seed: str | None, *more: dict
) -> tuple[dict, bytes]:
    """A run of all-bot games checked before it starts: the options (key=value) and the seed
    (hex; a fresh one if none). Each of `more` (other options to merge) is checked too."""
    from ..core.options import resolve_options
    from ..core.registry import GAMES
    from ..sim.simulate import seats_for

    if game not in GAMES:
        raise click.BadParameter(f"unknown game; games: {', '.join(GAMES)}", param_hint="GAME")
    opts = dict(_parse_option(o) for o in options)
    try:
        for extra in more or ({},):
            resolve_options(GAMES[game], {**opts, **extra})
            seats_for(game, {**opts, **extra}, seats.split(","))
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None
    try:
        seed_bytes = bytes.fromhex(seed) if seed else secrets.token_bytes(16)
    except ValueError:
        raise click.BadParameter("the seed must be hexadecimal", param_hint="--seed") from None
    return opts, seed_bytes


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
    from ..core.registry import GAMES
    from ..sim.simulate import cores
    from ..sim.simulate import simulate as run

    opts, seed_bytes = bot_run(game, options, seats, seed)
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


def _fetch(url: str, timeout: float = 60) -> bytes:
    """The body at an http(s) URL; a ClickException saying why not."""
    from batayo_client import http

    try:
        answer = http.send("GET", url, timeout=timeout)
    except ValueError:
        raise click.BadParameter(f"{url}: the address must be http:// or https://") from None
    except http.Unreachable as exc:
        raise click.ClickException(str(exc)) from None
    if answer.status >= 400:
        try:
            detail = json.loads(answer.body).get("detail", "")
        except (ValueError, AttributeError):
            detail = ""
        raise click.ClickException(f"{url}: {answer.status}: {detail or 'refused'}")
    return answer.body


@main.command()
@click.argument("game_id")
@click.option("--url", default=_default("url"), show_default="BATAYO_URL")
def export(game_id: str, url: str) -> None:
    """Print a finished game in full (every event, the seed and the server's signature over
    its tip): batayo export ID > game.json"""
    import urllib.parse

    if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
        raise click.BadParameter("the service's address must be http:// or https://")
    target = f"{url.rstrip('/')}/v1/games/{urllib.parse.quote(game_id, safe='')}/export"
    click.echo(_fetch(target).decode())


# `batayo verify`'s exit code for each verdict (docs/fairness.md; 2 is click's usage error)
EXIT = {"ok": 0, "failed": 1, "incomplete": 3, "unsigned": 4, "v1": 5}


def _trusted(sources: tuple[str, ...]) -> dict:
    """The public keys given with --key: files or URLs of PEM, base64 or the server's JSON (one
    key, `GET /v1/keys/{kid}`, or the list, `GET /v1/keys`)."""
    from ..core import signing

    found = {}
    for source in sources:
        if source.startswith(("http://", "https://")):
            body = _fetch(source)
        else:
            try:
                with open(source, "rb") as f:
                    body = f.read()
            except OSError as exc:
                raise click.BadParameter(f"{source}: {exc}", param_hint="--key") from None
        texts: list = [body]
        try:
            doc = json.loads(body)
        except ValueError:
            doc = None
        if isinstance(doc, dict) and isinstance(doc.get("keys"), list):
            texts = [json.dumps(k) for k in doc["keys"]]
        for text in texts:
            try:
                key = signing.public_key(text)
            except ValueError as exc:
                raise click.BadParameter(f"{source}: {exc}", param_hint="--key") from None
            found[signing.key_id(key)] = key
    return found


def _from_server(source: str) -> tuple[object, str]:
    """A game's export from the server a URL names (`…/v1/games/ID` or its `/export`), and the
    server's root."""
    import re

    match = re.match(r"^(https?://.+?)/v1/games/([^/?#]+)(?:/export)?/?$", source)
    if match is None:
        raise click.BadParameter(
            f"{source}: a game's address is http(s)://HOST/v1/games/ID", param_hint="SOURCE"
        )
    root, game_id = match.groups()
    body = _fetch(f"{root}/v1/games/{game_id}/export")
    try:
        return json.loads(body), root
    except ValueError as exc:
        raise click.ClickException(f"{source}: the export is not JSON: {exc}") from None


@main.command()
@click.argument("source")
@click.option(
    "--key",
    "keys",
    multiple=True,
    help="A public key to trust (a file or URL: PEM, base64, or the server's /v1/keys JSON).",
)
@click.option("--accept-unsigned", is_flag=True, help="Exit 0 for a sound log nobody signed.")
@click.option("--accept-v1", is_flag=True, help="Exit 0 for a sound log of fairness version 1.")
def verify(source: str, keys: tuple[str, ...], accept_unsigned: bool, accept_v1: bool) -> None:
    """Check a game's log, as docs/fairness.md says and with the rules: the chain, every opening,
    the seed, the client seeds, every draw, the play refolded, and the server's signature over
    its tip. SOURCE is an exported file (`batayo export`, `-` for standard input) or a game's
    address, http(s)://HOST/v1/games/ID: then the key is fetched from that server too.

    Only keys given with --key, or fetched from the server SOURCE names, are trusted: the key
    named inside an export only says which one was used. Exit codes: 0 ok, 1 failed,
    3 incomplete (the log stops before its end), 4 unsigned (sound, but signed by no trusted
    key), 5 v1 (a log of fairness version 1); --accept-unsigned and --accept-v1 make 4 and 5
    exit 0."""
    from ..core import signing
    from ..core.verify import verify as check

    trusted = _trusted(keys)
    if source.startswith(("http://", "https://")):
        doc, root = _from_server(source)
        signature = doc.get("signature") if isinstance(doc, dict) else None
        kid = signature.get("key") if isinstance(signature, dict) else None
        if isinstance(kid, str) and signing.KID(kid) and kid not in trusted:
            trusted.update(_trusted((f"{root}/v1/keys/{kid}",)))
    else:
        try:
            with click.open_file(source, "r", encoding="utf-8") as f:
                doc = json.load(f)
        except OSError as exc:
            raise click.BadParameter(f"{source}: {exc}", param_hint="SOURCE") from None
        except (ValueError, UnicodeDecodeError) as exc:
            raise click.ClickException(f"{source} is not JSON: {exc}") from None
    events = doc.get("events") if isinstance(doc, dict) else doc
    if not isinstance(events, list):
        raise click.ClickException('expected {"events": [...]} (batayo export) or a list of events')
    signature = doc.get("signature") if isinstance(doc, dict) else None
    report = check(events)
    signed, why = ("unsigned", None)
    if events and report["status"] != "failed":
        signed, why = signing.check(signature, events, trusted)
    verdict = signing.verdict(report["status"], signed)
    checked = report["checked"]
    done = (
        f"{report['events']} events chained, {checked['openings']} openings, "
        f"{checked['draws']} draws and {checked['play']} batches of play checked"
    )
    test = " (a test game: its seed was fixed, never fair)" if report["test_game"] else ""
    if verdict == "ok":
        click.echo(f"ok: {done}, signed by key {signature['key']}{test}")
    elif verdict == "unsigned":
        click.echo(f"unsigned: {done}{test}; but no trusted key signed it: {why}")
    elif verdict == "v1":
        click.echo(f"v1: {report['reason']}; {done}{test}")
    elif verdict == "incomplete":
        click.echo(
            f"incomplete: the log stops at version {report['events']} before the game's end; "
            f"what it holds is sound ({checked['chain']} events chained, "
            f"{checked['openings']} openings checked)"
        )
    elif report["status"] == "failed":
        click.echo(f"FAILED at version {report['version']}: {report['reason']}")
    else:
        click.echo(f"FAILED: the signature: {why}")
    accepted = (verdict == "unsigned" and accept_unsigned) or (verdict == "v1" and accept_v1)
    sys.exit(0 if accepted else EXIT[verdict])


@main.group()
def keys() -> None:
    """The deployment's signing key (BATAYO_SIGNING_KEY; by default in BATAYO_DATA_DIR)."""


def _key_path():
    return _settings().signing_key_path


@keys.command("init")
def keys_init() -> None:
    """Make the signing key, once: nothing changes if it exists (safe to run on every box)."""
    from ..engine import keys as keyring

    path = _key_path()
    ring, made = keyring.init(path)
    click.echo(f"{'made' if made else 'kept'} key {ring.kid} in {path}")


@keys.command("rotate")
def keys_rotate() -> None:
    """A new signing key; the old public key stays listed (the logs it signed still verify).
    Restart every process afterwards: each reads the key file as it starts."""
    from ..engine import keys as keyring

    path = _key_path()
    ring, old = keyring.rotate(path)
    click.echo(f"key {ring.kid} in {path}" + (f"; {old} retired" if old else ""))


@keys.command("show")
def keys_show() -> None:
    """Print the current public key (PEM) and its id: what verifiers are given with --key."""
    from ..core import signing
    from ..engine import keys as keyring

    path = _key_path()
    ring = keyring.load(path)
    if ring is None:
        raise click.ClickException(f"no signing key at {path}: `batayo keys init` makes one")
    click.echo(f"# key {ring.kid}")
    click.echo(signing.pem(ring.private.public_key()), nl=False)


if __name__ == "__main__":  # pragma: no cover
    from ..settings import unbuffered

    unbuffered()
    main()
