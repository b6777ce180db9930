"""Hostile inputs an outside red team sent, and what they get: a problem+json answer that names
what is wrong and changes nothing, never a 500.

- a seat token whose seat is a digit that is not ASCII (`²`: `str.isdigit()` says yes, `int()`
  says no), on every route that reads a token, and such digits wherever a number is parsed;
- an action whose body ends before its `Content-Length` (the client went away): a 400, on the
  direct path (service/api/direct.py) and Flask's, in process and on a real server;
- names and client seeds with control characters (service/core/plain.py): refused, since a
  terminal obeys them and a newline in a seed makes two sets of seeds one salt; and `batayo
  replay` strips them from what it prints (names from older logs);
- made-up methods and paths: the request metric's labels stay within fixed sets, so /metrics
  does not grow with what clients send;
- `/export` and `?at=N` asked for again and again: a finished game's export and a past
  version's state are built once (counted, never timed), and what each caller is shown of a
  kept state is still its own.
"""

from __future__ import annotations

import io
import json
import random
import re
import socket

import fakeredis
import jsonschema_rs
import pytest
from click.testing import CliRunner
from werkzeug.test import EnvironBuilder

from service.api import create_app
from service.cli.replay import replay
from service.core import fairness, plain
from service.core.state import fold
from service.core.views import game_view
from service.engine import Engine, tokens
from service.engine.dispatch import QueueDispatcher
from service.store import Store
from tests.support.client import CheckedClient
from tests.support.helpers import auth
from tests.support.service import Service
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


def seated(direct_path: bool = True):
    """An app with a new game: (engine, test client, game id, seat 0's token, its version)."""
    engine, app = make(direct_path=direct_path)
    c = app.test_client()
    game = created(c)
    gid = game["id"]
    return engine, c, gid, game["seats"][0]["token"], engine.store.version(gid)


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
    engine, c, gid, token, before = seated()
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
    engine, c, gid, token, before = seated()
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
    engine, c, gid, token, before = seated(direct_path)
    environ = EnvironBuilder(
        path=f"/v1/games/{gid}/actions",
        method="POST",
        headers={**auth(token), "Content-Type": "application/json"},
    ).get_environ()
    environ["CONTENT_LENGTH"] = "100"
    environ["wsgi.input"] = Raising() if body == "raises" else io.BytesIO(body)
    status, headers, answer = wsgi_call(c.application, environ)
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


# -- 3. control characters in names and client seeds -------------------------------------------

CONTROLS = [
    "\x00",
    "\t",
    "\n",
    "\r",
    "\x1b",  # ESC: "\x1b[2J" clears a terminal, "\x1b]0;...\x07" retitles it
    "\x7f",
    "\x85",  # NEL, a C1 control
    "\x9b",  # CSI, a C1 control
    "\u2028",  # line separator
    "\u2029",  # paragraph separator
    "\u202e",  # right-to-left override: "evil\u202etxt.exe" shows as "evilexe.txt"
    "\u2066",  # left-to-right isolate
    "\u200f",  # right-to-left mark
]
# format characters that are parts of real names, kept
KEPT = [
    "👩\u200d💻",  # an emoji sequence with a zero-width joiner
    "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",  # Persian, a zero-width non-joiner in it
    "Ma\u00adrie",  # a soft hyphen
    "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",  # a flag: tag characters
]


def test_a_newline_in_client_seeds_made_two_seed_sets_one_salt():
    """Why seeds refuse it: the salt hashes the seeds joined by newlines (docs/fairness.md)."""
    assert fairness.salt(["a\nb", "c"]) == fairness.salt(["a", "b\nc"])
    assert not plain.is_plain("a\nb")


@pytest.mark.parametrize("char", CONTROLS, ids=lambda c: f"U+{ord(c):04X}")
@pytest.mark.parametrize("field", ["name", "client_seed"])
def test_names_and_client_seeds_with_control_characters_are_400(char, field):
    engine, app = make()
    c = CheckedClient(app.test_client())  # the answers, the 400s too, as the contract says
    seat = {"name": "ana", "client_seed": "s", field: f"x{char}y"}
    body = {"game": "bataille", "seats": [seat, {"open": True}]}
    r = c.post("/v1/games", json=body)
    assert r.status_code == 400 and r.json["code"] == "invalid_request", r.json
    assert f"seats.0.{field}" in r.json["detail"] and "control" in r.json["detail"]
    assert r.json["errors"]["seats"]["0"][field]
    assert engine.store.status_counts().get("open", 0) == 0  # no game was made
    game = c.post("/v1/games", json={"game": "bataille", "seats": [{"open": True}] * 2}).json
    gid = game["id"]
    before = engine.store.version(gid)
    r = c.post(f"/v1/games/{gid}/join", json={"name": "bob", "client_seed": "s", field: char})
    assert r.status_code == 400 and r.json["code"] == "invalid_request", r.json
    assert field in r.json["detail"] and field in r.json["errors"]
    assert engine.store.version(gid) == before


@pytest.mark.parametrize("name", KEPT)
def test_format_characters_of_real_names_are_kept(name):
    _engine, app = make()
    c = CheckedClient(app.test_client())
    body = {"game": "bataille", "seats": [{"name": name, "client_seed": name}, {"name": "b"}]}
    r = c.post("/v1/games", json=body)
    assert r.status_code == 201, r.json
    view = c.get(f"/v1/games/{r.json['id']}").json
    assert view["seats"][0]["name"] == name


def test_the_contract_and_the_schemas_refuse_the_same_characters():
    from service.api.openapi import build, builtin

    doc = build(builtin())["components"]["schemas"]
    for schema in ("Join", "SeatPerson"):
        props = doc[schema]["properties"]
        assert props["name"]["pattern"] == props["client_seed"]["pattern"] == plain.PATTERN
        assert props["name"]["maxLength"] == plain.NAME_MAX
        assert props["client_seed"]["maxLength"] == plain.CLIENT_SEED_MAX
        assert "refused" in props["name"]["description"].lower()
    # the contract's pattern (ECMA-262, as a client's JSON Schema validator reads it) refuses
    # what the API refuses, and keeps what it keeps
    pattern = jsonschema_rs.validator_for(doc["Join"]["properties"]["client_seed"])
    for char in CONTROLS:
        assert not pattern.is_valid(f"x{char}y") and not pattern.is_valid(char), repr(char)
    for name in KEPT:
        assert pattern.is_valid(name), name


def test_the_replay_prints_no_control_character_of_an_old_log():
    """A name taken before the API refused them (written here past the API's checks)."""
    svc = Service()
    evil = "ana\x1b[2J\x1b]0;pwned\x07\u202e\x9b31m"
    created = svc.engine.create(
        {"game": "bataille", "options": {}, "seats": [{"name": evil}, {"name": "bob\r\nx"}]}
    )
    gid = created["id"]

    def fetch(path: str, headers: dict) -> tuple[int, bytes]:
        response = svc.client.get(path, headers=headers)
        return response.status_code, response.get_data()

    out = CliRunner().invoke(replay, [gid], obj={"fetch": fetch})
    assert out.exit_code == 0, out.output
    assert "ana[2J]0;pwned31m" in out.output and "bobx" in out.output
    assert not any(ch in out.output for ch in "\x1b\x07\u202e\x9b\r"), repr(out.output)


# -- 4. the request metric's labels --------------------------------------------------------------

METHODS = {"GET", "POST", "HEAD", "OPTIONS", "PUT", "DELETE", "PATCH"}
TOKEN_CHARS = "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def request_series(text: str) -> list[tuple[str, str, str]]:
    return [
        m.groups()
        for m in re.finditer(
            r'^batayo_http_requests_total\{method="([^"]*)",route="([^"]*)",status="([^"]*)"\}',
            text,
            re.MULTILINE,
        )
    ]


def test_made_up_methods_and_paths_leave_the_request_series_bounded():
    engine, app = make()
    c = app.test_client()
    gid = created(c)["id"]
    before = engine.store.version(gid)
    rules = {r.rule for r in app.url_map.iter_rules()}
    rng = random.Random(7)

    def hostile(n: int) -> None:
        for _ in range(n):
            method = "".join(rng.choice(TOKEN_CHARS) for _ in range(rng.randint(1, 12)))
            if rng.random() < 0.3:
                method = rng.choice(sorted(METHODS))
            word = "".join(rng.choice("abcdefxyz0123456789") for _ in range(rng.randint(1, 20)))
            path = rng.choice(
                [
                    f"/{word}",
                    f"/v1/{word}",
                    f"/v1/games/{word}",
                    f"/v1/games/{gid}/{word}",
                    f"/v1/games/{rng.getrandbits(64):016x}",
                    f"/v1/games/{gid}",
                    "/v1/rules",
                ]
            )
            r = c.open(path, method=method)
            assert r.status_code != 500, (method, path)
            r.close()

    hostile(1500)
    first = request_series(c.get("/metrics").get_data(as_text=True))
    hostile(1500)
    text = c.get("/metrics").get_data(as_text=True)
    series = request_series(text)
    assert {m for m, _, _ in series} <= METHODS | {"other"}
    assert {r for _, r, _ in series} <= rules | {"unmatched"}
    assert len(series) < 120, len(series)
    # what is new after as many requests again is a few more (method, route, status) only
    assert len(set(series) - set(first)) < 15, sorted(set(series) - set(first))
    assert len(text) < 40_000, len(text)
    assert engine.store.version(gid) == before


# -- 5. exports and past versions, built once --------------------------------------------------


def counting(monkeypatch, name: str, source) -> list:
    """Count the calls of `source.<name>` wherever the service imported it by name."""
    import sys

    calls: list = []
    real = getattr(source, name)

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    for module in list(sys.modules.values()):
        if (module.__name__ or "").startswith("service") and getattr(module, name, None) is real:
            monkeypatch.setattr(module, name, counted)
    return calls


def finished_bot_game(svc: Service) -> str:
    body = {
        "game": "bataille",
        "options": {"max_rounds": 30},
        "seats": [{"bot": "random"}, {"bot": "greedy"}],
    }
    gid = svc.client.post("/v1/games", json=body).json["id"]
    svc.run_jobs()
    assert svc.client.get(f"/v1/games/{gid}").json["status"] == "finished"
    return gid


def test_a_finished_games_export_is_built_once(monkeypatch):
    from service.core import views

    svc = Service()
    gid = finished_bot_game(svc)
    other = finished_bot_game(svc)
    events = svc.engine.store.version(gid)
    shown = counting(monkeypatch, "shown_event", views)
    first = svc.client.get(f"/v1/games/{gid}/export")
    assert first.status_code == 200 and len(first.json["events"]) == events
    built = len(shown)
    assert built == events
    for _ in range(5):
        again = svc.client.get(f"/v1/games/{gid}/export")
        assert again.get_data() == first.get_data()
    assert len(shown) == built  # none shown again
    # another game's export is its own
    assert svc.client.get(f"/v1/games/{other}/export").json["id"] == other
    assert len(shown) == built + svc.engine.store.version(other)


def test_a_game_in_play_is_refused_export_before_its_log_is_read(monkeypatch):
    from service.core import views

    svc = Service()
    gid = svc.client.post(
        "/v1/games", json={"game": "bataille", "seats": [{"name": "a"}, {"name": "b"}]}
    ).json["id"]
    shown = counting(monkeypatch, "shown_event", views)
    r = svc.client.get(f"/v1/games/{gid}/export")
    assert r.status_code == 409 and r.json["code"] == "game_not_over"
    assert shown == []


def played_ouverte(svc: Service, flips: int) -> tuple[str, list[str]]:
    """Bataille `ouverte`: each seat sees its own pack, so each caller's view is its own."""
    body = {
        "game": "bataille",
        "options": {"variant": "ouverte", "deck": 32},
        "seats": [{"name": "ana"}, {"name": "bob"}],
    }
    created = svc.client.post("/v1/games", json=body).json
    gid, toks = created["id"], [s["token"] for s in created["seats"]]
    for _ in range(flips):
        view = svc.client.get(f"/v1/games/{gid}").json
        if view["status"] != "playing":
            break
        seat = view["to_move"][0]
        mine = svc.client.get(f"/v1/games/{gid}", headers=auth(toks[seat])).json
        action = mine["legal_actions"][0]
        r = svc.client.post(f"/v1/games/{gid}/actions", json=action, headers=auth(toks[seat]))
        assert r.status_code == 200, r.json
    return gid, toks


def test_a_past_version_is_folded_once_and_each_caller_sees_their_own(monkeypatch):
    from service.core import state as state_module

    svc = Service()
    gid, toks = played_ouverte(svc, 12)
    latest = svc.engine.store.version(gid)
    log = svc.engine.all_events(gid)
    at = latest - 4
    callers = {None: {}, 0: auth(toks[0]), 1: auth(toks[1])}
    applied = counting(monkeypatch, "apply", state_module)
    answers = {}
    for seat, headers in callers.items():
        answers[seat] = svc.client.get(f"/v1/games/{gid}?at={at}", headers=headers).json
    folded = len(applied)
    assert 0 < folded <= at
    for _ in range(3):
        for seat, headers in callers.items():
            again = svc.client.get(f"/v1/games/{gid}?at={at}", headers=headers).json
            assert again == answers[seat]
    assert len(applied) == folded  # kept: never folded again, whoever asks
    # each caller's view is what the rules show that caller of that version, nothing more
    past = fold(log[:at])
    for seat in callers:
        assert answers[seat] == json.loads(json.dumps(game_view(past, seat))), seat
    assert answers[0]["table"] != answers[1]["table"] != answers[None]["table"]


def test_walking_the_versions_folds_one_event_a_step(monkeypatch):
    from service.core import state as state_module

    svc = Service()
    gid, _ = played_ouverte(svc, 20)
    latest = svc.engine.store.version(gid)
    applied = counting(monkeypatch, "apply", state_module)
    for at in range(1, latest + 1):
        assert svc.client.get(f"/v1/games/{gid}?at={at}").json["version"] == at
    assert len(applied) <= latest  # not 1 + 2 + ... + latest
    before = len(applied)
    for at in range(latest, 0, -1):
        svc.client.get(f"/v1/games/{gid}?at={at}")
    assert len(applied) == before
