"""The fan-out in one process (service/live), on fakeredis: one encoding per audience per batch,
a slow reader dropped with a clean end, exact resumes, and a busy store pool as a clean 503."""

from __future__ import annotations

import threading

import fakeredis
import redis

from service.api import create_app
from service.engine import Engine
from service.engine.dispatch import QueueDispatcher
from service.live import Hub, LiveSettings
from service.store import Store
from tests.support.processes import wait_until


def _game(engine: Engine) -> tuple[str, dict[int, str]]:
    created = engine.create({"game": "bataille", "seats": [{"name": "a"}, {"name": "b"}]})
    return created["id"], {s["seat"]: s["token"] for s in created["seats"]}


def _flip(engine: Engine, gid: str) -> None:
    from service.core.state import awaited

    engine.act(gid, awaited(engine.load(gid))[0], {"type": "flip"})


class Pump:
    """A follower's read that we drive by hand: `step()` lets it read what was appended."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.wanted = threading.Event()

    def follow(self, game_id: str, after: int, block_ms: int) -> list[dict]:
        self.wanted.wait(block_ms / 1000)
        self.wanted.clear()
        return self.engine.all_events(game_id, after)

    def step(self, hub: Hub, gid: str) -> None:
        """Publish one batch of what was appended (waiting until the follower did)."""
        channel = hub.channels[gid]
        seq = channel.next_seq
        self.wanted.set()
        assert wait_until(lambda: channel.next_seq > seq, 10)


def _caught_up(settings: LiveSettings, client: str):
    """A game on fakeredis, its hub with a follower we drive, and one spectator's frames read
    past its catch-up (the retry, then the stored events)."""
    engine = Engine(Store(fakeredis.FakeRedis()), QueueDispatcher())
    gid, _ = _game(engine)
    pump = Pump(engine)
    hub = Hub(engine, settings, follow=pump.follow)
    reader = hub.open(gid, None, 0, False, client)
    frames = reader.frames()
    caught_up = next(frames).decode() + next(frames).decode()
    return engine, gid, pump, hub, reader, frames, caught_up


def _frames(subscription, until):
    """Read a subscription's frames (as the server would) until `until(text)`."""
    out = ""
    for chunk in subscription.frames():
        out += chunk.decode()
        if until(out):
            break
    return out


def test_a_batch_is_encoded_once_per_audience_however_many_read_it():
    engine = Engine(Store(fakeredis.FakeRedis()), QueueDispatcher())
    gid, _ = _game(engine)
    pump = Pump(engine)
    hub = Hub(engine, LiveSettings(per_client=0), follow=pump.follow)
    calls: list[int | None] = []
    shown = engine.shown

    def counted(events, seat, state):
        calls.append(seat)
        return shown(events, seat, state)

    engine.shown = counted
    readers = [hub.open(gid, None, 2, False, f"c{i}") for i in range(50)]
    readers += [hub.open(gid, seat, 2, True, "p") for seat in (0, 1) for _ in range(3)]
    streams = [r.frames() for r in readers]
    for s in streams:
        assert next(s) == b"retry: 2000\n\n"
    views = [next(s) for s in streams[50:]]  # the seats' views on connecting
    assert all(b"event: view" in v for v in views)
    channel = hub.channels[gid]
    channel.follow()
    _flip(engine, gid)
    calls.clear()
    pump.step(hub, gid)
    got = [next(s) for s in streams]
    assert sorted(calls, key=str) == [0, 1, None]  # three audiences, one encoding each
    assert len(set(got[:50])) == 1 and len(set(got[50:53])) == 1 and len(set(got[53:])) == 1
    assert b"event: view" in got[50] and b"event: view" not in got[0]
    assert channel.batches[0].last == 3
    for s in streams:
        s.close()
    assert hub.stats()["streams"] == 0
    pump.wanted.set()  # the follower sees nobody reads: it stops, and the channel goes
    assert wait_until(lambda: hub.stats()["games"] == 0, 10)


def test_a_reader_that_falls_behind_the_backlog_is_closed_cleanly_and_resumes_exactly():
    engine, gid, pump, hub, _, frames, text = _caught_up(LiveSettings(backlog=2), "slow")
    assert "id: 2\n" in text
    channel = hub.channels[gid]
    channel.follow()
    for _ in range(3):  # three batches while the reader reads nothing
        _flip(engine, gid)
        pump.step(hub, gid)
    assert list(frames) == []  # the stream ends: its place in the ring is gone
    assert hub.stats()["streams"] == 0
    again = hub.open(gid, None, 2, False, "slow")  # resumed with Last-Event-ID 2
    text = _frames(again, lambda t: f"id: {channel.state['version']}\n" in t)
    versions = [int(line[4:]) for line in text.splitlines() if line.startswith("id: ")]
    assert versions == list(range(3, channel.state["version"] + 1))
    again.close()
    hub.close()
    pump.wanted.set()


def test_the_follower_wakes_every_stream_of_its_game():
    engine = Engine(Store(fakeredis.FakeRedis()), QueueDispatcher())
    gid, _ = _game(engine)
    pump = Pump(engine)
    hub = Hub(engine, LiveSettings(keepalive_s=30), follow=pump.follow)
    readers = [hub.open(gid, None, 2, False, "c") for _ in range(5)]
    got: list[str] = [""] * 5

    def read(i: int) -> None:
        got[i] = _frames(readers[i], lambda t: "id: 3\n" in t)

    threads = [threading.Thread(target=read, args=(i,)) for i in range(5)]
    for t in threads:
        t.start()
    _flip(engine, gid)
    pump.wanted.set()
    for t in threads:
        t.join(timeout=10)
    assert all("event: flipped" in g for g in got)
    hub.close()
    pump.wanted.set()


def test_a_busy_store_pool_answers_a_clean_503():
    server = fakeredis.FakeServer()
    pool = redis.BlockingConnectionPool(
        connection_class=fakeredis.FakeRedisConnection,
        server=server,
        max_connections=1,
        timeout=0.05,
    )
    engine = Engine(Store(redis.Redis(connection_pool=pool)), QueueDispatcher())
    app = create_app(engine)
    client = app.test_client()  # (the checked client refuses every 5xx)
    held = pool.get_connection()  # the only connection, taken
    try:
        r = client.get("/v1/games/0123456789abcdef/stream")
        assert r.status_code == 503 and r.mimetype == "application/problem+json"
        assert r.json["code"] == "unavailable" and r.json["status"] == 503
        assert int(r.headers["Retry-After"]) >= 1
    finally:
        pool.release(held)


def test_a_batch_state_is_the_stored_game_whether_kept_folded_or_read_afresh():
    """A batch appended by this process takes the state its engine kept after the append; one
    appended elsewhere is folded onto the state the follower holds (no second round trip) when
    the read continues its chain; when it does not (a Redis that lost writes grew another
    history), the game is read afresh. Either way the batch's state is the game as stored."""
    engine = Engine(Store(fakeredis.FakeRedis()), QueueDispatcher())
    elsewhere = Engine(Store(engine.store.redis), QueueDispatcher())  # another process
    gid, _ = _game(engine)
    pump = Pump(engine)
    hub = Hub(engine, LiveSettings(per_client=0), follow=pump.follow)
    reader = hub.open(gid, None, 2, False, "c")
    frames = reader.frames()
    next(frames)
    hub.channels[gid].follow()
    loads: list[str] = []
    load = engine.load
    engine.load = lambda game_id, at=None: loads.append(game_id) or load(game_id, at)
    _flip(engine, gid)
    kept = engine.kept.cached(gid)
    loads.clear()  # the flip's own loads
    pump.step(hub, gid)
    channel = hub.channels[gid]
    assert loads == [] and channel.batch(0).state is kept  # appended here: kept, no load
    _flip(elsewhere, gid)
    pump.step(hub, gid)
    folded = channel.batch(1).state
    assert loads == [] and folded == load(gid) and folded is not kept  # folded, no load
    assert engine.kept.cached(gid) is folded  # and kept for this process's next action
    channel.state = {**channel.state, "hash": "0" * 64}  # as if it had followed another history
    _flip(engine, gid)
    loads.clear()
    pump.step(hub, gid)
    assert loads == [gid] and channel.batch(2).state == load(gid)  # read afresh
    hub.close()
    reader.close()


_FAIRNESS = """
from gevent import monkey
monkey.patch_all()
import socket, gevent
from service.live.hub import GROUP, Wakeup

wakeup = Wakeup(4 * GROUP)
order = []
def stream(slot):
    wakeup.wait(slot, 10)
    order.append(slot)
def request(sock):
    sock.recv(1)
    order.append("request")
a, b = socket.socketpair()
greenlets = [gevent.spawn(stream, slot) for slot in range(4 * GROUP)]
greenlets.append(gevent.spawn(request, b))
gevent.sleep(0.01)  # every stream waits, and so does the request
a.send(b"x")  # the request's socket is readable from now on
wakeup.set()
gevent.joinall(greenlets, timeout=10)
print(len(wakeup.events), order.index("request"), len(order))
"""


def test_a_batch_wakes_streams_a_group_at_a_time_and_requests_get_through():
    """Under gevent (as the servers run), a request whose socket is ready is served between
    two groups of streams, not after all of them."""
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", _FAIRNESS], capture_output=True, text=True, timeout=60, check=True
    ).stdout.split()
    groups, request_at, woken = map(int, out)
    assert groups == 4 and woken == 4 * 64 + 1
    assert request_at < 3 * 64  # served before the last group at the latest


def test_a_wakeup_has_a_group_for_each_64_streams_and_wakes_every_slot():
    from service.live.hub import Wakeup

    assert [len(Wakeup(n).events) for n in (0, 1, 64, 65, 5000)] == [1, 1, 1, 2, 79]
    wakeup = Wakeup(130)
    wakeup.set()  # without gevent: every group at once
    assert all(wakeup.wait(slot, 0) for slot in range(300))


def test_an_idle_stream_gets_its_keep_alive_from_the_hubs_tick_which_stops_with_the_streams():
    """Streams wait with no timer of their own: one ticker wakes them, and each sends a
    keep-alive once a period passed without an event (docs/architecture.md#the-path-of-a-live-event); the
    ticker ends when the last stream closes, and the next stream starts it again."""
    engine = Engine(Store(fakeredis.FakeRedis()), QueueDispatcher())
    gid, _ = _game(engine)
    pump = Pump(engine)
    hub = Hub(engine, LiveSettings(keepalive_s=0.2), follow=pump.follow)
    for _ in range(2):
        reader = hub.open(gid, None, 2, False, "c")
        assert hub.ticking
        got = _frames(reader, lambda t: t.count(": keep-alive") == 3)
        assert got.startswith("retry: 2000\n\n") and "event:" not in got
        reader.close()
        assert wait_until(lambda: not hub.ticking, 10)
    hub.close()
    pump.wanted.set()


def test_a_lifetime_shorter_than_the_keep_alive_period_ends_the_stream_without_keep_alives():
    """The ticker wakes idle streams often enough for the shorter of the two, and each sends
    its keep-alive only once the keep-alive period is (nearly) over."""
    engine = Engine(Store(fakeredis.FakeRedis()), QueueDispatcher())
    gid, _ = _game(engine)
    pump = Pump(engine)
    hub = Hub(engine, LiveSettings(keepalive_s=30, lifetime_s=0.4), follow=pump.follow)
    reader = hub.open(gid, None, 2, False, "c")
    got = "".join(chunk.decode() for chunk in reader.frames())  # ends at its lifetime
    assert got == "retry: 2000\n\n"
    hub.close()
    pump.wanted.set()


def test_a_stream_whose_body_is_never_read_leaves_the_hub_when_the_server_closes_it():
    """The route hands the WSGI server the frames as they are; the server's `close` at the end
    of the answer ends the subscription even when not one frame was read."""
    engine = Engine(Store(fakeredis.FakeRedis()), QueueDispatcher())
    gid, _ = _game(engine)
    app = create_app(engine)
    hub = app.extensions["batayo.live"]
    answer = app.test_client().get(f"/v1/games/{gid}/stream", buffered=False)
    assert answer.status_code == 200 and answer.mimetype == "text/event-stream"
    assert hub.stats()["streams"] == 1
    answer.close()  # as a server does once the client is gone
    assert hub.stats()["streams"] == 0
    hub.close()


def test_a_subscription_says_whether_what_it_handed_out_holds_an_event():
    """`Subscription.handed` (a socket's `acted` frame goes with its events when they come
    first): true for an event of the live batch just handed out, at its version and hash only;
    false for a page of the catch-up."""
    engine, gid, pump, hub, reader, frames, _ = _caught_up(LiveSettings(per_client=0), "c")
    tip = engine.load(gid)
    assert not reader.handed(tip["version"], tip["hash"])  # a catch-up page
    hub.channels[gid].follow()
    _flip(engine, gid)
    pump.step(hub, gid)
    next(frames)
    state = engine.load(gid)
    assert reader.handed(state["version"], state["hash"])
    assert not reader.handed(state["version"], tip["hash"])
    assert not reader.handed(state["version"] + 1, state["hash"])
    reader.close()
    hub.close()
    pump.wanted.set()


def test_a_batch_lets_go_of_what_it_holds_once_each_of_its_readers_is_past_it():
    """The ring keeps a batch's place, and its events and state only while a reader it was
    published to has not read it: a seat's reader that lags keeps it whole, and a stream opened
    later starts past it, from the stored log."""
    engine, gid, pump, hub, reader, frames, _ = _caught_up(LiveSettings(per_client=0), "c")
    channel = hub.channels[gid]
    seat = hub.open(gid, 1, channel.state["version"], True, "p")
    seat_frames = seat.frames()
    assert b"event: view" in next(seat_frames) + next(seat_frames)  # retry, then the view
    channel.follow()
    for _ in range(2):
        _flip(engine, gid)
        pump.step(hub, gid)
    first, second = channel.batches[-2], channel.batches[-1]
    assert (first.unread, second.unread) == (2, 2)
    next(frames)
    next(frames)  # the spectator is past the first batch
    assert not first.released and first.events and first.state["version"] == first.last
    next(seat_frames)
    assert b"event: view" in next(seat_frames)  # the seat reads the second batch, whole
    assert first.released and (first.events, first.state) == ([], {})
    assert not second.released and second.events
    late = hub.open(gid, None, 0, False, "late")
    text = _frames(late, lambda t: f"id: {second.last}\n" in t)
    versions = [int(line[4:]) for line in text.splitlines() if line.startswith("id: ")]
    assert versions == list(range(1, second.last + 1))
    for subscription in (reader, seat, late):
        subscription.close()
    hub.close()
    pump.wanted.set()


def test_a_reader_asking_for_a_batch_already_let_go_is_closed_and_resumes_exactly():
    """Should a reader ever ask for a batch that let go of its events (it was not counted),
    it is closed as one that fell behind, never handed an empty batch; its resume is exact."""
    engine, gid, pump, hub, reader, frames, text = _caught_up(LiveSettings(per_client=0), "c")
    after = int(text.rsplit("id: ", 1)[1].split("\n", 1)[0])
    channel = hub.channels[gid]
    channel.follow()
    _flip(engine, gid)
    pump.step(hub, gid)
    channel.batches[-1].read()  # as if its only reader were someone else
    assert list(frames) == [] and reader.ended == "lagged"
    again = hub.open(gid, None, after, False, "c")
    text = _frames(again, lambda t: f"id: {channel.state['version']}\n" in t)
    versions = [int(line[4:]) for line in text.splitlines() if line.startswith("id: ")]
    assert versions == list(range(after + 1, channel.state["version"] + 1))
    again.close()
    hub.close()
    pump.wanted.set()
