"""`batayo worker`'s RQ worker, with a bound on how long a stop may take."""

from __future__ import annotations

import os
import signal
import threading

from rq import SimpleWorker, Worker


def worker_class(fork: bool, grace: float) -> type[Worker]:
    """RQ's worker (a child per job with `fork`, else jobs in process) whose warm shutdown (the
    first SIGTERM or Ctrl-C: finish the job under way, then exit) turns cold after `grace`
    seconds: the worker signals itself again, which RQ takes as a forced stop."""
    base = Worker if fork else SimpleWorker

    class Bounded(base):  # type: ignore[misc, valid-type]
        _deadline_set = False

        def request_stop(self, signum, frame):
            if not self._deadline_set:
                self._deadline_set = True
                timer = threading.Timer(grace, os.kill, (os.getpid(), signal.SIGTERM))
                timer.daemon = True
                timer.start()
            return super().request_stop(signum, frame)

    return Bounded
