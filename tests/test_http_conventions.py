"""The HTTP conventions integrators expect, on the in-process app:
CORS by allow-list, WWW-Authenticate on 401, conditional GET and strong If-Match, caching
headers, compression, RateLimit headers, idempotency keys scoped to the seat, the metrics
content type; and the inputs that once were 500s, now 4xx problems, and a store that does not
answer, a 503 problem with Retry-After on every /v1 route."""

from __future__ import annotations

import gzip
import json
import socket
from types import SimpleNamespace

import brotli
import pytest
import redis
from flask import Response
from redis.backoff import NoBackoff
from redis.retry import Retry

from service.api import create_app
from service.api.http import vary_on
from service.engine import Engine
from service.engine.dispatch import QueueDispatcher
from service.store import Store
from tests.support.client import CheckedClient
from tests.support.helpers import auth
from tests.support.service import Service, new_game


def two_seats(svc: Service, game: str = "bataille", **body) -> tuple[str, list[str]]:
    created = new_game(svc, game=game, **body)
    return created["id"], [s["token"] for s in created["seats"]]


def finished_game(svc: Service) -> str:
    created = new_game(
        svc, options={"deck": 32, "max_rounds": 5}, seats=[{"bot": "random"}, {"bot": "random"}]
    )
    svc.run_jobs()
    assert svc.client.get(f"/v1/games/{created['id']}").json["status"] == "finished"
    return created["id"]


# -- CORS -----------------------------------------------------------------------------------------


def test_cors_is_off_by_default(svc):
    r = svc.client.get("/v1/rules", headers={"Origin": "https://cards.example"})
    assert r.status_code == 200 and "Access-Control-Allow-Origin" not in r.headers


def test_cors_answers_the_allowed_origins_only():
    from service.api import create_app
    from service.settings import load
    from tests.support.client import CheckedClient

    app = create_app(Service().engine, settings=load(cors_origins="https://cards.example"))
    svc = SimpleNamespace(client=CheckedClient(app.test_client()))
    ok = svc.client.get("/v1/rules", headers={"Origin": "https://cards.example"})
    assert ok.headers["Access-Control-Allow-Origin"] == "https://cards.example"
    assert "Origin" in ok.headers["Vary"] and "ETag" in ok.headers["Access-Control-Expose-Headers"]
    other = svc.client.get("/v1/rules", headers={"Origin": "https://evil.example"})
    assert "Access-Control-Allow-Origin" not in other.headers and "Origin" in other.headers["Vary"]
    preflight = svc.client.client.options(
        "/v1/games/0123456789abcdef/actions",
        headers={
            "Origin": "https://cards.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, if-match, idempotency-key, x-other",
        },
    )
    assert preflight.status_code == 200
    assert "POST" in preflight.headers["Access-Control-Allow-Methods"]
    allowed = preflight.headers["Access-Control-Allow-Headers"].lower()
    # the requested headers the API takes, and only those
    assert {h.strip() for h in allowed.split(",")} == {
        "authorization",
        "if-match",
        "idempotency-key",
    }
    assert "Access-Control-Allow-Credentials" not in preflight.headers


# -- 401 ------------------------------------------------------------------------------------------


def test_a_401_says_how_to_authenticate(svc):
    gid, _ = two_seats(svc)
    missing = svc.client.post(f"/v1/games/{gid}/actions", json={"type": "flip"})
    assert missing.status_code == 401
    assert missing.headers["WWW-Authenticate"] == 'Bearer realm="batayo"'
    unknown = svc.client.get(f"/v1/games/{gid}", headers=auth(f"{gid}.0.not-a-token"))
    assert unknown.status_code == 401
    assert unknown.headers["WWW-Authenticate"] == 'Bearer realm="batayo", error="invalid_token"'


# -- conditional GET and If-Match -----------------------------------------------------------------


def test_if_none_match_answers_304_for_the_current_version_only(svc):
    gid, tokens = two_seats(svc)
    url = f"/v1/games/{gid}"
    first = svc.client.get(url)
    tag = first.headers["ETag"]
    assert tag == f'"{first.json["version"]}"' and "Authorization" in first.vary
    for held in (tag, f'"999", {tag}', f"W/{tag}", "*"):  # weak comparison, lists, any
        again = svc.client.get(url, headers={"If-None-Match": held})
        assert again.status_code == 304 and again.get_data() == b"", held
        assert again.headers["ETag"] == tag and "Authorization" in again.vary
    events = svc.client.get(f"{url}/events", headers={"If-None-Match": tag})
    assert events.status_code == 304
    svc.client.post(f"{url}/actions", json={"type": "flip"}, headers=auth(tokens[0]))
    moved = svc.client.get(url, headers={"If-None-Match": tag})
    assert moved.status_code == 200 and moved.headers["ETag"] != tag
    # the seat's view and the spectator's share the tag: the answer varies by token
    seat = svc.client.get(url, headers={**auth(tokens[0]), "If-None-Match": tag})
    assert seat.status_code == 200 and "Authorization" in seat.vary


def test_if_match_is_a_strong_comparison_and_takes_lists(svc):
    gid, tokens = two_seats(svc)
    url, me = f"/v1/games/{gid}/actions", auth(tokens[0])
    version = svc.client.get(f"/v1/games/{gid}").json["version"]
    weak = svc.client.post(url, json={"type": "flip"}, headers={**me, "If-Match": f'W/"{version}"'})
    assert (weak.status_code, weak.json["code"]) == (412, "version_mismatch")
    assert weak.json["version"] == version
    others = f'"{version - 1}", "{version + 5}"'
    stale = svc.client.post(url, json={"type": "flip"}, headers={**me, "If-Match": others})
    assert stale.status_code == 412 and svc.engine.store.version(gid) == version
    listed = f'"1", "{version}", W/"7"'
    applied = svc.client.post(url, json={"type": "flip"}, headers={**me, "If-Match": listed})
    assert applied.status_code == 200 and applied.json["events"][0]["version"] == version + 1
    anything = svc.client.post(
        url, json={"type": "flip"}, headers={**auth(tokens[1]), "If-Match": "*"}
    )
    assert anything.status_code == 200
    malformed = svc.client.post(url, json={"type": "flip"}, headers={**me, "If-Match": "soon"})
    assert (malformed.status_code, malformed.json["code"]) == (400, "invalid_request")


# -- caching --------------------------------------------------------------------------------------


def test_only_what_can_no_longer_change_is_cached_for_good(svc):
    gid, tokens = two_seats(svc)
    url = f"/v1/games/{gid}"
    assert svc.client.get(url).headers["Cache-Control"] == "no-cache"
    assert svc.client.get(url, headers=auth(tokens[0])).headers["Cache-Control"] == (
        "private, no-cache"
    )
    replay = svc.client.get(f"{url}?at=1").headers["Cache-Control"]
    assert replay.startswith("public, max-age=") and replay.endswith(", immutable")
    mine = svc.client.get(f"{url}?at=1", headers=auth(tokens[0])).headers["Cache-Control"]
    assert mine.startswith("private, max-age=") and mine.endswith(", immutable")
    assert svc.client.get(f"{url}/events").headers["Cache-Control"] == "no-cache"
    done = finished_game(svc)
    for path in ("", "/events", "/export"):
        control = svc.client.get(f"/v1/games/{done}{path}").headers["Cache-Control"]
        assert control.startswith("public, max-age=") and "immutable" in control, path


# -- compression ----------------------------------------------------------------------------------


def test_large_answers_are_compressed_as_the_client_prefers(svc):
    done = finished_game(svc)
    url = f"/v1/games/{done}/events?limit=1000"
    plain = svc.client.get(url)
    assert "Content-Encoding" not in plain.headers and "Accept-Encoding" in plain.headers["Vary"]
    zipped = svc.client.client.get(url, headers={"Accept-Encoding": "gzip"})
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert json.loads(gzip.decompress(zipped.get_data())) == plain.json
    both = svc.client.client.get(url, headers={"Accept-Encoding": "gzip;q=0.8, br"})
    assert both.headers["Content-Encoding"] == "br"
    assert json.loads(brotli.decompress(both.get_data())) == plain.json
    assert max(len(both.get_data()), len(zipped.get_data())) < len(plain.get_data()) / 2
    refused = svc.client.client.get(url, headers={"Accept-Encoding": "br;q=0, gzip;q=0"})
    assert "Content-Encoding" not in refused.headers
    small = svc.client.client.get("/healthz", headers={"Accept-Encoding": "gzip, br"})
    assert "Content-Encoding" not in small.headers


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (None, "Accept-Encoding"),
        ("Origin", "Origin, Accept-Encoding"),
        ("Origin, accept-encoding", "Origin, accept-encoding"),  # field names: any case
        ("*", "*"),  # already varies on everything
    ],
)
def test_vary_names_each_field_once(before, after):
    response = Response("{}", mimetype="application/json")
    if before is not None:
        response.headers["Vary"] = before
    vary_on(response, "Accept-Encoding")
    vary_on(response, "Accept-Encoding")
    assert response.headers["Vary"] == after


def test_a_stream_is_never_compressed(svc):
    done = finished_game(svc)
    r = svc.client.client.get(
        f"/v1/games/{done}/stream", headers={"Accept-Encoding": "gzip, br"}, buffered=True
    )
    assert r.mimetype == "text/event-stream" and "Content-Encoding" not in r.headers
    assert b"id: 1\n" in r.get_data()


# -- rate limit headers ---------------------------------------------------------------------------


def test_limited_answers_carry_the_ratelimit_headers():
    svc = Service()
    app = svc.client.client.application
    app.config["RATE_LIMIT"], app.config["RATE_LIMIT_TOKEN"] = 5, 3
    first = svc.client.get("/v1/rules")
    assert first.headers["RateLimit-Policy"] == '"client";q=5;w=60'
    assert first.headers["RateLimit"].startswith('"client";r=4;t=')
    assert svc.client.get("/v1/rules").headers["RateLimit"].startswith('"client";r=3;')
    gid, tokens = two_seats(svc)  # the third request
    seat = svc.client.get(f"/v1/games/{gid}", headers=auth(tokens[0]))
    assert seat.headers["RateLimit-Policy"] == '"client";q=5;w=60, "token";q=3;w=60'
    assert seat.headers["RateLimit"].startswith('"client";r=1;')  # the closest limit
    for _ in range(2):  # the token's second request, and one more: the client's fifth
        seat = svc.client.get(f"/v1/games/{gid}", headers=auth(tokens[0]))
    assert seat.headers["RateLimit"].startswith('"client";r=0;')
    over = svc.client.get("/v1/rules")
    assert over.status_code == 429 and over.headers["RateLimit"].startswith('"client";r=0;')
    assert int(over.headers["Retry-After"]) >= 1
    assert "RateLimit" not in svc.client.get("/healthz").headers
    app.config["RATE_LIMIT"] = app.config["RATE_LIMIT_TOKEN"] = 0
    assert "RateLimit" not in svc.client.get("/v1/rules").headers


# -- idempotency keys of actions are the seat's own -----------------------------------------------


def test_an_action_idempotency_key_is_scoped_to_its_seat(svc):
    gid, tokens = two_seats(svc, game="batayo", options={"format": "express"})
    key = {"Idempotency-Key": "same-key"}
    answers = []
    for token in tokens:  # both seats commit at once, with one key: two actions, no replay
        mine = svc.client.get(f"/v1/games/{gid}", headers=auth(token)).json
        body = mine["legal_actions"][0]
        r = svc.client.post(f"/v1/games/{gid}/actions", json=body, headers={**auth(token), **key})
        assert r.status_code == 200, r.json
        answers.append(r.json["events"][0])
    assert answers[0]["version"] != answers[1]["version"]
    assert {e["data"]["seat"] for e in answers if e["type"] == "committed"} == {0, 1}


# -- metrics --------------------------------------------------------------------------------------


def test_metrics_say_their_charset_once(svc):
    r = svc.client.get("/metrics")
    assert r.headers["Content-Type"].count("charset") == 1
    assert r.headers["Content-Type"].startswith("text/plain; version=")


# -- never a 500 ----------------------------------------------------------------------------------


@pytest.mark.parametrize("digit", ["²", "٣", "\uff11"])  # superscript, Arabic-Indic, full-width
def test_non_ascii_digits_in_a_query_or_last_event_id_are_400(svc, digit):
    gid, _ = two_seats(svc)
    for url in (
        f"/v1/games?limit={digit}",
        f"/v1/games/{gid}?at={digit}",
        f"/v1/games/{gid}/events?after={digit}",
        f"/v1/games/{gid}/events?limit={digit}",
        f"/v1/games/{gid}/ties?offset={digit}",
        f"/v1/games/{gid}/stream?after={digit}",
    ):
        r = svc.client.get(url)
        assert (r.status_code, r.json["code"]) == (400, "invalid_request"), url
    bad = svc.client.client.get(
        f"/v1/games/{gid}/stream", headers={"Last-Event-ID": digit.encode().decode("latin-1")}
    )
    assert bad.status_code == 400


def _raw(svc: Service, path: str, text: str, headers: dict | None = None):
    return svc.client.open("POST", path, data=text, headers=headers or {})


def test_a_lone_surrogate_in_a_name_or_seed_is_400_and_frees_its_key(svc):
    key = {"Idempotency-Key": "surrogate"}
    for seat in ('{"name": "\\ud800"}', '{"name": "ana", "client_seed": "x\\udfff"}'):
        body = '{"game": "bataille", "seats": [' + seat + ', {"name": "bob"}]}'
        r = _raw(svc, "/v1/games", body, key)
        assert (r.status_code, r.json["code"]) == (400, "invalid_request")
    fine = svc.client.post(
        "/v1/games",
        json={"game": "bataille", "seats": [{"name": "ana"}, {"open": True}]},
        headers=key,
    )
    assert fine.status_code == 201  # the key was never left claimed
    join = _raw(svc, f"/v1/games/{fine.json['id']}/join", '{"name": "\\udc00bob"}')
    assert (join.status_code, join.json["code"]) == (400, "invalid_request")
    assert svc.engine.store.version(fine.json["id"]) == fine.json["version"]


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed once we return: nothing listens there


def test_every_v1_route_answers_503_while_the_store_does_not_answer():
    client = redis.Redis(
        port=_closed_port(), socket_connect_timeout=0.5, retry=Retry(NoBackoff(), 0)
    )
    app = create_app(Engine(Store(client), QueueDispatcher()))
    checked = CheckedClient(app.test_client(), unavailable=True)
    gid = "0123456789abcdef"
    body = {"game": "bataille", "seats": [{"name": "ana"}, {"name": "bob"}]}
    requests = [
        ("GET", "/v1/rules", None),
        ("POST", "/v1/seeds", None),
        ("POST", "/v1/games", body),
        ("GET", "/v1/games", None),
        ("GET", f"/v1/games/{gid}", None),
        ("POST", f"/v1/games/{gid}/join", {"name": "cy"}),
        ("POST", f"/v1/games/{gid}/actions", {"type": "flip"}),
        ("GET", f"/v1/games/{gid}/events", None),
        ("GET", f"/v1/games/{gid}/verify", None),
        ("GET", f"/v1/games/{gid}/ties", None),
        ("GET", f"/v1/games/{gid}/stream", None),
        ("GET", f"/v1/games/{gid}/export", None),
        ("GET", f"/v1/games/{gid}/hint", None),
    ]
    token = {"Authorization": f"Bearer {gid}.0.x"}
    for method, path, payload in requests:
        r = checked.open(method, path, json_body=payload, headers=token)
        # the rules too: the rate limiter cannot count, and fails closed (never open)
        assert (r.status_code, r.json["code"]) == (503, "unavailable"), (method, path)
        assert r.headers["Retry-After"] == "1"
    ready = checked.get("/readyz")
    assert ready.status_code == 503 and ready.headers["Retry-After"] == "1"
    assert checked.get("/healthz").status_code == 200


# -- numbers as JSON Schema has them --------------------------------------------------------------


def test_a_whole_number_written_with_a_fraction_is_that_integer(svc):
    """JSON Schema's `integer` takes 6.0 (the spec says so): the server does too, as the int
    6, everywhere an integer is expected; 6.5 is refused."""
    from service.core.shapes import check_action
    from service.games.batak.header import ACTIONS

    bid = check_action(ACTIONS, {}, {"type": "bid", "tricks": 6.0})
    assert bid == {"type": "bid", "tricks": 6} and type(bid["tricks"]) is int
    created = new_game(svc, game="batak", options={"deals": 3.0}, seats=[{"bot": "random"}] * 4)
    options = svc.client.get(f"/v1/games/{created['id']}").json["options"]
    assert options["deals"] == 3 and type(options["deals"]) is int
    page = svc.client.get(f"/v1/games/{created['id']}/events?limit=2.0")
    assert page.status_code == 400  # a query's integer is digits
    refused = svc.client.post(
        "/v1/games",
        json={"game": "batak", "options": {"deals": 3.5}, "seats": [{"bot": "random"}] * 4},
    )
    assert refused.status_code == 400
