"""Hostile inputs an outside red team sent, and what they get: a problem+json answer that names
what is wrong and changes nothing, never a 500.

- a seat token whose seat is a digit that is not ASCII (`²`: `str.isdigit()` says yes, `int()`
  says no), on every route that reads a token, and such digits wherever a number is parsed;
"""

from __future__ import annotations

import fakeredis
import pytest

from service.api import create_app
from service.engine import Engine, tokens
from service.engine.dispatch import QueueDispatcher
from service.store import Store
from tests.support.helpers import auth

# digits `str.isdigit()` takes that `int()` refuses, or reads as a number though not ASCII
NOT_ASCII_DIGITS = ["²", "¹", "³", "⁰", "①", "1²", "²1", "\U0001d7cf"]  # the last: bold 1


def make(**config):
    engine = Engine(Store(fakeredis.FakeRedis()), QueueDispatcher(), test_games=True)
    app = create_app(engine)
    app.config.update({"RATE_LIMIT": 0, "RATE_LIMIT_TOKEN": 0, **config})
    return engine, app


def created(client, **extra) -> dict:
    body = {"game": "bataille", "seats": [{"name": "ana"}, {"name": "bob"}], **extra}
    r = client.post("/v1/games", json=body)
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def is_problem(r) -> bool:
    body = r.get_json(silent=True)
    return r.mimetype == "application/problem+json" and isinstance(body, dict) and "code" in body


# -- 1. not-ASCII digits -----------------------------------------------------------------------

BODIES = {
    "/v1/games": {"game": "bataille", "seats": [{"name": "x"}, {"name": "y"}]},
    "/v1/games/<game_id>/actions": {"type": "flip"},
    "/v1/games/<game_id>/join": {"name": "carl"},
}


def every_route(app) -> list[tuple[str, str]]:
    """(method, rule) of every route the app serves, the browser pages too."""
    out = []
    for rule in app.url_map.iter_rules():
        if rule.endpoint == "static":
            continue
        out += [(m, rule.rule) for m in sorted(rule.methods - {"HEAD", "OPTIONS"})]
    return out


@pytest.mark.parametrize("digit", NOT_ASCII_DIGITS)
def test_a_token_whose_seat_is_not_an_ascii_number_is_a_401_on_every_route(digit):
    engine, app = make()
    c = app.test_client()
    game = created(c)
    gid, secret = game["id"], game["seats"][0]["token"].split(".")[-1]
    before = engine.store.version(gid)
    bad, malformed = f"{gid}.{digit}.{secret}", f"{gid}.x.{secret}"
    read_a_token = 0
    for method, rule in every_route(app):
        path = rule.replace("<game_id>", gid)
        kwargs = {"json": BODIES[rule]} if rule in BODIES else {}
        r = c.open(path, method=method, headers=auth(bad), **kwargs)
        assert r.status_code != 500, (method, rule, r.get_data(as_text=True))
        # the same answer as any malformed token: a route that reads tokens says 401
        plain = c.open(path, method=method, headers=auth(malformed), **kwargs)
        assert r.status_code == plain.status_code, (method, rule)
        if r.status_code == 401:
            read_a_token += 1
            assert is_problem(r) and r.get_json()["code"] == "unauthorized", (method, rule)
            assert r.headers["WWW-Authenticate"].startswith("Bearer ")
        r.close()
        plain.close()
    # the view, actions, join? no: view, actions, hint, events, ties, verify, stream
    assert read_a_token >= 7, read_a_token
    assert engine.store.version(gid) == before


@pytest.mark.parametrize("digit", NOT_ASCII_DIGITS)
def test_tokens_parse_only_ascii_seats(digit):
    assert tokens.parse(f"{'0' * 16}.{digit}.secret") is None
    assert tokens.parse(f"{'0' * 16}.1.secret") == ("0" * 16, 1)


@pytest.mark.parametrize("digit", ["²", "1²", "①"])
def test_a_content_length_of_not_ascii_digits_is_never_a_500(digit):
    engine, app = make()
    c = app.test_client()
    game = created(c)
    gid, token = game["id"], game["seats"][0]["token"]
    before = engine.store.version(gid)
    environ = {"CONTENT_LENGTH": digit, "CONTENT_TYPE": "application/json"}
    r = c.post(
        f"/v1/games/{gid}/actions",
        data=b'{"type": "flip"}',
        headers=auth(token),
        environ_overrides=environ,
    )
    assert r.status_code != 500, r.get_data(as_text=True)
    assert engine.store.version(gid) == before


@pytest.mark.parametrize("digit", ["²", "1²", "①"])
def test_if_match_and_last_event_id_of_not_ascii_digits_are_400(digit):
    engine, app = make()
    c = app.test_client()
    game = created(c)
    gid, token = game["id"], game["seats"][0]["token"]
    before = engine.store.version(gid)
    r = c.post(
        f"/v1/games/{gid}/actions",
        json={"type": "flip"},
        headers={**auth(token), "If-Match": digit},
    )
    assert r.status_code == 400 and is_problem(r), r.get_data(as_text=True)
    r = c.get(f"/v1/games/{gid}/stream", headers={"Last-Event-ID": digit})
    assert r.status_code == 400 and is_problem(r), r.get_data(as_text=True)
    r = c.get(f"/v1/games/{gid}?at={digit}")
    assert r.status_code == 400 and is_problem(r), r.get_data(as_text=True)
    assert engine.store.version(gid) == before


def test_the_cli_takes_only_ascii_numbers_as_numbers():
    from service.cli import _parse_option

    assert _parse_option("max_rounds=12") == ("max_rounds", 12)
    assert _parse_option("max_rounds=-3") == ("max_rounds", -3)
    assert _parse_option("max_rounds=²") == ("max_rounds", "²")
    assert _parse_option("max_rounds=--3") == ("max_rounds", "--3")
