"""The game's WebSocket at the protocol's edges on `batayo serve`: keep-alive pings and the
4002 close, oversized and fragmented frames, a slow reader, a client that hangs up without a
close frame, a fuzz of frames, and the header-read timeout that never cuts an open socket; a
raw client (tests/support/wsclient.py) for what a library would not do."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed

from tests.support.helpers import examples
from tests.support.processes import wait_until
from tests.support.serving import call, flip, no_traceback
from tests.support.sockets import module_server, new_game, open_socket, until
from tests.support.wsclient import BINARY, CLOSE, CONTINUATION, PING, TEXT, Raw

pytestmark = pytest.mark.slow


server = pytest.fixture(scope="module", name="server")(module_server)


def test_an_idle_socket_is_pinged_and_closed_4002_without_a_pong(server):
    port = server.port
    gid, _ = new_game(port)
    with open_socket(port, gid, query="?after=2") as ws:  # the library answers pings
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
    gid, tokens = new_game(port)
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
    with open_socket(port, gid, max_size=None) as ws:
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
    no_traceback(server)


def test_a_slow_reader_is_closed_4001_and_resumes_with_no_gap(server):
    """The server's send buffer is bounded and the ring holds 2 batches: a reader that takes
    nothing while the game moves on is closed 4001 once it reads again, then resumes."""
    port = server.port
    for _ in range(3):
        gid, tokens = new_game(port)
        raw = Raw(port, f"/v1/games/{gid}/socket?view=1", rcvbuf=4096)
        for _ in range(160):
            if flip(port, gid, tokens)["status"] != "playing":
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
    with open_socket(port, gid, query=f"?after={versions[-1]}") as ws:
        _, view, _ = call(port, "GET", f"/v1/games/{gid}")
        rest = [
            json.loads(ws.recv(timeout=5))["event"]["version"]
            for _ in range(view["version"] - versions[-1])
        ]
    assert rest == list(range(versions[-1] + 1, view["version"] + 1))


def test_a_client_that_hangs_up_without_a_close_frame_leaves_no_error(server):
    port = server.port
    gid, tokens = new_game(port)
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
    no_traceback(server)


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
    gid, tokens = new_game(port)
    ws = open_socket(port, gid, tokens[0])
    try:

        @settings(max_examples=examples(60), deadline=None, suppress_health_check=list(HealthCheck))
        @given(FRAMES)
        def check(frame: str) -> None:
            ws.send(frame)
            answer = until(ws, lambda m: "acted" in m or "refused" in m)[-1]
            if "refused" in answer:
                problem = answer["refused"]["problem"]
                assert 400 <= problem["status"] < 500, problem
                assert problem["type"] == f"/problems/{problem['code']}"

        check()
    finally:
        ws.close()
    no_traceback(server)


def test_header_read_timeout_is_off_once_the_socket_is_open(server):
    """BATAYO_HEADER_TIMEOUT_S (1 s here) bounds a request's headers, never an open socket."""
    port = server.port
    gid, tokens = new_game(port)
    with open_socket(port, gid, tokens[0]) as ws:
        ws.recv(timeout=5)
        time.sleep(1.5)
        ws.send(json.dumps({"act": {"type": "flip"}, "id": 1}))
        assert "acted" in until(ws, lambda m: "acted" in m or "refused" in m)[-1]
