"""The game's WebSocket (`GET /v1/games/{id}/socket`) on real servers, `batayo serve` and the
production gunicorn command: whole games played by two seats each on its own socket, acting on
what is pushed; resumption, `view=1`, the caps, the close codes, the POST's refusals, the
browser's first-message token and Origin; the websockets library as the ordinary client, a raw
one (tests/support/wsclient.py) for what a library would not do. The protocol's edges (pings,
oversized and garbage frames, a slow reader, a fuzz) are in tests/test_socket_protocol.py."""

from __future__ import annotations

import json
import signal
import threading
import time

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from batayo_client import ApiError
from batayo_client.socket import GameSocket
from service.handoff import owner
from tests.support.processes import wait_until
from tests.support.serving import Stream, call, flip, metric, no_traceback, production, scrape
from tests.support.sockets import (
    ORIGIN,
    events_of,
    module_server,
    new_game,
    open_socket,
    opens,
    socket_url,
    until,
)
from tests.support.wsclient import Raw

pytestmark = pytest.mark.slow


server = pytest.fixture(scope="module", name="server")(module_server)


def play(port: int, gid: str, tokens: dict[int, str], browser_seat: int | None = None) -> dict:
    """Each seat on its own socket (`view=1`), acting on each view it is pushed; a socket
    closed with any code but 1000 reconnects after the last version it got. Returns, per seat,
    the event versions seen, the `acted` answers, their positions and the reconnections."""
    out: dict = {}
    errors: list[BaseException] = []

    def seat_loop(seat: int) -> None:
        seen: list[dict] = []
        acted: list[tuple[int, int]] = []  # (version acted at, events seen by then)
        reconnections = 0
        try:
            while True:
                after = seen[-1]["version"] if seen else 0
                query = f"?view=1&after={after}" if after else "?view=1"
                if seat == browser_seat:
                    ws = connect(
                        socket_url(port, gid, query), subprotocols=["batayo.v1"]
                    ).__enter__()
                else:
                    ws = open_socket(port, gid, tokens[seat], query)
                with ws:
                    if seat == browser_seat:
                        assert ws.subprotocol == "batayo.v1"
                        ws.send(json.dumps({"auth": tokens[seat]}))
                    _take(ws, seat, seen, acted)
                code = ws.close_code
                if code == 1000:
                    break
                assert code in (4000, 4001), code
                reconnections += 1
        except BaseException as exc:  # reported to the test
            errors.append(exc)
        out[seat] = {"seen": seen, "acted": acted, "reconnections": reconnections}

    players = [threading.Thread(target=seat_loop, args=(s,)) for s in tokens]
    for p in players:
        p.start()
    for p in players:
        p.join(timeout=60)
    assert not errors, errors
    return out


def _take(ws, seat: int, seen: list[dict], acted: list[tuple[int, int]]) -> None:
    """One socket's messages until it closes, acting on each view that awaits the seat."""
    try:
        for raw in ws:
            message = json.loads(raw)
            if "event" in message:
                seen.append(message["event"])
            elif "acted" in message:
                acted.append((message["acted"]["version"], seen[-1]["version"]))
            elif "refused" in message:
                # both seats flip at once: a view overtaken is refused, as the POST would
                assert message["refused"]["problem"]["status"] in (409, 412, 422), message
            elif "view" in message:
                view = message["view"]
                assert view["you"] == seat
                if view["status"] == "playing" and view["legal_actions"]:
                    act = {"act": view["legal_actions"][0], "id": f"{seat}-{view['version']}"}
                    ws.send(json.dumps({**act, "if_match": view["version"]}))
    except ConnectionClosed:
        pass


def _check_played(port: int, gid: str, tokens: dict[int, str], out: dict) -> None:
    _, final, _ = call(port, "GET", f"/v1/games/{gid}")
    assert final["status"] == "finished"
    for seat, got in out.items():
        # every event once, in order (sealed as they were in play: the end reveals them, so
        # what each audience sees is checked on a game in play, below)
        logged = events_of(port, gid, tokens[seat])
        assert [(e["version"], e["type"]) for e in got["seen"]] == [
            (e["version"], e["type"]) for e in logged
        ]
        assert got["acted"]  # the seat played on its socket
        for version, seen_by_then in got["acted"]:
            assert seen_by_then >= version  # `acted` after that action's own events


def _one_game_a_worker(server) -> list[tuple[str, dict[int, str]]]:
    """New games until each of the server's workers owns one (service/handoff.py's `owner`)."""
    workers = server.workers()
    owned: dict[int, tuple[str, dict[int, str]]] = {}
    for _ in range(40):
        game, seats = new_game(server.port)
        owned.setdefault(owner(game, workers), (game, seats))
        if len(owned) == len(workers):
            break
    assert len(owned) == len(workers) == 2, (owned, workers)
    return list(owned.values())


def test_two_seats_play_a_whole_game_over_sockets_on_the_production_server(tmp_path, redis_url):
    """gunicorn with the repo's config and two workers, which pass each socket to the one that
    owns the game (service/handoff.py); a short lifetime, so the sockets reconnect mid-game."""
    env = {
        "BATAYO_STREAM_LIFETIME_S": "0.03",
        "BATAYO_STREAMS_MAX": "4",
        "BATAYO_RATE_LIMIT_TOKEN": "0",
        "WEB_CONCURRENCY": "2",
    }
    server = production(tmp_path, redis_url, env)
    try:
        gid, tokens = new_game(server.port, rounds=120)
        started = time.monotonic()
        out = play(server.port, gid, tokens, browser_seat=1)
        took = time.monotonic() - started
        _check_played(server.port, gid, tokens, out)
        assert sum(o["reconnections"] for o in out.values()) >= 1, (took, len(out[0]["seen"]))

        # a finished game: its events, then 1000 at once
        with open_socket(server.port, gid, query="?after=3") as spectator:
            got = [json.loads(m) for m in spectator]
            assert spectator.close_code == 1000
        assert [m["event"]["version"] for m in got] == list(range(4, len(out[0]["seen"]) + 1))
        # the kernel may give a run of connections to one worker (the one that served the last),
        # so the game's own sockets may all have landed on its owner: seats of a game of each
        # worker in turn, so that wherever they land, some are the other worker's to take
        games = _one_game_a_worker(server)
        for _ in range(10):
            if metric(scrape(server.port), "batayo_sockets_passed_total") >= 1:
                break
            for game, seats in games:
                open_socket(server.port, game, seats[0]).close()
        assert metric(scrape(server.port), "batayo_sockets_passed_total") >= 1
        server.signal(signal.SIGTERM)
        server.process.wait(timeout=20)
        no_traceback(server)
    finally:
        server.stop()


def test_sockets_count_with_streams_and_hear_1001_when_the_server_stops(tmp_path, redis_url):
    """On the production server, with the socket's usual lifetime (a short one could end a
    held connection before the one over the cap asks)."""
    env = {"BATAYO_STREAMS_MAX": "4", "BATAYO_RATE_LIMIT_TOKEN": "0"}
    server = production(tmp_path, redis_url, env)
    try:
        # the per-process total counts sockets with streams: 503 `streams_full`
        gid, tokens = new_game(server.port)
        held = [open_socket(server.port, gid, tokens[0]), open_socket(server.port, gid, tokens[0])]
        held.append(Stream(server.port, f"/v1/games/{gid}/stream"))
        held.append(open_socket(server.port, gid))
        with pytest.raises(InvalidStatus) as refused:
            open_socket(server.port, gid)
        answer = refused.value.response
        assert answer.status_code == 503 and int(answer.headers["Retry-After"]) > 0
        assert json.loads(answer.body)["code"] == "streams_full"

        # the server stops: 1001, and the client reconnects (elsewhere, or later)
        server.signal(signal.SIGTERM)
        for ws in (held[0], held[3]):
            with pytest.raises(ConnectionClosed):
                while True:
                    ws.recv(timeout=10)
            assert ws.close_code == 1001
        held[2].close()
        server.process.wait(timeout=20)
        no_traceback(server)
    finally:
        server.stop()


def test_two_seats_play_a_whole_game_over_sockets_on_batayo_serve(server):
    gid, tokens = new_game(server.port, rounds=150)
    out = play(server.port, gid, tokens)
    _check_played(server.port, gid, tokens, out)


def test_refusals_before_the_upgrade_are_the_streams_problems(server):
    gid, tokens = new_game(server.port)
    port = server.port
    # a plain GET: 426, with the upgrade to ask for
    status, problem, headers = call(port, "GET", f"/v1/games/{gid}/socket")
    assert status == 426 and problem["code"] == "upgrade_required"
    assert headers["Upgrade"] == "websocket"
    for path, headers, expected in (
        ("/v1/games/0123456789abcdef/socket", {}, 404),
        (f"/v1/games/{gid}/socket", {"Authorization": "Bearer nope"}, 401),
        (f"/v1/games/{gid}/socket?token={tokens[0]}", {}, 400),  # never a token in the URL
        (f"/v1/games/{gid}/socket?after=x", {}, 400),
        (f"/v1/games/{gid}/socket", {"Origin": "https://evil.example"}, 403),
        (f"/v1/games/{gid}/socket", {"Sec-WebSocket-Version": "8"}, 426),
    ):
        raw = Raw(port, path, headers)
        assert raw.status == expected, (path, raw.head)
        raw.close()
    # an allowed origin, or none at all, is taken; the 101 carries no CORS nor extension
    for headers in ({"Origin": ORIGIN}, {}):
        raw = Raw(port, f"/v1/games/{gid}/socket", headers)
        assert raw.status == 101
        assert "access-control" not in raw.head.lower()
        assert "sec-websocket-extensions" not in raw.head.lower()
        raw.close()
    with open_socket(
        port, gid, origin=ORIGIN, compression="deflate"
    ) as ws:  # deflate offered: refused
        assert ws.protocol.extensions == []
        assert "event" in json.loads(ws.recv(timeout=5))


def test_an_act_frame_is_answered_as_the_post_would(server):
    port = server.port
    gid, tokens = new_game(port)
    with open_socket(port, gid, tokens[0], "?view=1") as ws, open_socket(port, gid) as spectator:
        first = until(ws, lambda m: "view" in m)
        assert [m["event"]["version"] for m in first[:-1]] == list(range(1, len(first)))
        view = first[-1]["view"]
        assert 0 in view["to_move"]

        # acted (after its events), and the same again for the same key
        ws.send(json.dumps({"act": {"type": "flip"}, "id": "a", "key": "k1"}))
        got = until(ws, lambda m: "acted" in m)
        version = got[-1]["acted"]["version"]
        assert got[-1] == {"acted": {"id": "a", "version": version}}
        assert max(m["event"]["version"] for m in got if "event" in m) == version
        ws.send(json.dumps({"act": {"type": "flip"}, "id": 7, "key": "k1"}))
        assert until(ws, lambda m: "acted" in m or "refused" in m)[-1] == {
            "acted": {"id": 7, "version": version}
        }

        # not its turn: the POST's problem, word for word
        ws.send(json.dumps({"act": {"type": "flip"}, "id": "b"}))
        refused = until(ws, lambda m: "refused" in m)[-1]["refused"]
        status, posted, _ = call(
            port, "POST", f"/v1/games/{gid}/actions", {"type": "flip"}, tokens[0]
        )
        assert refused["id"] == "b" and refused["problem"] == posted
        assert refused["problem"]["status"] == status == 409

        # a stale If-Match: 412 with the game's version
        ws.send(json.dumps({"act": {"type": "flip"}, "id": "c", "if_match": 0}))
        problem = until(ws, lambda m: "refused" in m)[-1]["refused"]["problem"]
        assert problem["status"] == 412 and problem["code"] == "version_mismatch"
        assert problem["version"] == version

        # a spectator can never act: the POST's 401
        spectator.send(json.dumps({"act": {"type": "flip"}, "id": 1}))
        problem = until(spectator, lambda m: "refused" in m)[-1]["refused"]["problem"]
        assert problem["status"] == 401 and problem["code"] == "unauthorized"

        # garbage: refused with id null, and the socket stays open
        for garbage in ("not json", "[1, 2]", '"x"', '{"id": 1}', '{"act": {}, "id": true}'):
            ws.send(garbage)
            answer = until(ws, lambda m: "refused" in m)[-1]["refused"]
            assert answer["id"] is None and answer["problem"]["status"] == 400, garbage
        ws.send(b"\x00binary")
        assert until(ws, lambda m: "refused" in m)[-1]["refused"]["id"] is None
        ws.send(json.dumps({"act": 5, "id": "d"}))
        answer = until(ws, lambda m: "refused" in m)[-1]["refused"]
        assert answer["id"] == "d" and answer["problem"]["code"] == "invalid_request"

        # seat 1 moves (over HTTP): seat 0's socket pushes it; then a fragmented act frame
        flip(port, gid, tokens)
        until(ws, lambda m: "view" in m and 0 in m["view"]["to_move"])
        text = json.dumps({"act": {"type": "flip"}, "id": "frag"})
        ws.send(iter([text[:5], text[5:20], text[20:]]))
        assert until(ws, lambda m: "acted" in m or "refused" in m)[-1]["acted"]["id"] == "frag"
    no_traceback(server)


def test_the_spectator_and_each_seat_see_what_events_show_them(server):
    port = server.port
    gid, tokens = new_game(port)
    for _ in range(6):
        flip(port, gid, tokens)
    for token in (None, tokens[0], tokens[1]):
        expected = events_of(port, gid, token)
        with open_socket(port, gid, token) as ws:
            got = [json.loads(ws.recv(timeout=5))["event"] for _ in expected]
        assert got == expected


def test_the_browser_path_token_in_the_first_message(server):
    port = server.port
    gid, tokens = new_game(port)
    with connect(socket_url(port, gid, "?view=1"), subprotocols=["batayo.v1"]) as ws:
        assert ws.subprotocol == "batayo.v1"
        with pytest.raises(TimeoutError):
            ws.recv(timeout=0.5)  # nothing before the auth message (pings aside)
        ws.send(json.dumps({"auth": tokens[1]}))
        view = until(ws, lambda m: "view" in m)[-1]["view"]
        assert view["you"] == 1
    for first in (json.dumps({"auth": "not-a-token"}), "hello", json.dumps({"act": {}})):
        with connect(socket_url(port, gid), subprotocols=["batayo.v1"]) as ws:
            ws.send(first)
            with pytest.raises(ConnectionClosed):
                ws.recv(timeout=5)
            assert ws.close_code == 1008


def test_resumption_after_a_version_with_no_gap_nor_repeat(server):
    port = server.port
    gid, tokens = new_game(port)
    for _ in range(5):
        last = flip(port, gid, tokens)["version"]
    with open_socket(port, gid, tokens[0], "?after=3&view=1") as ws:
        got = until(ws, lambda m: "view" in m)
        assert [m["event"]["version"] for m in got[:-1]] == list(range(4, last + 1))
        assert got[-1]["view"]["version"] == last
        nxt = flip(port, gid, tokens)["version"]
        got = until(ws, lambda m: "view" in m)
        assert [m["event"]["version"] for m in got[:-1]] == list(range(last + 1, nxt + 1))


def test_sockets_count_with_streams_under_the_per_client_cap(server):
    port = server.port
    gid, tokens = new_game(port)
    held = [
        open_socket(port, gid, tokens[0]),
        open_socket(port, gid, tokens[0]),
    ]  # one seat, two sockets
    held += [Stream(port, f"/v1/games/{gid}/stream") for _ in range(2)]
    held += [open_socket(port, gid) for _ in range(2)]
    with pytest.raises(InvalidStatus) as refused:
        open_socket(port, gid)
    assert refused.value.response.status_code == 429
    assert json.loads(refused.value.response.body)["code"] == "too_many_streams"
    held.pop().close()  # a socket closed is released at once: its reader saw the close
    assert wait_until(lambda: opens(port, gid), 5)
    for h in held:
        h.close()


def test_the_python_client_socket_mode(server):
    port = server.port
    gid, tokens = new_game(port, rounds=40)
    base = f"http://127.0.0.1:{port}"
    socks = {seat: GameSocket(base, gid, token, view=True) for seat, token in tokens.items()}
    seen: dict[int, list[int]] = {}

    def run(seat: int) -> None:
        versions = seen.setdefault(seat, [])
        with socks[seat] as sock:
            for message in sock:
                if "event" in message:
                    versions.append(message["event"]["version"])
                elif "view" in message:
                    view = message["view"]
                    if view["status"] == "playing" and seat in view["to_move"]:
                        sock.act(view["legal_actions"][0], if_match=view["version"])

    players = [threading.Thread(target=run, args=(s,)) for s in tokens]
    for p in players:
        p.start()
    for p in players:
        p.join(timeout=60)
    _, final, _ = call(port, "GET", f"/v1/games/{gid}")
    assert final["status"] == "finished"
    for seat in tokens:
        assert seen[seat] == list(range(1, final["version"] + 1))
    with pytest.raises(ApiError) as refused, GameSocket(base, gid, "not-a-token"):
        pass
    assert refused.value.status == 401 and refused.value.code == "unauthorized"


def test_the_bench_socket_clients_play_and_watch_over_the_socket(server, tmp_path):
    """bench/sockets.py's players (bench/run.py --live) and spectators (--streams) cannot rot:
    one game played by its players for a second, and three spectators of another game that
    each record every event of the moves made while they watch."""
    import array
    import asyncio
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
    import sockets

    from service.live import wsframes

    assert sockets.KEEP_ALIVE_PING == wsframes.KEEP_ALIVE  # what the spectators answer
    # a short warm-up: a game played this fast may end within the bench's second
    out = asyncio.run(sockets.main_async(f"http://127.0.0.1:{server.port}", 1, 1.0, warmup=0.1))
    # a game that ends is replaced by a new one: two sockets a game, each answered
    assert out["streams"] == out["streams_wanted"] >= 2 and out["errors"] == 0, out
    assert out["moves"] > 10 and out["p99_ms"] is not None, out

    gid, tokens = new_game(server.port)
    path, arrivals = f"/v1/games/{gid}/socket", tmp_path / "arrivals.bin"
    watch = threading.Thread(
        target=sockets.spectators, args=("127.0.0.1", server.port, path, 3, 1.5, arrivals)
    )
    watch.start()
    time.sleep(0.5)
    last = max(flip(server.port, gid, tokens)["version"] for _ in range(4))
    watch.join()
    seen = array.array("d")
    seen.frombytes(arrivals.read_bytes())
    versions = sorted(int(v) for v in seen[::2])
    assert versions == sorted(list(range(1, last + 1)) * 3), versions
