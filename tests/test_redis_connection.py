"""The store's Redis connection (service/store/clients.Connection) still tells the pool when a
connection it hands out is not clean: a reply left unread, or a socket the server closed; the
pool then reconnects, and no command ever reads another's reply."""

from __future__ import annotations

import redis

from service.store import clients


def _client(url: str) -> redis.Redis:
    return clients.plain(url, pool_size=2, wait_s=1, socket_timeout=5, what="REDIS_URL")


def test_the_pool_uses_it_for_tcp_urls(redis_url):
    client = _client(redis_url)
    assert client.connection_pool.connection_class is clients.Connection
    follower = clients.own_pool(client).connection_pool  # a live follower's: the same kind
    assert follower.connection_class is clients.Connection
    assert follower.connection_kwargs.get("maint_notifications_config") is not None
    unix = clients.plain("unix:///nowhere.sock", 1, 1, 1, "REDIS_URL").connection_pool
    assert unix.connection_class is redis.UnixDomainSocketConnection


def test_a_clean_connection_has_nothing_to_read(redis_url):
    client = _client(redis_url)
    client.ping()
    conn = client.connection_pool.get_connection()
    try:
        assert conn.can_read() is False
    finally:
        client.connection_pool.release(conn)


def test_an_unread_reply_is_seen_and_never_read_by_the_next_command(redis_url):
    client = _client(redis_url)
    client.set("direct:k", "mine")
    pool = client.connection_pool
    conn = pool.get_connection()
    conn.send_command("GET", "direct:k")  # its reply is never read
    for _ in range(100):  # until the reply is there
        if conn.can_read(timeout=0.05):
            break
    assert conn.can_read() is True
    pool.release(conn)
    assert client.echo("theirs") == b"theirs"  # on a fresh connection, not the stale reply
    client.delete("direct:k")


def test_a_connection_the_server_closed_is_replaced(redis_url):
    client = _client(redis_url)
    client.client_setname("direct-victim")
    killer = redis.Redis.from_url(redis_url)
    assert killer.client_kill_filter(_type="normal", skipme=True) >= 1
    assert client.echo("after") == b"after"
