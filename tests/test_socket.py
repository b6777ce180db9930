"""The game's WebSocket (`GET /v1/games/{id}/socket`) on real servers, `batayo serve` and the
production gunicorn command: whole games played by two seats each on its own socket, acting on
what is pushed; resumption, `view=1`, the caps, the close codes, the POST's refusals, the
browser's first-message token, Origin, oversize and garbage frames, a slow reader, a client
that hangs up, a fuzz of frames; the websockets library as the ordinary client, a raw one
(tests/support/wsclient.py) for what a library would not do."""

from __future__ import annotations

import json
import signal
import threading
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from batayo_client import ApiError
from batayo_client.socket import GameSocket
from tests.support.processes import wait_until
from tests.support.serving import Stream, call, production, serve
from tests.support.wsclient import BINARY, CLOSE, CONTINUATION, PING, TEXT, Raw

pytestmark = pytest.mark.slow
ORIGIN = "https://cards.example"


def _no_traceback(server) -> None:
    text = server.text()
    assert "Traceback" not in text and '"level": "error"' not in text, text[-3000:]


def _game(port: int, rounds: int = 10_000) -> tuple[str, dict[int, str]]:
    body = {
        "game": "bataille",
        "seats": [{"name": "a"}, {"name": "b"}],
        "options": {"max_rounds": rounds},
    }
    status, created, _ = call(port, "POST", "/v1/games", body)
    assert status == 201, created
    return created["id"], {s["seat"]: s["token"] for s in created["seats"]}


def _url(port: int, gid: str, query: str = "") -> str:
    return f"ws://127.0.0.1:{port}/v1/games/{gid}/socket{query}"


def _open(port: int, gid: str, token: str | None = None, query: str = "", **kw):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    ws = connect(_url(port, gid, query), additional_headers=headers, open_timeout=10, **kw)
    return ws.__enter__()  # held across calls, closed by each test


def _until(ws, test, timeout: float = 10) -> list[dict]:
    """Messages until `test(message)` holds (that one included)."""
    out: list[dict] = []
    deadline = time.monotonic() + timeout
    while True:
        message = json.loads(ws.recv(timeout=max(0.01, deadline - time.monotonic())))
        out.append(message)
        if test(message):
            return out


def _events(port: int, gid: str, token: str | None = None) -> list[dict]:
    status, page, _ = call(port, "GET", f"/v1/games/{gid}/events?limit=1000", token=token)
    assert status == 200
    return page["events"]


def _flip(port: int, gid: str, tokens: dict[int, str]) -> dict:
    _, view, _ = call(port, "GET", f"/v1/games/{gid}")
    seat = view["to_move"][0]
    status, body, _ = call(port, "POST", f"/v1/games/{gid}/actions", {"type": "flip"}, tokens[seat])
    assert status == 200, body
    return body["game"]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    env = {
        "BATAYO_STREAM_KEEPALIVE_S": "1",  # a pong may come late on a loaded machine
        "BATAYO_STREAM_BACKLOG": "2",
        "BATAYO_CORS_ORIGINS": ORIGIN,
        "BATAYO_STREAMS_PER_CLIENT": "6",
        "BATAYO_CAP_LOOPBACK": "1",  # the tests' client is on loopback, which is not counted
        "BATAYO_HEADER_TIMEOUT_S": "1",  # never cuts an open socket
        "BATAYO_RATE_LIMIT_TOKEN": "0",
    }
    s = serve(tmp_path_factory.mktemp("socket"), env)
    yield s
    s.stop()


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
                    ws = connect(_url(port, gid, query), subprotocols=["batayo.v1"]).__enter__()
                else:
                    ws = _open(port, gid, tokens[seat], query)
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
        logged = _events(port, gid, tokens[seat])
        assert [(e["version"], e["type"]) for e in got["seen"]] == [
            (e["version"], e["type"]) for e in logged
        ]
        assert got["acted"]  # the seat played on its socket
        for version, seen_by_then in got["acted"]:
            assert seen_by_then >= version  # `acted` after that action's own events


def test_two_seats_play_a_whole_game_over_sockets_on_the_production_server(tmp_path, redis_url):
    """gunicorn with the repo's config; a short lifetime, so the sockets reconnect mid-game."""
    env = {
        "BATAYO_STREAM_LIFETIME_S": "0.03",
        "BATAYO_STREAMS_MAX": "4",
        "BATAYO_RATE_LIMIT_TOKEN": "0",
    }
    server = production(tmp_path, redis_url, env)
    try:
        gid, tokens = _game(server.port, rounds=120)
        started = time.monotonic()
        out = play(server.port, gid, tokens, browser_seat=1)
        took = time.monotonic() - started
        _check_played(server.port, gid, tokens, out)
        assert sum(o["reconnections"] for o in out.values()) >= 1, (took, len(out[0]["seen"]))

        # a finished game: its events, then 1000 at once
        with _open(server.port, gid, query="?after=3") as spectator:
            got = [json.loads(m) for m in spectator]
            assert spectator.close_code == 1000
        assert [m["event"]["version"] for m in got] == list(range(4, len(out[0]["seen"]) + 1))
        server.signal(signal.SIGTERM)
        server.process.wait(timeout=20)
        _no_traceback(server)
    finally:
        server.stop()


def test_sockets_count_with_streams_and_hear_1001_when_the_server_stops(tmp_path, redis_url):
    """On the production server, with the socket's usual lifetime (a short one could end a
    held connection before the one over the cap asks)."""
    env = {"BATAYO_STREAMS_MAX": "4", "BATAYO_RATE_LIMIT_TOKEN": "0"}
    server = production(tmp_path, redis_url, env)
    try:
        # the per-process total counts sockets with streams: 503 `streams_full`
        gid, tokens = _game(server.port)
        held = [_open(server.port, gid, tokens[0]), _open(server.port, gid, tokens[0])]
        held.append(Stream(server.port, f"/v1/games/{gid}/stream"))
        held.append(_open(server.port, gid))
        with pytest.raises(InvalidStatus) as refused:
            _open(server.port, gid)
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
        _no_traceback(server)
    finally:
        server.stop()


def test_two_seats_play_a_whole_game_over_sockets_on_batayo_serve(server):
    gid, tokens = _game(server.port, rounds=150)
    out = play(server.port, gid, tokens)
    _check_played(server.port, gid, tokens, out)


def test_refusals_before_the_upgrade_are_the_streams_problems(server):
    gid, tokens = _game(server.port)
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
    with _open(port, gid, origin=ORIGIN, compression="deflate") as ws:  # deflate offered: refused
        assert ws.protocol.extensions == []
        assert "event" in json.loads(ws.recv(timeout=5))


def test_an_act_frame_is_answered_as_the_post_would(server):
    port = server.port
    gid, tokens = _game(port)
    with _open(port, gid, tokens[0], "?view=1") as ws, _open(port, gid) as spectator:
        first = _until(ws, lambda m: "view" in m)
        assert [m["event"]["version"] for m in first[:-1]] == list(range(1, len(first)))
        view = first[-1]["view"]
        assert 0 in view["to_move"]

        # acted (after its events), and the same again for the same key
        ws.send(json.dumps({"act": {"type": "flip"}, "id": "a", "key": "k1"}))
        got = _until(ws, lambda m: "acted" in m)
        version = got[-1]["acted"]["version"]
        assert got[-1] == {"acted": {"id": "a", "version": version}}
        assert max(m["event"]["version"] for m in got if "event" in m) == version
        ws.send(json.dumps({"act": {"type": "flip"}, "id": 7, "key": "k1"}))
        assert _until(ws, lambda m: "acted" in m or "refused" in m)[-1] == {
            "acted": {"id": 7, "version": version}
        }

        # not its turn: the POST's problem, word for word
        ws.send(json.dumps({"act": {"type": "flip"}, "id": "b"}))
        refused = _until(ws, lambda m: "refused" in m)[-1]["refused"]
        status, posted, _ = call(
            port, "POST", f"/v1/games/{gid}/actions", {"type": "flip"}, tokens[0]
        )
        assert refused["id"] == "b" and refused["problem"] == posted
        assert refused["problem"]["status"] == status == 409

        # a stale If-Match: 412 with the game's version
        ws.send(json.dumps({"act": {"type": "flip"}, "id": "c", "if_match": 0}))
        problem = _until(ws, lambda m: "refused" in m)[-1]["refused"]["problem"]
        assert problem["status"] == 412 and problem["code"] == "version_mismatch"
        assert problem["version"] == version

        # a spectator can never act: the POST's 401
        spectator.send(json.dumps({"act": {"type": "flip"}, "id": 1}))
        problem = _until(spectator, lambda m: "refused" in m)[-1]["refused"]["problem"]
        assert problem["status"] == 401 and problem["code"] == "unauthorized"

        # garbage: refused with id null, and the socket stays open
        for garbage in ("not json", "[1, 2]", '"x"', '{"id": 1}', '{"act": {}, "id": true}'):
            ws.send(garbage)
            answer = _until(ws, lambda m: "refused" in m)[-1]["refused"]
            assert answer["id"] is None and answer["problem"]["status"] == 400, garbage
        ws.send(b"\x00binary")
        assert _until(ws, lambda m: "refused" in m)[-1]["refused"]["id"] is None
        ws.send(json.dumps({"act": 5, "id": "d"}))
        answer = _until(ws, lambda m: "refused" in m)[-1]["refused"]
        assert answer["id"] == "d" and answer["problem"]["code"] == "invalid_request"

        # seat 1 moves (over HTTP): seat 0's socket pushes it; then a fragmented act frame
        _flip(port, gid, tokens)
        _until(ws, lambda m: "view" in m and 0 in m["view"]["to_move"])
        text = json.dumps({"act": {"type": "flip"}, "id": "frag"})
        ws.send(iter([text[:5], text[5:20], text[20:]]))
        assert _until(ws, lambda m: "acted" in m or "refused" in m)[-1]["acted"]["id"] == "frag"
    _no_traceback(server)


def test_the_spectator_and_each_seat_see_what_events_show_them(server):
    port = server.port
    gid, tokens = _game(port)
    for _ in range(6):
        _flip(port, gid, tokens)
    for token in (None, tokens[0], tokens[1]):
        expected = _events(port, gid, token)
        with _open(port, gid, token) as ws:
            got = [json.loads(ws.recv(timeout=5))["event"] for _ in expected]
        assert got == expected


def test_the_browser_path_token_in_the_first_message(server):
    port = server.port
    gid, tokens = _game(port)
    with connect(_url(port, gid, "?view=1"), subprotocols=["batayo.v1"]) as ws:
        assert ws.subprotocol == "batayo.v1"
        with pytest.raises(TimeoutError):
            ws.recv(timeout=0.5)  # nothing before the auth message (pings aside)
        ws.send(json.dumps({"auth": tokens[1]}))
        view = _until(ws, lambda m: "view" in m)[-1]["view"]
        assert view["you"] == 1
    for first in (json.dumps({"auth": "not-a-token"}), "hello", json.dumps({"act": {}})):
        with connect(_url(port, gid), subprotocols=["batayo.v1"]) as ws:
            ws.send(first)
            with pytest.raises(ConnectionClosed):
                ws.recv(timeout=5)
            assert ws.close_code == 1008


def test_resumption_after_a_version_with_no_gap_nor_repeat(server):
    port = server.port
    gid, tokens = _game(port)
    for _ in range(5):
        last = _flip(port, gid, tokens)["version"]
    with _open(port, gid, tokens[0], "?after=3&view=1") as ws:
        got = _until(ws, lambda m: "view" in m)
        assert [m["event"]["version"] for m in got[:-1]] == list(range(4, last + 1))
        assert got[-1]["view"]["version"] == last
        nxt = _flip(port, gid, tokens)["version"]
        got = _until(ws, lambda m: "view" in m)
        assert [m["event"]["version"] for m in got[:-1]] == list(range(last + 1, nxt + 1))


def test_sockets_count_with_streams_under_the_per_client_cap(server):
    port = server.port
    gid, tokens = _game(port)
    held = [_open(port, gid, tokens[0]), _open(port, gid, tokens[0])]  # one seat, two sockets
    held += [Stream(port, f"/v1/games/{gid}/stream") for _ in range(2)]
    held += [_open(port, gid) for _ in range(2)]
    with pytest.raises(InvalidStatus) as refused:
        _open(port, gid)
    assert refused.value.response.status_code == 429
    assert json.loads(refused.value.response.body)["code"] == "too_many_streams"
    held.pop().close()  # a socket closed is released at once: its reader saw the close
    assert wait_until(lambda: _opens(port, gid), 5)
    for h in held:
        h.close()


def _opens(port: int, gid: str) -> bool:
    try:
        _open(port, gid).close()
        return True
    except InvalidStatus:
        return False


def test_an_idle_socket_is_pinged_and_closed_4002_without_a_pong(server):
    port = server.port
    gid, _ = _game(port)
    with _open(port, gid, query="?after=2") as ws:  # the library answers pings
        time.sleep(1.5)  # past the keep-alive and the header-read timeout: still open
        ws.ping().wait(5)
    raw = Raw(port, f"/v1/games/{gid}/socket?after=2")
    opcode, _ = raw.frame()
    assert opcode == PING
    frames = [raw.frame() for _ in range(2)]  # unanswered: the next keep-alive closes it
    assert [op for op, _ in frames] == [PING, CLOSE]
    assert int.from_bytes(frames[-1][1][:2], "big") == 4002
    raw.close()


def test_oversized_and_fragmented_frames(server):
    port = server.port
    gid, tokens = _game(port)
    raw = Raw(port, f"/v1/games/{gid}/socket", {"Authorization": f"Bearer {tokens[0]}"})
    raw.next_json()
    # a message in three fragments with a ping between them
    text = json.dumps({"act": {"type": "flip"}, "id": "f"}).encode()
    raw.send(TEXT, text[:4], fin=False)
    raw.send(PING, b"hi")
    raw.send(CONTINUATION, text[4:9], fin=False)
    raw.send(CONTINUATION, text[9:])
    answers = []
    while not answers or not ("acted" in answers[-1] or "refused" in answers[-1]):
        opcode, payload = raw.frame()
        if opcode == 0xA:
            assert payload == b"hi"
        elif opcode == TEXT:
            answers.append(json.loads(payload))
    assert answers[-1]["acted"]["id"] == "f"
    # a binary message is refused; a message over 64 KiB, even in pieces, closes 1009
    raw.send(BINARY, b"\x01\x02")
    assert raw.next_json()["refused"]["id"] is None
    raw.send(TEXT, b" " * 40_000, fin=False)
    raw.send(CONTINUATION, b" " * 40_000)
    _messages, code = raw.messages()
    assert code == 1009
    raw.close()
    with _open(port, gid, max_size=None) as ws:
        ws.send("x" * (64 * 1024 + 1))
        with pytest.raises(ConnectionClosed):
            while True:
                ws.recv(timeout=5)
        assert ws.close_code == 1009
    # not RFC 6455 (an unmasked frame): 1002
    raw = Raw(port, f"/v1/games/{gid}/socket?after=9999")
    raw.sock.sendall(b"\x81\x02hi")
    assert raw.messages()[1] == 1002
    raw.close()
    _no_traceback(server)


def test_a_slow_reader_is_closed_4001_and_resumes_with_no_gap(server):
    """The server's send buffer is bounded and the ring holds 2 batches: a reader that takes
    nothing while the game moves on is closed 4001 once it reads again, then resumes."""
    port = server.port
    for _ in range(3):
        gid, tokens = _game(port)
        raw = Raw(port, f"/v1/games/{gid}/socket?view=1", rcvbuf=4096)
        for _ in range(160):
            if _flip(port, gid, tokens)["status"] != "playing":
                break
        else:
            break
        raw.close()  # a game over too soon: another
    time.sleep(0.5)
    messages, code = raw.messages(timeout=20)
    raw.close()
    assert code == 4001
    versions = [m["event"]["version"] for m in messages if "event" in m]
    assert versions == list(range(1, versions[-1] + 1))
    with _open(port, gid, query=f"?after={versions[-1]}") as ws:
        _, view, _ = call(port, "GET", f"/v1/games/{gid}")
        rest = [
            json.loads(ws.recv(timeout=5))["event"]["version"]
            for _ in range(view["version"] - versions[-1])
        ]
    assert rest == list(range(versions[-1] + 1, view["version"] + 1))


def test_a_client_that_hangs_up_without_a_close_frame_leaves_no_error(server):
    port = server.port
    gid, tokens = _game(port)
    for _ in range(5):
        _, view, _ = call(port, "GET", f"/v1/games/{gid}")
        seat = view["to_move"][0]
        raw = Raw(port, f"/v1/games/{gid}/socket", {"Authorization": f"Bearer {tokens[seat]}"})
        raw.next_json()
        raw.send_json({"act": {"type": "flip"}, "id": 1})
        raw.hang_up()  # before its answer, maybe before its events
        assert wait_until(
            lambda v=view["version"]: call(port, "GET", f"/v1/games/{gid}")[1]["version"] > v, 5
        )
    time.sleep(0.5)
    status, _page, _ = call(port, "GET", "/healthz")
    assert status == 200
    _no_traceback(server)


FRAMES = st.one_of(
    st.text(max_size=200),
    st.recursive(
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats(allow_nan=False)
        | st.text(max_size=20),
        lambda inner: (
            st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
        ),
        max_leaves=12,
    ).map(json.dumps),
    st.fixed_dictionaries(
        {
            "act": st.dictionaries(
                st.sampled_from(["type", "card", "x"]), st.text(max_size=8) | st.integers()
            ),
            "id": st.integers() | st.text(max_size=10),
        },
        optional={"if_match": st.integers(-2, 10**6), "key": st.text(max_size=250)},
    ).map(json.dumps),
)


def test_fuzzed_frames_are_answered_never_a_500(server):
    port = server.port
    gid, tokens = _game(port)
    ws = _open(port, gid, tokens[0])
    try:

        @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
        @given(FRAMES)
        def check(frame: str) -> None:
            ws.send(frame)
            answer = _until(ws, lambda m: "acted" in m or "refused" in m)[-1]
            if "refused" in answer:
                problem = answer["refused"]["problem"]
                assert 400 <= problem["status"] < 500, problem
                assert problem["type"] == f"/problems/{problem['code']}"

        check()
    finally:
        ws.close()
    _no_traceback(server)


def test_the_python_client_socket_mode(server):
    port = server.port
    gid, tokens = _game(port, rounds=40)
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


def test_header_read_timeout_is_off_once_the_socket_is_open(server):
    """BATAYO_HEADER_TIMEOUT_S (1 s here) bounds a request's headers, never an open socket."""
    port = server.port
    gid, tokens = _game(port)
    with _open(port, gid, tokens[0]) as ws:
        ws.recv(timeout=5)
        time.sleep(1.5)
        ws.send(json.dumps({"act": {"type": "flip"}, "id": 1}))
        assert "acted" in _until(ws, lambda m: "acted" in m or "refused" in m)[-1]


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
    assert (out["streams"], out["streams_wanted"], out["errors"]) == (2, 2, 0), out
    assert out["moves"] > 10 and out["p99_ms"] is not None, out

    gid, tokens = _game(server.port)
    path, arrivals = f"/v1/games/{gid}/socket", tmp_path / "arrivals.bin"
    watch = threading.Thread(
        target=sockets.spectators, args=("127.0.0.1", server.port, path, 3, 1.5, arrivals)
    )
    watch.start()
    time.sleep(0.5)
    last = max(_flip(server.port, gid, tokens)["version"] for _ in range(4))
    watch.join()
    seen = array.array("d")
    seen.frombytes(arrivals.read_bytes())
    versions = sorted(int(v) for v in seen[::2])
    assert versions == sorted(list(range(1, last + 1)) * 3), versions
