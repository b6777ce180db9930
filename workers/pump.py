"""The pump: a thread in each `batayo worker` that moves the jobs due in the store's outbox into
the RQ queues (clocks into their own queue first), and RQ's own retries when they are due (what
RQ's scheduler did). It replaces `rq worker --with-scheduler`: due times keep their
milliseconds, and a queue away for a while only delays the jobs, which wait in the store.

It also writes this process's heartbeats (its own, and its worker loop's last sign of life), so
`batayo healthcheck worker` tells a dead worker or a dead pump within seconds.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time

from service.engine.dispatch import RQDispatcher
from service.store import Store
from service.store.outbox import BEAT_EVERY_MS

log = logging.getLogger("batayo.pump")

POLL_S = 0.15  # how long the pump waits for new work before it looks for due entries again
SOONEST_S = 0.005  # a wait shorter than this is not worth a round trip (and 0 blocks forever)
RETRY_S = 1.0  # how often it tries again while the queue (or the store) is away
BATCH = 500
LEASE_MS = 5000  # an entry claimed by a pump that died is claimed again after this long
RETRIES_EVERY_S = 1.0
PRUNE_EVERY_S = 600


def identity() -> str:
    """This process, as its heartbeats name it: `host|pid`."""
    return f"{socket.gethostname()}|{os.getpid()}"


class Liveness:
    """The worker loop's last sign of life, kept in memory: the pump writes it to the store."""

    def __init__(self) -> None:
        self.at_ms = _now_ms()
        self.state = "ok"

    def tick(self, state: str = "ok") -> None:
        self.at_ms, self.state = _now_ms(), state


class Pump:
    def __init__(self, store: Store, queue: RQDispatcher, liveness: Liveness | None = None) -> None:
        self.store, self.queue = store, queue
        self.outbox = store.outbox
        self.liveness = liveness
        self.who = identity()
        self._retries_at = 0.0
        self._pruned_at = 0.0
        self._beat_at = 0.0
        self.state = "ok"

    def once(self) -> int:
        """Hand over every due entry, clocks first (and again between batches of the rest);
        returns how many."""
        moved = 0
        while True:
            clocks = self._move(clocks=True)
            others = self._move(clocks=False)
            moved += clocks + others
            if clocks < BATCH and others < BATCH:
                break
        if time.monotonic() >= self._retries_at:
            self._retries_at = time.monotonic() + RETRIES_EVERY_S
            moved += self.queue.move_retries()
        return moved

    def _move(self, clocks: bool) -> int:
        claimed = self.outbox.claim(_now_ms(), BATCH, LEASE_MS, clocks=clocks)
        if not claimed:
            return 0
        try:
            self.queue.hand((job_id, body["job"], body["args"]) for job_id, body, _ in claimed)
        except BaseException:
            # back to their own due times: the next pump that reaches the queue takes them
            self.outbox.release(
                [(job_id, leased, body["due"]) for job_id, body, leased in claimed],
                clocks=clocks,
            )
            raise
        self.outbox.done([(job_id, leased) for job_id, _, leased in claimed], clocks=clocks)
        return len(claimed)

    def idle_wait(self) -> float:
        """How long to wait for new work when nothing was due: POLL_S, or less when an entry
        falls due sooner, so a delayed job (a paced bot move) is handed over at its due time,
        not up to POLL_S late."""
        due = self.outbox.next_due_ms()
        if due is None:
            return POLL_S
        return min(POLL_S, max(SOONEST_S, (due - _now_ms()) / 1000))

    def catch_up(self) -> None:
        """After the queue was away: a sweep, due now, restores whatever a game waits for. A
        job the queue handed out as it went down (popped, its reply lost) is in no list and
        no outbox; the sweep derives the work from the logs. One sweep for every pump that
        saw the same outage (one job id per ten seconds)."""
        now = _now_ms()
        self.outbox.put(f"sweep-regained-{now // 10_000}", "sweep", (0,), now)

    def beat(self, force: bool = False) -> None:
        """This process's heartbeats (at most once a second unless `force`)."""
        now = time.monotonic()
        if not force and (now - self._beat_at) * 1000 < BEAT_EVERY_MS:
            return
        self._beat_at = now
        beats = self.store.beats
        beats.beat(self.who, "pump", _now_ms(), self.state)
        if self.liveness is not None:
            beats.beat(self.who, "loop", self.liveness.at_ms, self.liveness.state)
        if now - self._pruned_at > PRUNE_EVERY_S:
            self._pruned_at = now
            beats.prune(_now_ms())

    def run(self, stop: threading.Event) -> None:
        """Pump until `stop` is set; a queue or store away is tried again every RETRY_S."""
        failing = False
        while not stop.is_set():
            try:
                moved = self.once()
                if failing:
                    self.queue.connection.ping()  # back for sure, not merely left untouched
                    log.warning("the pump reaches the job queue again")
                    self.catch_up()
                failing, self.state = False, "ok"
                self.beat()
                if not moved:
                    self.outbox.wait(self.idle_wait())
            except Exception as exc:  # the queue (or the store) away: try again shortly
                if not failing:
                    log.warning("the pump cannot move jobs (retrying every %s s): %s", RETRY_S, exc)
                failing, self.state = True, "waiting"
                try:
                    self.beat()
                except Exception:  # the store is away too: nothing to write the beat to
                    log.debug("no heartbeat: the store is away")
                stop.wait(RETRY_S)

    def forget(self) -> None:
        """A worker that stops cleanly says so at once: its heartbeats go."""
        self.store.beats.forget(f"{self.who}|pump", f"{self.who}|loop")


def start(pump: Pump) -> tuple[threading.Event, threading.Thread]:
    stop = threading.Event()
    thread = threading.Thread(target=pump.run, args=(stop,), name="batayo-pump", daemon=True)
    thread.start()
    return stop, thread


def _now_ms() -> int:
    return int(time.time() * 1000)
