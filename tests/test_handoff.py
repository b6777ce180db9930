"""A player's socket goes, unread, to the worker that owns its game (service/handoff.py); every
other connection, and any connection whose owner cannot take it, is served where it was
accepted, with the same answer. Two servers in this process stand for two gunicorn workers."""

from __future__ import annotations

import json
import os
import signal
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import gevent
import pytest
from gevent import socket as gsocket

from service import handoff, wsgi_io
from service.handoff import Handoff, owner, player_game
from service.settings import current
from tests.support.processes import wait_until
from tests.support.serving import Server, new_game, production
from tests.support.sockets import open_socket

UPGRADE = (
    "Host: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
)


def socket_request(game: str, identity: str = "Authorization: Bearer t0ken\r\n") -> bytes:
    return f"GET /v1/games/{game}/socket?after=2 HTTP/1.1\r\n{UPGRADE}{identity}\r\n".encode()


@pytest.mark.parametrize(
    "identity",
    ["Authorization: Bearer t0ken\r\n", "sec-websocket-protocol: x, batayo.v1\r\n"],
)
def test_a_players_socket_names_its_game(identity):
    assert player_game(socket_request("0123abcd", identity)) == "0123abcd"


@pytest.mark.parametrize(
    "head",
    [
        socket_request("0123abcd", identity=""),  # a spectator: crowds spread over the workers
        socket_request("0123abcd", identity="Sec-WebSocket-Protocol: chat\r\n"),
        b"GET /v1/games/0123abcd HTTP/1.1\r\nAuthorization: Bearer t\r\n\r\n",
        b"GET /v1/games/0123abcd/socketry HTTP/1.1\r\nAuthorization: Bearer t\r\n\r\n",
        b"POST /v1/games/0123abcd/socket HTTP/1.1\r\nAuthorization: Bearer t\r\n\r\n",
        b"GET /v1/games/0123abcd/sock",  # the request line not all in yet: served here
        b"",
    ],
)
def test_anything_else_names_no_game(head):
    assert player_game(head) is None


def test_every_worker_names_the_same_owner_and_games_spread():
    workers = [4242, 17, 999]
    games = [f"{n:016x}" for n in range(300)]
    owners = [owner(g, workers) for g in games]
    assert owners == [owner(g, list(reversed(workers))) for g in games]
    assert {w: owners.count(w) for w in workers} == {w: pytest.approx(100, abs=30) for w in workers}


def _loads(folder: Path, loads: dict[int, int]) -> Handoff:
    """Workers with these counts of games, as their reports say; worker 1's end."""
    for worker, games in loads.items():
        handoff.address(folder, worker).touch()
        Handoff(folder, me=worker).report(games)
    return Handoff(folder, me=1)


def test_a_new_games_id_is_owned_by_the_worker_with_the_fewest_games(tmp_path):
    mine = _loads(tmp_path, {1: 7, 2: 3, 3: 5})
    drawn = iter(f"{n:016x}" for n in range(1000))
    game = mine.game_id(lambda: next(drawn))
    assert owner(game, [1, 2, 3]) == 2
    # given to worker 2 a moment ago: counted there until its own report does
    assert mine.loads([1, 2, 3]) == {1: 7, 2: 4, 3: 5}


def test_equally_busy_workers_take_turns_and_spread_evenly(tmp_path):
    mine = _loads(tmp_path, {1: 0, 2: 0})
    drawn = iter(f"{n:016x}" for n in range(10_000))
    owners = [owner(mine.game_id(lambda: next(drawn)), [1, 2]) for _ in range(40)]
    assert owners.count(1) == owners.count(2) == 20


def test_one_worker_draws_any_id(tmp_path):
    mine = _loads(tmp_path, {1: 4})
    assert mine.game_id(lambda: "00000000000000aa") == "00000000000000aa"


def test_a_forgotten_worker_leaves_no_count(tmp_path):
    mine = _loads(tmp_path, {1: 2, 2: 9})
    handoff.forget(tmp_path, 2)
    assert not handoff.load_file(tmp_path, 2).exists() and mine.workers() == [1]


def _app(name: str):
    """Answers with the server's name and the request as it arrived, so that a test sees who
    served it and that nothing of it was read on the way."""

    def app(environ, start_response):
        seen = {
            "server": name,
            "path": environ["PATH_INFO"],
            "query": environ["QUERY_STRING"],
            "authorization": environ.get("HTTP_AUTHORIZATION"),
            "upgrade": environ.get("HTTP_UPGRADE"),
        }
        body = json.dumps(seen).encode()
        start_response("200 OK", [("Content-Type", "application/json")])
        return [body]

    return app


class Workers:
    """Two servers with their ends of the handoff in one folder, as workers 1 and 2."""

    def __init__(self, folder: Path, header_timeout_s: float = 5.0) -> None:
        self.folder = folder
        self.servers: dict[int, wsgi_io.Server] = {}
        settings = current().model_copy(update={"header_timeout_s": header_timeout_s})
        for me in (1, 2):
            server = wsgi_io.Server(
                ("127.0.0.1", 0),
                _app(f"worker {me}"),
                handler_class=wsgi_io.Guarded,
                settings=settings,
                log=None,
            )
            server.handoff = Handoff(folder, me=me, wait_s=header_timeout_s)
            server.start()
            self.servers[me] = server

    def port(self, me: int) -> int:
        return self.servers[me].server_port

    def close(self) -> None:
        for server in self.servers.values():
            server.stop(timeout=1)


@pytest.fixture
def workers(tmp_path) -> Iterator[Workers]:
    running = Workers(tmp_path)
    yield running
    running.close()


def game_owned_by(me: int, workers: list[int]) -> str:
    return next(g for n in range(100) if owner(g := f"{n:016x}", workers) == me)


def ask(port: int, request: bytes) -> dict:
    with gsocket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(request)
        answer = b""
        while b"\r\n\r\n" not in answer or not answer.endswith(b"}"):
            chunk = conn.recv(65536)
            if not chunk:
                break
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 "), answer
    return json.loads(body)


def test_a_players_socket_is_served_by_its_games_owner_as_it_was_sent(workers):
    game = game_owned_by(2, [1, 2])
    seen = ask(workers.port(1), socket_request(game))
    assert seen == {
        "server": "worker 2",
        "path": f"/v1/games/{game}/socket",
        "query": "after=2",
        "authorization": "Bearer t0ken",
        "upgrade": "websocket",
    }
    # the differential: served where it was accepted (its owner), the same request arrives
    assert ask(workers.port(2), socket_request(game)) == seen


def test_a_passed_connection_ends_when_its_owner_ends_it(workers):
    """The worker that passed it keeps no copy open: the client sees the close."""
    game = game_owned_by(2, [1, 2])
    request = socket_request(game).replace(b"Connection: Upgrade", b"Connection: close")
    with gsocket.create_connection(("127.0.0.1", workers.port(1)), timeout=5) as conn:
        conn.sendall(request)
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    assert b'"server": "worker 2"' in answer


def test_both_players_of_a_game_end_in_one_worker(workers):
    game = game_owned_by(1, [1, 2])
    served = {ask(workers.port(me), socket_request(game))["server"] for me in (1, 2)}
    assert served == {"worker 1"}


@pytest.mark.parametrize(
    "request_",
    [
        socket_request("0000000000000002", identity=""),  # a spectator
        b"GET /v1/games/0000000000000002 HTTP/1.1\r\nAuthorization: Bearer t\r\n\r\n",
    ],
)
def test_anything_else_is_served_where_it_was_accepted(workers, request_):
    for me in (1, 2):
        assert ask(workers.port(me), request_)["server"] == f"worker {me}"


def test_an_owner_that_is_gone_leaves_the_socket_served_here(workers):
    game = game_owned_by(2, [1, 2])
    workers.servers[2].handoff.close()  # stopped, and (as gunicorn's child_exit) forgotten
    assert ask(workers.port(1), socket_request(game))["server"] == "worker 1"
    # its address left behind with nobody reading it (a worker killed outright): the same
    stale = gsocket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    stale.bind(str(handoff.address(workers.folder, 2)))
    stale.close()
    assert ask(workers.port(1), socket_request(game))["server"] == "worker 1"


def test_a_silent_connection_is_closed_at_the_header_timeout(tmp_path):
    running = Workers(tmp_path, header_timeout_s=0.2)
    try:
        with gsocket.create_connection(("127.0.0.1", running.port(1)), timeout=5) as conn:
            started = time.monotonic()
            assert conn.recv(10) == b""
            assert time.monotonic() - started < 3
    finally:
        running.close()


def test_the_header_timeout_counts_from_the_connection_not_from_its_passing(tmp_path):
    """A request whose start came late, then stopped: its owner closes it when the timeout
    runs out since it connected, not a whole timeout after it was passed."""
    running = Workers(tmp_path, header_timeout_s=1.0)
    game = game_owned_by(2, [1, 2])
    try:
        with gsocket.create_connection(("127.0.0.1", running.port(1)), timeout=5) as conn:
            started = time.monotonic()
            gevent.sleep(0.6)
            conn.sendall(socket_request(game)[:-2])  # no blank line: the headers never end
            assert conn.recv(10) == b""
            assert 0.9 < time.monotonic() - started < 1.4
    finally:
        running.close()


def test_many_connections_at_once_all_reach_their_owner(tmp_path):
    """The owner's queue holds a few connections at a time: the rest wait for room, none is
    lost and none is served twice."""
    got: list = []
    owner_end = Handoff(tmp_path, me=2)
    owner_end.listen(lambda conn, peer, waited_s: got.append(peer))
    here = Handoff(tmp_path, me=1)
    listener = gsocket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(256)
    clients = []

    def pass_one() -> bool:
        clients.append(gsocket.create_connection(listener.getsockname()))
        conn, _ = listener.accept()
        with conn:
            return here._send(conn, 2, 0.0)

    try:
        sends = [gevent.spawn(pass_one) for _ in range(200)]
        gevent.joinall(sends, raise_error=True)
        assert all(s.value for s in sends)
        due = time.monotonic() + 5
        while len(got) < 200 and time.monotonic() < due:
            gevent.sleep(0.05)  # the owner's end reads in this process's loop
        assert sorted(got) == sorted(c.getsockname() for c in clients)
    finally:
        owner_end.close()
        listener.close()
        for c in clients:
            c.close()


def _two_workers(tmp_path: Path, redis_url: str) -> tuple[Server, Path]:
    """gunicorn with the repo's config and two workers, both listening for passed sockets; the
    folder of their addresses."""
    env = {"WEB_CONCURRENCY": "2", "BATAYO_RATE_LIMIT_TOKEN": "0", "TMPDIR": str(tmp_path)}
    server = production(tmp_path, redis_url, env)
    try:
        (folder,) = tmp_path.glob("batayo-workers-*")
        assert wait_until(lambda: len(list(folder.glob("*.sock"))) == 2, 10)
    except BaseException:
        server.stop()
        raise
    return server, folder


def test_a_killed_worker_leaves_every_players_socket_served(tmp_path, redis_url):
    """gunicorn's workers, one killed outright: whichever worker a socket's game hashed to,
    every player's socket opens and gets its game's first event, and the master forgets the
    dead worker's address."""
    server, folder = _two_workers(tmp_path, redis_url)
    try:
        workers = server.workers()
        games = [new_game(server.port) for _ in range(6)]
        os.kill(workers[0], signal.SIGKILL)
        # what was passed to it in the instant it died is closed, as what it had accepted is
        assert wait_until(lambda: not Path(f"/proc/{workers[0]}").exists(), 10)
        for gid, tokens in games:
            for token in tokens.values():
                with open_socket(server.port, gid, token) as ws:
                    assert json.loads(ws.recv(timeout=10))["event"]["version"] == 1
        # its replacement listens, the dead one's address is gone (and a stop is prompt)
        assert wait_until(lambda: len(list(folder.glob("*.sock"))) == 2, 20)
        assert not handoff.address(folder, workers[0]).exists()
        assert "Traceback" not in server.text()
    finally:
        server.stop()


def test_games_spread_evenly_over_gunicorns_workers(tmp_path, redis_url):
    """gunicorn's workers: games created one after the other, their players connected, are
    owned half by each worker, and each worker reports its count."""
    server, folder = _two_workers(tmp_path, redis_url)
    try:
        pids = [int(p.stem) for p in folder.glob("*.sock")]
        sockets, owners = [], []
        for _ in range(8):
            gid, tokens = new_game(server.port)
            owners.append(owner(gid, pids))
            ws = open_socket(server.port, gid, tokens[0])
            assert json.loads(ws.recv(timeout=10))["event"]["version"] == 1
            sockets.append(ws)
            time.sleep(2 * wsgi_io.REPORT_S)  # its owner's report counts it
        assert sorted(owners.count(pid) for pid in pids) == [4, 4]
        reported = {pid: int(handoff.load_file(folder, pid).read_bytes()) for pid in pids}
        assert reported == {pid: 4 for pid in pids}
        for ws in sockets:
            ws.close()
        assert "Traceback" not in server.text()
    finally:
        server.stop()
