"""The store on a Redis Cluster, the settings that choose it, the listing index and
counters that keep every append off one node, and readiness that means "can take writes"."""

from __future__ import annotations

import fakeredis
import pytest
import redis
from hypothesis import given
from hypothesis import strategies as st

from service.api import create_app
from service.config import Settings, StartupError, build_engine, connect, connect_queue
from service.engine import Engine
from service.store import Conflict, Store, counters
from service.store.clients import is_cluster
from tests.support.helpers import events_of
from tests.support.redis_cluster import RedisClusterServers
from tests.support.redis_server import free_port

pytestmark = pytest.mark.redis


# -- settings: the flag must match the server ------------------------------------------------


def test_a_cluster_without_the_flag_refuses_to_start(redis_cluster):
    """A cluster without the flag refuses to start with a clear message."""
    with pytest.raises(StartupError, match="BATAYO_REDIS_CLUSTER=1"):
        connect(Settings(redis_url=redis_cluster.url, cluster=False))


def test_the_flag_without_a_cluster_refuses_to_start(redis_url):
    """The flag without a cluster refuses to start with a clear message."""
    settings = Settings(redis_url=redis_url, cluster=True, queue_url=redis_url)
    with pytest.raises(StartupError, match="not a cluster node"):
        connect(settings)


def test_a_cluster_needs_a_plain_redis_for_the_queue(redis_cluster, redis_url):
    """The queue uses BATAYO_QUEUE_URL (required when clustered), never a cluster."""
    with pytest.raises(StartupError, match="BATAYO_QUEUE_URL"):
        connect(Settings(redis_url=redis_cluster.url, cluster=True))
    with pytest.raises(StartupError, match="RQ cannot run on a cluster"):
        connect_queue(
            Settings(redis_url=redis_cluster.url, cluster=True, queue_url=redis_cluster.url)
        )
    with pytest.raises(StartupError, match="needs REDIS_URL"):
        connect(Settings(redis_url=None, cluster=True, queue_url=redis_url))


def test_the_queue_defaults_to_the_store_when_not_clustered(redis_url):
    settings = Settings(redis_url=redis_url)
    store = connect(settings)
    assert settings.job_queue_url == redis_url and connect_queue(settings, store) is store


def test_the_flag_and_a_cluster_build_an_engine_on_the_cluster(redis_cluster, redis_url):
    settings = Settings(redis_url=redis_cluster.url, cluster=True, queue_url=redis_url)
    # a cluster refuses a local archive folder
    settings = settings.model_copy(update={"archive_url": "memory://cluster-engine"})
    engine = build_engine(settings)
    assert is_cluster(engine.store.redis)
    assert engine.dispatcher.queue.connection.connection_pool.connection_kwargs["port"] == int(
        redis_url.rsplit(":", 1)[1].split("/")[0]
    )
    assert engine.ready()


def _several(redis_cluster, form: str) -> str:
    """REDIS_URL naming a closed port first, then the cluster's second node, in `form`."""
    dead, live = free_port(), redis_cluster.nodes[1].port
    if form == "urls":
        return f"redis://127.0.0.1:{dead}/0,redis://127.0.0.1:{live}/0"
    return f"redis://127.0.0.1:{dead}, 127.0.0.1:{live}"  # the later node as host:port


@pytest.mark.parametrize("form", ["urls", "host:port"])
def test_several_startup_nodes_start_although_the_first_is_down(redis_cluster, redis_url, form):
    settings = Settings(
        redis_url=_several(redis_cluster, form),
        cluster=True,
        queue_url=redis_url,
        archive_url="memory://several-nodes",
    )
    engine = build_engine(settings)
    assert is_cluster(engine.store.redis) and engine.ready()
    client = engine.store.redis
    for n in range(30):  # keys on every node's slots: the client learned the whole cluster
        client.set(f"several:{n}", n)
    assert [int(client.get(f"several:{n}")) for n in range(30)] == list(range(30))
    assert len(client.get_nodes()) == len(redis_cluster.nodes)


def test_no_startup_node_answering_refuses_to_start_without_a_password(redis_url):
    url = f"redis://u:hunter2@127.0.0.1:{free_port()},127.0.0.1:{free_port()}"
    with pytest.raises(StartupError, match="at least one reachable node") as refused:
        connect(Settings(redis_url=url, cluster=True, queue_url=redis_url))
    assert "hunter2" not in str(refused.value)


# -- the index and counters ------------------------------------------------------------------


def test_games_and_counters_spread_over_the_nodes_and_read_back_whole(cluster_redis, redis_cluster):
    """Hot global keys do not funnel every append through one node: each game's
    keys and its counter shard follow the game id, so 40 games land on every node."""
    store = Store(cluster_redis)
    for n in range(40):
        gid = f"spread{n}"
        store.append(gid, 0, events_of(2), counts={"events_appended": 2})
        store.index(gid, "bataille", "playing", n)
    assert all(keys > 0 for keys in redis_cluster.keys_per_node())
    shards = {counters.shard(f"spread{n}") for n in range(40)}
    nodes = {cluster_redis.get_node_from_key(s).port for s in shards}
    assert len(nodes) >= 2
    assert store.counters()["events_appended"] == 80
    assert store.status_counts() == {"playing": 40}
    assert sorted(store.playing()) == sorted(f"spread{n}" for n in range(40))
    page, more = store.listing("bataille", "playing", 5, 10)
    assert [gid for gid, _ in page] == [f"spread{n}" for n in range(34, 24, -1)] and more


def test_a_refused_append_counts_nothing_on_a_cluster(cluster_redis):
    store = Store(cluster_redis)
    before = store.counters().get("actions", 0)  # the cluster is shared by the run's tests
    store.append("g", 0, events_of(1), counts={"actions": 1})
    with pytest.raises(Conflict):
        store.append("g", 0, events_of(1), counts={"actions": 1})
    assert store.counters().get("actions", 0) - before == 1


STATUSES = st.sampled_from(["open", "playing", "finished"])
OPS = st.lists(
    st.tuples(st.sampled_from(["index", "status"]), st.integers(0, 5), STATUSES), max_size=40
)


@given(OPS)
def test_status_counts_and_sets_equal_the_statuses_whatever_the_order(ops):
    """docs/operations.md (Redis Cluster): the counts by status are kept as counters, games in
    play indexed by status; any order of creations and status changes, repeated or not, leaves
    the counts and the per-status sets equal to the games' statuses."""
    store = Store(fakeredis.FakeRedis())
    statuses: dict[str, str] = {}
    indexed: set[str] = set()
    for op, n, status in ops:
        gid = f"g{n}"
        if op == "index":
            store.index(gid, "batak" if n % 2 else "bataille", status, n)
            statuses.setdefault(gid, status) if gid not in indexed else None
            indexed.add(gid)
        else:
            store.set_status(gid, status)
            statuses[gid] = status
    listed = {gid: s for gid, s in statuses.items() if gid in indexed}
    expected: dict[str, int] = {}
    for s in listed.values():
        expected[s] = expected.get(s, 0) + 1
    assert store.status_counts() == expected
    assert set(store.playing()) == {g for g, s in listed.items() if s == "playing"}
    for status in ("open", "playing", "finished"):
        page, _ = store.listing(None, status, 0, 100)
        assert {g for g, _ in page} == {g for g, s in listed.items() if s == status}
        page, _ = store.listing("batak", status, 0, 100)
        assert {g for g, _ in page} == {
            g for g, s in listed.items() if s == status and int(g[1:]) % 2
        }


def test_an_older_index_and_counters_are_adopted_once():
    """An upgrade keeps the listing and the counts of the games an older version indexed."""
    client = fakeredis.FakeRedis()
    client.zadd("games:all", {"a": 1, "b": 2})
    client.zadd("games:game:bataille", {"a": 1, "b": 2})
    client.hset("games:status", mapping={"a": "finished", "b": "playing"})
    client.hset("metrics", "actions", 7)
    store = Store(client)
    for gid in ("a", "b"):
        store.set_meta(gid, {"seed": "00", "game": "bataille"})
    kind = lambda gid: store.meta(gid).get("game")  # noqa: E731
    assert store.game_index.adopt_legacy(kind) == 2 and store.game_index.adopt_legacy(kind) == 0
    store.count(actions=1)
    assert store.status_counts() == {"finished": 1, "playing": 1}
    assert store.listing("bataille", None, 0, 10)[0] == [("b", "playing"), ("a", "finished")]
    assert list(store.playing()) == ["b"] and not client.exists("games:status")
    assert store.counters() == {"actions": 8}


def test_listing_reads_one_page_whatever_the_games_stored():
    """Listing costs O(page) (docs/operations.md): the commands it sends do not grow with the
    games stored."""
    client = fakeredis.FakeRedis()
    store = Store(client)
    for n in range(300):
        store.index(f"g{n}", "bataille", "finished" if n % 3 else "playing", n)
    sent: list[str] = []
    original = client.execute_command

    def counting(*args, **kwargs):
        sent.append(str(args[0]))
        return original(*args, **kwargs)

    client.execute_command = counting
    page, more = store.listing(None, "playing", 10, 5)
    assert len(page) == 5 and more and len(sent) == 2
    assert [g for g, _ in page] == [f"g{n}" for n in (267, 264, 261, 258, 255)]
    sent.clear()
    store.status_counts()
    store.counters()
    assert len(sent) <= 2


# -- readiness -------------------------------------------------------------------------------


def test_readyz_says_not_ready_when_redis_answers_ping_but_refuses_writes(real_redis):
    """/readyz must say not ready when the store cannot take writes (a PING is not
    enough: here every write is refused for want of replicas, yet PING answers)."""
    app = create_app(Engine(Store(real_redis)))
    c = app.test_client()
    assert c.get("/readyz").status_code == 200
    real_redis.config_set("min-replicas-to-write", 1)
    try:
        assert real_redis.ping()
        refused = c.get("/readyz")
        assert refused.status_code == 503 and refused.json["code"] == "not_ready"
    finally:
        real_redis.config_set("min-replicas-to-write", 0)
    assert c.get("/readyz").status_code == 200


@pytest.mark.slow
def test_readyz_says_not_ready_when_a_node_of_the_cluster_is_down(tmp_path):
    """On a cluster, one primary away means some games cannot take writes."""
    try:
        servers = RedisClusterServers(tmp_path)
    except (FileNotFoundError, RuntimeError) as exc:
        pytest.skip(f"no cluster: {exc}")
    try:
        engine = Engine(Store(servers.client()))
        c = create_app(engine).test_client()
        assert c.get("/readyz").status_code == 200
        servers.nodes[2].stop()
        refused = c.get("/readyz")
        assert refused.status_code == 503 and refused.json["code"] == "not_ready"
    finally:
        servers.stop()


def test_a_plain_client_on_a_cluster_node_is_a_503_never_a_500(redis_cluster):
    """A MOVED answer (a deployment pointing a plain client at a cluster) is not a crash."""
    engine = Engine(Store(redis.Redis.from_url(redis_cluster.url)))
    c = create_app(engine).test_client()
    r = c.post("/v1/games", json={"game": "bataille", "seats": [{"name": "a"}, {"bot": "random"}]})
    assert r.status_code != 500
