"""What one address or one slow client can hold of a server: each request's headers must be in
within BATAYO_HEADER_TIMEOUT_S, and one direct peer address may hold at most
BATAYO_CONNECTIONS_PER_ADDRESS connections, on `batayo serve` and on the Docker image's
gunicorn alike (service/wsgi_io.py). A body being read and an open event stream are never cut.

The servers count loopback (BATAYO_CAP_LOOPBACK=1), so 127.0.0.1 stands for any client, and
trust 127.0.0.2 as a proxy: the exempt address. Waits are asserted with a 2x margin."""

from __future__ import annotations

import socket
import time

import pytest

from service.wsgi_io import AddressCap
from tests.support.serving import Stream, call, flip, new_game, production, serve

CAP, TIMEOUT_S = 3, 1.0
ENV = {
    "BATAYO_CONNECTIONS_PER_ADDRESS": str(CAP),
    "BATAYO_HEADER_TIMEOUT_S": str(TIMEOUT_S),
    "BATAYO_CAP_LOOPBACK": "1",
    "BATAYO_TRUSTED_PROXIES": "127.0.0.2",
}
CLIENT, PROXY = "127.0.0.1", "127.0.0.2"


# -- the cap's rule, address by address ------------------------------------------------------


def test_an_address_holds_at_most_the_cap_and_a_closed_connection_frees_its_place():
    cap = AddressCap(2)
    assert [cap.enter("203.0.113.9") for _ in range(3)] == [True, True, False]
    assert cap.enter("198.51.100.1")  # another address has its own count
    cap.leave("203.0.113.9")
    assert cap.enter("203.0.113.9") and not cap.enter("203.0.113.9")


def test_loopback_trusted_proxies_and_unknown_peers_are_not_capped():
    cap = AddressCap(1, trusted=["10.0.0.0/24"])
    for address in ("127.0.0.1", "::1", "10.0.0.5", ""):  # '' is a unix socket's peer
        assert all(cap.enter(address) for _ in range(5)), address
    assert cap.open == {}
    counted = AddressCap(1, count_loopback=True)  # BATAYO_CAP_LOOPBACK, as the other caps
    assert counted.enter("127.0.0.1") and not counted.enter("127.0.0.1")


def test_no_cap_at_0():
    cap = AddressCap(0)
    assert all(cap.enter("203.0.113.9") for _ in range(1000)) and cap.open == {}


# -- both servers ------------------------------------------------------------------------------


@pytest.fixture(scope="module", params=["serve", "gunicorn"])
def server(request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(request.param)
    if request.param == "serve":
        running = serve(tmp, ENV)
    else:
        running = production(tmp, request.getfixturevalue("redis_server").url, ENV)
    running.name = request.param
    yield running
    running.stop()


def _connect(port: int, source: str = CLIENT) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))


def _until_closed(sock: socket.socket, within: float) -> tuple[bytes, float]:
    """Everything the server sends until it closes, and after how long (`within` at most)."""
    started = time.monotonic()
    sock.settimeout(within)
    out = b""
    try:
        while chunk := sock.recv(65536):
            out += chunk
    except TimeoutError:
        return out + b"<open>", within
    return out, time.monotonic() - started


UPLOAD = b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
UPLOAD += b"Content-Length: 100\r\n\r\n{"  # the headers are in; the body never comes


def test_connections_over_the_cap_get_503_and_an_exempt_address_is_still_served(server):
    held = []
    try:
        for _ in range(CAP):  # in turn: the server takes its connections in order
            held.append(_connect(server.port))
            held[-1].sendall(UPLOAD)
        # the 4th and 5th send nothing, so the answer is never lost to a reset of unread bytes
        for _ in range(2):
            assert _refused(server.port)
        assert _get(server.port, PROXY).startswith(b"HTTP/1.1 200 ")  # not capped
        time.sleep(2.5 * TIMEOUT_S)  # well past the header timeout: an upload is never cut
        for sock in held:
            assert _until_closed(sock, 0.1)[0] == b"<open>"
        assert _refused(server.port)  # still full
        held.pop().close()  # one place freed
        time.sleep(0.2)
        assert _get(server.port, CLIENT).startswith(b"HTTP/1.1 200 ")
        if server.name == "serve":  # /metrics on a Redis store answers 500 (its queue gauges)
            metrics = _get(server.port, PROXY, "/metrics").decode()
            assert "batayo_connections_refused_total 3.0" in metrics
    finally:
        for sock in held:
            sock.close()


def _refused(port: int) -> bool:
    """A new connection from CLIENT is answered 503 with Retry-After and closed unread."""
    with _connect(port) as sock:
        answer, _ = _until_closed(sock, 5)
    return answer.startswith(b"HTTP/1.1 503 ") and b"\r\nRetry-After: 5\r\n" in answer


def _get(port: int, source: str, path: str = "/healthz") -> bytes:
    with _connect(port, source) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        return _until_closed(sock, 10)[0]


def test_a_connection_without_whole_headers_is_closed_after_the_timeout(server):
    started = time.monotonic()
    silent = _connect(server.port, PROXY)  # exempt from the cap: only the timeout applies
    half = _connect(server.port, PROXY)
    half.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
    kept = _connect(server.port, PROXY)  # a keep-alive connection, then a half-sent request
    kept.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    answer = b""
    while not answer.endswith(b'{"status": "ok"}'):
        answer += kept.recv(65536)
    assert answer.startswith(b"HTTP/1.1 200 ")
    kept.sendall(b"GET /healthz HTTP/1.1\r\n")
    for sock in (silent, half, kept):
        with sock:
            assert _until_closed(sock, 2 * TIMEOUT_S + 1)[0] == b""
            assert time.monotonic() - started < 2 * TIMEOUT_S
    assert time.monotonic() - started > 0.9 * TIMEOUT_S  # closed by the timeout, not before


def test_an_open_stream_outlives_the_header_timeout_and_keeps_receiving(server):
    gid, tokens = new_game(server.port)
    stream = Stream(server.port, f"/v1/games/{gid}/stream")
    try:
        assert stream.status == 200
        stream.read(lambda s: len(s.messages) >= 1, timeout=10)
        time.sleep(2.5 * TIMEOUT_S)
        flip(server.port, gid, tokens)
        stream.read(lambda s: len(s.events()) >= 1, timeout=10)
        assert not stream.ended and len(stream.events()) >= 1
        assert call(server.port, "GET", "/healthz")[0] == 200
    finally:
        stream.close()


def test_a_busy_keep_alive_connection_is_never_cut_by_the_header_timeout(server):
    """The timeout bounds each request's wait for its headers, not the connection's life: a
    client that reuses one connection for requests a tenth of a second apart, for longer than
    the timeout in all, gets every answer."""
    with _connect(server.port, PROXY) as sock:
        sock.settimeout(5)
        started = time.monotonic()
        answered = 0
        while time.monotonic() - started < 2.5 * TIMEOUT_S:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            answer = b""
            while not answer.endswith(b'{"status": "ok"}'):
                chunk = sock.recv(65536)
                assert chunk, f"closed after {answered} answers, {time.monotonic() - started:.1f} s"
                answer += chunk
            answered += 1
            time.sleep(0.1)
    assert answered >= 10
