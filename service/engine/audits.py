"""The audits of a game's log, `/ties` and `/verify`, without re-reading a long log each call.

A finished game's audits and export are made once per version and kept (with the game, in the
archive and, up to `KEPT_EXPORT_EVENTS`, in this process). A game in play is audited from the
log this process already read, and what a seat is shown of it is kept while the game's status
and last reveal stay the same (docs/architecture.md#measured-shortcuts).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

from ..core.chain import GENESIS
from ..core.state import game_of
from ..core.verify import verify
from ..core.views import closed_as_null, shown_event

if TYPE_CHECKING:
    from . import Engine

KEPT_GAMES = 64  # finished games' audits kept in this process (least recently used first out)
KEPT_EVENTS = 100_000  # events of games in play kept, over every game and seat (the same)
KEPT_EXPORT_EVENTS = 50_000  # events of finished games' exports kept (the last export always)


class _Seen:
    """What one seat was shown of a game in play, and how far its chain was verified."""

    def __init__(self, revealed: int) -> None:
        self.revealed = revealed  # the state's `revealed_at` when these were shown
        self.shown: list[dict] = []
        self.linked: tuple[int, str, int] = (0, GENESIS, 0)

    def keep(self, upto: int) -> None:
        """Keep the first `upto` shown events only (the rest must be shown again)."""
        if len(self.shown) > upto:
            del self.shown[upto:]
        if self.linked[0] > upto:
            kept = self.shown[:upto]
            opened = sum(len(e.get("openings", ())) for e in kept)
            self.linked = (upto, kept[-1]["hash"] if kept else GENESIS, opened)


class _Log:
    """A game's stored log read so far, and what each seat was shown of it."""

    def __init__(self) -> None:
        self.events: list[dict] = []
        self.seen: dict[int | None, _Seen] = {}
        self.lock = threading.Lock()


class Audits:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._logs: OrderedDict[str, _Log] = OrderedDict()
        self._finished: OrderedDict[tuple[str, int], dict] = OrderedDict()
        self._exports: OrderedDict[tuple[str, int], dict] = OrderedDict()
        self._lock = threading.Lock()

    # -- the routes ----------------------------------------------------------------------------

    def ties(self, game_id: str, seat: int | None) -> list[dict]:
        """Every tie episode, built from the events as `seat` may see them."""
        state = self.engine.load(game_id)
        if game_of(state).ties is None:
            return []
        if state["status"] == "finished":
            return self.finished(game_id, state)["ties"]
        return self._ties(state, self._seen(game_id, seat, state)[2])

    def verify(self, game_id: str, seat: int | None) -> dict:
        """docs/fairness.md's checks of the log as `seat` receives it (everything once it ended)."""
        state = self.engine.load(game_id)
        if state["status"] == "finished":
            return self.finished(game_id, state)["verify"]
        log, seen, shown = self._seen(game_id, seat, state)
        report = verify(shown, linked=seen.linked)
        if report["status"] == "incomplete" and report["fairness"] == 2:
            with log.lock:  # the chain of these events is checked: the next call goes on
                # still the very events checked (a reveal in between would have shown anew)
                kept = len(seen.shown) >= len(shown) and seen.shown[len(shown) - 1] is shown[-1]
                if kept and len(shown) > seen.linked[0]:
                    checked = report["checked"]
                    seen.linked = (len(shown), shown[-1]["hash"], checked["openings"])
        return report

    # -- finished games ------------------------------------------------------------------------

    def export(self, game_id: str, state: dict) -> dict:
        """A finished game's export (`Engine.export`), made once per version. It is the log as
        a spectator is shown it, which once the game is over is everything: the same for every
        caller, so one kept copy serves them all."""
        name = (game_id, state["version"])
        with self._lock:
            found = self._exports.get(name)
            if found is not None:
                self._exports.move_to_end(name)
                return found
        events = self.engine.shown(self.engine.store.events(game_id), None, state)
        found = {
            "format": "batayo-export/2",
            "id": game_id,
            "game": state["game"],
            "server_seed": events[-1]["data"].get("server_seed"),
            "events": events,
            "signature": self.engine.tip_signature(game_id, state),
        }
        with self._lock:
            self._exports[name] = found
            self._exports.move_to_end(name)
            while len(self._exports) > 1 and (
                sum(len(e["events"]) for e in self._exports.values()) > KEPT_EXPORT_EVENTS
            ):
                self._exports.popitem(last=False)
        return found

    def of_finished(self, game_id: str, state: dict, events: list[dict]) -> dict:
        """Both audits of a finished game from its stored log (the same for every caller)."""
        seed = self.engine.kept.seed(game_id)
        shown = [shown_event(e, None, state, seed) for e in events]
        return {
            "ties": self._ties(state, shown),
            "verify": verify(shown),
            "signature": self.engine.sign_tip(game_id, state),
        }

    def signature(self, game_id: str, state: dict) -> dict | None:
        """A finished game's signature, kept with its audits (and so in its archive); one made
        now (kept in this process) when they were made without a key."""
        found = self.finished(game_id, state)
        if found.get("signature") is None and self.engine.keys is not None:
            found["signature"] = self.engine.sign_tip(game_id, state)
        return found.get("signature")

    def finished(self, game_id: str, state: dict) -> dict:
        """Both audits of a finished game, made once (the `audit` job makes them as it ends)."""
        name = (game_id, state["version"])
        with self._lock:
            found = self._finished.get(name)
        if found is None:
            found = self._stored(game_id, state)
            with self._lock:
                self._finished[name] = found
                while len(self._finished) > KEPT_GAMES:
                    self._finished.popitem(last=False)
                self._logs.pop(game_id, None)  # its log in play is of no more use
        return found

    def _stored(self, game_id: str, state: dict) -> dict:
        store, field = self.engine.store, f"v{state['version']}"
        archived = store.archived(game_id) if not store.in_redis(game_id) else None
        if archived is not None and archived.audits.get("version") == state["version"]:
            return archived.audits
        kept = store.audit(game_id, field)
        if isinstance(kept, dict):
            return kept
        made = {
            "version": state["version"],
            **self.of_finished(game_id, state, self._read(game_id, state)),
        }
        store.keep_audit(game_id, field, made)
        return made

    # -- games in play -------------------------------------------------------------------------

    def _read(self, game_id: str, state: dict) -> list[dict]:
        """The stored log up to the state's version, reading only what this process lacks."""
        log = self._log(game_id)
        with log.lock:
            have = len(log.events)
            if have < state["version"]:
                log.events += self.engine.store.events(game_id, have, state["version"] - have)
            return log.events[: state["version"]]

    def _seen(self, game_id: str, seat: int | None, state: dict) -> tuple[_Log, _Seen, list]:
        """The log as `seat` is shown it now. Which values a seat may see of a game in play
        changes only with a reveal (`revealed_at`), and only for events before it: those
        shown before the previous reveal stay as they were."""
        events = self._read(game_id, state)
        log = self._log(game_id)
        seed = self.engine.kept.seed(game_id)
        revealed = state.get("revealed_at", 0)
        with log.lock:
            seen = log.seen.get(seat)
            if seen is None or revealed < seen.revealed:
                seen = log.seen[seat] = _Seen(revealed)
            elif revealed > seen.revealed:
                seen.keep(max(seen.revealed - 1, 0))  # events from the old reveal on may open
                seen.revealed = revealed
            shown = seen.shown
            shown += [shown_event(e, seat, state, seed) for e in events[len(shown) :]]
            return log, seen, shown[: len(events)]

    def _ties(self, state: dict, shown: list[dict]) -> list[dict]:
        audit = game_of(state).ties
        return audit([closed_as_null(e) for e in shown]) if audit is not None else []

    def _log(self, game_id: str) -> _Log:
        with self._lock:
            log = self._logs.get(game_id)
            if log is None:
                log = self._logs[game_id] = _Log()
            self._logs.move_to_end(game_id)
            while len(self._logs) > 1 and sum(map(_size, self._logs.values())) > KEPT_EVENTS:
                self._logs.popitem(last=False)
            return log


def _size(log: _Log) -> int:
    """The events a log holds, read and shown (a bound on the memory it takes)."""
    return len(log.events) + sum(len(seen.shown) for seen in log.seen.values())
