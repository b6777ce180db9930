"""Live streams on real servers: streams hold no thread, keep-alives, the lifetime and a resume
with no loss or repeat, the caps, and a seat that plays from its stream alone."""

from __future__ import annotations

import threading
import time

import pytest

from service.live.settings import FOLLOW_BLOCK_MS
from tests.support.processes import wait_until
from tests.support.serving import Stream, call, flip, new_game, no_traceback, production, serve

pytestmark = pytest.mark.slow


def test_many_streams_stay_open_while_actions_and_health_checks_are_served(tmp_path, redis_url):
    """60 streams of one live game (the old server had 8 threads) while the game is played."""
    server = serve(tmp_path, {"REDIS_URL": redis_url, "BATAYO_STREAMS_PER_CLIENT": "0"})
    try:
        gid, tokens = new_game(server.port)
        streams = [Stream(server.port, f"/v1/games/{gid}/stream") for _ in range(60)]
        assert all(s.status == 200 for s in streams)
        for _ in range(20):
            started = time.monotonic()
            assert call(server.port, "GET", "/healthz")[0] == 200
            assert time.monotonic() - started < 5
            view = flip(server.port, gid, tokens)
        last = view["version"]
        for s in streams:
            s.read(lambda s: s.messages and s.messages[-1]["id"] >= last)
            assert s.versions() == list(range(1, last + 1))
            s.close()
        no_traceback(server)
    finally:
        server.stop()


def test_an_idle_stream_gets_keep_alives_in_embedded_mode(tmp_path):
    server = serve(tmp_path, {"BATAYO_STREAM_KEEPALIVE_S": "0.3"})
    try:
        gid, _ = new_game(server.port)
        stream = Stream(server.port, f"/v1/games/{gid}/stream?after=2")
        # past one whole blocking read of the game's follower (10 s): it waits again, quietly
        started = time.monotonic()
        stream.read(lambda s: time.monotonic() - started > FOLLOW_BLOCK_MS / 1000 + 1, timeout=30)
        assert stream.comments >= 10 and not stream.ended and stream.messages == []
        stream.close()
        no_traceback(server)
    finally:
        server.stop()


def test_a_stream_closes_at_its_lifetime_and_resumes_with_no_loss_or_repeat(tmp_path, redis_url):
    server = serve(tmp_path, {"REDIS_URL": redis_url, "BATAYO_STREAM_LIFETIME_S": "1"})
    try:
        gid, tokens = new_game(server.port)
        playing = threading.Event()
        playing.set()
        moves: list[int] = []

        def play() -> None:
            while playing.is_set() and len(moves) < 60:
                moves.append(flip(server.port, gid, tokens)["version"])
                time.sleep(0.05)

        player = threading.Thread(target=play)
        player.start()
        seen: list[int] = []
        reconnections = 0
        try:
            while not moves or not seen or seen[-1] < moves[-1] or player.is_alive():
                stream = Stream(
                    server.port, f"/v1/games/{gid}/stream", last_id=seen[-1] if seen else None
                )
                assert stream.status == 200
                stream.read(timeout=10)
                assert stream.ended  # closed cleanly by the server at its lifetime
                seen += stream.versions()
                stream.close()
                reconnections += 1
        finally:
            playing.clear()
            player.join()
        assert reconnections >= 2
        assert seen == list(range(1, moves[-1] + 1))  # every event once, in order
        no_traceback(server)
    finally:
        server.stop()


def test_the_per_client_cap_and_the_per_process_total(tmp_path, redis_url):
    # a stream the client closed is noticed at the server's next write (a keep-alive at most)
    env = {
        "REDIS_URL": redis_url,
        "BATAYO_STREAMS_PER_CLIENT": "3",
        "BATAYO_CAP_LOOPBACK": "1",  # the tests' client is on loopback, which is not counted
        "BATAYO_STREAMS_MAX": "5",
        "BATAYO_STREAM_KEEPALIVE_S": "0.3",
    }
    server = serve(tmp_path, env)
    try:
        gid, _ = new_game(server.port)
        path = f"/v1/games/{gid}/stream"
        open_ = [Stream(server.port, path) for _ in range(3)]
        assert [s.status for s in open_] == [200, 200, 200]
        refused = Stream(server.port, path)
        assert refused.status == 429
        assert refused.problem()["code"] == "too_many_streams"
        open_.pop().close()  # one closed: the client may open another
        assert wait_until(lambda: _opens(server.port, path), 10)
        no_traceback(server)
    finally:
        server.stop()
    server = serve(tmp_path, {**env, "BATAYO_STREAMS_PER_CLIENT": "0"}, name="total")
    try:
        gid, _ = new_game(server.port)
        path = f"/v1/games/{gid}/stream"
        open_ = [Stream(server.port, path) for _ in range(5)]
        assert all(s.status == 200 for s in open_)
        full = Stream(server.port, path)
        assert full.status == 503 and int(full.response.getheader("Retry-After")) > 0
        assert full.problem()["code"] == "streams_full"
    finally:
        server.stop()


def _opens(port: int, path: str) -> bool:
    stream = Stream(port, path)
    stream.close()
    return stream.status == 200


def test_a_seat_plays_from_its_stream_alone_on_the_production_server(tmp_path, redis_url):
    """`?view=1`: the view (as GET /v1/games/{id} gives it) after each batch; no GET per move."""
    server = production(tmp_path, redis_url)
    try:
        gid, tokens = new_game(server.port)
        acted = {seat: 0 for seat in tokens}
        streams = {}

        def play(seat: int) -> None:
            stream = streams[seat] = Stream(
                server.port, f"/v1/games/{gid}/stream?view=1", tokens[seat]
            )
            seen = 0
            while sum(acted.values()) < 40:
                stream.read(
                    lambda s, n=seen: len(s.messages) > n and s.messages[-1]["event"] == "view"
                )
                seen = len(stream.messages)
                view = stream.messages[-1]["data"]
                assert stream.messages[-1]["id"] == view["version"]
                if view["status"] != "playing":
                    return
                if seat in view["to_move"] and view["legal_actions"]:
                    path = f"/v1/games/{gid}/actions"
                    body = view["legal_actions"][0]
                    # at the view's version: a view already overtaken is refused (412), and
                    # the next view on the stream says what to do
                    version = {"If-Match": f'"{view["version"]}"'}
                    status = call(server.port, "POST", path, body, tokens[seat], version)[0]
                    assert status in (200, 412)
                    acted[seat] += status == 200

        players = [threading.Thread(target=play, args=(seat,)) for seat in tokens]
        for p in players:
            p.start()
        for p in players:
            p.join(timeout=120)
        assert all(n > 5 for n in acted.values())
        for seat, stream in streams.items():
            _, fresh, _ = call(server.port, "GET", f"/v1/games/{gid}", token=tokens[seat])
            last = stream.messages[-1]
            if last["event"] != "view" or last["id"] < fresh["version"]:
                stream.read(
                    lambda s, v=fresh["version"]: (
                        s.messages[-1]["event"] == "view" and s.messages[-1]["id"] >= v
                    ),
                    timeout=10,
                )
            assert stream.messages[-1]["event"] == "view"
            assert stream.messages[-1]["data"] == fresh  # the same JSON as GET, for that seat
            assert fresh["you"] == seat and "legal_actions" in fresh
            events = [m["id"] for m in stream.events()]
            assert events == list(range(1, fresh["version"] + 1))
            stream.close()
        no_traceback(server)
    finally:
        server.stop()
