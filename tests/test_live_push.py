"""Following games by the batches their appends publish (service/live/push.py) against each
game's own follower reading its stream (`Channel._run`, what a cluster uses): the same frames
for every audience, and nothing lost when a message is."""

from __future__ import annotations

import fakeredis
import pytest
import redis

from service.core.state import awaited
from service.engine import Engine
from service.engine.dispatch import QueueDispatcher
from service.live import Hub, LiveSettings
from service.store import Store
from service.store.clients import own_pool
from tests.support.processes import wait_until

AUDIENCES = ((None, False), (0, True), (1, False), (1, True))


@pytest.fixture(params=["fakeredis", "redis"])
def client(request) -> redis.Redis:
    if request.param == "fakeredis":
        return fakeredis.FakeRedis()
    return request.getfixturevalue("real_redis")


def _game(engine: Engine) -> str:
    return engine.create({"game": "bataille", "seats": [{"name": "a"}, {"name": "b"}]})["id"]


def _flip(engine: Engine, gid: str) -> dict:
    return engine.act(gid, awaited(engine.load(gid))[0], {"type": "flip"})[1]


def _read(subscriptions: list, version: int) -> list[bytes]:
    """Each subscription's frames up to the event `version` (or its end)."""
    out = []
    for frames in subscriptions:
        got = b""
        for chunk in frames:
            got += chunk
            if f"id: {version}\n".encode() in got:
                break
        out.append(got)
    return out


def _spectator(hub: Hub, gid: str) -> tuple:
    """A spectator's frames of `gid` read past its catch-up, and the game's channel, followed."""
    frames = hub.open(gid, None, 0, False, "c").frames()
    _read([frames], 2)
    channel = hub.channels[gid]
    channel.follow()
    return frames, channel


def _versions(frames, version: int) -> list[int]:
    """The event versions a stream's frames carry, up to `version`."""
    text = _read([frames], version)[0].decode()
    return [int(line[4:]) for line in text.splitlines() if line.startswith("id: ")]


def test_pushed_batches_make_the_frames_a_follower_of_the_stream_makes(client):
    engine = Engine(Store(client), QueueDispatcher())
    gid = _game(engine)
    settings = LiveSettings(per_client=0, backlog=1000)
    pushed = Hub(engine, settings)
    read = Hub(engine, settings, follow=Store(own_pool(client)).follow)
    assert pushed.push is not None and read.push is None
    opened = {
        hub: [hub.open(gid, seat, 0, view, "c").frames() for seat, view in AUDIENCES]
        for hub in (pushed, read)
    }
    for hub, frames in opened.items():  # the retry line, the catch-up, the views
        _read(frames, 2)
        hub.channels[gid].follow()
    state = engine.load(gid)
    for _ in range(40):  # one batch at a time, so that both cut the log into the same batches
        state = _flip(engine, gid)
        for hub in (pushed, read):
            channel = hub.channels[gid]
            assert wait_until(lambda c=channel, v=state["version"]: c.state["version"] == v, 10)
        if state["status"] == "finished":
            break
    by_push, by_stream = (_read(opened[hub], state["version"]) for hub in (pushed, read))
    assert by_push == by_stream
    assert all(f"id: {state['version']}\n".encode() in frames for frames in by_push)
    for hub in (pushed, read):
        for frames in opened[hub]:
            frames.close()
        hub.close()


def test_a_lost_message_is_read_from_the_stream():
    engine = Engine(Store(fakeredis.FakeRedis()), QueueDispatcher())
    gid = _game(engine)
    hub = Hub(engine, LiveSettings(per_client=0))
    frames, channel = _spectator(hub, gid)
    state = _flip(engine, gid)  # pushed once the subscription holds
    assert wait_until(lambda: channel.state["version"] == state["version"], 10)
    reads = []
    caught_up = channel.caught_up
    channel.caught_up = lambda: reads.append(1) or caught_up()
    engine.store.publishes = False  # this append's message never comes
    _flip(engine, gid)
    engine.store.publishes = True
    state = _flip(engine, gid)  # its message does not follow on: the channel reads the stream
    assert wait_until(lambda: channel.state["version"] == state["version"], 10)
    assert reads == [1]
    assert _versions(frames, state["version"]) == list(range(3, state["version"] + 1))
    frames.close()
    hub.close()


def test_a_dropped_connection_misses_nothing(real_redis):
    engine = Engine(Store(real_redis), QueueDispatcher())
    gid = _game(engine)
    hub = Hub(engine, LiveSettings(per_client=0))
    frames, channel = _spectator(hub, gid)
    state = _flip(engine, gid)
    assert wait_until(lambda: channel.state["version"] == state["version"], 10)
    real_redis.client_kill_filter(_type="pubsub")  # the process's listener is cut
    for _ in range(3):  # appended while it reconnects: read from the stream once subscribed
        state = _flip(engine, gid)
    assert _versions(frames, state["version"]) == list(range(3, state["version"] + 1))
    frames.close()
    hub.close()


def test_a_game_nobody_reads_and_a_finished_game_are_no_longer_followed(real_redis):
    engine = Engine(Store(real_redis), QueueDispatcher())
    hub = Hub(engine, LiveSettings(per_client=0, backlog=5000))
    gid, other = _game(engine), _game(engine)
    frames, _ = _spectator(hub, gid)
    assert len(hub.push.following) == 1
    frames.close()  # its only reader goes: unsubscribed and dropped at once
    assert hub.push.following == {} and hub.stats()["games"] == 0
    frames, channel = _spectator(hub, other)
    state = engine.load(other)
    while state["status"] != "finished":
        state = _flip(engine, other)
    assert wait_until(lambda: not channel.following, 10)
    assert hub.push.following == {}
    assert f"id: {state['version']}\n".encode() in _read([frames], state["version"])[0]
    frames.close()
    assert hub.stats()["games"] == 0
    hub.close()
