"""`batayo worker`'s RQ worker: a bound on how long a stop may take, and a loop that outlives
the job queue going away.

RQ's loop survives a lost queue only while it waits for a job; this one starts again once the
queue answers (asked every RECONNECT_S) and gives a job it had taken but not finished back to
the store's outbox, since RQ keeps no trace of it.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import logging
import os
import signal
import threading
import time
from collections.abc import Callable

import redis
from rq import SimpleWorker, Worker
from rq.job import Job
from rq.worker.base import StopRequested

log = logging.getLogger("batayo.worker")

RECONNECT_S = 1.0  # how often a worker whose loop stopped asks the queue again
LOOP_WAIT_S = 2  # the longest the loop waits for a job before it shows it is alive again
COMMANDS_STOP_S = 1.0  # the longest a stop waits for the command channel's thread


def worker_class(fork: bool, grace: float, liveness=None) -> type[Worker]:
    """RQ's worker (a child per job with `fork`, else jobs in process) whose warm shutdown (the
    first SIGTERM or Ctrl-C: finish the job under way, then exit) turns cold after `grace`
    seconds: the worker signals itself again, which RQ takes as a forced stop. Its loop ticks
    `liveness` (see `workers.pump.Liveness`) as it waits and around each job, and it waits at
    most 2 s between tries while the queue is away (RQ's default: up to 60)."""
    base = Worker if fork else SimpleWorker

    class Bounded(base):  # type: ignore[misc, valid-type]
        _deadline_set = False
        max_connection_wait_time = 2.0
        dequeue_timeout = LOOP_WAIT_S  # type: ignore[assignment]

        stop_asked = False  # RQ's own flag is not set when the stop comes while it waits

        def request_stop(self, signum, frame):
            self.stop_asked = True
            if not self._deadline_set:
                self._deadline_set = True
                timer = threading.Timer(grace, os.kill, (os.getpid(), signal.SIGTERM))
                timer.daemon = True
                timer.start()
            return super().request_stop(signum, frame)

        def heartbeat(self, *args, **kwargs):
            if liveness is not None:
                liveness.tick()
            return super().heartbeat(*args, **kwargs)

        def unsubscribe(self):
            """RQ's, with the wait for its command channel's thread bounded (`_stop`)."""
            if self.pubsub_thread:
                self.log.info(
                    "Worker %s: unsubscribing from channel %s", self.name, self.pubsub_channel_name
                )
                self.pubsub.unsubscribe()
                _stop(self.pubsub_thread)
                if not self.pubsub_thread.is_alive():  # else it closes it as its read returns
                    self.pubsub.close()

        holding = None  # the job taken from the queue and not finished yet

        def execute_job(self, job, queue):
            if liveness is not None:
                liveness.tick("busy")
            self.holding = job
            try:
                done = super().execute_job(job, queue)
                self.holding = None  # left set when the queue went away under it
                return done
            finally:
                if liveness is not None:
                    liveness.tick()

    return Bounded


def run(
    make: Callable[[], Worker],
    connection: redis.Redis,
    burst: bool = False,
    liveness=None,
    wait_s: float = RECONNECT_S,
    give_back: Callable[[Job], object] | None = None,
) -> None:
    """Run workers made by `make` until one stops on request (or, with `burst`, once): a worker
    made while the queue is away, or a loop that RQ ended on an error (the queue away, most
    often), starts again once the queue answers; a job held unfinished goes to `give_back`."""
    while True:
        try:
            worker = make()  # RQ asks the queue as it makes a worker
        except (redis.ConnectionError, redis.TimeoutError) as exc:
            log.warning("the job queue does not answer (%s): the worker starts once it does", exc)
            _wait(connection, lambda: False, liveness, wait_s)  # a stop here ends the process
            continue
        try:
            worker.work(burst=burst)
        except StopRequested:
            return
        except (redis.ConnectionError, redis.TimeoutError) as exc:
            log.warning("the job queue went away under the worker: %s", exc)
        _give_back(worker, give_back)
        if burst or _asked(worker):
            return
        _drop(worker)
        log.warning("the worker's loop stopped; it starts again once the job queue answers")
        try:
            _wait(connection, functools.partial(_asked, worker), liveness, wait_s)
        except StopRequested:
            return
        if _asked(worker):
            return
        log.warning("the job queue answers again: the worker's loop starts again")


def _wait(connection: redis.Redis, asked: Callable[[], bool], liveness, wait_s: float) -> None:
    """Until the queue answers or a stop is `asked`, showing the worker alive meanwhile."""
    while not asked() and not _answers(connection):
        if liveness is not None:
            liveness.tick("waiting")
        time.sleep(wait_s)


def _give_back(worker: Worker, give_back: Callable[[Job], object] | None) -> None:
    held = getattr(worker, "holding", None)
    if held is None or give_back is None:
        return
    try:
        give_back(held)
        log.warning("the job %s cut short by the lost queue is given back", held.id)
    except Exception:  # the store away too: the sweep restores the work
        log.exception("the job %s cut short by the lost queue could not be given back", held.id)


def _asked(worker: Worker) -> bool:
    return bool(getattr(worker, "stop_asked", False) or worker._stop_requested)


def _answers(connection: redis.Redis) -> bool:
    try:
        return bool(connection.ping())
    except (redis.ConnectionError, redis.TimeoutError):
        return False


def _drop(worker: Worker) -> None:
    """What a loop cut short left running: its command channel's thread."""
    thread = getattr(worker, "pubsub_thread", None)
    if thread is not None:
        with contextlib.suppress(Exception):  # it is gone with the connection anyway
            _stop(thread)


def _stop(thread: threading.Thread) -> None:
    """Stop RQ's command channel's thread, waiting for it `COMMANDS_STOP_S` at most. redis-py 8's
    `stop` waits until the thread ends, and RQ lets the thread's read block for 60 s: a stop
    that came just after the thread went back to reading (the confirmation of the unsubscribe
    read first, as under load) held the worker's loop, and every game waiting on it, that long.
    The thread is a daemon: left reading, it ends (and closes its connection) once its read
    returns, a message or the timeout; closing the connection under it would make it fail."""
    stop = thread.stop  # type: ignore[attr-defined]
    if "timeout" in inspect.signature(stop).parameters:
        stop(timeout=COMMANDS_STOP_S)
    else:  # redis-py before 8: stop only clears the flag
        stop()
        thread.join(timeout=COMMANDS_STOP_S)
