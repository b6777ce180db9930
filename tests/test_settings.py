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
from service.settings import Settings, SettingsError, environment_names, load, markdown, masked

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


def test_the_docs_table_is_generated_from_the_declarations():
    current = (ROOT / "docs/settings.md").read_text()
    assert current == markdown(), "docs/settings.md is stale: run `batayo settings --markdown`"
    for name in environment_names():
        assert f"`{name}`" in current
