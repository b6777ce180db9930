"""The event store, on fakeredis and on a real Redis server."""

from __future__ import annotations

import json
import threading

import pytest
import redis

from service.core.chain import seal
from service.core.state import fold
from service.sim.table import Table
from service.store import Conflict, Replayed, Store, key
from tests.support.helpers import events_of

pytestmark = pytest.mark.redis


def test_append_is_conditional_on_the_expected_version(any_redis):
    store = Store(any_redis)
    assert store.append("g1", 0, events_of(2)) == 2
    with pytest.raises(Conflict) as conflict:
        store.append("g1", 0, events_of(1))
    assert conflict.value.current == 2
    assert store.append("g1", 2, events_of(1, 3)) == 3
    assert [e["version"] for e in store.events("g1")] == [1, 2, 3]
    assert [e["version"] for e in store.events("g1", after=1, limit=1)] == [2]


def test_every_key_of_a_game_shares_its_hash_tag():
    assert {key("abc", p).split("}")[0] for p in ("events", "meta", "snap", "idem:x")} == {
        "game:{abc"
    }


def test_idempotency_key_replays_the_first_record_and_appends_nothing(any_redis):
    store = Store(any_redis)
    store.append("g2", 0, events_of(1), idem=("k1", {"first": True}))
    with pytest.raises(Replayed) as replay:
        store.append("g2", 1, events_of(1, 2), idem=("k1", {"first": False}))
    assert replay.value.record == {"first": True}
    assert store.version("g2") == 1


def test_loading_from_a_snapshot_equals_folding_every_event(any_redis):
    store = Store(any_redis)
    t = Table("bataille", {"max_rounds": 50}, seed=bytes(32), game_id="g3")

    t.play_out()
    half = len(t.events) // 2
    snapshot = fold(t.events[:half])
    store.append("g3", 0, t.events[:half], snapshot=snapshot)
    store.append("g3", half, t.events[half:])
    snap, rest = store.load("g3")
    assert snap["version"] == half and len(rest) == len(t.events) - half
    assert fold(rest, snap) == t.state
    # as of an older version: the snapshot is newer, so it is not used
    snap, rest = store.load("g3", at=10)
    assert snap is None and fold(rest) == fold(t.events[:10])
    # a caller that already holds version 20 gets only what follows
    snap, rest = store.load("g3", at=None, known=half + 5)
    assert snap is None and rest[0]["version"] == half + 6


def test_sixteen_threads_at_the_same_version_exactly_one_wins(any_redis):
    store = Store(any_redis)
    store.append("race", 0, events_of(1))
    for version in range(1, 21):
        wins, losses = [], []
        barrier = threading.Barrier(16)

        def attempt(i: int, version=version, wins=wins, losses=losses, barrier=barrier) -> None:
            barrier.wait()
            event = seal(version + 1, "x", "t", i, {"by": i}, "p")
            try:
                store.append("race", version, [event])
                wins.append(i)
            except Conflict:
                losses.append(i)

        threads = [threading.Thread(target=attempt, args=(i,)) for i in range(16)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        assert len(wins) == 1 and len(losses) == 15
        assert store.version("race") == version + 1
    assert [e["version"] for e in store.events("race")] == list(range(1, 22))


def test_an_append_at_the_right_length_but_another_tip_is_refused(any_redis):
    """What must hold: "an append is conditional on the hash of the stream's tip, not only its
    length"."""
    store = Store(any_redis)
    events = events_of(3)
    store.append("tip", 0, events[:2])
    with pytest.raises(Conflict) as conflict:
        store.append("tip", 2, events[2:], expected_hash="f" * 64)
    assert conflict.value.diverged and conflict.value.current == 2
    assert store.version("tip") == 2
    assert store.append("tip", 2, events[2:], expected_hash=events[1]["hash"]) == 3


def test_an_append_sent_twice_with_its_command_id_applies_once(any_redis):
    """What redis-py does after a lost reply: the same script, the same arguments."""
    store = Store(any_redis)
    events = events_of(4)
    store.append("twice", 0, events[:1])
    for _ in range(2):
        assert store.append("twice", 1, events[1:3], command_id="c1") == 3
    assert store.version("twice") == 3
    store.append("twice", 3, events[3:], command_id="c2")
    assert store.append("twice", 1, events[1:3], command_id="c1") == 3  # still found
    with pytest.raises(Conflict):  # another command at that version is a conflict
        store.append("twice", 1, events[1:3], command_id="c3")


def test_a_create_is_whole_and_sent_twice_makes_one_game(any_redis):
    store = Store(any_redis)
    fields = {"seed": "00" * 32, "game": "bataille", "token:0": "d0"}
    assert store.create("new", fields, events_of(2), "c1")
    assert store.create("new", fields, events_of(2), "c1")  # a resend: the same game
    assert not store.create("new", fields, events_of(2), "c2")  # another create: taken
    assert store.version("new") == 2 and store.meta("new") == fields


def test_a_snapshot_the_stream_no_longer_holds_is_not_used(any_redis):
    """A snapshot written before the stream lost events (a restore of the stream alone), or
    one written before snapshots kept their hash, is used only if the stream holds its event."""
    store = Store(any_redis)
    t = Table("bataille", {"max_rounds": 20}, seed=bytes(32), game_id="g4")
    t.play_out()
    store.append("g4", 0, t.events[:10])
    # as the code before wrote them: no 'h' field, the hash inside the state
    any_redis.hset(key("g4", "snap"), mapping={"v": 10, "s": json.dumps(fold(t.events[:10]))})
    snap, _ = store.load("g4")
    assert snap is not None and snap["version"] == 10
    any_redis.hset(key("g4", "snap"), mapping={"v": 12, "s": json.dumps(fold(t.events[:12]))})
    snap, rest = store.load("g4")  # the stream ends at 10: the snapshot at 12 is not its own
    assert snap is None and fold(rest) == fold(t.events[:10])
    snap, rest, reset = store.load_since("g4", None, 12, t.events[11]["hash"])
    assert reset and fold(rest) == fold(t.events[:10])


@pytest.mark.parametrize(
    "write",
    [
        lambda e: json.dumps(e, ensure_ascii=False),  # as entries were written before orjson
        lambda e: json.dumps(e, separators=(",", ":")),  # as they are written now
        lambda e: json.dumps({"hash": e["hash"], **e}),  # the hash not last: decoded in full
    ],
    ids=["spaced", "compact", "hash-first"],
)
def test_the_tip_hash_is_read_from_entries_of_every_form(any_redis, write):
    """The append's tip check reads the hash off the stored JSON's end: a stream written
    before entries became compact JSON is checked as well as one written since."""
    events = events_of(3)
    stream = key("forms", "events")
    for e in events[:2]:
        any_redis.xadd(stream, {"e": write(e)}, id=f"{e['version']}-0")
    store = Store(any_redis)
    with pytest.raises(Conflict) as conflict:
        store.append("forms", 2, events[2:], expected_hash=events[0]["hash"])
    assert conflict.value.diverged
    assert store.append("forms", 2, events[2:], expected_hash=events[1]["hash"]) == 3
    assert store.events("forms") == events


def test_follow_reads_what_comes_after_a_version_and_waits_for_it(any_redis):
    """The live followers' read: the events after `after`, or none once `block_ms` passed."""
    store = Store(any_redis)
    events = events_of(3)
    store.append("followed", 0, events)
    assert store.follow("followed", 1, 50) == events[1:]
    assert store.follow("followed", 3, 50) == []
    later = threading.Timer(0.1, lambda: store.append("followed", 3, events_of(1, 4)))
    later.start()
    assert [e["version"] for e in store.follow("followed", 3, 5_000)] == [4]
    later.join()


@pytest.mark.parametrize("protocol", [2, 3])
def test_follow_reads_either_protocols_reply(redis_url, protocol):
    """XREAD's reply is a map under RESP3 and a list of pairs under RESP2: both are read."""
    store = Store(redis.Redis.from_url(redis_url, protocol=protocol))
    events = events_of(2)
    store.append(f"protocol{protocol}", 0, events)
    assert store.follow(f"protocol{protocol}", 0, 50) == events
