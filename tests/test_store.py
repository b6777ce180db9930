"""The event store, on fakeredis and on a real Redis server."""

from __future__ import annotations

import threading

import pytest

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
