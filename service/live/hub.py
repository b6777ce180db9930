"""Live streams in one process: one follower per live game, fanning its events out to every
stream of that game in the process.

A follower waits on the game's Redis stream and publishes each *batch* (the new events and the
state at its last version) into a short ring; streams read the ring, each batch encoded once
per audience, woken `GROUP` at a time (`Wakeup`) and kept alive by one ticker per process
(`Hub._tick`). How a stream catches up, falls behind and ends:
docs/architecture.md#the-path-of-a-live-event.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Iterator
from types import ModuleType

import gevent
import redis
from gevent import monkey

from ..core.state import apply, clone
from ..core.views import game_view
from ..engine import Engine
from ..engine.caps import capped
from ..store import Store, first_pushed, pushed
from ..store.clients import own_pool
from . import sse
from .batch import Batch
from .push import Push
from .settings import LiveSettings

log = logging.getLogger("batayo.live")
CATCH_UP_PAGE = 500
GROUP = 64  # streams a batch wakes together
_SERVE_OTHERS_S = 1e-6  # a timer, so the loop polls its sockets before the next group
# the ticker's period: this part of the keep-alive period (or of the lifetime, if shorter); a
# game's streams are woken once that period less a tick passed without a batch
TICKS_PER_PERIOD = 4
_SHORTEST_TICK_S = 0.01
_HUBS: weakref.WeakSet[Hub] = weakref.WeakSet()


class TooManyForClient(Exception):
    """The client address has `limit` streams open in this process already."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"at most {limit} open streams per client")
        self.limit = limit


class Full(Exception):
    """This process has its maximum number of streams open."""


class Lagged(Exception):
    """The reader fell behind the ring of recent batches."""


def shutdown_all() -> None:
    """End every stream of this process cleanly (the server is stopping)."""
    for hub in list(_HUBS):
        hub.close()


class Wakeup:
    """What a channel's streams wait on for its next batch: one event per group of `GROUP`
    streams (a stream waits on its slot's), set a group at a time."""

    __slots__ = ("events",)

    def __init__(self, streams: int) -> None:
        self.events = [threading.Event() for _ in range(max(1, -(-streams // GROUP)))]

    def wait(self, slot: int, timeout: float | None = None) -> bool:
        return self.events[slot % len(self.events)].wait(timeout)

    def _cooperative(self) -> bool:
        """Whether `set` lets the server's other sockets run between groups (under gevent)."""
        return len(self.events) > 1 and monkey.is_module_patched("threading")

    def set_apart(self) -> None:
        """`set`, from a greenlet of its own when it would let the server's other sockets run
        between groups, so that its caller goes on at once."""
        if self._cooperative():
            gevent.spawn(self.set)
        else:
            self.set()

    def set(self) -> None:
        cooperative = self._cooperative()
        for i, event in enumerate(self.events):
            if i and cooperative:  # under gevent: the server's other sockets between groups
                time.sleep(_SERVE_OTHERS_S)
            event.set()


class Channel:
    """One game followed in this process."""

    def __init__(self, hub: Hub, game_id: str) -> None:
        self.hub = hub
        self.game_id = game_id
        self.lock = threading.Lock()
        self.subscribers = 0
        self.following = False
        self.state: dict | None = None  # the game at the follower's position
        self.next_seq = 0
        self.batches: deque[Batch] = deque(maxlen=hub.settings.backlog)
        self.changed = Wakeup(0)
        self.woken_at = hub.clock()  # when a batch or a tick last woke its streams
        self.slots = itertools.count()  # each stream's slot among the wakeup's groups

    def position(self) -> tuple[int, dict]:
        """Where a new reader starts reading the ring, and the game as of there."""
        with self.lock:
            if self.state is None:
                self.state = self.hub.engine.load(self.game_id)
            return self.next_seq, self.state

    def batch(self, seq: int) -> Batch | None:
        if seq >= self.next_seq:
            return None
        batches = self.batches
        try:  # without the lock: every stream of the game asks at each batch
            found = batches[seq - batches[0].seq]
        except IndexError:
            found = None
        if found is None or found.seq != seq:
            with self.lock:  # the ring moved under us, or the reader fell behind it
                if seq >= self.next_seq:
                    return None
                oldest = self.batches[0].seq
                if seq < oldest:
                    raise Lagged
                found = self.batches[seq - oldest]
        if found.released:  # never for a reader it counted: were it so, the reader resumes
            raise Lagged
        return found

    def follow(self) -> None:
        """Start following the game if nothing does (and it can still move): its published
        batches (`Push`, on a plain Redis), else a follower of its own reading its stream."""
        with self.lock:
            if self.following or self.state is None or self.state["status"] == "finished":
                return
            self.following = True
        if self.hub.push is not None:
            self.hub.push.add(self)
            return
        threading.Thread(target=self._run, name=f"follow-{self.game_id}", daemon=True).start()

    def appended(self, events: list[dict], state: dict) -> None:
        """A batch this process appended, published as its append answered, with the state the
        append decided (no fold, no wait for its message, which then finds it here already);
        one that does not follow on from what the channel holds is left to its message."""
        known = self.state
        if (
            self.following
            and known is not None
            and events[0]["version"] == known["version"] + 1
            and events[0].get("prev") == known.get("hash")
        ):
            changed = self._add(events, state, known)
            if changed is not None:  # the action that appended does not wait for the fan-out
                changed.set_apart()

    def pushed(self, data: bytes) -> None:
        """A batch published by its append: published here unless this process has it already
        (told from the message's first version, before its JSON is read); one that does not
        follow on from what the channel holds (a message lost) makes it read its stream."""
        version = self.state["version"]
        first = first_pushed(data)
        if first is not None and first <= version:  # a message is one whole append
            return
        events = pushed(data)
        if events[-1]["version"] <= version:
            return
        if events[0]["version"] > version + 1:
            self.caught_up()
            return
        self._publish([e for e in events if e["version"] > version])

    def caught_up(self) -> None:
        """Publish whatever the game's stream holds past the channel's version."""
        events = self.hub.engine.all_events(self.game_id, self.state["version"])
        if events:
            self._publish(events)

    def stopped(self) -> None:
        """No longer followed (its game finished): dropped once nobody reads it."""
        with self.hub.lock:
            self.following = False
            self.hub.forget(self)

    def _run(self) -> None:
        hub = self.hub
        failing = False
        while True:
            with hub.lock:
                if self.subscribers == 0 or hub.closing:
                    self.following = False
                    hub.forget(self)
                    return
            try:
                events = hub.follow(self.game_id, self.state["version"], hub.settings.block_ms)
                if events:
                    self._publish(events)
                failing = False
            except redis.RedisError as exc:
                # the store is away: say so once, without a traceback, and try again
                if not failing:
                    log.warning("following %s: %s; retrying", self.game_id, exc)
                failing = True
                hub.stopping.wait(1.0)
                continue
            if self.state["status"] == "finished":
                with hub.lock:
                    self.following = False
                    hub.forget(self)
                return

    def _publish(self, events: list[dict]) -> None:
        engine = self.hub.engine
        if events[0].get("prev") == self.state.get("hash"):
            state = self._continued(events)
        else:  # another history than the one followed (Redis lost writes): read it afresh
            state = engine.load(self.game_id)
            last = events[-1]["version"]
            if state["version"] > last:  # more arrived since the read
                events = events + engine.all_events(self.game_id, last, state["version"] - last)
            elif state["version"] < last:  # pragma: no cover - a load reads after the follow
                return
        changed = self._add(events, state, None)
        if changed is not None:
            changed.set()

    def _add(self, events: list[dict], state: dict, after: dict | None) -> Wakeup | None:
        """Publish `events` and the state they leave: only if the channel is still at `after`
        (when given), and only the events it does not hold yet (it was published meanwhile
        from the other side: this process's append, or its message). The wakeup to set, if
        published."""
        with self.lock:
            held = self.state["version"]
            if (after is not None and self.state is not after) or events[-1]["version"] <= held:
                return None
            if events[0]["version"] <= held:
                events = [e for e in events if e["version"] > held]
            batch = Batch(self.next_seq, events, state, self.subscribers)
            self.batches.append(batch)
            self.next_seq += 1
            self.state = state
            return self._next_wakeup()

    def nudge(self) -> None:
        """Wake every stream of the game with no batch (the hub's tick)."""
        with self.lock:
            changed = self._next_wakeup()
        changed.set()

    def _next_wakeup(self) -> Wakeup:
        """The wakeup the streams wait on now, replaced by a new one (called with `lock` held):
        the caller sets the old one."""
        changed, self.changed = self.changed, Wakeup(self.subscribers)
        self.woken_at = self.hub.clock()
        return changed

    def _continued(self, events: list[dict]) -> dict:
        """The state after `events`, which continue the chain the follower holds."""
        games, last = self.hub.engine.kept, events[-1]
        kept = games.at(self.game_id, last["version"], last["hash"])
        if kept is not None:
            return kept  # appended by this process: the state its engine decided is theirs
        # folded onto the follower's state, the events make the batch's state without another
        # round trip; the engine keeps it too, so an action posted here decides on it
        state = clone(self.state)
        for event in events:
            apply(state, event)
        games.offer(self.game_id, state)
        return state


class Hub:
    """Every live stream of this process, and one follower per game they follow."""

    def __init__(
        self,
        engine: Engine,
        settings: LiveSettings | None = None,
        follow: Callable[[str, int, int], list[dict]] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.engine = engine
        self.settings = settings or LiveSettings()
        self.follow = follow or Store(own_pool(engine.store.redis)).follow
        if follow is None:  # a test's `follow` alone says when a batch arrives
            engine.listen(self._appended)
        # with a `follow` of its own (a test's), or on a cluster: a follower for each game
        self.push = (
            Push(self, engine.store.redis) if follow is None and engine.store.publishes else None
        )
        self.clock = clock
        self.lock = threading.Lock()
        self.channels: dict[str, Channel] = {}
        self.by_client: dict[str, int] = {}
        self.open_streams = 0
        self.closing = False
        self.ticking = False
        period = min(self.settings.keepalive_s, self.settings.lifetime_s)
        self.tick_s = max(_SHORTEST_TICK_S, period / TICKS_PER_PERIOD)
        self.idle_s = period - self.tick_s  # a game's streams idle this long are woken
        # a stream sends its keep-alive at the first wake this long after it last sent
        self.keepalive_due_s = self.settings.keepalive_s - self.tick_s
        self.stopping = threading.Event()
        _HUBS.add(self)

    def open(
        self,
        game_id: str,
        seat: int | None,
        after: int,
        view: bool,
        client: str,
        codec: ModuleType = sse,
    ) -> Subscription:
        """Admit a stream (or TooManyForClient, Full) and join the game's channel; `codec` says
        how its frames are written (`sse`, or `wsframes` for a socket: both count alike)."""
        cap, total = self.settings.per_client, self.settings.per_process
        with self.lock:
            if self.closing or (total and self.open_streams >= total):
                raise Full
            if (
                cap
                and capped(client, self.engine.count_loopback)
                and self.by_client.get(client, 0) >= cap
            ):
                raise TooManyForClient(cap)
            self.by_client[client] = self.by_client.get(client, 0) + 1
            self.open_streams += 1
            channel = self.channels.get(game_id)
            if channel is None:
                channel = self.channels[game_id] = Channel(self, game_id)
            channel.subscribers += 1
            start_ticker, self.ticking = not self.ticking, True
        if start_ticker:  # outside the lock: starting a thread waits for it to run
            threading.Thread(target=self._tick, name="streams-tick", daemon=True).start()
        subscription = Subscription(self, channel, seat, after, view, client, codec)
        try:
            subscription.start()
        except BaseException:
            subscription.close()
            raise
        return subscription

    def _appended(self, game_id: str, events: list[dict], state: dict) -> None:
        """An append of this process: published at once if the game is followed here."""
        channel = self.channels.get(game_id)
        if channel is not None:
            channel.appended(events, state)

    def _tick(self) -> None:
        """Wake the streams of every game idle for `idle_s`, so each sends its keep-alive or
        ends at its lifetime (a game with batches wakes its streams itself); the ticker stops
        when no stream is open, and the next one starts it again."""
        while not self.stopping.wait(self.tick_s):
            with self.lock:
                if not self.open_streams:
                    self.ticking = False
                    return
                channels = list(self.channels.values())
            now = self.clock()
            for channel in channels:
                if now - channel.woken_at >= self.idle_s:
                    channel.nudge()

    def release(self, channel: Channel, client: str) -> None:
        with self.lock:
            self.open_streams -= 1
            left = self.by_client[client] - 1
            if left:
                self.by_client[client] = left
            else:
                del self.by_client[client]
            channel.subscribers -= 1
            if channel.subscribers == 0 and channel.following and self.push is not None:
                self.push.remove(channel)  # at once (a follower of its own notices later)
                channel.following = False
            if channel.subscribers == 0 and not channel.following:
                self.forget(channel)

    def forget(self, channel: Channel) -> None:
        """Drop a channel nobody reads (called with `lock` held)."""
        if channel.subscribers == 0 and self.channels.get(channel.game_id) is channel:
            del self.channels[channel.game_id]

    def close(self) -> None:
        """Stop: every stream ends cleanly at once, and no new one is admitted."""
        with self.lock:
            self.closing = True
            channels = list(self.channels.values())
        self.stopping.set()
        for channel in channels:
            channel.changed.set()
        if self.push is not None:  # after the streams are woken: they end whatever it does
            self.push.close()

    def stats(self) -> dict[str, int]:
        with self.lock:
            return {"streams": self.open_streams, "games": len(self.channels)}


class Subscription:
    """One stream: its catch-up from the log, then the channel's batches. `after` is the last
    version it has handed out; `ended` says why its frames ended (one of `ENDINGS`)."""

    ENDINGS = ("finished", "lifetime", "closing", "lagged", "store")
    __slots__ = (
        "_closed",
        "after",
        "batch_out",
        "channel",
        "client",
        "codec",
        "deadline",
        "ended",
        "hub",
        "seat",
        "sent_at",
        "seq",
        "slot",
        "state",
        "view",
    )

    def __init__(
        self,
        hub: Hub,
        channel: Channel,
        seat: int | None,
        after: int,
        view: bool,
        client: str,
        codec: ModuleType = sse,
    ) -> None:
        self.hub, self.channel = hub, channel
        self.seat, self.after, self.view, self.client = seat, after, view, client
        self.codec = codec
        self.ended: str | None = None
        self.deadline = hub.clock() + hub.settings.lifetime_s
        # when it last sent something: its keep-alives keep time with its game's wakes
        self.sent_at = channel.woken_at
        self.slot = next(channel.slots)
        self.batch_out: Batch | None = None  # the live batch of what it handed out last
        self._closed = False

    def start(self) -> None:
        self.seq, self.state = self.channel.position()

    def handed(self, version: int, tip: str) -> bool:
        """Whether what it handed out last holds the event at `version` whose hash is `tip`
        (a live batch's; a page of the catch-up is not looked into)."""
        batch = self.batch_out
        if batch is None or not batch.first <= version <= batch.last:
            return False
        event = batch.events[version - batch.first]  # a batch's versions follow on
        return event["version"] == version and event.get("hash") == tip

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.hub.release(self.channel, self.client)

    def frames(self) -> Iterator[bytes]:
        try:
            if self.codec.RETRY:
                yield self.codec.RETRY
            yield from self._catch_up()
            if self.state["status"] == "finished" and self.after >= self.state["version"]:
                self.ended = "finished"
                return
            yield from self._live()
        except redis.RedisError as exc:
            self.ended = "store"
            # the store went away mid-stream: end it cleanly; the client resumes from its
            # Last-Event-ID once the store answers again
            log.warning(
                "stream of %s ended: the store did not answer: %s", self.channel.game_id, exc
            )
        finally:
            self.close()

    def _catch_up(self) -> Iterator[bytes]:
        """The stored events after `after` up to where the ring starts, then the view."""
        engine, upto = self.hub.engine, self.state["version"]
        while self.after < upto:
            count = min(CATCH_UP_PAGE, upto - self.after)
            events = engine.all_events(self.channel.game_id, self.after, count)
            if not events:  # pragma: no cover - the log holds every version up to `upto`
                break
            out = self.codec.events(engine.shown(events, self.seat, self.state))
            self.after = events[-1]["version"]  # before the yield: what was handed out
            yield out
        if self.view:
            yield self.codec.view(game_view(self.state, self.seat))

    def _live(self) -> Iterator[bytes]:
        hub, channel = self.hub, self.channel
        channel.follow()
        while True:
            changed = channel.changed
            try:
                batch = channel.batch(self.seq)
            except Lagged:
                log.info("stream of %s fell behind: closed", channel.game_id)
                self.ended = "lagged"
                return
            now = hub.clock()
            if batch is not None:
                self.seq += 1
                if batch.last > self.after:
                    out = self._sent(batch)
                    self.after = batch.last  # before the yield: what was handed out
                    self.sent_at = now
                    self.batch_out = batch
                    yield out
                    self.batch_out = None
                batch.read()
                if batch.finished:
                    self.ended = "finished"
                    return
                continue
            if hub.closing or now >= self.deadline:
                self.ended = "closing" if hub.closing else "lifetime"
                return
            if now - self.sent_at >= hub.keepalive_due_s:
                yield self.codec.KEEP_ALIVE
                self.sent_at = now
                continue
            changed.wait(self.slot)  # a batch, the hub's tick, or the hub closing

    def _sent(self, batch: Batch) -> bytes:
        codec = self.codec
        if batch.first > self.after:
            return batch.encoded(self.seat, self.view, self.hub.engine, codec)
        # the reader is ahead of part of this batch (it resumed inside it): the rest only
        engine = self.hub.engine
        events = [e for e in batch.events if e["version"] > self.after]
        out = codec.events(engine.shown(events, self.seat, batch.state))
        if self.view:
            out += codec.view(game_view(batch.state, self.seat))
        return out
