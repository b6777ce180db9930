"""What became due, and the jobs that do it: bot moves and clocks (RQ jobs, or the embedded
worker's). What is due is derived from the state alone, so a late, repeated or lost job
changes nothing that a sweep cannot restore."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..core import bots
from ..core.clock import at_ms
from ..core.clocks import due_timers
from ..core.game import add_seconds
from ..core.state import awaited, bot_seats, game_of

if TYPE_CHECKING:
    from . import Engine


def job_id(*parts: str) -> str:
    """An RQ job id (letters, digits, `_` and `-` only), one per clock and due time."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", "-".join(parts))


class Scheduler:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    @property
    def dispatcher(self):
        return self.engine.dispatcher

    def schedule(self, before: dict | None, state: dict) -> None:
        """Enqueue the bots' job if a bot is awaited, and each clock new since `before`."""
        if self.dispatcher is None or state["status"] != "playing":
            return
        game_id, version = state["id"], state["version"]
        seats = bot_seats(state)
        waiting = [seat for seat in awaited(state) if seat in seats]
        if waiting:
            patience = game_of(state).bot_patience
            wait = max(patience(state, s) for s in waiting) if patience else 0
            at = add_seconds(state["at"], wait) if wait else None  # from its last event
            self.dispatcher.enqueue(
                "bot_moves", (game_id, version), at=at, job_id=f"bots-{game_id}-{version}"
            )
        old = set(due_timers(before)) if before else set()
        for timer_key, due in due_timers(state):
            if (timer_key, due) not in old:
                self.enqueue_timer(game_id, timer_key, due)

    def enqueue_timer(self, game_id: str, timer_key: str, due: str, *tag: str) -> None:
        """A clock's job at its due time; one job id per clock and due time (and `tag`)."""
        self.dispatcher.enqueue(
            "fire_timer",
            (game_id, timer_key),
            at=due,
            job_id=job_id("timer", game_id, timer_key, due, *tag),
        )

    def bot_moves(self, game_id: str, version: int) -> str:
        """The bots' job at `version`: every bot awaited there plays, in seat order (a
        simultaneous choice is one job, not one per bot), then what became due is enqueued.
        Nothing happens if the game has moved on, so a late or repeated job changes nothing."""
        from . import Stale

        engine = self.engine
        start = engine.load(game_id)
        if start["version"] != version or start["status"] != "playing":
            return "stale"
        seed, seats = engine.games.seed(game_id), bot_seats(start)
        state, played = start, 0
        for seat in [s for s in awaited(start) if s in seats]:
            if seat not in awaited(state):
                continue
            action = bots.choose(state, seat, seed)
            try:
                _, state = engine.act(
                    game_id, seat, action, expected=state["version"], actor="bot", schedule=False
                )
            except Stale:
                return "interrupted"  # whoever moved in between has enqueued what is due
            played += 1
        if not played:
            return "idle"
        self.schedule(start, state)
        return "played"

    def fire_timer(self, game_id: str, timer_key: str) -> str:
        from . import MAX_RETRIES

        engine = self.engine
        for _ in range(MAX_RETRIES):
            state = engine.load(game_id)
            now = engine.clock()
            cmd = engine.fire(state, timer_key, now)
            if cmd is None:
                due = dict(due_timers(state)).get(timer_key)
                if due is not None and due > now and self.dispatcher is not None:
                    self.enqueue_timer(game_id, timer_key, due, now)  # woken early: again
                return "not due"
            if engine.append_or_retry(game_id, state, cmd):
                self.schedule(state, cmd.state)
                return "fired"
        return "busy"

    def due(self, game_id: str) -> None:
        """Enqueue again whatever the game is waiting for (a sweep after lost jobs)."""
        self.schedule(None, self.engine.load(game_id))

    def sweep(self, again_in_s: int = 0) -> int:
        """Restore the due work of every game in play: what is due is derived from the log, so
        after a crash (jobs lost, workers killed) this makes every game move again. Jobs that
        did survive only run twice, which changes nothing. Creates cut short before their index
        are finished first, and a listed status the log has moved past is corrected. With
        `again_in_s` the sweep comes back after that long (one chain only, however many workers
        started one; `rearm` starts it again if the queue lost it). Returns how many games in
        play it saw."""
        engine = self.engine
        engine.settle_unfinished_creates()
        count = 0
        for game_id in engine.store.playing():
            state = engine.load(game_id)
            if state["status"] != "playing":  # its status change was lost with the store
                engine.store.set_status(game_id, state["status"])
            self.schedule(None, state)
            count += 1
        # finished games past their retention delay leave Redis for the archive
        engine.archiver.run(at_ms(engine.clock()))
        if again_in_s and self.dispatcher is not None:
            due = add_seconds(engine.clock(), again_in_s)
            if engine.store.claim_sweep(due, again_in_s):
                next_job = job_id("sweep", due)
                self.dispatcher.enqueue("sweep", (again_in_s,), at=due, job_id=next_job)
                engine.store.arm_sweep(next_job, 3 * again_in_s)
        return count

    def rearm(self, every_s: int) -> bool:
        """The watchdog's check: if the sweep's next job is not in the queue (the queue's keys
        were flushed or evicted, or the chain never started), start the chain again now. True
        if this call did (one process of many)."""
        store, exists = self.engine.store, getattr(self.dispatcher, "exists", None)
        if exists is None:  # an in-process queue is not lost with Redis
            return False
        armed = store.armed_sweep()
        if armed is not None and exists(armed):
            return False
        if not store.claim_rearm(every_s):
            return False
        self.dispatcher.enqueue("sweep", (every_s,), job_id=job_id("sweep", "rearm"))
        return True
