"""Processes the integration tests start: real `rq worker`s, waiting on a condition."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from service.engine.dispatch import QUEUE


def start_worker(log: Path, redis_url: str) -> subprocess.Popen:
    """A real `rq worker --with-scheduler`; its log goes to a file (a pipe nobody reads would
    fill up and stop the worker)."""
    rq = Path(sys.executable).parent / "rq"
    env = {**os.environ, "REDIS_URL": redis_url}
    with log.open("ab") as out:
        return subprocess.Popen(
            [str(rq), "worker", "--with-scheduler", "--url", redis_url, QUEUE],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: a test can kill it and its children
        )


def wait_until(check, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.1)
    return False
