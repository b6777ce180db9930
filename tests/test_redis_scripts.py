"""service/store/scripts.Script: an EVALSHA straight on a pooled connection answers what
redis-py's registered script answers, loads the script again on a server that lost it, and
takes as many tries on a lost reply as redis-py does; the store's connection sends a command
with one plain send under gevent and hands what did not fit to redis-py's own send."""

from __future__ import annotations

import subprocess
import sys

import fakeredis
import pytest
import redis

from service.store import clients
from service.store.scripts import KEPT, Script
from tests.support.faults import RETRIES, LostReplies

pytestmark = pytest.mark.redis

ECHO = "redis.call('SET', KEYS[1], ARGV[1]) return {KEYS[1], ARGV[1], tonumber(ARGV[2]) + 1}"
FAILS = "return redis.error_reply('no such move')"


def _client(url: str) -> redis.Redis:
    return clients.plain(url, pool_size=2, wait_s=1, socket_timeout=5, what="REDIS_URL")


def test_it_answers_what_the_registered_script_answers(redis_url):
    client = _client(redis_url)
    script = Script(client, ECHO)
    assert script._idle.pool is client.connection_pool  # the direct path, not the fallback
    direct = script(keys=["scripts:k"], args=["é 1", 41])
    assert direct == script.registered(keys=["scripts:k"], args=["é 1", 41])
    assert direct == [b"scripts:k", "é 1".encode(), 42]
    assert client.get("scripts:k") == "é 1".encode()


def test_a_server_that_lost_its_scripts_gets_it_again(redis_url):
    client = _client(redis_url)
    script = Script(client, ECHO)
    script(keys=["scripts:k"], args=["a", 1])
    client.script_flush()
    assert script(keys=["scripts:k"], args=["b", 1]) == [b"scripts:k", b"b", 2]


def test_an_error_reply_is_raised_and_leaves_the_connection_clean(redis_url):
    client = _client(redis_url)
    with pytest.raises(redis.ResponseError, match="no such move"):
        Script(client, FAILS)()
    assert client.echo("next") == b"next"  # the pool's connections read their own replies


@pytest.mark.parametrize("lost, answered", [(RETRIES, True), (RETRIES + 1, False)])
def test_a_lost_reply_takes_redis_pys_own_tries(redis_server, lost, answered):
    faults = LostReplies()
    client = faults.client(redis_server.port)
    script = Script(client, ECHO)
    client.script_load(ECHO)
    faults.arm(script.sha, lost)
    if answered:
        assert script(keys=["scripts:lost"], args=["x", 1]) == [b"scripts:lost", b"x", 2]
    else:
        with pytest.raises(redis.ConnectionError):
            script(keys=["scripts:lost"], args=["x", 1])
    assert faults.lost == lost
    assert client.echo("after") == b"after"


def _counting_gets(monkeypatch, pool) -> list[int]:
    gets: list[int] = []
    real = pool.get_connection
    monkeypatch.setattr(pool, "get_connection", lambda: gets.append(1) or real())
    return gets


def test_a_clean_call_leaves_its_connection_to_the_next_without_the_pool(redis_url, monkeypatch):
    client = _client(redis_url)
    script, other = Script(client, ECHO), Script(client, FAILS)
    assert other._idle is script._idle  # one per pool: every script on it shares it
    gets = _counting_gets(monkeypatch, client.connection_pool)
    script(keys=["scripts:k"], args=["a", 1])
    kept = script._idle.conns[:]
    assert len(kept) == 1 and len(gets) == 1
    assert script(keys=["scripts:k"], args=["b", 1]) == [b"scripts:k", b"b", 2]
    assert script._idle.conns == kept and len(gets) == 1  # the same connection, no pool get


def test_an_error_reply_leaves_its_connection_to_the_next_call(redis_url):
    """An error reply is read whole: the connection is clean, and the next call takes it."""
    client = _client(redis_url)
    with pytest.raises(redis.ResponseError):
        Script(client, FAILS)()
    script = Script(client, ECHO)
    kept = script._idle.conns[:]
    assert len(kept) == 1
    assert script(keys=["scripts:k"], args=["e", 1]) == [b"scripts:k", b"e", 2]
    assert script._idle.conns == kept


def test_a_call_cut_short_drops_its_connection(redis_url, monkeypatch):
    """A call cut short (a timeout, a greenlet killed mid-read) may leave its reply under way,
    too late for the pool's check for unread data: the connection is dropped, and the next call
    reads its own reply."""
    client = _client(redis_url)
    script = Script(client, ECHO)
    real = redis.Connection.read_response

    def cut(conn, *args, **kwargs):
        raise KeyboardInterrupt  # a BaseException, as gevent's Timeout and GreenletExit are

    monkeypatch.setattr(redis.Connection, "read_response", cut)
    with pytest.raises(KeyboardInterrupt):
        script(keys=["scripts:k"], args=["f", 1])
    monkeypatch.setattr(redis.Connection, "read_response", real)
    assert script._idle.conns == []
    assert script(keys=["scripts:k"], args=["g", 1]) == [b"scripts:k", b"g", 2]
    assert client.echo("next") == b"next"


@pytest.mark.parametrize("size, kept", [(2, 1), (64, KEPT), (1000, KEPT)])
def test_at_most_kept_connections_wait_the_rest_go_back(redis_url, size, kept):
    """At most `KEPT`, and half the pool: the pool's other commands keep the rest."""
    client = clients.plain(redis_url, pool_size=size, wait_s=1, socket_timeout=5, what="REDIS_URL")
    idle = Script(client, ECHO)._idle
    assert idle.kept == min(kept, size // 2)
    pool = client.connection_pool
    conns = [pool.make_connection() for _ in range(idle.kept + 1)]
    for conn in conns:
        idle.keep(conn)
    assert idle.conns == conns[: idle.kept]
    assert conns[idle.kept] in pool._connections  # released: the pool has it back


def test_a_kept_connection_dropped_meanwhile_reconnects(redis_url):
    client = _client(redis_url)
    script = Script(client, ECHO)
    script(keys=["scripts:k"], args=["a", 1])
    client.connection_pool.disconnect()  # every connection of the pool, the kept one too
    assert script(keys=["scripts:k"], args=["c", 1]) == [b"scripts:k", b"c", 2]


def test_after_a_fork_the_parents_connections_are_forgotten(redis_url, monkeypatch):
    client = _client(redis_url)
    script = Script(client, ECHO)
    script(keys=["scripts:k"], args=["a", 1])
    parents = script._idle.conns[:]
    script._idle.pid -= 1  # as a child sees it: another process made them
    gets = _counting_gets(monkeypatch, client.connection_pool)
    assert script(keys=["scripts:k"], args=["d", 1]) == [b"scripts:k", b"d", 2]
    assert len(gets) == 1 and script._idle.conns != parents


def test_other_clients_keep_redis_pys_script():
    client = fakeredis.FakeRedis()
    script = Script(client, ECHO)
    assert script._idle is None
    assert script(keys=["k"], args=["v", 1]) == [b"k", b"v", 2]


_SENDS = """
from gevent import monkey

monkey.patch_all()

import sys

import gevent.socket

from service.store import clients

asked = []
size_of = gevent.socket.socket.getsockopt
gevent.socket.socket.getsockopt = lambda self, *a: asked.append(a) or size_of(self, *a)
client = clients.plain(sys.argv[1], pool_size=2, wait_s=1, socket_timeout=5, what="REDIS_URL")
client.ping()
asked.clear()
client.set("scripts:small", "v")
small = len(asked)
big = bytes(range(256)) * 40_000  # 10 MB: far more than one send takes
client.set("scripts:big", big)
print(small, client.get("scripts:big") == big, client.get("scripts:small") == b"v")
client.delete("scripts:big", "scripts:small")
"""


def test_under_gevent_a_command_is_one_send_and_a_large_one_is_sent_whole(redis_url):
    out = subprocess.run(
        [sys.executable, "-c", _SENDS, redis_url],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout.split()
    assert out == ["0", "True", "True"]  # no buffer-size question for a small command


def test_a_pool_that_makes_connections_on_demand_keeps_all_it_lends(redis_url):
    """The live followers' pool: parking its connections starves no other command."""
    pool = redis.ConnectionPool.from_url(redis_url)
    idle = Script(redis.Redis(connection_pool=pool), ECHO)._idle
    assert idle.kept == pool.max_connections
