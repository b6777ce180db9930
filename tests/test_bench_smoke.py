"""The bench cannot rot: `bench/run.py --quick` runs (in a few seconds) and prints its table."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_quick_bench_prints_its_table(redis_url):
    """On the tests' own Redis server (the bench empties the database it is given)."""
    out = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "run.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={"REDIS_URL": redis_url, "PATH": "", "COLUMNS": "160"},
        check=False,
    )
    assert out.returncode == 0, out.stderr
    for figure in (
        "| simulate: 52-card 2-player Bataille |",
        "|   its floor: reducer-only replay |",
        "| simulate --jobs ",
        "| replay: Bataille state from events |",
        "| one action at version 5,000, cold engine |",
        "| one action at version 5,000, warm engine |",
        "| HTTP actions, flat out",
        "| HTTP action latency at",
        "| CPU per request, flat out",
        "| Redis memory: bataille |",
        "| archive: bataille |",
        "| /verify, game in play at ",
        "| live: 50 followers, gunicorn gevent, 1 worker |",
    ):
        assert figure in out.stdout, out.stdout
    assert " 0 errors |" in out.stdout


def test_the_clocks_bench_times_each_clock_from_the_event_that_started_it():
    """bench/clocks.py: a clock's lateness is its event's time less the event before it less
    the timeout; the clock's own later events (the second seat, the round's end) start none."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import clocks
    finally:
        sys.path.remove(str(ROOT / "bench"))
    at = "2026-01-01T00:00:{:06.3f}Z".format
    events = [
        {"actor": "server", "at": at(0.0)},
        {"actor": "clock", "at": at(1.25)},
        {"actor": "clock", "at": at(1.25)},
        {"actor": "server", "at": at(1.25)},
        {"actor": "clock", "at": at(2.3)},
    ]
    assert [round(x, 3) for x in clocks.lateness(events)] == [0.25, 0.05]


def test_the_clocks_bench_runs_against_batayo_serve():
    out = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "clocks.py"), "--games", "2", "--seconds", "3"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["clocks"] >= 1 and {"late_p99_ms", "missed", "healthz_p99_ms"} <= set(result)
    assert result["healthz"] > 10 and result["events_of_strong_games"] > 0
