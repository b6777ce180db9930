"""Seed tickets and reproducible test games (docs/fairness.md: "the commitment comes before any
client seed"; test games: "the same seed, id, options, seats and client seeds give the same
game")."""

from __future__ import annotations

import hashlib

from service.core.game import add_seconds
from service.store.index import ALL as INDEX_ALL
from tests.support.helpers import auth
from tests.support.service import Service


def ticket(svc) -> dict:
    r = svc.client.post("/v1/seeds")
    assert r.status_code == 201, r.json
    return r.json


def create(svc, **body):
    body.setdefault("game", "bataille")
    body.setdefault("seats", [{"name": "ana", "client_seed": "chosen after"}, {"bot": "random"}])
    return svc.client.post("/v1/games", json=body, headers=body.pop("headers", {}))


def games_count(svc) -> int:
    return svc.engine.store.redis.zcard(INDEX_ALL)


def test_a_game_created_with_a_ticket_uses_the_seed_committed_before(svc):
    t = ticket(svc)
    assert len(t["ticket"]) >= 16 and len(t["seed_commitment"]) == 64 and t["expires_at"]
    created = create(svc, seed_ticket=t["ticket"], options={"max_rounds": 30})
    assert created.status_code == 201, created.json
    assert created.json["seed_commitment"] == t["seed_commitment"]
    gid = created.json["id"]
    assert svc.client.get(f"/v1/games/{gid}").json["seed_commitment"] == t["seed_commitment"]
    token = created.json["seats"][0]["token"]
    while True:  # ana flips whenever she is awaited, the bot's jobs run in between
        svc.run_jobs()
        if svc.client.get(f"/v1/games/{gid}").json["status"] != "playing":
            break
        svc.client.post(f"/v1/games/{gid}/actions", json={"type": "flip"}, headers=auth(token))
    seed = svc.client.get(f"/v1/games/{gid}/export").json["server_seed"]
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == t["seed_commitment"]


def test_a_ticket_is_single_use_and_a_bad_one_creates_nothing(svc):
    t = ticket(svc)
    assert create(svc, seed_ticket=t["ticket"]).status_code == 201
    before = games_count(svc)
    used = create(svc, seed_ticket=t["ticket"])
    assert (used.status_code, used.json["code"]) == (409, "seed_ticket_used")
    unknown = create(svc, seed_ticket="x" * 32)
    assert (unknown.status_code, unknown.json["code"]) == (400, "seed_ticket_unknown")
    malformed = create(svc, seed_ticket="not a ticket!")
    assert malformed.status_code == 400
    assert games_count(svc) == before


def test_an_expired_ticket_is_410_and_creates_nothing():
    svc = Service()
    now = ["2030-01-01T00:00:00.000000Z"]
    svc.engine.clock = lambda: now[0]
    t = ticket(svc)
    now[0] = add_seconds(now[0], 15 * 60 + 1)
    before = games_count(svc)
    expired = create(svc, seed_ticket=t["ticket"])
    assert (expired.status_code, expired.json["code"]) == (410, "seed_ticket_expired")
    assert games_count(svc) == before


def test_a_retried_create_returns_its_first_answer_and_a_failed_one_frees_its_key(svc):
    t = ticket(svc)
    key = {"Idempotency-Key": "k1"}
    first = create(svc, seed_ticket=t["ticket"], headers=key)
    again = create(svc, seed_ticket=t["ticket"], headers=key)
    assert first.status_code == again.status_code == 201 and again.json == first.json
    failing = {"Idempotency-Key": "k2"}
    for _ in range(2):  # the key of a failed request is free again: the same refusal, not a 409
        r = create(svc, seed_ticket="y" * 32, headers=failing)
        assert (r.status_code, r.json["code"]) == (400, "seed_ticket_unknown")


def test_a_ticket_and_a_fixed_seed_do_not_go_together(svc):
    r = create(svc, seed_ticket=ticket(svc)["ticket"], seed="ab" * 32)
    assert r.status_code == 400


def test_a_test_game_with_a_fixed_seed_is_the_same_game_on_any_server():
    body = {
        "game": "batayo",
        "options": {"gather": "random"},
        "seats": [{"name": "ana", "client_seed": "a"}, {"name": "bob", "client_seed": "b"}],
        "seed": "cd" * 32,
    }
    logs = []
    for _ in range(2):
        svc = Service()
        created = svc.client.post("/v1/games", json=body)
        assert created.status_code == 201, created.json
        gid = created.json["id"]
        tokens = [s["token"] for s in created.json["seats"]]
        for _ in range(6):
            for seat in svc.client.get(f"/v1/games/{gid}").json["to_move"]:
                mine = svc.client.get(f"/v1/games/{gid}", headers=auth(tokens[seat])).json
                action = mine["legal_actions"][0]
                svc.client.post(f"/v1/games/{gid}/actions", json=action, headers=auth(tokens[seat]))
        events = svc.engine.all_events(gid)
        logs.append([(e["type"], e["data"].get("rng"), e["data"].get("packs")) for e in events])
        again = svc.client.post("/v1/games", json=body)  # on the same server: that game exists
        assert (again.status_code, again.json["code"]) == (409, "id_taken")
        assert gid in again.json["detail"]
    assert logs[0] == logs[1] and any(rng for _, rng, _ in logs[0])
