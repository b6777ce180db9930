"""Hostile inputs an outside red team sent, and what they get: a problem+json answer that names
what is wrong and changes nothing, never a 500.

- a seat token whose seat is a digit that is not ASCII (`²`: `str.isdigit()` says yes, `int()`
  says no), on every route that reads a token, and such digits wherever a number is parsed;
- an action whose body ends before its `Content-Length` (the client went away): a 400, on the
  direct path (service/api/direct.py) and Flask's, in process and on a real server;
"""

from __future__ import annotations

import io
import json
import socket

import fakeredis
import pytest
from werkzeug.test import EnvironBuilder

from service.api import create_app
from service.engine import Engine, tokens
from service.engine.dispatch import QueueDispatcher
from service.store import Store
from tests.support.helpers import auth
from tests.support.serving import call, new_game, production

# digits `str.isdigit()` takes that `int()` refuses, or reads as a number though not ASCII
NOT_ASCII_DIGITS = ["²", "¹", "³", "⁰", "①", "1²", "²1", "\U0001d7cf"]  # the last: bold 1


def make(direct_path: bool = True, **config):
    engine = Engine(Store(fakeredis.FakeRedis()), QueueDispatcher(), test_games=True)
    app = create_app(engine, direct_path=direct_path)
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


# -- 2. a body shorter than its Content-Length -------------------------------------------------

FLIP = b'{"type": "flip"}'


class Raising(io.RawIOBase):
    """A WSGI input that fails, as gevent's does when the client goes away mid-body."""

    def readable(self) -> bool:
        return True

    def readinto(self, b):
        raise OSError("unexpected end of file while reading request at position 0")

    def read(self, size=-1):
        raise OSError("unexpected end of file while reading request at position 0")


def wsgi_call(app, environ) -> tuple[str, list, bytes]:
    out = {}

    def start_response(status, headers, exc_info=None):
        out["status"], out["headers"] = status, headers

    body = b"".join(app(environ, start_response))
    return out["status"], out["headers"], body


@pytest.mark.parametrize("direct_path", [True, False], ids=["direct", "flask"])
@pytest.mark.parametrize(
    "body",
    [FLIP, b"", FLIP[:5], "raises"],
    ids=["whole_json_but_short", "empty", "cut", "raises"],
)
def test_an_action_shorter_than_its_content_length_is_a_400(direct_path, body):
    engine, app = make(direct_path=direct_path)
    c = app.test_client()
    game = created(c)
    gid, token = game["id"], game["seats"][0]["token"]
    before = engine.store.version(gid)
    environ = EnvironBuilder(
        path=f"/v1/games/{gid}/actions",
        method="POST",
        headers={**auth(token), "Content-Type": "application/json"},
    ).get_environ()
    environ["CONTENT_LENGTH"] = "100"
    environ["wsgi.input"] = Raising() if body == "raises" else io.BytesIO(body)
    status, headers, answer = wsgi_call(app, environ)
    assert status.startswith("400"), (status, answer)
    assert dict(headers)["Content-Type"] == "application/problem+json"
    problem = json.loads(answer)
    assert problem["code"] == "invalid_request" and "Content-Length" in problem["detail"]
    assert engine.store.version(gid) == before
    # the request was counted once, under the action's route
    metrics = c.get("/metrics").get_data(as_text=True)
    assert 'route="/v1/games/<game_id>/actions",status="400"} 1.0' in metrics


@pytest.mark.parametrize("body", [FLIP, FLIP[:5]], ids=["whole_json_but_short", "cut"])
def test_on_a_real_server_a_body_cut_short_is_a_400(tmp_path, redis_url, body):
    server = production(tmp_path, redis_url)
    try:
        gid, seats = new_game(server.port)
        _, view, _ = call(server.port, "GET", f"/v1/games/{gid}")
        token = seats[view["to_move"][0]]
        head = (
            f"POST /v1/games/{gid}/actions HTTP/1.1\r\nHost: x\r\n"
            f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
            "Content-Length: 100\r\nConnection: close\r\n\r\n"
        ).encode()
        with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
            sock.sendall(head + body)
            sock.shutdown(socket.SHUT_WR)  # the client is done: the body ends here
            raw = b""
            while chunk := sock.recv(65536):
                raw += chunk
        status_line, _, rest = raw.partition(b"\r\n")
        assert status_line.split()[1] == b"400", raw
        fields, _, answer = rest.partition(b"\r\n\r\n")
        assert b"application/problem+json" in fields.lower(), raw
        assert "Content-Length" in json.loads(answer)["detail"]
        _, after, _ = call(server.port, "GET", f"/v1/games/{gid}")
        assert after["version"] == view["version"]
    finally:
        server.stop()
    assert "Traceback" not in server.text()
