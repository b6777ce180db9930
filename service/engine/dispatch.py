"""How the engine tells the workers what became due: a bot move, a clock, a sweep, an audit.

`OutboxDispatcher` writes each job into the store's outbox by its due time, and a worker's pump
moves the due ones into the RQ queues (`RQDispatcher`), clocks first
(docs/architecture.md#the-path-of-an-action). `InlineDispatcher` runs the same jobs on a thread
of this process (the embedded service); `QueueDispatcher` only collects them (tests, simulator).
"""

from __future__ import annotations

import heapq
import logging
import secrets
import threading
import time
from collections.abc import Callable, Iterable
from typing import Protocol

from ..core.times import at_ms, moment
from ..store.outbox import is_clock

log = logging.getLogger(__name__)

QUEUE = "batayo"  # bot moves, sweeps, audits
CLOCKS_QUEUE = "batayo-clocks"  # clocks: listened to first
QUEUES = (CLOCKS_QUEUE, QUEUE)  # in the order a worker listens to them


def queue_of(job: str) -> str:
    return CLOCKS_QUEUE if is_clock(job) else QUEUE


class Dispatcher(Protocol):
    def enqueue(self, job: str, args: tuple, at: str | None = None, job_id: str | None = None):
        """Run `workers.jobs.<job>(*args)` soon, or at the ISO time `at`."""


def due_ms(at: str | None, now: float | None = None) -> int:
    """A due time in milliseconds since the epoch: `at`'s, or now for a job due at once."""
    if at is None:
        return int((time.time() if now is None else now) * 1000)
    return at_ms(at)


# a job that fails (the store briefly away) is tried again after 1, 5 and 15 s (the pump moves
# RQ's retries back into their queue when due)
RETRY_INTERVALS = [1, 5, 15]
RESULT_TTL_S = 60
FAILURE_TTL_S = 24 * 3600


class RQDispatcher:
    """The RQ queues of a plain Redis: what the pump hands the due jobs to."""

    def __init__(self, connection) -> None:
        from rq import Queue

        self.connection = connection
        self.queues = {name: Queue(name, connection=connection) for name in QUEUES}
        self._probe = None

    def exists(self, job_id: str) -> bool:
        """Whether the queue still holds this job (scheduled, queued, running or just done)."""
        from rq.job import Job

        return Job.exists(job_id, connection=self.connection)

    def ping(self) -> bool:
        """Whether the queue answers, asked once within a second (no retries: /readyz)."""
        if self._probe is None:
            import redis
            from redis.backoff import NoBackoff
            from redis.retry import Retry

            pool = self.connection.connection_pool
            kwargs = {
                **pool.connection_kwargs,
                "socket_timeout": 1,
                "socket_connect_timeout": 1,
                "retry": Retry(NoBackoff(), 0),
            }
            probe = redis.ConnectionPool(
                connection_class=pool.connection_class, max_connections=4, **kwargs
            )
            self._probe = redis.Redis(connection_pool=probe)
        return bool(self._probe.ping())

    @staticmethod
    def _options(job_id: str | None) -> dict:
        from rq import Retry

        return {
            "job_id": job_id,
            "result_ttl": RESULT_TTL_S,
            "failure_ttl": FAILURE_TTL_S,
            "retry": Retry(max=3, interval=RETRY_INTERVALS),
        }

    def hand(self, jobs: Iterable[tuple[str, str, tuple]]) -> int:
        """Queue (job id, job, args) at once, each into its queue, in one round trip a queue."""
        from rq import Queue

        by_queue: dict[str, list] = {}
        for job_id, job, args in jobs:
            data = Queue.prepare_data(f"workers.jobs.{job}", tuple(args), **self._options(job_id))
            by_queue.setdefault(queue_of(job), []).append(data)
        for name, datas in by_queue.items():
            self.queues[name].enqueue_many(datas)
        return sum(len(d) for d in by_queue.values())

    def move_retries(self) -> int:
        """RQ's retries that are due back into their queue (RQ's scheduler's one duty left)."""
        from rq.job import Job
        from rq.registry import ScheduledJobRegistry
        from rq.utils import current_timestamp

        moved = 0
        for queue in self.queues.values():
            registry = ScheduledJobRegistry(queue=queue)
            ids = registry.get_jobs_to_schedule(current_timestamp())
            if not ids:
                continue
            with self.connection.pipeline() as pipe:
                for job in Job.fetch_many(ids, connection=self.connection):
                    if job is not None:
                        queue._enqueue_job(job, pipeline=pipe)
                for job_id in ids:
                    registry.remove(job_id, pipeline=pipe)
                pipe.execute()
            moved += len(ids)
        return moved


class OutboxDispatcher:
    """Jobs into the store's outbox (see `service.store.outbox`), for the pumps to queue.
    `queue` (the RQ queues, if this process knows them) only answers `exists` and readiness."""

    def __init__(self, outbox, queue: RQDispatcher | None = None) -> None:
        self.outbox = outbox
        self.queue = queue

    def enqueue(self, job: str, args: tuple, at: str | None = None, job_id: str | None = None):
        self.outbox.put(job_id or f"{job}-{secrets.token_hex(8)}", job, args, due_ms(at))

    def exists(self, job_id: str) -> bool:
        """Whether the job waits in the outbox or is still in the queue."""
        if self.outbox.holds(job_id):
            return True
        return self.queue is not None and self.queue.exists(job_id)


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
    """A worker thread inside the service: jobs run one at a time, a due clock first, then the
    other due jobs in the order they became due (a job due at once is due when enqueued, so
    bot moves that keep coming never hold a clock back)."""

    def __init__(self, call: Callable[[str, tuple], object]) -> None:
        self._call = call
        self._clocks: list[tuple[float, int, str, tuple]] = []
        self._others: list[tuple[float, int, str, tuple]] = []
        self._count = 0
        self._cv = threading.Condition()
        self._stopped = False
        self._thread = threading.Thread(target=self._loop, name="batayo-worker", daemon=True)
        self._thread.start()

    def enqueue(self, job: str, args: tuple, at: str | None = None, job_id: str | None = None):
        due = moment(at).timestamp() if at else time.time()
        heap = self._clocks if is_clock(job) else self._others
        with self._cv:
            self._count += 1
            heapq.heappush(heap, (due, self._count, job, args))
            self._cv.notify()

    def stop(self, timeout: float = 5.0) -> None:
        with self._cv:
            self._stopped = True
            self._cv.notify()
        self._thread.join(timeout=timeout)

    def _next(self, now: float) -> list | None:
        """The heap whose head runs next, if one is due: the clocks' first."""
        for heap in (self._clocks, self._others):
            if heap and heap[0][0] <= now:
                return heap
        return None

    def _loop(self) -> None:
        while True:
            with self._cv:
                while not self._stopped and (heap := self._next(time.time())) is None:
                    heads = [h[0][0] for h in (self._clocks, self._others) if h]
                    self._cv.wait(min(heads) - time.time() if heads else None)
                if self._stopped:
                    return
                _, _, job, args = heapq.heappop(heap)
            try:
                self._call(job, args)
            except Exception:  # a failed job must not stop the worker; the sweep redoes it
                log.exception("job %s%r failed", job, args)
