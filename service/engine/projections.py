"""What follows from an append, apart from deciding it: the listing's status index, the archive's
mark, the audits' job and the client's cap each react to the game's new state.

Each projection is idempotent and runs after a successful append, in the request or job that
made it, in the order below. A process that dies between the append and its projections leaves
them undone, not wrong: the sweep runs them all again for every game it finds listed in play
(`catch_up`), so a game whose end was appended is still listed as finished, archived, audited,
and frees its place in its client's cap.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..core.clocks import abandon_due
from ..core.times import at_ms
from ..store import Store
from .archiving import ended_ms
from .dispatch import Dispatcher


@dataclass(frozen=True)
class Appended:
    """A game's state after an append, and its status before (None: the game is new)."""

    game_id: str
    state: dict
    status_before: str | None

    @property
    def status_changed(self) -> bool:
        return self.status_before != self.state["status"]

    @property
    def finished(self) -> bool:
        return self.state["status"] == "finished"


def abandon_ms(state: dict) -> int | None:
    """When the game is abandoned if nothing happens, in ms (None: not in play): its score in
    the idle index."""
    due = abandon_due(state)
    return None if due is None else at_ms(due)


def status_index(store: Store, change: Appended) -> None:
    """The listing and the idle index follow the game's status."""
    store.set_status(change.game_id, change.state["status"], abandon_ms(change.state))


def archive_mark(store: Store, change: Appended) -> None:
    """A finished game is archived once its retention delay has passed."""
    if change.finished:
        store.mark_finished(change.game_id, ended_ms(change.state))


def audit_job(dispatcher: Dispatcher | None, change: Appended) -> None:
    """A finished game's audits are made by a job, off the request's path (one job a game)."""
    if change.finished and dispatcher is not None:
        dispatcher.enqueue("audit", (change.game_id,), job_id=f"audit-{change.game_id}")


def cap_release(store: Store, change: Appended) -> None:
    """A finished game no longer counts against the cap of the client that created it."""
    if change.finished:
        creator = store.meta(change.game_id).get("client")
        if creator:
            store.release_game(creator, change.game_id)


class Projections:
    """The projections of one store, run in a fixed order."""

    def __init__(self, store: Store, caps: Callable[[], bool]) -> None:
        self.store = store
        self.caps = caps  # whether the per-client cap of games in play is on

    def after_append(self, change: Appended, dispatcher: Dispatcher | None) -> None:
        """After a successful append: only a change of status has anything to project."""
        if change.status_changed:
            self.catch_up(change, dispatcher)

    def catch_up(self, change: Appended, dispatcher: Dispatcher | None) -> None:
        """Every projection, whatever was done before (the sweep: each is idempotent)."""
        status_index(self.store, change)
        archive_mark(self.store, change)
        audit_job(dispatcher, change)
        if self.caps():
            cap_release(self.store, change)
