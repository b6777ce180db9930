"""Delay from a human move to the bot's answer, through real RQ workers on a real Redis server:
`python bench/latency.py [--moves N]` (REDIS_URL, default redis://127.0.0.1:6379/14, emptied).

Batak turns pass seat to seat, so a bot's move answers the human's: the delay is from the
human's action being appended to the next bot event in the stream. Measured with one worker,
then two (several games at once, so the second worker has work to share).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import redis

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.core.state import game_of
from service.engine import Engine
from service.engine.dispatch import OutboxDispatcher, RQDispatcher
from service.store import Store, key

WORKER_ARGS: list[str] = []


def start_workers(n: int, url: str) -> list[subprocess.Popen]:
    batayo = Path(sys.executable).parent / "batayo"
    return [
        subprocess.Popen(
            [str(batayo), "worker", *WORKER_ARGS],
            env={**os.environ, "REDIS_URL": url},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        for _ in range(n)
    ]


def play(engine: Engine, client: redis.Redis, moves: int, delays: list[float]) -> None:
    """One human (seat 0) against three bots; each human move, wait for the bots' answer."""
    gid = engine.create({"game": "batak", "seats": [{"name": "me"}] + [{"bot": "greedy"}] * 3})[
        "id"
    ]
    for _ in range(moves):
        view = wait_for_turn(engine, gid)
        if view is None:
            return
        _, state = engine.act(gid, 0, view["legal_actions"][0])
        done = time.perf_counter()
        if state["status"] != "playing":
            return
        if 0 in game_of(state).to_move(state):
            continue  # the human moves again (a declarer leads): no bot answers this move
        after = f"{state['version']}-0"
        while True:
            got = client.xread({key(gid, "events"): after}, block=10_000, count=1)
            if not got:
                return
            entry_id, fields = got[0][1][0]
            if json.loads(fields[b"e"])["actor"] == "bot":
                delays.append(time.perf_counter() - done)
                break
            after = entry_id.decode()


def wait_for_turn(engine: Engine, gid: str) -> dict | None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        view = engine.view(gid, 0)
        if view["status"] != "playing":
            return None
        if view["legal_actions"] and view["to_move"] == [0]:
            return view
        time.sleep(0.005)
    return None


def measure(workers: int, games: int, moves: int, url: str) -> list[float]:
    client = redis.Redis.from_url(url, socket_timeout=30)  # above the 10 s blocking read
    client.flushdb()
    procs = start_workers(workers, url)
    time.sleep(1.5)
    store = Store(client)
    engine = Engine(store, OutboxDispatcher(store.outbox, RQDispatcher(client)))
    delays: list[float] = []
    threads = [
        threading.Thread(target=play, args=(engine, client, moves, delays)) for _ in range(games)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for p in procs:
        os.killpg(p.pid, signal.SIGTERM)
    for p in procs:
        p.wait(timeout=30)
    client.flushdb()
    return delays


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--moves", type=int, default=40, help="human moves per game")
    parser.add_argument("--games", type=int, default=4, help="games played at once")
    args = parser.parse_args()
    url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/14")
    kinds = {
        "SimpleWorker (default)": [],
        "Worker (forking)": ["--fork"],
    }
    print(f"{'worker':>22} {'workers':>8} {'answers':>8} {'median ms':>10} {'p99 ms':>8}")
    for kind, worker_args in kinds.items():
        WORKER_ARGS[:] = worker_args
        for workers in (1, 2):
            delays = sorted(measure(workers, args.games, args.moves, url))
            p99 = delays[min(len(delays) - 1, int(len(delays) * 0.99))]
            median = statistics.median(delays) * 1000
            print(f"{kind:>22} {workers:>8} {len(delays):>8} {median:>10.1f} {p99 * 1000:>8.1f}")


if __name__ == "__main__":
    main()
