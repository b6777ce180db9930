"""How the engine tells the workers what became due: a bot move or a clock.

`RQDispatcher` enqueues RQ jobs (run by `rq worker --with-scheduler`); `InlineDispatcher` runs the
same job functions on a thread of this process (the embedded service); `QueueDispatcher` only
collects them, for tests and the simulator to run when they choose.
"""

from __future__ import annotations

import heapq
import logging
import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Protocol

log = logging.getLogger(__name__)

QUEUE = "batayo"


class Dispatcher(Protocol):
    def enqueue(self, job: str, args: tuple, at: str | None = None, job_id: str | None = None):
        """Run `workers.jobs.<job>(*args)` soon, or at the ISO time `at`."""


def _when(at: str) -> datetime:
    return datetime.fromisoformat(at.replace("Z", "+00:00"))


class RQDispatcher:
    def __init__(self, connection) -> None:
        from rq import Queue

        self.queue = Queue(QUEUE, connection=connection)

    def exists(self, job_id: str) -> bool:
        """Whether the queue still holds this job (scheduled, queued, running or just done)."""
        from rq.job import Job

        return Job.exists(job_id, connection=self.queue.connection)

    def enqueue(self, job: str, args: tuple, at: str | None = None, job_id: str | None = None):
        from rq import Retry

        func = f"workers.jobs.{job}"
        # a job that fails (Redis briefly away) is tried again after 1, 5 and 15 s
        opts = {
            "job_id": job_id,
            "result_ttl": 60,
            "failure_ttl": 24 * 3600,
            "retry": Retry(max=3, interval=[1, 5, 15]),
        }
        if at is None:
            self.queue.enqueue(func, *args, **opts)
        else:
            # RQ keeps scheduled times in whole seconds, truncated: round up, or a job due at
            # :05.7 would run at :05 and find itself early
            when = _when(at)
            if when.microsecond:
                when = when.replace(microsecond=0) + timedelta(seconds=1)
            self.queue.enqueue_at(when, func, *args, **opts)


class QueueDispatcher:
    """Collects jobs; `run(call)` runs those due until none is left."""

    def __init__(self) -> None:
        self.jobs: list[tuple[str, str, tuple]] = []

    def enqueue(self, job: str, args: tuple, at: str | None = None, job_id: str | None = None):
        self.jobs.append((at or "", job, args))

    def run(
        self, call: Callable[[str, tuple], object], now: str | None = None, limit=100_000
    ) -> int:
        """Run due jobs (and the ones they enqueue) until none is due; returns how many ran."""
        ran = 0
        while ran < limit:
            due = [j for j in self.jobs if not j[0] or (now is not None and j[0] <= now)]
            if not due:
                return ran
            self.jobs.remove(due[0])
            call(due[0][1], due[0][2])
            ran += 1
        raise RuntimeError("jobs keep coming")


class InlineDispatcher:
    """A worker thread inside the service: jobs run in time order, one at a time."""

    def __init__(self, call: Callable[[str, tuple], object]) -> None:
        self._call = call
        self._heap: list[tuple[float, int, str, tuple]] = []
        self._count = 0
        self._cv = threading.Condition()
        self._stopped = False
        self._thread = threading.Thread(target=self._loop, name="batayo-worker", daemon=True)
        self._thread.start()

    def enqueue(self, job: str, args: tuple, at: str | None = None, job_id: str | None = None):
        due = _when(at).timestamp() if at else 0.0
        with self._cv:
            self._count += 1
            heapq.heappush(self._heap, (due, self._count, job, args))
            self._cv.notify()

    def stop(self, timeout: float = 5.0) -> None:
        with self._cv:
            self._stopped = True
            self._cv.notify()
        self._thread.join(timeout=timeout)

    def _loop(self) -> None:
        while True:
            with self._cv:
                while not self._stopped and (not self._heap or self._heap[0][0] > time.time()):
                    wait = self._heap[0][0] - time.time() if self._heap else None
                    self._cv.wait(wait)
                if self._stopped:
                    return
                _, _, job, args = heapq.heappop(self._heap)
            try:
                self._call(job, args)
            except Exception:  # a failed job must not stop the worker; the sweep redoes it
                log.exception("job %s%r failed", job, args)
