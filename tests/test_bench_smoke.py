"""The bench cannot rot: `bench/run.py --quick` runs (in a few seconds) and prints its table."""

from __future__ import annotations

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
