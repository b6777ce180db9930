"""Races on a real Redis server: 32 threads act at once on the same games through one app (one
engine shared by all threads, as under gunicorn's gthread workers), with and without If-Match
and Idempotency-Key, and retry with the same key.

What must hold: versions 1..n with no gap and no repeat; every event of every 200 answer is in
the log exactly once, and no two answers claim the same version (one winner per version); an
If-Match answer applied exactly at its version; a retry with the same key and body returns the
first answer; every chain verifies. The number of actions sent goes to
tests/artifacts/counts-*.json (`race_actions`)."""

from __future__ import annotations

import random
import threading
import time
from collections import defaultdict

import pytest

from service.api import create_app
from service.engine import Engine
from service.store import Store
from tests.support.helpers import auth, record_counts

pytestmark = pytest.mark.redis

THREADS = 32
BUDGET_S = 12.0
MAX_ACTIONS = 1500
GAMES = [
    ("batayo", {"format": "express", "players": 4}),
    ("batayo", {"format": "classique", "players": 3}),
    ("bataille", {"deck": 32, "players": 4, "variant": "ouverte", "max_rounds": 60}),
    ("bataille", {"deck": 32, "players": 2, "variant": "ouverte", "max_rounds": 60}),
]


@pytest.fixture
def service(server_redis):
    engine = Engine(Store(server_redis))
    app = create_app(engine)
    app.config["RATE_LIMIT"] = app.config["RATE_LIMIT_TOKEN"] = 0
    return engine, app


def new_game(client, kind: str, options: dict) -> tuple[str, dict[int, str]]:
    from service.core.registry import GAMES as MODULES

    game = MODULES[kind]
    n = game.seat_count({**{o.name: o.default for o in game.options}, **options})
    body = {"game": kind, "options": options, "seats": [{"name": f"p{i}"} for i in range(n)]}
    r = client.post("/v1/games", json=body)
    assert r.status_code == 201, r.json
    return r.json["id"], {s["seat"]: s["token"] for s in r.json["seats"]}


def test_thirty_two_threads_lose_nothing_and_duplicate_nothing(service):
    engine, app = service
    setup = app.test_client()
    games = [new_game(setup, kind, options) for kind, options in GAMES * 2]
    answers: list[tuple[str, dict, dict]] = []  # (game id, headers, 200 body)
    retries: list[tuple[dict, dict]] = []  # (first body, retried body)
    statuses: dict[int, int] = defaultdict(int)
    sent = [0]
    lock = threading.Lock()
    deadline = time.monotonic() + BUDGET_S
    start = threading.Barrier(THREADS)

    def worker(i: int) -> None:
        client = app.test_client()
        rng = random.Random(i)
        start.wait()
        while time.monotonic() < deadline:
            with lock:
                if sent[0] >= MAX_ACTIONS:
                    return
            live = [g for g in games if engine.load(g[0])["status"] == "playing"]
            if not live:
                return
            gid, tokens = live[(i + rng.randrange(2)) % len(live)]
            seat = (
                sorted(tokens)[i % len(tokens)] if rng.random() < 0.7 else rng.choice(list(tokens))
            )
            view = client.get(f"/v1/games/{gid}", headers=auth(tokens[seat])).json
            legal = view["legal_actions"]
            body = rng.choice(legal) if legal else {"type": "play", "card": "AS"}
            headers = auth(tokens[seat])
            mode = rng.random()
            if mode < 0.35:
                headers["If-Match"] = f'"{view["version"]}"'
            if 0.25 < mode < 0.7:
                headers["Idempotency-Key"] = f"t{i}-{rng.getrandbits(64):x}"
            r = client.post(f"/v1/games/{gid}/actions", json=body, headers=headers)
            with lock:
                sent[0] += 1
                statuses[r.status_code] += 1
            assert r.status_code < 500, r.get_data(as_text=True)
            if r.status_code == 200:
                with lock:
                    answers.append((gid, headers, r.json))
                if "Idempotency-Key" in headers and rng.random() < 0.5:
                    again = client.post(f"/v1/games/{gid}/actions", json=body, headers=headers)
                    with lock:
                        sent[0] += 1
                        retries.append((r.json, again.json if again.status_code == 200 else None))
            elif r.status_code == 412:
                assert "If-Match" in headers and r.json["code"] == "version_mismatch"
            else:
                assert r.status_code in (400, 409, 422), (r.status_code, r.json)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()

    # every chain is whole and verifies; versions 1..n
    logs = {}
    for gid, _ in games:
        log = engine.all_events(gid)
        assert [e["version"] for e in log] == list(range(1, len(log) + 1))
        report = engine.verify(gid, None)
        assert report["status"] != "failed", report
        logs[gid] = {e["version"]: e["hash"] for e in log}
    # every 200's events are in the log, and no version is claimed twice
    claimed: dict[tuple[str, int], int] = {}
    for n, (gid, headers, body) in enumerate(answers):
        versions = [e["version"] for e in body["events"]]
        assert versions == list(range(versions[0], versions[0] + len(versions)))
        for e in body["events"]:
            assert logs[gid][e["version"]] == e["hash"], "an answer's event is not in the log"
            owner = claimed.setdefault((gid, e["version"]), n)
            assert owner == n, f"version {e['version']} of {gid} claimed by two answers"
        if "If-Match" in headers:
            assert versions[0] == int(headers["If-Match"].strip('"')) + 1
    appended = sum(len(logs[g]) for g, _ in games)
    assert claimed, "no action was applied"
    # an idempotent retry returns the first answer
    assert retries and all(first == again for first, again in retries)
    record_counts(
        {
            "race_actions": sent[0],
            "race_threads": THREADS,
            "race_games": len(games),
            "race_applied": len(answers),
            "race_events": appended,
        }
    )
    print(
        f"\nraces: {sent[0]} actions from {THREADS} threads on {len(games)} games: "
        f"{dict(sorted(statuses.items()))}, {len(answers)} applied, {appended} events, "
        f"{len(retries)} idempotent retries"
    )


def test_the_same_idempotency_key_at_once_applies_once(service):
    """8 threads send the same key and body at the same moment: one append, one answer."""
    engine, app = service
    client = app.test_client()
    gid, tokens = new_game(client, "batayo", {"format": "express", "players": 2})
    rounds = 0
    for rnd in range(12):
        state = engine.load(gid)
        if state["status"] != "playing":
            break
        seat = client.get(f"/v1/games/{gid}").json["to_move"][0]
        legal = client.get(f"/v1/games/{gid}", headers=auth(tokens[seat])).json["legal_actions"]
        before = engine.store.version(gid)
        headers = {**auth(tokens[seat]), "Idempotency-Key": f"same-{rnd}"}
        barrier = threading.Barrier(8)
        got = []

        def send(headers=headers, body=legal[0], barrier=barrier, got=got) -> None:
            c = app.test_client()
            barrier.wait()
            r = c.post(f"/v1/games/{gid}/actions", json=body, headers=headers)
            got.append((r.status_code, r.json))

        threads = [threading.Thread(target=send) for _ in range(8)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        ok = [body for status, body in got if status == 200]
        # a racing twin may be told the first is still running, never anything else
        assert all(s == 200 or b["code"] == "busy" for s, b in got), got
        assert ok and all(body == ok[0] for body in ok)
        assert engine.store.version(gid) == before + len(ok[0]["events"])
        rounds += 1
    assert rounds >= 4
    assert engine.verify(gid, None)["status"] != "failed"
    record_counts({"race_same_key_rounds": rounds})
