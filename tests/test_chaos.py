"""The chaos scenario, with no supervisor and no manual step: a plain Redis store, a job queue on
a Redis of its own, `batayo serve` and two `batayo worker`s. Games are played by bots, by
humans through the API and by move clocks while the queue is away for 10 s and one worker is
killed in the middle of a job; then every game finishes, its export verifies, and every
acknowledged human action is in its log exactly once."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
import uuid

import pytest
import redis

from service.core.verify import verify
from tests.support.processes import start_worker, wait_until
from tests.support.redis_server import RedisServer
from tests.support.serving import call, serve

pytestmark = [pytest.mark.redis, pytest.mark.slow]

SMALL = {"deck": 32, "max_rounds": 40}
# games a human plays as fast as the API answers: long enough to be still in play when the
# queue goes away, however fast the machine (40 rounds passed in 2 s on a quiet one)
HUMAN = {"max_rounds": 80}
OUTAGE_S = 10


def create(port: int, seats: list[dict], **options) -> tuple[str, dict[int, str]]:
    status, body, _ = call(
        port,
        "POST",
        "/v1/games",
        {"game": "bataille", "options": {**SMALL, **options}, "seats": seats},
    )
    assert status == 201, body
    return body["id"], {s["seat"]: s["token"] for s in body["seats"] if s.get("token")}


class Humans(threading.Thread):
    """Plays the human seats of some games through the API, as a client does: each action with
    an Idempotency-Key, sent again with the same key after a 503 until it has an answer."""

    def __init__(self, port: int, games: dict[str, dict[int, str]]) -> None:
        super().__init__(daemon=True)
        self.port, self.games = port, games
        self.acknowledged: dict[str, int] = dict.fromkeys(games, 0)
        self.moments: list[float] = []  # when each acknowledgement came
        self.statuses: dict[int, int] = {}
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set() and self.games:
            for gid, tokens in list(self.games.items()):
                status, view, _ = self._call("GET", f"/v1/games/{gid}")
                if status != 200:
                    continue
                if view["status"] != "playing":
                    del self.games[gid]
                    continue
                for seat in view["to_move"]:
                    if seat in tokens:
                        self._act(gid, tokens[seat])
            time.sleep(0.05)

    def _call(self, *args, **kw):
        try:
            status, body, headers = call(self.port, *args, **kw)
        except OSError:
            return 0, None, {}
        self.statuses[status] = self.statuses.get(status, 0) + 1
        return status, body, headers

    def _act(self, gid: str, token: str) -> None:
        key = uuid.uuid4().hex
        for _ in range(200):
            status, _, _ = self._call(
                "POST",
                f"/v1/games/{gid}/actions",
                {"type": "flip"},
                token,
                headers={"Idempotency-Key": key},
            )
            if status == 200:
                self.acknowledged[gid] += 1
                self.moments.append(time.monotonic())
                return
            if status != 503 and status != 0:
                return  # refused (the seat no longer awaited, the game over): nothing applied
            time.sleep(0.2)


def playing(port: int, gid: str) -> bool:
    return call(port, "GET", f"/v1/games/{gid}")[1]["status"] == "playing"


def busy_worker(queue: redis.Redis, pids: set[int]) -> int | None:
    """The pid of one of `pids` that RQ says is in the middle of a job."""
    for key in queue.smembers("rq:workers"):
        fields = queue.hgetall(key)
        pid = int(fields.get(b"pid", b"0"))
        if pid in pids and fields.get(b"current_job"):
            return pid
    return None


def test_games_finish_and_verify_through_a_queue_outage_and_a_killed_worker(redis_url, tmp_path):
    queue_server = RedisServer(tmp_path / "queue", "--appendonly", "yes", "--appendfsync", "always")
    env = {
        "REDIS_URL": redis_url,
        "BATAYO_QUEUE_URL": queue_server.url,
        "BATAYO_SWEEP_EVERY_S": "5",
        "BATAYO_GAMES_PER_CLIENT": "0",
        "BATAYO_RATE_LIMIT": "0",
    }
    api = serve(tmp_path, env)
    workers = [start_worker(tmp_path / f"worker{n}.log", redis_url, **env) for n in range(2)]
    try:
        port = api.port
        bots = [create(port, [{"bot": "greedy"}, {"bot": "random"}])[0] for _ in range(6)]
        played = dict(create(port, [{"name": "ana"}, {"bot": "greedy"}], **HUMAN) for _ in range(4))
        # a seat that never moves: its move clock plays for it, every second
        clocked = [
            create(port, [{"name": "away"}, {"bot": "random"}], move_timeout_s=1, max_rounds=12)[0]
            for _ in range(2)
        ]
        humans = Humans(port, dict(played))
        humans.start()

        time.sleep(1)
        queue_server.stop()  # the job queue away: actions are answered, their jobs wait
        away = time.monotonic()
        assert all(playing(port, g) for g in [*played, *clocked]), [
            (g, call(port, "GET", f"/v1/games/{g}")[1]["status"]) for g in [*played, *clocked]
        ]
        # games made while the queue is away: their first bot moves wait in the outbox
        bots += [create(port, [{"bot": "greedy"}, {"bot": "random"}])[0] for _ in range(4)]
        for _ in range(2):  # a human's first flip while the queue is away: answered
            gid, tokens = create(port, [{"name": "ana"}, {"bot": "greedy"}], **HUMAN)
            humans.acknowledged[gid] = 0
            humans._act(gid, tokens[0])
            assert humans.acknowledged[gid] == 1, humans.statuses
            played[gid] = tokens
            humans.games[gid] = tokens  # played on by the thread from here
        time.sleep(OUTAGE_S)
        back = time.monotonic()
        queue_server.start_again()

        queue = queue_server.client()
        pids = {w.pid for w in workers}
        seen: list[int] = []  # the busy worker as found (asked again, its job may be over)

        def busy() -> bool:
            pid = busy_worker(queue, pids)
            seen.extend([pid] if pid is not None else [])
            return bool(seen)

        assert wait_until(busy, 20), "no job under way"
        os.killpg(seen[0], signal.SIGKILL)  # in the middle of a job: no chance to give it back

        games = [*bots, *played, *clocked]
        assert sum(playing(port, g) for g in games) >= 4  # the kill lands on games in play

        def finished() -> bool:
            return not any(playing(port, g) for g in games)

        assert wait_until(finished, 90), [
            (g, call(port, "GET", f"/v1/games/{g}")[1]["status"]) for g in games
        ]
        humans.stop.set()
        humans.join(10)

        assert 500 not in humans.statuses, humans.statuses
        assert any(away < t < back for t in humans.moments), "no action answered while away"
        assert any(t > back for t in humans.moments)
        for gid in games:
            status, export, _ = call(port, "GET", f"/v1/games/{gid}/export")
            assert status == 200, export
            report = verify(export["events"])
            assert report["status"] == "ok", (gid, report)
            if gid in played:  # every acknowledged action in the log once: none lost, none doubled
                by_ana = [e for e in export["events"] if e["type"] == "flipped" and e["actor"] == 0]
                assert len(by_ana) == humans.acknowledged[gid], (gid, json.dumps(humans.statuses))
    finally:
        for worker in workers:
            if worker.poll() is None:
                os.killpg(worker.pid, signal.SIGTERM)
                worker.wait(20)
        api.stop()
        queue_server.stop()
