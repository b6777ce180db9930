"""Abuse: what a hostile client may try, and what it gets.

Tokens are stored only as hashes and compared in constant time; a token is good for its own
game and seat only; requests are rate limited per client and per token (429 + Retry-After,
counted in Redis, so shared by API processes); oversized bodies get 413; long strings, deep
JSON, huge numbers and bad card texts get 400, while unicode names within the limits are kept
intact; game ids are checked before anything reaches Redis."""

from __future__ import annotations

import json

import fakeredis
import pytest

from service.api import create_app
from service.engine import Engine, tokens
from service.engine.dispatch import QueueDispatcher
from service.settings import load
from service.store import Store
from service.store.index import ALL as INDEX_ALL
from tests.support.client import CheckedClient
from tests.support.helpers import auth


class RecordingRedis(fakeredis.FakeRedis):
    """Records the arguments of every command sent (keys included), scripts too."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.commands: list[tuple] = []

    def execute_command(self, *args, **options):
        self.commands.append(args)
        return super().execute_command(*args, **options)

    def touched(self, text: str) -> bool:
        needle = text.encode() if isinstance(text, str) else text
        for args in self.commands:
            for a in args:
                raw = a if isinstance(a, bytes) else str(a).encode()
                if needle in raw:
                    return True
        return False


def make(limit: int = 0, per_token: int = 0, client=None, settings=None):
    client = client if client is not None else RecordingRedis()
    engine = Engine(Store(client), QueueDispatcher(), test_games=True)
    app = create_app(engine, settings=settings)
    app.config["RATE_LIMIT"] = limit
    app.config["RATE_LIMIT_TOKEN"] = per_token
    return engine, app, client


def humans_game(test_client, n: int = 2, game: str = "bataille", **extra) -> dict:
    body = {"game": game, "seats": [{"name": f"p{i}"} for i in range(n)], **extra}
    r = test_client.post("/v1/games", json=body)
    assert r.status_code == 201, r.json
    return r.json


def everything_in(client) -> bytes:
    """Every key and every value of the Redis database, as one blob."""
    out = []
    for key in client.scan_iter("*"):
        out.append(key)
        kind = client.type(key).decode()
        if kind == "string":
            out.append(client.get(key))
        elif kind == "hash":
            for k, v in client.hgetall(key).items():
                out += [k, v]
        elif kind == "stream":
            for _, fields in client.xrange(key):
                out += [v for kv in fields.items() for v in kv]
        elif kind == "zset":
            out += [m for m, _ in client.zrange(key, 0, -1, withscores=True)]
        elif kind == "list":
            out += client.lrange(key, 0, -1)
        elif kind == "set":
            out += list(client.smembers(key))
    return b"\n".join(x if isinstance(x, bytes) else str(x).encode() for x in out)


# -- tokens ------------------------------------------------------------------------------------


def test_tokens_are_stored_only_as_hashes():
    _engine, app, client = make()
    c = CheckedClient(app.test_client())
    body = {"game": "bataille", "seats": [{"name": "ana"}, {"open": True}]}
    created = c.post("/v1/games", json=body, headers={"Idempotency-Key": "create-1"}).json
    gid, ana = created["id"], created["seats"][0]["token"]
    joined = c.post(f"/v1/games/{gid}/join", json={"name": "bob"}, headers={"Idempotency-Key": "j"})
    bob = joined.json["token"]
    assert c.post(f"/v1/games/{gid}/actions", json={"type": "flip"}, headers=auth(ana)).status_code
    blob = everything_in(client)
    for token in (ana, bob):
        secret = token.split(".")[-1]
        assert secret.encode() not in blob, "a token's secret is stored in Redis"
        assert tokens.digest(token).encode() in blob  # its SHA-256 is what is kept
    # the rate limiter's keys never hold a token either
    _, app2, client2 = make(limit=100, per_token=100)
    c2 = app2.test_client()
    other = humans_game(c2)
    c2.get(f"/v1/games/{other['id']}", headers=auth(other["seats"][0]["token"]))
    assert other["seats"][0]["token"].split(".")[-1].encode() not in everything_in(client2)


def test_tokens_are_compared_in_constant_time(monkeypatch):
    import hmac

    _engine, app, _ = make()
    c = app.test_client()
    created = humans_game(c)
    gid, ana = created["id"], created["seats"][0]["token"]
    calls = []
    real = hmac.compare_digest

    def spy(a, b):
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(tokens.hmac, "compare_digest", spy)
    assert c.get(f"/v1/games/{gid}", headers=auth(ana)).json["you"] == 0
    forged = f"{gid}.0.{'A' * 32}"
    assert c.get(f"/v1/games/{gid}", headers=auth(forged)).status_code == 401
    assert len(calls) == 2 and all(len(a) == len(b) == 64 for a, b in calls)  # digests


def test_a_token_works_for_its_own_game_and_seat_only():
    engine, app, _ = make()
    c = CheckedClient(app.test_client())
    one, two = humans_game(c, options={"variant": "ouverte"}), humans_game(c)
    gid, ana, bob = one["id"], one["seats"][0]["token"], one["seats"][1]["token"]
    foreign = two["seats"][0]["token"]
    before = engine.store.version(gid)
    for path in ("", "/events", "/ties"):
        r = c.get(f"/v1/games/{gid}{path}", headers=auth(foreign))
        assert r.status_code == 403 and r.json["code"] == "forbidden"
    r = c.post(f"/v1/games/{gid}/actions", json={"type": "flip"}, headers=auth(foreign))
    assert r.status_code == 403
    # bob's secret under ana's seat number, ana's under bob's, a token with no secret: 401
    for forged in (
        f"{gid}.0.{bob.split('.')[-1]}",
        f"{gid}.1.{ana.split('.')[-1]}",
        f"{gid}.0.",
        f"{gid}.00.{ana.split('.')[-1]}",
        gid,
        "x" * 300,
    ):
        r = c.post(f"/v1/games/{gid}/actions", json={"type": "flip"}, headers=auth(forged))
        assert r.status_code == 401, (forged, r.json)
    # ana acting as herself can never move bob's cards: her answer names her seat
    bob_view = c.get(f"/v1/games/{gid}", headers=auth(bob)).json
    r = c.post(f"/v1/games/{gid}/actions", json=bob_view["legal_actions"][0], headers=auth(ana))
    assert r.status_code in (200, 422)
    if r.status_code == 200:
        assert all(e["actor"] in (0, "server") for e in r.json["events"])
    else:
        assert engine.store.version(gid) == before


# -- rate limits -------------------------------------------------------------------------------


def test_rate_limit_per_client_with_retry_after():
    engine, app, _ = make(limit=5)
    now = [1_000_000.0]
    app.config["RATE_CLOCK"] = lambda: now[0]
    c = CheckedClient(app.test_client())
    for _ in range(5):
        assert c.get("/v1/rules").status_code == 200
    r = c.get("/v1/rules")
    assert r.status_code == 429 and r.json["code"] == "rate_limited"
    assert r.mimetype == "application/problem+json"
    assert 1 <= int(r.headers["Retry-After"]) <= 60
    r = c.post("/v1/games", json={"game": "bataille", "seats": [{"bot": "random"}] * 2})
    assert r.status_code == 429  # every /v1 route, reads and writes
    assert engine.store.redis.zcard(INDEX_ALL) == 0  # refused before doing anything
    # health checks are never limited; another address has its own count
    assert c.get("/healthz").status_code == 200 and c.get("/readyz").status_code == 200
    other = app.test_client().get("/v1/rules", environ_overrides={"REMOTE_ADDR": "10.0.0.9"})
    assert other.status_code == 200
    # the next window lets the client in again
    now[0] += 61
    assert c.get("/v1/rules").status_code == 200


def test_behind_the_load_balancer_each_forwarded_client_has_its_own_count(monkeypatch):
    """Behind compose's HAProxy every request comes from the balancer; with the balancer's
    address in BATAYO_TRUSTED_PROXIES the limit counts each X-Forwarded-For client, and without
    it the header is never trusted (a client cannot name itself a fresh address)."""

    def statuses(app, forwarded: str) -> list[int]:
        c = app.test_client()
        env = {"REMOTE_ADDR": "172.18.0.2"}  # the balancer
        headers = {"X-Forwarded-For": forwarded}
        return [
            c.get("/v1/rules", headers=headers, environ_overrides=env).status_code for _ in range(3)
        ]

    monkeypatch.setenv("BATAYO_TRUSTED_PROXIES", "172.18.0.0/16")
    _, behind, _ = make(limit=2, settings=load())
    assert statuses(behind, "203.0.113.1") == [200, 200, 429]
    assert statuses(behind, "203.0.113.2") == [200, 200, 429]
    monkeypatch.delenv("BATAYO_TRUSTED_PROXIES")
    _, direct, _ = make(limit=2, settings=load())
    assert statuses(direct, "203.0.113.1") == [200, 200, 429]
    assert statuses(direct, "203.0.113.2") == [429, 429, 429]


def test_rate_limit_per_token_and_shared_between_processes():
    shared = RecordingRedis()
    _engine, app, _ = make(limit=0, per_token=4, client=shared)
    c = app.test_client()
    created = humans_game(c)
    gid, ana, bob = created["id"], created["seats"][0]["token"], created["seats"][1]["token"]
    for _ in range(4):
        assert c.get(f"/v1/games/{gid}", headers=auth(ana)).status_code == 200
    # a second API process on the same Redis sees the same count
    _, app2, _ = make(limit=0, per_token=4, client=shared)
    r = app2.test_client().get(f"/v1/games/{gid}", headers=auth(ana))
    assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1
    assert "token" in r.json["detail"]
    # from any address: the token is what is counted; another token is not
    r = c.get(f"/v1/games/{gid}", headers=auth(ana), environ_overrides={"REMOTE_ADDR": "10.1.1.1"})
    assert r.status_code == 429
    assert c.get(f"/v1/games/{gid}", headers=auth(bob)).status_code == 200
    assert c.get(f"/v1/games/{gid}").status_code == 200  # a spectator is counted per client


def test_the_default_limits_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("BATAYO_RATE_LIMIT", "3")
    monkeypatch.setenv("BATAYO_RATE_LIMIT_TOKEN", "7")
    app = create_app(Engine(Store(fakeredis.FakeRedis())), settings=load())
    assert app.config["RATE_LIMIT"] == 3 and app.config["RATE_LIMIT_TOKEN"] == 7
    c = app.test_client()
    assert [c.get("/v1/rules").status_code for _ in range(4)] == [200, 200, 200, 429]
    monkeypatch.delenv("BATAYO_RATE_LIMIT")
    monkeypatch.delenv("BATAYO_RATE_LIMIT_TOKEN")
    app = create_app(Engine(Store(fakeredis.FakeRedis())), settings=load())
    assert app.config["RATE_LIMIT"] >= 600 and app.config["RATE_LIMIT_TOKEN"] >= 300


def test_a_limiter_that_cannot_count_fails_closed_with_a_503_to_retry():
    """The limiter must never silently let requests through when its keys cannot be
    counted (a store away, a cluster node away): a 503 `unavailable` with Retry-After, and the
    limit holds again once it can count."""
    down = [True]

    class Flaky(fakeredis.FakeRedis):
        def evalsha(self, *a, **k):
            if down[0]:
                raise ConnectionError("down")
            return super().evalsha(*a, **k)

    app = create_app(Engine(Store(Flaky())))
    app.config["RATE_LIMIT"] = 1
    c = app.test_client()
    refused = c.get("/v1/rules")
    assert refused.status_code == 503 and refused.json["code"] == "unavailable"
    assert int(refused.headers["Retry-After"]) >= 1
    down[0] = False
    assert [c.get("/v1/rules").status_code for _ in range(2)] == [200, 429]


# -- bodies and fields -------------------------------------------------------------------------


def test_bodies_over_the_limit_are_413():
    engine, app, _ = make()
    c = CheckedClient(app.test_client())
    created = humans_game(c)
    gid, headers = created["id"], auth(created["seats"][0]["token"])
    big = json.dumps({"game": "bataille", "seats": [{"name": "a" * 70_000}]})
    for path in ("/v1/games", f"/v1/games/{gid}/join", f"/v1/games/{gid}/actions"):
        r = c.open("POST", path, data=big, headers=headers)
        assert r.status_code == 413 and r.json["code"] == "body_too_large", path
    assert engine.store.redis.zcard(INDEX_ALL) == 1


BAD = [
    ("/v1/games", {"game": "bataille", "seats": [{"name": "x" * 41}, {"bot": "random"}]}),
    ("/v1/games", {"game": "b" * 33, "seats": [{"bot": "random"}] * 2}),
    ("/v1/games", {"game": "bataille", "seats": [{"name": "a", "client_seed": "s" * 65}] * 2}),
    ("/v1/games", {"game": "bataille", "seats": [{"bot": "random"}] * 2, "options": {"x" * 40: 1}}),
    (
        "/v1/games",
        {"game": "bataille", "seats": [{"bot": "random"}] * 2, "options": {"deck": 2**64}},
    ),
    ("/v1/games", {"game": "bataille", "seats": [{"bot": "random"}] * 2, "options": {"deck": 5e1}}),
    (
        "/v1/games",
        {"game": "bataille", "seats": [{"bot": "random"}] * 2, "options": {"variant": "v" * 100}},
    ),
    ("/v1/games", {"game": "bataille", "seats": [{"bot": "random"}] * 9}),
    ("/v1/games", {"game": "bataille", "seats": [{"name": ""}, {"bot": "random"}]}),
    (
        "/v1/games",
        {
            "game": "bataille",
            "seats": [{"bot": "random"}] * 2,
            "deal": {"packs": [["1OH"], ["AS"]]},
        },
    ),
    (
        "/v1/games",
        {"game": "batak", "seats": [{"bot": "random"}] * 4, "deal": {"hands": [["AS"] * 13] * 4}},
    ),
    ("/v1/games", {"game": "bataille", "seats": [{"bot": "random"}] * 2, "seed": "é" * 64}),
    ("actions", {"type": "play", "card": "1OH"}),
    ("actions", {"type": "play", "card": "10X"}),
    ("actions", {"type": "play", "card": "qh"}),
    ("actions", {"type": "play", "card": "Q♥"}),
    ("actions", {"type": "play", "card": "AS" * 1000}),
    ("actions", {"type": "play", "card": ["AS"]}),
    ("actions", {"type": "bid", "tricks": 10**40}),
    ("actions", {"type": "bid", "tricks": -1}),
    ("actions", {"type": "bid", "tricks": 6.5}),
    ("actions", {"type": "bid", "tricks": True}),
    ("actions", {"type": "trump", "suit": "SPADES"}),
    ("actions", {"type": "t" * 10_000}),
    ("join", {"name": "n" * 41}),
    ("join", {"name": "ok", "client_seed": "x" * 65}),
    ("join", {"name": "ok", "admin": True}),
]


@pytest.mark.parametrize(("where", "body"), BAD)
def test_bad_fields_are_400_and_append_nothing(where, body):
    engine, app, client = make()
    c = CheckedClient(app.test_client())
    created = c.post(
        "/v1/games", json={"game": "bataille", "seats": [{"name": "ana"}, {"open": True}]}
    ).json
    gid, ana = created["id"], created["seats"][0]["token"]
    if where == "actions":
        c.post(f"/v1/games/{gid}/join", json={"name": "bob"})
        path, headers = f"/v1/games/{gid}/actions", auth(ana)
    elif where == "join":
        path, headers = f"/v1/games/{gid}/join", {}
    else:
        path, headers = where, {}
    games, version = client.zcard(INDEX_ALL), engine.store.version(gid)
    r = c.post(path, json=body, headers=headers)
    assert r.status_code == 400 and r.json["code"] == "invalid_request", r.json
    assert client.zcard(INDEX_ALL) == games and engine.store.version(gid) == version


@pytest.mark.parametrize(
    "raw",
    [
        "[" * 10_000 + "]" * 10_000,
        '{"type": ' + "[" * 3000 + "]" * 3000 + "}",
        '{"type": "flip", "card": ' + "9" * 20_000 + "}",
        '{"type": "bid", "tricks": 1e400}',
        '{"type": "bid", "tricks": NaN}',
        '{"type": "flip"} trailing',
        '{"type": "flip", "type": "play"',
        "\udcff".encode("utf-8", "surrogatepass").decode("latin-1"),
        "",
    ],
)
def test_deep_or_huge_json_is_400(raw):
    engine, app, _ = make()
    c = CheckedClient(app.test_client())
    created = humans_game(c)
    gid, ana = created["id"], created["seats"][0]["token"]
    version = engine.store.version(gid)
    r = c.open("POST", f"/v1/games/{gid}/actions", data=raw, headers=auth(ana))
    assert r.status_code == 400 and r.json["code"] == "invalid_request", r.json
    assert engine.store.version(gid) == version


NAMES = [
    "Zoë Ångström",
    "李小龍",
    "Мария",
    "🂡🃏 joker",
    "عبد الله",
    "x" * 40,
    "🙂" * 40,
    "a\u0301b",
]


def test_unicode_names_within_limits_are_kept_intact():
    _engine, app, _ = make()
    c = CheckedClient(app.test_client())
    for name in NAMES:
        created = c.post(
            "/v1/games", json={"game": "bataille", "seats": [{"name": name}, {"open": True}]}
        )
        assert created.status_code == 201, (name, created.json)
        gid = created.json["id"]
        assert created.json["seats"][0]["name"] == name
        joined = c.post(f"/v1/games/{gid}/join", json={"name": name[::-1], "client_seed": name})
        assert joined.status_code == 200, joined.json
        view = c.get(f"/v1/games/{gid}").json
        assert [s["name"] for s in view["seats"]] == [name, name[::-1]]
        events = c.get(f"/v1/games/{gid}/events").json["events"]
        assert events[1]["data"]["name"] == name[::-1]
        listed = c.get("/v1/games?limit=1").json["games"][0]
        assert listed["seats"][0]["name"] == name
        assert c.get(f"/v1/games/{gid}/verify").json["status"] == "incomplete"  # still running


# -- game ids never reach Redis unchecked ------------------------------------------------------

BAD_IDS = [
    "{abc}",
    "*",
    "game:*",
    "0123456789abcde*",
    "0123456789abcdef:meta",
    "0123456789ABCDEF",
    "0123456789abcdeg",
    "0123456789abcdef0",
    "abc\ndef",
    "abc%0Ddef",
    "..%2F..%2Fetc",
    "%7Bx%7D",
    "x" * 5000,
    "' OR 1=1",
    "\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668\u0669\u0660\u0661\u0662\u0663\u0664\u0665\u0666",
]


@pytest.mark.parametrize("bad", BAD_IDS)
def test_game_ids_are_checked_before_they_reach_redis(bad):
    _engine, app, client = make()
    c = app.test_client()
    created = humans_game(c)
    token = created["seats"][0]["token"]
    client.commands.clear()
    for method, suffix, body in [
        ("GET", "", None),
        ("GET", "/events", None),
        ("GET", "/ties", None),
        ("GET", "/verify", None),
        ("GET", "/export", None),
        ("GET", "/stream", None),
        ("POST", "/join", {"name": "x"}),
        ("POST", "/actions", {"type": "flip"}),
    ]:
        from urllib.parse import quote

        path = f"/v1/games/{quote(bad, safe='%')}{suffix}"
        r = c.open(path, method=method, json=body, headers=auth(token))
        assert r.status_code == 404, (path, r.status_code)
        assert r.mimetype == "application/problem+json"
    assert not client.commands, f"Redis was asked about {bad!r}: {client.commands[:3]}"
    assert not client.touched(bad)


def test_a_guessed_idempotency_key_does_not_hand_out_tokens():
    """Create and join keys are scoped to the client: the answer holds seat tokens."""
    _, app, _ = make()
    c = app.test_client()
    body = {"game": "bataille", "seats": [{"name": "Ana"}, {"bot": "random"}]}
    first = c.post(
        "/v1/games",
        json=body,
        headers={"Idempotency-Key": "1"},
        environ_overrides={"REMOTE_ADDR": "192.0.2.1"},
    )
    stolen = c.post(
        "/v1/games",
        json=body,
        headers={"Idempotency-Key": "1"},
        environ_overrides={"REMOTE_ADDR": "198.51.100.7"},
    )
    assert first.status_code == 201
    assert stolen.json.get("seats", [{}])[0].get("token") != first.json["seats"][0]["token"]
