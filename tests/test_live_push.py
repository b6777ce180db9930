"""Following games by the batches their appends publish (service/live/push.py), or by this
process's own appends as they answer (`Channel.appended`), against each game's own follower
reading its stream (`Channel._run`, what a cluster uses): the same frames for every audience,
and nothing lost when a message is."""

from __future__ import annotations

import time

import fakeredis
import gevent
import pytest
import redis

from service.core.state import awaited
from service.engine import Engine
from service.engine.dispatch import QueueDispatcher
from service.live import Hub, LiveSettings
from service.live import hub as live_hub
from service.store import Store, first_pushed, live_channel, pushed
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


def _elsewhere(client: redis.Redis) -> Engine:
    """Another process's engine on the same store: its appends reach a hub by their messages."""
    return Engine(Store(client), QueueDispatcher())


@pytest.mark.parametrize("appender", ["another process", "this process"])
def test_pushed_batches_make_the_frames_a_follower_of_the_stream_makes(client, appender):
    engine = Engine(Store(client), QueueDispatcher())
    gid = _game(engine)
    actor = engine if appender == "this process" else _elsewhere(client)
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
        state = _flip(actor, gid)
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
    client = fakeredis.FakeRedis()
    engine = Engine(Store(client), QueueDispatcher())
    gid = _game(engine)
    hub = Hub(engine, LiveSettings(per_client=0))
    frames, channel = _spectator(hub, gid)
    other = _elsewhere(client)
    state = _flip(other, gid)  # pushed once the subscription holds
    assert wait_until(lambda: channel.state["version"] == state["version"], 10)
    reads = []
    caught_up = channel.caught_up
    channel.caught_up = lambda: reads.append(1) or caught_up()
    other.store.publishes = False  # this append's message never comes
    _flip(other, gid)
    other.store.publishes = True
    state = _flip(other, gid)  # its message does not follow on: the channel reads the stream
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
    other = _elsewhere(real_redis)
    for _ in range(3):  # appended while it reconnects: read from the stream once subscribed
        state = _flip(other, gid)
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


def _messages(client: redis.Redis, gid: str, act, count: int) -> list[bytes]:
    """The messages of `gid`'s live channel while `act` runs, `count` of them."""
    listener = client.pubsub()
    listener.subscribe(live_channel(gid))
    assert wait_until(lambda: listener.get_message(timeout=0.1) is not None, 10)
    act()
    got = []
    while len(got) < count:
        message = listener.get_message(timeout=5)
        assert message is not None
        if message["type"] == "message":
            got.append(message["data"])
    listener.close()
    return got


def test_a_message_reads_its_first_version_as_its_json_does(real_redis):
    """What the append script publishes starts with its first event's version, which a process
    reads without reading the JSON (`first_pushed`)."""
    engine = Engine(Store(real_redis), QueueDispatcher())
    gid = _game(engine)
    got = _messages(real_redis, gid, lambda: [_flip(engine, gid) for _ in range(3)], 3)
    for data in got:
        assert first_pushed(data) == pushed(data)[0]["version"]
    assert first_pushed(b"[]") is None and first_pushed(b"nonsense") is None


def test_this_processs_batches_are_not_read_again_from_their_messages(real_redis, monkeypatch):
    """A batch this process appended is published as its append answers; its message, when
    the listener reads it, is told apart by its first version, without reading its JSON."""
    engine = Engine(Store(real_redis), QueueDispatcher())
    gid = _game(engine)
    hub = Hub(engine, LiveSettings(per_client=0))
    frames, channel = _spectator(hub, gid)
    states: list[dict] = []

    def flips() -> None:
        for _ in range(3):
            states.append(_flip(engine, gid))
            assert channel.state is states[-1]  # published by the time the act returns

    messages = _messages(real_redis, gid, flips, 3)
    state = states[-1]
    read: list[bytes] = []
    monkeypatch.setattr(live_hub, "pushed", lambda data: read.append(data) or pushed(data))
    seq = channel.next_seq
    for data in messages:
        channel.pushed(data)
    assert read == [] and channel.next_seq == seq
    assert _versions(frames, state["version"]) == list(range(3, state["version"] + 1))
    frames.close()
    hub.close()


def _quiet(game_id: str, after: int, block_ms: int) -> list[dict]:
    """A follower that never finds anything: the test gives the channel its batches."""
    time.sleep(block_ms / 1000)
    return []


def test_an_append_is_published_as_it_answers_only_where_it_follows_on():
    """`Channel.appended` (what this process's appends call): a batch after a gap is left to
    the messages (which bring what is missing first); one already held is not held twice."""
    engine = Engine(Store(fakeredis.FakeRedis()), QueueDispatcher())
    gid = _game(engine)
    hub = Hub(engine, LiveSettings(per_client=0), follow=_quiet)  # no message, no listener
    frames, channel = _spectator(hub, gid)
    first = engine.act(gid, awaited(channel.state)[0], {"type": "flip"})
    second = engine.act(gid, awaited(first[1])[0], {"type": "flip"})
    seq = channel.next_seq
    channel.appended(*second)  # after a gap: not published
    assert channel.next_seq == seq and channel.state["version"] < first[1]["version"]
    channel.appended(*first)
    channel.appended(*first)  # held already
    channel.appended(*second)
    assert channel.next_seq == seq + 2 and channel.state is second[1]
    assert _versions(frames, second[1]["version"]) == list(range(3, second[1]["version"] + 1))
    frames.close()
    hub.close()


def test_an_action_does_not_wait_for_a_crowds_fan_out(monkeypatch):
    """Under gevent a crowd is woken a group at a time, with the server's other sockets served
    between groups: the action whose append made the batch goes on before that is done."""
    engine = Engine(Store(fakeredis.FakeRedis()), QueueDispatcher())
    gid = _game(engine)
    hub = Hub(engine, LiveSettings(per_client=0), follow=_quiet)  # batches only as given below
    frames, channel = _spectator(hub, gid)
    crowd = [hub.open(gid, None, 0, False, f"c{i}") for i in range(live_hub.GROUP)]
    channel.nudge()  # the wakeup the next batch sets counts the crowd: two groups
    woken = channel.changed
    assert len(woken.events) == 2
    monkeypatch.setattr(live_hub.monkey, "is_module_patched", lambda name: True)  # as in a server
    events, state = engine.act(gid, awaited(channel.state)[0], {"type": "flip"})
    channel.appended(events, state)  # as this process's listener does
    assert channel.state is state and not woken.events[1].is_set()  # the fan-out is under way
    gevent.sleep(0.05)
    assert all(event.is_set() for event in woken.events)
    for subscription in crowd:
        subscription.close()
    frames.close()
    hub.close()
