"""Moving finished games out of Redis into the archive, once their retention delay has passed.

The sweep (every minute) archives what is due. Each game is written to the archive, read back
and checked against what Redis holds, and only then deleted from Redis: a crash in between
leaves both (the next sweep writes the same object again and deletes), never neither. Two
archivers at once write the same bytes and delete once; the listing keeps the game's entry.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING

from ..core.times import at_ms
from ..settings import Settings
from ..store.archive import ArchivedGame, ArchiveMismatch, encode

if TYPE_CHECKING:
    from . import Engine

log = logging.getLogger("batayo.archive")
BATCH = 100
DEFAULT_AFTER_S: float = Settings.model_fields["archive_after_s"].default


def ended_ms(state: dict) -> int:
    """When a finished game ended: the time of its last event, in epoch milliseconds."""
    return at_ms(state["at"])


class Archiver:
    def __init__(self, engine: Engine, after_s: float | None = DEFAULT_AFTER_S) -> None:
        self.engine = engine
        self.after_s = after_s

    def archive(self, game_id: str) -> str:
        """Archive one finished game: 'archived', 'already' (not in Redis, in the archive),
        'playing' (not finished: left alone) or 'missing' (neither)."""
        store = self.engine.store
        if store.archive is None:
            raise RuntimeError("no archive configured")
        meta, events = store.dump(game_id)
        if not events:
            if store.archive.read(game_id) is not None:
                store.unmark_finished(game_id)
                return "already"
            return "missing"
        state = self.engine.kept.load(game_id)
        if state["status"] != "finished" or state["version"] != len(events):
            return "playing"
        audits = self.engine.audits.finished(game_id, state)
        blob = encode(game_id, meta, state, events, audits)
        store.archive.write(game_id, blob)
        back = store.archive.read(game_id)
        _check(ArchivedGame(back) if back else None, meta, state, events)
        store.drop(game_id, len(events))
        store.unmark_finished(game_id)
        log.info("archived", extra={"game": game_id, "version": len(events), "bytes": len(blob)})
        return "archived"

    def run(self, now_ms: int) -> int:
        """Archive every finished game whose retention delay has passed; how many were."""
        store = self.engine.store
        if store.archive is None or self.after_s is None:  # archiving off (reads still work)
            return 0
        cutoff = now_ms - int(self.after_s * 1000)
        done = 0
        while True:
            due = store.archive_due(cutoff, BATCH)
            moved = 0
            for game_id in due:
                try:
                    outcome = self.archive(game_id)
                except Exception:  # one bad game must not hold the others back
                    log.exception("archiving %s failed; it stays in Redis", game_id)
                    continue
                if outcome == "missing":
                    store.unmark_finished(game_id)
                moved += outcome != "playing"
                done += outcome == "archived"
            if len(due) < BATCH or not moved:
                return done


def _check(back: ArchivedGame | None, meta: dict, state: dict, events: list[dict]) -> None:
    """The archive reads back as exactly what Redis holds (else nothing is deleted)."""
    if back is None:
        raise ArchiveMismatch("the archive did not read back")
    same = (
        back.meta == meta
        and _text(back.state()) == _text(state)
        and len(back.events()) == len(events)
        and all(_text(a) == _text(b) for a, b in zip(back.events(), events, strict=True))
    )
    if not same:
        raise ArchiveMismatch("the archive does not read back as the game in Redis")


def _text(obj: object) -> str:
    return json.dumps(obj, ensure_ascii=False)
