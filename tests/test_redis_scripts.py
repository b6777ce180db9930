"""service/store/scripts.Script: an EVALSHA straight on a pooled connection answers what
redis-py's registered script answers, loads the script again on a server that lost it, and
takes as many tries on a lost reply as redis-py does; the store's connection sends a command
with one plain send under gevent and hands what did not fit to redis-py's own send."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import fakeredis
import gevent
import pytest
import redis

from service.store import clients
from service.store.scripts import KEPT, Pipe, Script, command, direct
from service.store.scripts import pipe as pipe_of
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


def _in_one_turn(pipe: Pipe, calls: list[tuple]) -> list:
    """Each call from a greenlet of its own, all started in one turn of gevent's loop: what
    each got (its reply, or the error raised)."""

    def one(args: tuple) -> object:
        try:
            return pipe.call(*args)
        except redis.RedisError as exc:
            return exc

    greenlets = [gevent.spawn(one, args) for args in calls]
    gevent.joinall(greenlets, raise_error=True)
    return [g.value for g in greenlets]


def test_a_turns_calls_go_in_one_batch_and_each_gets_its_own_reply(redis_url):
    """The batched path against the plain one (`command`), call for call."""
    client = _client(redis_url)
    sha = client.script_load(ECHO)
    calls = [("EVALSHA", sha, 1, f"scripts:pipe:{n}", f"v{n}", n) for n in range(40)]
    pipe = Pipe(direct(client))
    got = _in_one_turn(pipe, calls)
    assert (pipe.batches, pipe.calls) == (1, 40)
    assert got == [command(direct(client), *args) for args in calls]


def test_an_error_reply_goes_to_its_own_call_only(redis_url):
    client = _client(redis_url)
    echo, fails = client.script_load(ECHO), client.script_load(FAILS)
    pipe = Pipe(direct(client))
    got = _in_one_turn(
        pipe,
        [
            ("EVALSHA", echo, 1, "scripts:a", "a", 1),
            ("EVALSHA", fails, 0),
            ("EVALSHA", echo, 1, "scripts:b", "b", 2),
        ],
    )
    assert got[0] == [b"scripts:a", b"a", 2] and got[2] == [b"scripts:b", b"b", 3]
    assert isinstance(got[1], redis.ResponseError) and "no such move" in str(got[1])
    assert _in_one_turn(pipe, [("EVALSHA", echo, 1, "scripts:c", "c", 3)]) == [
        [b"scripts:c", b"c", 4]  # the connection read every reply: clean for the next batch
    ]


def test_a_batch_cut_short_sends_each_unanswered_call_again_on_the_plain_path(redis_server):
    """A reply lost in a batch (the server applied the call, the network cut its answer): every
    call not answered yet goes again on its own with redis-py's tries, as on the plain path."""
    faults = LostReplies()
    client = faults.client(redis_server.port)
    sha = client.script_load(ECHO)
    faults.arm("scripts:cut:3")
    calls = [("EVALSHA", sha, 1, f"scripts:cut:{n}", f"v{n}", n) for n in range(6)]
    pipe = Pipe(direct(client))
    got = _in_one_turn(pipe, calls)
    assert faults.lost == 1
    assert got == [[f"scripts:cut:{n}".encode(), f"v{n}".encode(), n + 1] for n in range(6)]
    assert client.echo("after") == b"after"


def test_only_a_server_batches_its_calls(redis_url):
    """Outside a process whose sockets gevent patched (threads, RQ workers, the command line),
    every call keeps the plain path."""
    client = _client(redis_url)
    assert pipe_of(direct(client)) is None
    assert Script(client, ECHO)._pipe is None


def test_a_batch_without_a_connection_leaves_each_call_to_the_plain_path(redis_url, monkeypatch):
    client = _client(redis_url)
    sha = client.script_load(ECHO)
    idle = direct(client)
    take, refusals = idle.take, []

    def none_the_first_time():
        if not refusals:
            refusals.append(1)
            raise redis.ConnectionError("no connection available")
        return take()

    monkeypatch.setattr(idle, "take", none_the_first_time)
    got = _in_one_turn(Pipe(idle), [("EVALSHA", sha, 1, "scripts:none", "v", 1)] * 3)
    assert refusals and got == [[b"scripts:none", b"v", 2]] * 3


_FAULTS_UNDER_GEVENT = """
from gevent import monkey

monkey.patch_all()

import sys

import pytest

from service.store import scripts

calls = []
call = scripts.Pipe.call
scripts.Pipe.call = lambda self, *args: calls.append(1) or call(self, *args)
code = pytest.main(["-q", "-n", "0", "-p", "no:cacheprovider", "tests/test_redis_faults.py"])
print("batched calls:", len(calls))
sys.exit(code)
"""


@pytest.mark.slow
def test_the_fault_scenarios_hold_where_script_calls_are_batched():
    """tests/test_redis_faults.py again, in a process gevent patched as a server's is, where the
    store's script calls go through `Pipe`: the same outcomes, whatever Redis does."""
    done = subprocess.run(
        [sys.executable, "-c", _FAULTS_UNDER_GEVENT],
        cwd=Path(__file__).resolve().parents[1],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert int(done.stdout.rsplit("batched calls:", 1)[1].split()[0]) > 0
