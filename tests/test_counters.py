"""The service totals (service/store/counters.py, `/metrics/service`): an append adds its counts in memory, and
the process writes them in one round trip within a second, before any read of the totals, and
at exit; a write Redis refuses keeps them for the next."""

from __future__ import annotations

import fakeredis
import redis

from service.store import Store
from service.store.counters import Tally, total
from tests.support.helpers import events_of
from tests.support.processes import wait_until


def test_an_appends_counts_are_read_back_at_once_by_its_process():
    store = Store(fakeredis.FakeRedis())
    store.append("g1", 0, events_of(2), counts={"events_appended": 2, "actions": 1})
    assert store.counters()["events_appended"] == 2 and store.counters()["actions"] == 1


def test_counts_reach_redis_within_a_second_without_a_read():
    """Another process (another Store on the same Redis) sees them without this one reading:
    the second's write, asserted with a 2x margin."""
    client = fakeredis.FakeRedis()
    Store(client).count("g1", bot_moves=3)
    assert wait_until(lambda: total(client).get("bot_moves") == 3, 2.0)


class Refusing:
    """A client whose pipeline fails like a Redis that is away."""

    def pipeline(self, transaction: bool = False):
        raise redis.ConnectionError("away")


def test_a_refused_write_keeps_the_counts_for_the_next():
    tally = Tally(Refusing(), every_s=3600)
    tally.add({"actions": 2}, "g1")
    tally.flush()  # refused: kept
    tally.client = fakeredis.FakeRedis()
    tally.add({"actions": 1}, "g2")
    tally.flush()
    assert total(tally.client)["actions"] == 3


class FailingOnce:
    """A client whose write to one shard fails once while the other shards' writes land, as a
    cluster pipeline does when one node drops out halfway."""

    def __init__(self, client, shard_name: str) -> None:
        self.client, self.shard_name, self.failed = client, shard_name, False

    def pipeline(self, transaction: bool = False):
        real, outer = self.client.pipeline(transaction=transaction), self

        class Pipe:
            def hincrby(self, name, field, n):
                if name == outer.shard_name and not outer.failed:
                    outer.failed = True
                    raise redis.ConnectionError("node away")
                real.hincrby(name, field, n)

            def execute(self):
                return real.execute()

        return Pipe()


def test_a_write_that_fails_on_one_shard_rewrites_only_that_shard():
    """Counts that landed are not sent again: a retry of every shard would count them twice."""
    from service.store.counters import shard

    client = fakeredis.FakeRedis()
    tally = Tally(FailingOnce(client, shard("g1")), every_s=3600)
    games = [f"g{n}" for n in range(1, 30)]
    for game in games:
        tally.add({"actions": 1}, game)
    tally.flush()  # g1's shard refused, the others written
    assert total(client)["actions"] < len(games)
    tally.flush()
    assert total(client)["actions"] == len(games)
