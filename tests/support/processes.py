"""Processes the integration tests start: real `batayo worker`s, waiting on a condition."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from service.engine.dispatch import OutboxDispatcher, RQDispatcher
from service.store import Store


def outbox(client) -> OutboxDispatcher:
    """The dispatcher a service on `client` has: jobs into its outbox, for the workers' pumps."""
    return OutboxDispatcher(Store(client).outbox, RQDispatcher(client))


def start_worker(log: Path, redis_url: str, **env: str) -> subprocess.Popen:
    """A real `batayo worker` (its RQ loop and its pump); its log goes to a file (a pipe nobody
    reads would fill up and stop the worker)."""
    batayo = Path(sys.executable).parent / "batayo"
    with log.open("ab") as out:
        return subprocess.Popen(
            [str(batayo), "worker"],
            env={**os.environ, "REDIS_URL": redis_url, **env},
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
