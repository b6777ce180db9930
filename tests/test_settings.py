"""The settings: declared once (service/settings.py), read once at start, a bad value refused
by name, the docs' table generated from the declarations."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from service.cli import main
from service.settings import (
    Settings,
    SettingsError,
    environment_names,
    load,
    markdown,
    masked,
    redis_nodes,
)

ROOT = Path(__file__).resolve().parent.parent
SETTINGS_MODULE = ROOT / "service/settings.py"
READERS = {"environ", "getenv", "environb"}


def _reads_environment(path: Path) -> list[str]:
    """Where `path` reads the environment: `os.environ`, `os.getenv`, `from os import ...`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        reads = (
            isinstance(node, ast.Attribute)
            and node.attr in READERS
            and isinstance(node.value, ast.Name)
            and node.value.id == "os"
        ) or (
            isinstance(node, ast.ImportFrom)
            and node.module == "os"
            and bool({a.name for a in node.names} & READERS)
        )
        if reads:
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_only_the_settings_module_reads_the_environment():
    sources = [*ROOT.glob("service/**/*.py"), *ROOT.glob("workers/**/*.py")]
    sources.append(ROOT / "gunicorn.conf.py")
    offenders = [hit for p in sources if p != SETTINGS_MODULE for hit in _reads_environment(p)]
    assert sources and not offenders, (
        f"read the environment outside service/settings.py: {offenders}"
    )


@pytest.mark.parametrize(
    "name, raw",
    [
        ("BATAYO_RATE_LIMIT", "-5"),  # a negative count used to turn the limit off silently
        ("BATAYO_RATE_LIMIT", "lots"),
        ("BATAYO_REDIS_POOL", "0"),
        ("BATAYO_REDIS_CLUSTER", "nah"),
        ("BATAYO_ARCHIVE_AFTER_S", "-1"),
        ("BATAYO_ARCHIVE_AFTER_S", "soon"),
        ("BATAYO_STREAM_KEEPALIVE_S", "0.01"),
        ("WEB_CONCURRENCY", "0"),
        ("BATAYO_TRUSTED_PROXIES", "1"),  # a count: the proxies must be named
        ("BATAYO_TRUSTED_PROXIES", "10.0.0.0/33"),
        ("BATAYO_HEADER_TIMEOUT_S", "-1"),
        ("BATAYO_CONNECTIONS_PER_ADDRESS", "-1"),
        ("REDIS_URL", "http://store:6379"),
        ("REDIS_URL", "redis://store:99999"),
    ],
)
def test_a_bad_value_is_refused_naming_the_variable_and_what_it_takes(monkeypatch, name, raw):
    monkeypatch.setenv(name, raw)
    with pytest.raises(SettingsError) as refused:
        load()
    message = str(refused.value)
    assert message.startswith(f"{name}={raw!r} is refused") and " takes " in message


def test_a_bad_value_stops_the_server_before_it_starts(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "BATAYO_RATE_LIMIT": "-5"}
    done = subprocess.run(
        [sys.executable, "-c", "from service.cli import main; main()", "serve", "--port", "1"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0 and "BATAYO_RATE_LIMIT='-5' is refused" in done.stderr


def test_several_redis_nodes_need_the_cluster_flag(monkeypatch):
    monkeypatch.setenv("REDIS_URL", "redis://:hunter2@a:6379,redis://:hunter2@b:6379")
    with pytest.raises(SettingsError) as refused:
        load()
    message = str(refused.value)
    assert message.startswith("REDIS_URL='redis://:***@a:6379,redis://:***@b:6379' is refused")
    assert "set BATAYO_REDIS_CLUSTER=1" in message and "hunter2" not in message
    monkeypatch.setenv("BATAYO_REDIS_CLUSTER", "1")
    assert load().redis_url == "redis://:hunter2@a:6379,redis://:hunter2@b:6379"


@pytest.mark.parametrize(
    "url, nodes",
    [
        ("redis://a", [("a", 6379)]),
        ("rediss://u:p@a:7000,rediss://b:7001/0,c", [("a", 7000), ("b", 7001), ("c", 6379)]),
        ("redis://u:p@a:7000/0, rediss://u:p@b:7001/0", None),  # a scheme of its own
        ("redis://u:p@a:7000,u:q@b:7001", None),  # credentials of their own
        ("redis://a:7000,redis://b:7001/3", None),  # a database of its own
        ("redis://a:7000,,b:7001", None),
        ("redis://a:7000,b:port", None),
        ("redis://a:7000,:7001", None),
        ("unix:///run/redis.sock,b:7001", None),
    ],
)
def test_each_cluster_node_is_checked(url, nodes):
    if nodes is None:
        with pytest.raises(ValueError):
            redis_nodes(url)
        with pytest.raises(SettingsError, match=" is refused: "):
            load(REDIS_URL=url, BATAYO_REDIS_CLUSTER=True)
    else:
        assert redis_nodes(url) == nodes and load(REDIS_URL=url, BATAYO_REDIS_CLUSTER=True)


def test_a_single_server_may_be_a_unix_socket():
    assert load(REDIS_URL="unix:///run/redis.sock").redis_url == "unix:///run/redis.sock"


def test_off_is_said_explicitly(monkeypatch):
    monkeypatch.setenv("BATAYO_ARCHIVE_AFTER_S", "off")
    monkeypatch.setenv("BATAYO_RATE_LIMIT", "0")
    settings = load()
    assert settings.archive_after_s is None and settings.rate_limit == 0


def test_values_lists_and_defaults(monkeypatch):
    monkeypatch.setenv("BATAYO_TRUSTED_PROXIES", "10.0.0.5, 10.1.0.0/16,::1")
    monkeypatch.setenv("BATAYO_CORS_ORIGINS", "https://a.example/,https://b.example")
    monkeypatch.setenv("BATAYO_REDIS_CLUSTER", "yes")
    monkeypatch.setenv("REDIS_URL", "")  # empty is unset
    settings = load()
    assert settings.trusted_proxies == ("10.0.0.5", "10.1.0.0/16", "::1")
    assert settings.cors_origins == ("https://a.example", "https://b.example")
    assert settings.cluster is True and settings.redis_url is None
    assert Settings(rate_limit=5).rate_limit == 5  # tests and callers may give values


def test_batayo_settings_prints_values_their_source_and_masks_passwords(monkeypatch):
    monkeypatch.setenv("REDIS_URL", "redis://user:hunter2@store:6379/0")
    monkeypatch.setenv("BATAYO_RATE_LIMIT", "42")
    monkeypatch.setattr("service.settings.current", load)  # this test's environment, not the run's
    out = CliRunner().invoke(main, ["settings"], terminal_width=200).output
    lines = {line.split("│")[1].strip(): line for line in out.splitlines() if line.count("│") >= 3}
    assert "hunter2" not in out and "redis://user:***@store:6379/0" in lines["REDIS_URL"]
    assert "42" in lines["BATAYO_RATE_LIMIT"] and "environment" in lines["BATAYO_RATE_LIMIT"]
    assert "default" in lines["BATAYO_STREAMS_MAX"]
    assert set(lines) >= environment_names()


def test_masked_keeps_urls_without_passwords():
    assert masked("redis://store:6379/0") == "redis://store:6379/0"
    assert masked("rediss://:s3cret@store:6380") == "rediss://:***@store:6380"
    assert masked("u:s3cret@store:6380") == "u:***@store:6380"  # a later cluster node


def test_the_docs_table_is_generated_from_the_declarations():
    current = (ROOT / "docs/settings.md").read_text()
    assert current == markdown(), "docs/settings.md is stale: run `batayo settings --markdown`"
    for name in environment_names():
        assert f"`{name}`" in current


def test_the_production_server_refuses_workers_without_a_shared_store(tmp_path):
    """Without REDIS_URL the store is embedded in one data folder, which one process holds:
    gunicorn with two workers stops before any starts, and says what to set."""
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "BATAYO_DATA_DIR": str(tmp_path / "data"),
        "WEB_CONCURRENCY": "2",
        "BATAYO_BIND": "127.0.0.1:1",
    }
    command = [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "service.wsgi:app"]
    done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "2 workers share a store: set REDIS_URL" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "data").exists()
