"""The bench cannot rot: `bench/run.py --quick` runs (in a few seconds) and prints its table;
the clocks bench, the rating table and the live path's clients run on a small scale."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

from tests.support.serving import production

ROOT = Path(__file__).resolve().parent.parent


def _bench(script: str, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """`python bench/SCRIPT ARGS` from the checkout, its output kept."""
    return subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env=env,
        check=False,
    )


def test_quick_bench_prints_its_table(redis_url):
    """On the tests' own Redis server (the bench empties the database it is given)."""
    out = _bench("run.py", "--quick", env={"REDIS_URL": redis_url, "PATH": "", "COLUMNS": "160"})
    assert out.returncode == 0, out.stderr
    for figure in (
        "| simulate: 52-card 2-player Bataille |",
        "|   its floor: reducer-only replay |",
        "| simulate --jobs ",
        "| replay: Bataille state from events |",
        "| one action at version 5,000, cold engine |",
        "| one action at version 5,000, warm engine |",
        "| HTTP actions, flat out",
        "| HTTP action latency at",
        "| CPU per request, flat out",
        "| Redis memory: bataille |",
        "| archive: bataille |",
        "| /verify, game in play at ",
        "| live: 50 followers, gunicorn gevent, 1 worker |",
    ):
        assert figure in out.stdout, out.stdout
    assert " 0 errors |" in out.stdout


def test_the_clocks_bench_times_each_clock_from_the_event_that_started_it():
    """bench/clocks.py: a clock's lateness is its event's time less the event before it less
    the timeout; the clock's own later events (the second seat, the round's end) start none."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import clocks
    finally:
        sys.path.remove(str(ROOT / "bench"))
    at = "2026-01-01T00:00:{:06.3f}Z".format
    events = [
        {"actor": "server", "at": at(0.0)},
        {"actor": "clock", "at": at(1.25)},
        {"actor": "clock", "at": at(1.25)},
        {"actor": "server", "at": at(1.25)},
        {"actor": "clock", "at": at(2.3)},
    ]
    assert [round(x, 3) for x in clocks.lateness(events)] == [0.25, 0.05]


def test_the_clocks_bench_runs_against_batayo_serve():
    out = _bench("clocks.py", "--games", "2", "--seconds", "3")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["clocks"] >= 1 and {"late_p99_ms", "missed", "healthz_p99_ms"} <= set(result)
    assert result["healthz"] > 10 and result["events_of_strong_games"] > 0


def test_the_rating_table_runs_and_writes_its_file(tmp_path):
    out = tmp_path / "ratings.json"
    done = _bench(
        "ratings.py",
        *("--only", "batak_esli", "--levels", "random,greedy", "--games", "4"),
        *("--boots", "20", "--out", str(out)),
    )
    assert done.returncode == 0, done.stderr
    assert "random against greedy: 0 of 4" in done.stdout  # each cell reported as it ends
    (case,) = json.loads(out.read_text())["cases"]
    assert {(c["level"], c["against"], c["games"]) for c in case["cells"]} == {
        ("random", "greedy", 4),
        ("greedy", "random", 4),
    }
    assert case["ratings"]["greedy"]["elo"] == 0
    random_level = case["ratings"]["random"]  # a random pair never beats a greedy one
    assert random_level["elo"] is None and random_level["never"] == "won"
    assert random_level["interval95"][0] is None
    assert isinstance(random_level["interval95"][1], int)


def test_the_stream_players_play_on_a_production_server(redis_url, tmp_path):
    """bench/players.py (bench/run.py --live) cannot rot: one table's players follow their
    streams and POST their moves for two seconds, every stream answered, no error (its socket
    counterpart: tests/test_socket.py)."""
    server = production(tmp_path, redis_url, {"BATAYO_RATE_LIMIT_TOKEN": "0"})
    try:
        url = f"http://127.0.0.1:{server.port}"
        out = _bench("players.py", "--url", url, "--games", "1", "--seconds", "2")
    finally:
        server.stop()
    assert out.returncode == 0, out.stderr
    phase = json.loads(out.stdout.strip().splitlines()[-1])
    assert phase["errors"] == 0 and phase["moves"] > 0, phase
    assert phase["streams"] == phase["streams_wanted"] >= 2, phase


def test_a_table_whose_game_ends_starts_a_new_one(monkeypatch):
    """The live path's tables (bench/players.py, bench/sockets.py) replace a game that ends
    while the clock runs, so a fast transport's players are never left idle; every player
    seated is a stream wanted."""
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    import players

    made = []

    def create(url: str) -> dict:
        made.append(url)
        return {"id": f"g{len(made)}", "seats": [{"token": "a"}, {"token": "b"}]}

    class Quick:  # a player whose game ends at once
        def __init__(self, host, port, game_id, token, stats) -> None:
            self.stats, self.answer = stats, None

        async def follow(self) -> None:
            self.answer = 200
            self.stats.streams += 1
            await asyncio.sleep(0.01)

    monkeypatch.setattr(players, "create", create)
    out = asyncio.run(players.measured("http://x:1", Quick, "live", 2, 0.3, warmup=0.05))
    assert len(made) > 2  # the two first games, and more while the clock ran
    assert out["streams"] == out["streams_wanted"] > 4


def test_spectators_that_never_sleep_get_every_event(redis_url):
    """bench/streams.py --busy: both transports' readers poll without sleeping and still see
    every action's event on every connection."""
    for transport in ("stream", "socket"):
        out = _bench(
            "streams.py",
            *("--server", "production", "--followers", "20", "--seconds", "2"),
            *("--transport", transport, "--busy"),
            env={"REDIS_URL": redis_url, "PATH": ""},
        )
        assert out.returncode == 0, out.stderr
        phase = json.loads(out.stdout.strip().splitlines()[-1])
        assert phase["busy"] is True and phase["transport"] == transport, phase
        assert phase["actions"] >= 1, phase
        assert phase["actions_delivered_to_all"] == phase["actions"], phase
        assert phase["deliveries"] == 20 * phase["actions"], phase


def test_the_readers_note_a_version_split_across_two_reads(monkeypatch, tmp_path):
    """bench/arrivals.py: a version whose digits (or marker) arrive in two reads is noted once,
    from the read that completes it; for both spellings (SSE's `id:` line, a socket's JSON)."""
    import array
    import socket
    import threading

    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    import arrivals

    for marker, ends, parts in (
        (b"\nid: ", b"\n", [b"data: x\n\nid: 1", b"2\ndata: y\n\nid: 13\n", b"\ni", b"d: 14\n"]),
        (b'{"v":', b",", [b'{"v":7,"a":1}{"v', b'":8,"a":2}{"v":9', b',"a":3}']),
    ):
        ours, theirs = socket.socketpair()
        ours.setblocking(False)

        def send(chunks: list[bytes] = parts, sock: socket.socket = theirs) -> None:
            for chunk in chunks:
                sock.sendall(chunk)
                threading.Event().wait(0.1)  # each its own read

        sender = threading.Thread(target=send)
        sender.start()
        out = tmp_path / "arrivals.bin"
        arrivals.record({ours: b""}, 0.8, out, marker, ends, busy=False)
        sender.join()
        ours.close()
        theirs.close()
        seen = array.array("d", out.read_bytes())
        versions = [int(v) for v in seen[0::2]]
        assert versions == ([12, 13, 14] if ends == b"\n" else [7, 8, 9]), versions
