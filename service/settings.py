"""Every setting of the service, declared once: its variable, type, default, bounds and meaning.

The processes read them once, at start (`current()`); a value that does not fit refuses the
start naming the variable and what it accepts, and a setting turned off says `0` or `off`.
`batayo settings` prints the effective values; docs/settings.md is generated from here
(`batayo settings --markdown`). This module is the only one that reads the environment.
"""

from __future__ import annotations

import ipaddress
import os
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import SplitResult, urlsplit, urlunsplit

from pydantic import BeforeValidator, Field, ValidationError, ValidationInfo, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

OFF_WORDS = frozenset({"off", "never", "none"})


class SettingsError(ValueError):
    """A setting's value does not fit: says which variable and what it accepts."""


def _off_or_seconds(raw: Any) -> Any:
    if isinstance(raw, str) and raw.strip().lower() in OFF_WORDS:
        return None
    return raw


def _comma_list(raw: Any) -> Any:
    if isinstance(raw, str):
        return tuple(part.strip() for part in raw.split(",") if part.strip())
    return raw


Seconds = Annotated[float | None, BeforeValidator(_off_or_seconds)]
CommaList = Annotated[tuple[str, ...], NoDecode, BeforeValidator(_comma_list)]


def _setting(
    env: str, default: Any, meaning: str, accepts: str, shown: str | None = None, **bounds: Any
) -> Any:
    """A field read from the variable `env`; `accepts` says in words what the variable takes. A
    callable `default` is worked out when the settings are read, and `shown` says it in words."""
    extra = {"env": env, "accepts": accepts, **({"shown_default": shown} if shown else {})}
    given = {"default_factory": default} if callable(default) else {"default": default}
    return Field(
        **given, validation_alias=env, description=meaning, json_schema_extra=extra, **bounds
    )


def _default_data_dir() -> Path:
    return Path.home() / ".local/share/batayo"


class Settings(BaseSettings):
    """The service's settings; `Settings()` reads the environment, keyword arguments override."""

    model_config = SettingsConfigDict(
        env_ignore_empty=True, populate_by_name=True, extra="ignore", frozen=True
    )

    # the store and the queue (the flag before REDIS_URL: the URL's check reads it)
    cluster: bool = _setting(
        "BATAYO_REDIS_CLUSTER",
        False,
        "REDIS_URL names nodes of a Redis Cluster, and the store runs on the cluster.",
        "a flag: 1/true/yes/on or 0/false/no/off",
    )
    redis_url: str | None = _setting(
        "REDIS_URL",
        None,
        "The store's Redis. Unset: an embedded Redis in BATAYO_DATA_DIR and a worker thread in "
        "the process. With BATAYO_REDIS_CLUSTER, one or more cluster nodes, comma-separated "
        "(any one that answers is enough to start): the first a URL, whose credentials and TLS "
        "reach every node; the others host:port, or URLs of the same scheme and credentials.",
        "a redis://, rediss:// or unix:// URL (with the cluster flag, several, comma-separated)",
    )
    queue_url: str | None = _setting(
        "BATAYO_QUEUE_URL",
        None,
        "The plain Redis of the job queue. Unset: REDIS_URL's server (required with a cluster: "
        "RQ cannot run on one).",
        "a redis:// or rediss:// URL",
    )
    pool_size: int = _setting(
        "BATAYO_REDIS_POOL",
        64,
        "Connections to the store per process (per node on a cluster); a request that finds "
        "them all busy waits up to 5 s, then gets a 503 with Retry-After.",
        "an integer of at least 1",
        ge=1,
    )
    strong_move_cap_s: float = _setting(
        "BATAYO_STRONG_MOVE_CAP_S",
        2.0,
        "A wall-clock safety net for one move of a `strong` bot (its search stops there, with "
        "the states sampled so far); the search's budget is counted in play-outs, so this cap "
        "only acts on a slow or overloaded machine. `batayo simulate` never caps.",
        "a number of seconds above 0",
        gt=0,
    )
    data_dir: Path = _setting(
        "BATAYO_DATA_DIR",
        _default_data_dir,
        "The embedded store's folder, and the default archive's.",
        "a folder",
        shown="~/.local/share/batayo",
    )
    test_games: bool = _setting(
        "BATAYO_TEST_GAMES",
        False,
        "Accept fixed `seed` and `deal` fields in new games (tests and demos only: such games "
        "are not fair).",
        "a flag: 1/true/yes/on or 0/false/no/off",
    )
    extra_games: CommaList = _setting(
        "BATAYO_EXTRA_GAMES",
        (),
        "More games to offer beside the built-in ones (a test's toy game).",
        "module:ATTRIBUTE names, comma-separated",
    )

    signing_key: Path | None = _setting(
        "BATAYO_SIGNING_KEY",
        None,
        "The file of the key that signs the logs' tips (`batayo keys init` makes it; every "
        "process reads it). Unset: signing-key.pem in BATAYO_DATA_DIR. Without the file the "
        "service runs and its logs are unsigned.",
        "a file path",
    )

    # bounded work
    event_budget: int = _setting(
        "BATAYO_EVENT_BUDGET",
        100_000,
        "The most events a game may have, recorded in each game created; 0: no budget.",
        "an integer of at least 0 (0: off)",
        ge=0,
    )
    bot_pace_ms: int = _setting(
        "BATAYO_BOT_PACE_MS",
        0,
        "Milliseconds a bot waits before it moves in a game with a human seat, when the create "
        "names no `bot_pace_ms` (recorded in the game); 0: the bots play at once.",
        "an integer from 0 to 5000 (0: off)",
        ge=0,
        le=5000,
    )
    games_per_client: int = _setting(
        "BATAYO_GAMES_PER_CLIENT",
        1000,
        "Games not yet finished that one client address may have created; 0: no cap.",
        "an integer of at least 0 (0: off)",
        ge=0,
    )
    cap_loopback: bool = _setting(
        "BATAYO_CAP_LOOPBACK",
        False,
        "Count loopback callers in the per-client caps too (by default this machine's own "
        "callers are not capped).",
        "a flag: 1/true/yes/on or 0/false/no/off",
    )
    rate_limit: int = _setting(
        "BATAYO_RATE_LIMIT",
        600,
        "Requests a window per client address; over it, 429 with Retry-After; 0: off.",
        "an integer of at least 0 (0: off)",
        ge=0,
    )
    rate_limit_token: int = _setting(
        "BATAYO_RATE_LIMIT_TOKEN",
        300,
        "Requests a window per seat token; 0: off.",
        "an integer of at least 0 (0: off)",
        ge=0,
    )
    hint_rate_limit: int = _setting(
        "BATAYO_HINT_RATE_LIMIT",
        30,
        "Hints (GET /v1/games/{id}/hint) a window per seat token, on top of the other limits: "
        "a hint may cost a strong bot's search; over it, 429 with Retry-After; 0: off.",
        "an integer of at least 0 (0: off)",
        ge=0,
    )
    rate_window_s: int = _setting(
        "BATAYO_RATE_WINDOW_S",
        60,
        "The rate limits' window, in seconds.",
        "an integer of at least 1",
        ge=1,
    )
    trusted_proxies: CommaList = _setting(
        "BATAYO_TRUSTED_PROXIES",
        (),
        "The proxies whose X-Forwarded-For is believed: a request from one of these addresses "
        "is counted as the client the proxies name; anyone else's header is ignored.",
        "IP addresses or CIDR ranges, comma-separated (not a count)",
    )
    connections_per_address: int = _setting(
        "BATAYO_CONNECTIONS_PER_ADDRESS",
        256,
        "Open connections per direct peer address (the TCP peer, not X-Forwarded-For) in one "
        "API process (a gunicorn worker); one over it is answered 503 with Retry-After and "
        "closed before its request is read. Loopback (unless BATAYO_CAP_LOOPBACK) and "
        "BATAYO_TRUSTED_PROXIES are not capped; 0: no cap.",
        "an integer of at least 0 (0: off)",
        ge=0,
    )
    header_timeout_s: float = _setting(
        "BATAYO_HEADER_TIMEOUT_S",
        10.0,
        "A connection that has not sent a whole request's headers this long after it opened "
        "or after its last answer is closed (so an idle keep-alive connection too); never a "
        "request body being read or an open stream; 0: off.",
        "a number of seconds of at least 0 (0: off)",
        ge=0,
    )
    cors_origins: CommaList = _setting(
        "BATAYO_CORS_ORIGINS",
        (),
        "The origins a browser page may call the API from; none by default.",
        "origins (https://cards.example), comma-separated, or *",
    )

    # the lobby
    lobby_idle_s: Seconds = _setting(
        "BATAYO_LOBBY_IDLE_S",
        3600.0,
        "An open game with no event for longer than this leaves the lobby's list of games "
        "waiting for a player (`GET /v1/games?waiting=1`), well before it is abandoned; it "
        "stays in every other listing. off: never left out.",
        "a number of seconds above 0, or off",
        gt=0,
    )

    # the sweep and the archive
    sweep_every_s: int = _setting(
        "BATAYO_SWEEP_EVERY_S",
        60,
        "How often the sweep restores lost work (and the watchdog checks it is scheduled).",
        "an integer number of seconds, at least 1",
        ge=1,
    )
    archive_after_s: Seconds = _setting(
        "BATAYO_ARCHIVE_AFTER_S",
        24 * 3600.0,  # past the idempotency records' lifetime: a late retry finds its own answer
        "Finished games move out of Redis into the archive after this long; off: never.",
        "a number of seconds of at least 0, or off",
        ge=0,
    )
    archive_url: str | None = _setting(
        "BATAYO_ARCHIVE_URL",
        None,
        "Where finished games go: a folder or any fsspec URL. Unset: the folder `archive` of "
        "BATAYO_DATA_DIR (refused on a cluster, whose boxes must share it).",
        "a folder or an fsspec URL",
    )

    # live streams
    streams_per_client: int = _setting(
        "BATAYO_STREAMS_PER_CLIENT",
        32,
        "Open live streams and game sockets per client address in one API process (429 over "
        "it); 0: no cap.",
        "an integer of at least 0 (0: off)",
        ge=0,
    )
    streams_max: int = _setting(
        "BATAYO_STREAMS_MAX",
        10_000,
        "Open live streams and game sockets in one API process (503 with Retry-After over it).",
        "an integer of at least 1",
        ge=1,
    )
    stream_lifetime_s: float = _setting(
        "BATAYO_STREAM_LIFETIME_S",
        3600.0,
        "A stream (a socket: close 4000) closes cleanly after this long; the client resumes "
        "with Last-Event-ID (a socket: `after`).",
        "a number of seconds above 0",
        gt=0,
    )
    stream_keepalive_s: float = _setting(
        "BATAYO_STREAM_KEEPALIVE_S",
        15.0,
        "A keep-alive comment (a socket: a ping) after this long without an event.",
        "a number of seconds of at least 0.05",
        ge=0.05,
    )
    stream_backlog: int = _setting(
        "BATAYO_STREAM_BACKLOG",
        64,
        "Batches of events a reader may fall behind before its stream is closed.",
        "an integer of at least 1",
        ge=1,
    )

    # the processes
    bind: str = _setting(
        "BATAYO_BIND",
        "0.0.0.0:8000",
        "Where gunicorn (the production server) listens.",
        "HOST:PORT",
    )
    web_concurrency: int = _setting(
        "WEB_CONCURRENCY",
        lambda: os.cpu_count() or 1,
        "gunicorn's worker processes.",
        "an integer of at least 1",
        shown="the number of cores",
        ge=1,
    )
    metrics_dir: Path | None = _setting(
        "BATAYO_METRICS_DIR",
        None,
        "Where gunicorn's worker processes keep their metrics, so each one's /metrics shows the "
        "sum of all of them (prometheus_client's multiprocess mode; emptied at start).",
        "a folder path",
        shown="a new temporary folder for each start of gunicorn",
    )
    worker_metrics_port: int = _setting(
        "BATAYO_WORKER_METRICS_PORT",
        0,
        "The port where `batayo worker` serves what it did in Prometheus' format; 0: none.",
        "a port number, or 0 for none",
        ge=0,
        le=65535,
    )
    grace_s: float = _setting(
        "BATAYO_GRACE_S",
        3.0,
        "Seconds a stop of `batayo serve` may take: requests under way finish, the store is saved.",
        "a number of seconds of at least 0.5",
        ge=0.5,
    )
    worker_grace_s: float = _setting(
        "BATAYO_WORKER_GRACE_S",
        10.0,
        "On SIGTERM, seconds the job under way in `batayo worker` may take before it stops anyway.",
        "a number of seconds of at least 0.5",
        ge=0.5,
    )
    url: str = _setting(
        "BATAYO_URL",
        "http://127.0.0.1:8000",
        "The service the command line's client commands (export, replay) talk to.",
        "an http:// or https:// URL",
    )

    @field_validator("trusted_proxies")
    @classmethod
    def _networks(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for item in value:
            if re.fullmatch(r"[0-9]+", item):
                raise ValueError(
                    f"{item!r} is a count of proxies: name the proxies' own addresses or "
                    "ranges instead (10.0.0.5, 10.0.0.0/24), so no other caller can set its "
                    "own address"
                )
            ipaddress.ip_network(item, strict=False)  # ValueError says what is wrong
        return value

    @field_validator("redis_url")
    @classmethod
    def _redis_url(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is None:
            return None
        if "," in value and info.data.get("cluster") is False:  # absent: the flag was refused
            raise ValueError(
                "several nodes, comma-separated, name a Redis Cluster: set "
                "BATAYO_REDIS_CLUSTER=1 for one, or name a single server"
            )
        if not ("," in value or info.data.get("cluster")) and value.startswith("unix://"):
            return value  # a single server's socket, which redis-py reads
        redis_nodes(value)  # ValueError says which node is wrong
        return value

    @field_validator("cors_origins")
    @classmethod
    def _origins(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(origin.rstrip("/") for origin in value)

    @property
    def embedded(self) -> bool:
        return self.redis_url is None

    @property
    def signing_key_path(self) -> Path:
        return self.signing_key or self.data_dir / "signing-key.pem"

    @property
    def job_queue_url(self) -> str | None:
        """The Redis of the job queue: its own, or the store's when that is a single server."""
        return self.queue_url or (None if self.cluster else self.redis_url)


def redis_nodes(url: str) -> list[tuple[str, int]]:
    """The host and port of each node REDIS_URL names: one URL, or several comma-separated (a
    cluster's). Every node is reached with the first URL's credentials and TLS, so a later one is
    host:port, or a URL that repeats nothing else or the first's own. ValueError: what is wrong."""
    first, *others = (part.strip() for part in url.split(","))
    head = urlsplit(first)
    if head.scheme not in ("redis", "rediss"):
        raise ValueError(f"{masked(first)!r} is not a redis:// or rediss:// URL")
    nodes = [(head.hostname or "localhost", _port(head, first))]  # redis-py's default host
    for part in others:
        if not part:
            raise ValueError("a node between two commas is empty")
        node = urlsplit(part if "://" in part else f"{head.scheme}://{part}")
        unset = {"scheme": ("",), "username": (None,), "password": (None,), "path": ("", "/0")}
        for field, values in unset.items():
            if getattr(node, field) not in (*values, getattr(head, field)):
                raise ValueError(
                    f"the node {masked(part)!r} has a {field} of its own: every node is "
                    "reached with the first URL's, so name the others as host:port"
                )
        if not node.hostname:
            raise ValueError(f"the node {masked(part)!r} names no host")
        nodes.append((node.hostname, _port(node, part)))
    return nodes


def _port(parts: SplitResult, text: str) -> int:
    try:
        return parts.port or 6379
    except ValueError:
        raise ValueError(f"the port of {masked(text)!r} is not a number up to 65535") from None


def load(**overrides: Any) -> Settings:
    """The settings from the environment (and `overrides`); SettingsError says what to fix."""
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        raise SettingsError(_explain(exc)) from None


@cache
def current() -> Settings:
    """This process's settings, read from the environment on the first call (at start)."""
    return load()


def _explain(exc: ValidationError) -> str:
    lines = []
    for error in exc.errors():
        name = str(error["loc"][0]) if error["loc"] else "?"
        info = _field_by_env(name)
        accepts = (info.json_schema_extra or {}).get("accepts", "") if info else ""  # type: ignore[union-attr]
        given = error.get("input")
        if name in SECRET_URLS and isinstance(given, str):
            given = masked_urls(given)  # an error goes to logs: never a password
        reason = error["msg"].removeprefix("Value error, ")
        lines.append(f"{name}={given!r} is refused: {reason}; {name} takes {accepts}")
    return "\n".join(lines)


def _field_by_env(env: str) -> FieldInfo | None:
    for info in Settings.model_fields.values():
        if info.validation_alias == env:
            return info
    return None


@dataclass(frozen=True)
class Described:
    """One setting as `batayo settings` and the docs show it."""

    env: str
    value: str
    source: str  # "environment" or "default"
    default: str
    accepts: str
    meaning: str


SECRET_URLS = ("REDIS_URL", "BATAYO_QUEUE_URL", "BATAYO_ARCHIVE_URL")


def described(settings: Settings) -> list[Described]:
    """Every setting with its effective value (secrets masked) and where it came from."""
    rows = []
    for name, info in Settings.model_fields.items():
        extra: dict = info.json_schema_extra  # type: ignore[assignment]
        env = extra["env"]
        value = getattr(settings, name)
        default = extra.get("shown_default") or _shown(info.default)
        source = "default"
        if name in settings.model_fields_set:
            source = "environment" if os.environ.get(env, "").strip() else "given"
        shown = _shown(value)
        if env in SECRET_URLS and value:
            shown = masked_urls(str(value))
        rows.append(Described(env, shown, source, default, extra["accepts"], info.description))
    return rows


def _shown(value: Any) -> str:
    if value is None or value == ():
        return "unset"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, tuple):
        return ",".join(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def masked(url: str) -> str:
    """A URL (or a cluster node's host:port) with its password, if any, replaced by ***."""
    url = url.strip()
    bare = "://" not in url  # a later cluster node: user:password@host:port at most
    parts = urlsplit(f"//{url}" if bare else url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    user = parts.username or ""
    shown = urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))
    return shown.removeprefix("//") if bare else shown


def masked_urls(value: str) -> str:
    """`masked` for each of several comma-separated URLs."""
    return ",".join(masked(url) for url in value.split(","))


def environment_names() -> set[str]:
    """The variables declared here (what the environment may set)."""
    return {info.validation_alias for info in Settings.model_fields.values()}  # type: ignore[misc]


def markdown() -> str:
    """The docs' settings table (docs/settings.md), made from the declarations above."""
    lines = [
        "# Settings",
        "",
        "Generated by `batayo settings --markdown` from `service/settings.py`; do not edit by "
        "hand (tests/test_settings.py checks it is current). Every setting is an environment "
        "variable, read once when a process starts; a value that does not fit refuses the "
        "start, naming the variable and what it takes. `batayo settings` prints the values in "
        "force and where each came from.",
        "",
        "| variable | default | takes | what it does |",
        "| --- | --- | --- | --- |",
    ]
    defaults = Settings.model_construct()
    for row in described(defaults):
        lines.append(f"| `{row.env}` | {row.default} | {row.accepts} | {row.meaning} |")
    return "\n".join(lines) + "\n"


def share_metrics(folder: Path) -> None:
    """Before gunicorn starts its worker processes: their metrics go to files in `folder`
    (prometheus_client reads the variable when it is first imported, in each worker)."""
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(folder)


def shared_metrics() -> Path | None:
    """The folder this process shares its metrics in with its siblings, if it does."""
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    return Path(folder) if folder else None


def unbuffered() -> None:
    """Child processes' output unbuffered (the command line run as a script)."""
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
