"""What became due, and the jobs that do it: bot moves and clocks (RQ jobs, or the embedded
worker's). What is due is derived from the state alone, so a late, repeated or lost job
changes nothing that a sweep cannot restore."""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING

from ..core import bots, command
from ..core.clocks import due_timers
from ..core.game import RuleError, add_seconds
from ..core.pace import humans_playing, pace_ms, skippable
from ..core.state import awaited, bot_seats, game_of
from ..core.times import at_ms
from .projections import Appended, abandon_ms

if TYPE_CHECKING:
    from . import Engine

log = logging.getLogger("batayo.engine")
SKIPPED = "pace_skipped"  # the game's meta field set when a seat holder skipped the bots' pace
IDLE_PAGE = 100  # games the sweep takes from the idle index at once
IDLE_MOST = 1_000  # and at most in one pass (bounded work): the rest wait for the next pass
BACKFILL = 500  # idle scores of games in play written at once by the sweep's walk


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
            wait = max(wait, self.pace_s(state))
            # from its last event, in the outbox (or the embedded worker's heap) till then: a
            # job that waits holds no worker, and a human's clock starts when the move lands
            at = add_seconds(state["at"], wait) if wait else None
            self.dispatcher.enqueue(
                "bot_moves", (game_id, version), at=at, job_id=f"bots-{game_id}-{version}"
            )
        old = set(due_timers(before)) if before else set()
        for timer_key, due in due_timers(state):
            if (timer_key, due) not in old:
                self.enqueue_timer(game_id, timer_key, due)

    def pace_s(self, state: dict) -> float:
        """Seconds a bot waits after the last event (docs/api.md#bot-pace): the game's
        `bot_pace_ms` with a human seat, none once no human plays and a seat holder skipped."""
        ms = pace_ms(state)
        if ms and not humans_playing(state) and self.skipped(state["id"]):
            return 0
        return ms / 1000

    def skipped(self, game_id: str) -> bool:
        return bool(self.engine.store.meta(game_id).get(SKIPPED))

    def skip(self, game_id: str) -> dict:
        """Run the remaining bot moves at full speed: refused (409) unless the game is
        `skippable` (core/pace.py). Kept in the game's meta, not its log: the pace is a
        presentation of time, and the events' times show the skip."""
        state = self.engine.load(game_id)
        if state["status"] == "finished":
            raise RuleError("game_over", "the game has ended", 409)
        if not skippable(state):
            raise RuleError(
                "cannot_skip",
                "the bots keep no pace here, or a human seat is still playing",
                409,
            )
        self.engine.store.set_meta(game_id, {SKIPPED: "1"})
        # loaded again after the mark, so a bot move that landed meanwhile is not missed
        state = self.engine.load(game_id)
        if self.dispatcher is not None:
            self.schedule(None, state)  # the paced job's id, due now
        return {"id": game_id, "version": state["version"], "bot_pace_ms": 0}

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
        seed, seats = engine.kept.seed(game_id), bot_seats(start)
        state, played = start, 0
        for seat in [s for s in awaited(start) if s in seats]:
            if seat not in awaited(state):
                continue
            try:
                state = self._bot_plays(game_id, state, seat, seed)
            except Stale:
                return "interrupted"  # whoever moved in between has enqueued what is due
            played += 1
        if not played:
            return "idle"
        self.schedule(start, state)
        return "played"

    def _bot_plays(self, game_id: str, state: dict, seat: int, seed: bytes) -> dict:
        """The seat's bot's move appended at `state`'s version: the new state. A move the rules
        refuse (a bug in the bot) gives way to greedy's, logged, as a failing bot does."""

        def act(action: dict) -> dict:
            expected = state["version"]
            return self.engine.act(
                game_id, seat, action, expected=expected, actor="bot", schedule=False
            )[1]

        action = _bot_action(state, seat, seed)
        try:
            return act(action)
        except RuleError as refused:
            log.error(
                "bot %r's move %r refused in game %s at version %s, seat %s (%s): greedy plays",
                bots.bot_of(state, seat),
                action,
                state["id"],
                state["version"],
                seat,
                refused,
            )
            return act(bots.choose(state, seat, seed, "greedy"))

    def fire_timer(self, game_id: str, timer_key: str) -> str:
        from . import MAX_RETRIES

        engine = self.engine
        for _ in range(MAX_RETRIES):
            state = engine.load(game_id)
            now = engine.clock()
            cmd = self._fired(state, timer_key, now)
            if cmd is None:
                due = dict(due_timers(state)).get(timer_key)
                if due is not None and due > now and self.dispatcher is not None:
                    self.enqueue_timer(game_id, timer_key, due, now)  # woken early: again
                return "not due"
            if engine.append_or_retry(game_id, state, cmd):
                self.schedule(state, cmd.state)
                return "fired"
        return "busy"

    def _fired(self, state: dict, timer_key: str, now: str) -> command.Command | None:
        """`engine.fire`; a move clock whose timeout bot fails or is refused (a bug in it) plays
        greedy's move instead, logged, so that the clock's job does not fail at every retry."""
        self.engine.kept.seed(state["id"])  # read (and kept) here: the store away is no bot's bug
        try:
            return self.engine.fire(state, timer_key, now)
        except Exception:
            if not timer_key.startswith("move:"):
                raise
            log.exception(
                "timeout bot %r failed in game %s at version %s, clock %s: greedy plays",
                state["options"].get("timeout_bot"),
                state["id"],
                state["version"],
                timer_key,
            )
            return self.engine.fire(state, timer_key, now, "greedy")

    def abandon(self, game_id: str) -> str:
        """End the game as abandoned if it is due (docs/rules/common.md#abandoned-games: no new
        event for its `abandon_after_s`), through the engine's append, so its end does what every
        end does (status, archive, audits, the client's cap). Else its idle score is corrected:
        its real deadline if it moved since the score was written, out if it is not in play."""
        from . import MAX_RETRIES, NotFound

        engine = self.engine
        index = engine.store.game_index
        for _ in range(MAX_RETRIES):
            try:
                state = engine.load(game_id)
            except NotFound:
                index.drop_idle(game_id)
                return "gone"
            if state["status"] != "playing":  # its end's removal was lost with the store
                index.drop_idle(game_id)
                return "not playing"
            cmd = command.abandon(state, engine.kept.seed(game_id), engine.clock())
            if cmd is None:
                index.keep_idle({game_id: abandon_ms(state)})
                return "not due"
            if engine.append_or_retry(game_id, state, cmd):
                engine.store.count(game_id, games_abandoned=1)  # in memory: no round trip
                return "abandoned"
        return "busy"

    def abandon_idle(self) -> int:
        """Abandon the games in play idle past their deadline: those whose idle score has
        passed, page by page, at most `IDLE_MOST` a pass, so a pass costs O(due), not O(games).
        Each game looked at leaves the due range (abandoned, or given its real deadline) but for
        one that fails or stays busy, which is skipped until the next pass. How many ended."""
        index = self.engine.store.game_index
        now_ms = at_ms(self.engine.clock())
        ended = looked = skipped = 0
        while looked < IDLE_MOST:
            page = index.idle(now_ms, IDLE_PAGE, start=skipped)
            for game_id in page:
                try:
                    outcome = self.abandon(game_id)
                except Exception:  # one bad game must not hold the others back
                    log.exception("abandoning %s failed; tried again next pass", game_id)
                    outcome = "busy"
                ended += outcome == "abandoned"
                skipped += outcome == "busy"
            looked += len(page)
            if len(page) < IDLE_PAGE:
                break
        return ended

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
        count, unscored = 0, {}
        for game_id in engine.store.playing():
            state = engine.load(game_id)
            if state["status"] != "playing":  # what its status change projects was lost
                change = Appended(game_id, state, "playing")
                engine.projections.catch_up(change, self.dispatcher)
            self.schedule(None, state)
            idle_ms = abandon_ms(state)
            if idle_ms is not None:
                unscored[game_id] = idle_ms
            if len(unscored) >= BACKFILL:
                engine.store.game_index.keep_idle(unscored, new=True)
                unscored = {}
            count += 1
        # games in play since before the idle index (or whose entry was lost) get one; a game
        # that ended since it was read is put back too, and dropped by the idle pass below
        engine.store.game_index.keep_idle(unscored, new=True)
        abandoned = self.abandon_idle()
        if abandoned:
            log.info("abandoned %d idle games", abandoned)
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


def _bot_action(state: dict, seat: int, seed: bytes) -> dict:
    """The seat's bot's action; if the bot fails (a bug in it), greedy's, logged: the job
    would fail again at each retry, and the game would wait on that seat for ever."""
    try:
        return bots.choose(state, seat, seed)
    except Exception:
        log.exception(
            "bot %r failed in game %s at version %s, seat %s: greedy plays this move",
            bots.bot_of(state, seat),
            state["id"],
            state["version"],
            seat,
        )
        return bots.choose(state, seat, seed, "greedy")
