"""The service as it runs past one box. Two API processes and two worker processes
on the tests' own Redis Cluster (the store) and a plain Redis (the job queue); all four games
played at once, each with one human whose moves alternate between the two APIs with If-Match
while the workers move the bots; then every chain verifies and the games' keys are on at least
two nodes of the cluster."""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

from service.core.registry import GAMES as MODULES
from service.store import key
from tests.support.redis_server import free_port
from tests.support.serving import BATAYO, Server

pytestmark = [pytest.mark.redis, pytest.mark.slow]

GAMES = [
    ("bataille", {"deck": 32, "max_rounds": 30}),
    ("batak", {"deals": 3, "max_rounds": 1}),
    ("batayo", {"format": "express", "max_rounds": 30}),
    ("roylet", {"rounds": 3}),
]
BOT_GAMES = 8  # all-bot games beside them: enough games that their keys spread over the nodes
BUDGET_S = 120


def call(port: int, method: str, path: str, body=None, headers=None) -> tuple[int, dict, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    data = json.dumps(body).encode() if body is not None else None
    sent = {"Content-Type": "application/json", **(headers or {})}
    conn.request(method, path, body=data, headers=sent)
    r = conn.getresponse()
    raw = r.read()
    return r.status, dict(r.getheaders()), (json.loads(raw) if raw else {})


def seats(kind: str, options: dict, human: bool) -> list[dict]:
    game = MODULES[kind]
    n = game.seat_count({**{o.name: o.default for o in game.options}, **options})
    first = [{"name": "ana", "client_seed": "c0ffee"}] if human else [{"bot": "greedy"}]
    return first + [{"bot": "random"}] * (n - 1)


@pytest.fixture
def deployment(tmp_path: Path, redis_cluster, cluster_redis, redis_url):
    env = {
        "REDIS_URL": redis_cluster.url,
        "BATAYO_REDIS_CLUSTER": "1",
        "BATAYO_QUEUE_URL": redis_url,
        "BATAYO_RATE_LIMIT": "0",
        # a human seat posts and reads as fast as the APIs answer: over the per-token cap of a
        # minute on a quick machine (the limits have tests of their own)
        "BATAYO_RATE_LIMIT_TOKEN": "0",
        # a cluster refuses a local archive folder; nothing is archived in this test (off), so
        # a per-process memory:// archive is enough to start (tests/test_archive.py covers it)
        "BATAYO_ARCHIVE_URL": "memory://cluster-processes",
        "BATAYO_ARCHIVE_AFTER_S": "off",
    }
    apis, workers = [], []
    try:
        for i in range(2):
            port = free_port()
            apis.append(
                Server([BATAYO, "serve", "--port", str(port)], env, tmp_path / f"api{i}.log", port)
            )
        for i in range(2):
            with (tmp_path / f"worker{i}.log").open("ab") as out:
                workers.append(
                    subprocess.Popen(
                        [BATAYO, "worker"],
                        env={**os.environ, **env},
                        stdout=out,
                        stderr=subprocess.STDOUT,
                        start_new_session=True,
                    )
                )
        yield apis, workers
    finally:
        for api in apis:
            api.stop()
        for worker in workers:
            worker.terminate()
            try:
                worker.wait(timeout=15)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait()


def play_human(apis: list[Server], gid: str, token: str, moves: list[int], errors: list) -> None:
    """The human's moves, the k-th posted to API k % 2 with If-Match at the version the other
    API showed; a stale If-Match after each move must be refused by the other API."""
    auth = {"Authorization": f"Bearer {token}"}
    deadline = time.monotonic() + BUDGET_S
    k = 0
    while time.monotonic() < deadline:
        looker, actor = apis[(k + 1) % 2], apis[k % 2]
        status, headers, view = call(looker.port, "GET", f"/v1/games/{gid}", headers=auth)
        if status != 200:
            errors.append((gid, "view", status, view))
            return
        if view["status"] == "finished":
            return
        if not view["legal_actions"]:
            time.sleep(0.02)  # a bot's move: the workers make it
            continue
        etag = headers["ETag"]
        action = view["legal_actions"][0]
        status, _, answer = call(
            actor.port, "POST", f"/v1/games/{gid}/actions", action, {**auth, "If-Match": etag}
        )
        if status == 200:
            moves[k % 2] += 1
            k += 1
            again, _, refused = call(
                looker.port, "POST", f"/v1/games/{gid}/actions", action, {**auth, "If-Match": etag}
            )
            if again != 412 or refused.get("code") != "version_mismatch":
                errors.append((gid, "stale If-Match accepted", again, refused))
                return
        elif status not in (409, 412):  # a clock or the table moved first: look again
            errors.append((gid, "act", status, answer))
            return
    errors.append((gid, "did not finish in time"))


def test_two_apis_and_two_workers_play_every_game_on_the_cluster(deployment, redis_cluster):
    apis, workers = deployment

    def create(i: int, human: bool) -> dict:
        """The i-th game (of GAMES, in turn), created through the APIs in turn."""
        kind, options = GAMES[i % len(GAMES)]
        body = {"game": kind, "options": options, "seats": seats(kind, options, human)}
        status, _, created = call(apis[i % 2].port, "POST", "/v1/games", body)
        assert status == 201, created
        return created

    humans = [
        (c["id"], c["seats"][0]["token"]) for c in (create(i, True) for i in range(len(GAMES)))
    ]
    bots = [create(i, False)["id"] for i in range(BOT_GAMES)]

    errors: list = []
    moves = {gid: [0, 0] for gid, _ in humans}
    threads = [
        threading.Thread(target=play_human, args=(apis, gid, token, moves[gid], errors))
        for gid, token in humans
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(BUDGET_S + 10)
    assert not errors, errors
    # every human move alternated between the two APIs
    assert all(a > 0 and b > 0 and abs(a - b) <= 1 for a, b in moves.values()), moves

    deadline = time.monotonic() + BUDGET_S
    ids = [gid for gid, _ in humans] + bots
    while time.monotonic() < deadline:
        views = [call(apis[0].port, "GET", f"/v1/games/{gid}")[2] for gid in ids]
        if all(v["status"] == "finished" for v in views):
            break
        time.sleep(0.2)
    assert all(v["status"] == "finished" for v in views), [v["status"] for v in views]
    for i, gid in enumerate(ids):
        status, _, report = call(apis[i % 2].port, "GET", f"/v1/games/{gid}/verify")
        assert status == 200 and report["status"] == "ok", (gid, report)

    cluster = redis_cluster.client()
    nodes = {cluster.get_node_from_key(key(gid, "events")).port for gid in ids}
    assert len(nodes) >= 2, nodes
    assert sum(1 for n in redis_cluster.keys_per_node() if n) >= 2
    # one listing and one count of the service, whichever API is asked
    for api in apis:
        _, _, listed = call(api.port, "GET", "/v1/games?status=finished&limit=50")
        assert {g["id"] for g in listed["games"]} == set(ids)
        _, _, _ = call(api.port, "GET", "/readyz")
        assert call(api.port, "GET", "/readyz")[0] == 200
    assert all(w.poll() is None for w in workers)  # the workers still run
