"""A batch of a live game's events: what the ring of recent batches holds for the streams of
one process (service/live/hub.py), the bytes each audience is sent, and when it lets go of them.
"""

from __future__ import annotations

from types import ModuleType

from ..core.views import game_view
from ..engine import Engine
from . import sse


class Batch:
    """Events appended together, and the game's state at the last of them, until every reader
    the batch was published to is done with it (`read`)."""

    __slots__ = ("_encoded", "events", "finished", "first", "last", "seq", "state", "unread")

    def __init__(self, seq: int, events: list[dict], state: dict, readers: int) -> None:
        self.seq = seq
        self.events = events
        self.state = state
        self.first = events[0]["version"]
        self.last = events[-1]["version"]
        self.finished = state["status"] == "finished"
        self.unread = readers  # the channel's subscriptions when it was published
        self._encoded: dict[tuple[int | None, bool, ModuleType], bytes] = {}

    @property
    def released(self) -> bool:
        return self.unread <= 0

    def read(self) -> None:
        """One of its readers is done with it. Once all are, no reader can ask for it again (a
        subscription that opens later starts past it), so it lets go of its events, state and
        bytes: the ring then keeps a place, not a game's recent past, and the collector's young
        walks stay short (docs/performance.md#the-collectors-pauses). A reader that closed
        before reading it leaves it whole, as the ring's bound had it before. Without a lock:
        under threads a lost decrement only keeps the batch whole, it never lets it go early."""
        self.unread -= 1
        if self.unread <= 0:
            self.events, self.state, self._encoded = [], {}, {}

    def encoded(
        self, seat: int | None, view: bool, engine: Engine, codec: ModuleType = sse
    ) -> bytes:
        """The bytes of this batch for `seat` (and its view, if asked) in `codec` (`sse`, or
        `wsframes` for a socket): built by the first stream that asks. No lock (one a batch was
        a measurable cost on the live path): two streams that ask at once (threads, or a
        greenlet that waits for the game's seed) build the same bytes, and either one's are
        kept."""
        key = (seat, view, codec)
        got = self._encoded.get(key)
        if got is None:
            got = self._encoded[key] = self._build(seat, view, engine, codec)
        return got

    def _build(self, seat: int | None, view: bool, engine: Engine, codec: ModuleType) -> bytes:
        if view:
            return self.encoded(seat, False, engine, codec) + codec.view(
                game_view(self.state, seat)
            )
        return codec.events(engine.shown(self.events, seat, self.state))
