"""The contract is generated from the game registry: the committed openapi.yaml is
exactly the built-in games' document, it is valid OpenAPI, it has the app's operations, the
server serves its own registry's document (a registered game included) at /openapi.json, and
every game's view, event and result as the server makes them fit their schemas. (Every answer
the API tests see is also validated against it: tests/support/client.py.)"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import fakeredis
import jsonschema_rs
import pytest
import yaml
from openapi_spec_validator import validate

from service.api import create_app
from service.api.openapi import build, builtin, document, dump, problem_codes
from service.api.openapi.game_parts import camel
from service.api.problems import FRAMEWORK
from service.core.registry import GAMES
from service.engine import Engine
from service.sim.table import Table
from service.store import Store
from tests.support import toy
from tests.support.client import SPEC

ROOT = Path(__file__).resolve().parent.parent
API_ROOT_ROUTES = {"/healthz", "/readyz", "/metrics", "/metrics/service", "/openapi.json"}


@pytest.fixture
def duel():
    GAMES.register(toy.GAME)
    yield toy.GAME
    GAMES.unregister(toy.GAME.name)


def test_the_committed_spec_is_the_generated_one():
    """Regenerate with `python -m service.api.openapi > openapi.yaml`; never edit it by hand."""
    generated = dump(build(builtin()))
    assert SPEC.read_text() == generated, "openapi.yaml is stale: regenerate it"
    out = subprocess.run(
        [sys.executable, "-m", "service.api.openapi"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={**os.environ, "BATAYO_EXTRA_GAMES": "tests.support.toy"},
    )
    assert out.stdout == generated  # an extra game never enters the committed file


def test_the_spec_is_valid_openapi():
    validate(yaml.safe_load(SPEC.read_text()))


def test_the_spec_and_the_app_have_the_same_operations():
    app = create_app(Engine(Store(fakeredis.FakeRedis())))
    served = set()
    for rule in app.url_map.iter_rules():
        if not (rule.rule.startswith("/v1/") or rule.rule in API_ROOT_ROUTES):
            continue  # the browser pages are not part of the API contract
        path = re.sub(r"<(?:[^:>]+:)?([^>]+)>", r"{\1}", rule.rule)
        served |= {(m.lower(), path) for m in rule.methods - {"HEAD", "OPTIONS"}}
    spec = yaml.safe_load(SPEC.read_text())
    documented = {
        (method, path)
        for path, item in spec["paths"].items()
        for method in item
        if method in {"get", "post", "put", "patch", "delete"}
    }
    assert served == documented


def test_every_operation_says_who_may_call_it_and_v1_ones_answer_503_and_429():
    spec = yaml.safe_load(SPEC.read_text())
    for path, item in spec["paths"].items():
        for method, op in item.items():
            assert "security" in op, (method, path)
            if path.startswith("/v1/"):
                assert {"429", "503"} <= set(op["responses"]), (method, path)
    act = spec["paths"]["/v1/games/{game_id}/actions"]["post"]
    assert act["security"] == [{"seatToken": []}]
    links = spec["paths"]["/v1/games"]["post"]["responses"]["201"]["links"]
    assert links["GetGame"]["parameters"] == {"game_id": "$response.body#/id"}


def test_the_served_spec_is_the_registrys_own_and_a_registered_game_is_in_it(svc, duel):
    served = svc.client.get("/openapi.json")
    assert served.status_code == 200 and served.json == document() == build(GAMES)
    schemas = served.json["components"]["schemas"]
    assert "duel" in schemas["GameName"]["enum"]
    assert schemas["GameView"]["discriminator"]["mapping"]["duel"].endswith("/DuelView")
    commit = schemas["DuelActionCommit"]
    assert commit["properties"]["type"]["const"] == "commit"
    assert commit["required"] == ["type", "card"] and commit["additionalProperties"] is False
    events = schemas["DuelEvent"]["discriminator"]["mapping"]
    assert set(events) == {"created", "seat_taken", "ended", *toy.GAME.events}
    # in the served form a hidden value may be sealed; in an action body it is in clear
    dealt = schemas["DuelEventDealt"]["properties"]["data"]["properties"]
    assert {"$ref": "#/components/schemas/Sealed"} in dealt["hands"]["items"]["anyOf"]
    assert "duel" not in yaml.safe_load(SPEC.read_text())["components"]["schemas"]["GameName"]


def test_a_server_with_an_extra_game_serves_it():
    code = (
        "import json; from service.api.openapi import document; "
        "print(json.dumps(document()['components']['schemas']['GameName']['enum']))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={**os.environ, "BATAYO_EXTRA_GAMES": "tests.support.toy"},
    )
    assert json.loads(out.stdout) == sorted([*builtin(), "duel"])


def test_the_problem_codes_are_enumerated_and_every_code_the_service_raises_is_declared():
    codes = set(problem_codes(GAMES))
    assert set(FRAMEWORK) <= codes
    raised = re.compile(
        r'(?:RuleError|Problem|problem_response)\(\s*(?:\d+,\s*)?"([a-z_]+)"'
        r'|return\s*\(?\s*"([a-z_]+)",\s*f?"'
    )
    for path in (ROOT / "service").rglob("*.py"):
        found = {a or b for a, b in raised.findall(path.read_text())}
        game = path.parent.name if path.parent.parent.name == "games" else None
        allowed = set(FRAMEWORK) | (set(GAMES[game].problems) if game else codes)
        assert found <= allowed, (path, found - allowed)


# -- what the server makes fits its schemas ------------------------------------------------------

VARIANTS = {
    "bataille": [
        {"deck": 32, "max_rounds": 40},
        {"deck": 32, "variant": "ouverte", "max_rounds": 40},
        {"deck": 32, "players": 3, "variant": "sans_inconnue", "max_rounds": 60},
        {"deck": 32, "gather": "ordered", "shortfall": "play_out", "max_rounds": 60},
    ],
    "batak": [{"deals": 3}, {"deals": 3, "mode": "esli"}],
    "batayo": [{"format": "express"}, {"format": "express", "players": 3, "gather": "random"}],
    "roylet": [{"rounds": 2}],
    "duel": [{}],
}


def _validator(doc: dict, component: str):
    """A validator of one component (jsonschema-rs: fast enough to check every step)."""
    root = {"$ref": f"#/components/schemas/{component}", "components": doc["components"]}
    return jsonschema_rs.validator_for(root)


@pytest.mark.parametrize(
    ("game", "options"), [(g, o) for g, variants in VARIANTS.items() for o in variants]
)
def test_every_view_and_event_of_a_game_fits_its_schema(duel, game, options):
    """A bot game played to its end: after every action each seat's and a spectator's view and
    the latest events as each of them receives them, and at the end every event, fit the
    game's own schemas."""
    doc = build(GAMES)
    name = camel(game)
    view, event = _validator(doc, f"{name}View"), _validator(doc, f"{name}Event")
    table = Table(game, options, seed=b"\x07" * 32, game_id="00000000000000aa")
    seats = [None, *range(len(table.state["seats"]))]
    seen = 0
    while table.state["status"] == "playing":
        for seat in seats:
            view.validate(table.view(seat))
            for e in table.events[seen:]:  # each event as seen while the game runs
                event.validate(table.shown(e, seat))
        seen = len(table.events)
        table.bot_move(table.game.to_move(table.state)[0])
    for seat in seats:
        view.validate(table.view(seat))
        for e in table.events:
            event.validate(table.shown(e, seat))
    result = table.state["result"]
    _validator(doc, f"{name}Result").validate(result)
    _validator(doc, "Result").validate(result)


def test_the_checked_client_refuses_an_answer_the_contract_does_not_allow():
    """The checks every API test relies on do bite: a wrong body, an undocumented status, a
    header that breaks its schema, an undocumented media type."""
    from flask import Response

    from tests.support.client import contract

    checks = contract()
    url = "/v1/games/0123456789abcdef"

    def answer(body, status=200, **headers):
        return Response(
            json.dumps(body), status=status, mimetype="application/json", headers=headers
        )

    with pytest.raises(jsonschema_rs.ValidationError):
        checks.check("GET", url, answer({"game": "batak", "table": {}}))
    with pytest.raises(AssertionError):
        checks.check("GET", url, answer({}, status=418))
    problem = {"type": "/problems/x", "title": "t", "status": 404, "detail": "d", "code": "x"}
    with pytest.raises(jsonschema_rs.ValidationError):  # "x" is no code the service has
        checks.check(
            "GET", url, Response(json.dumps(problem), 404, mimetype="application/problem+json")
        )
    with pytest.raises(jsonschema_rs.ValidationError):
        checks.check("GET", url, answer({}, status=304, ETag="12"))  # an ETag is quoted
    with pytest.raises(AssertionError):
        checks.check("GET", "/healthz", Response("ok", mimetype="text/html"))


def test_query_parameters_are_the_request_schemas_own_bounds():
    """Each query's bounds and default are written once, in service/api/schemas.py: the
    contract's parameters are made from them."""
    from service.api import schemas

    spec = yaml.safe_load(SPEC.read_text())
    routes = {
        "/v1/games": ("get", schemas.ListQuery),
        "/v1/games/{game_id}": ("get", schemas.ViewQuery),
        "/v1/games/{game_id}/events": ("get", schemas.EventsQuery),
        "/v1/games/{game_id}/ties": ("get", schemas.TiesQuery),
        "/v1/games/{game_id}/stream": ("get", schemas.StreamQuery),
    }
    for path, (method, schema) in routes.items():
        params = {
            p["name"]: p["schema"]
            for p in spec["paths"][path][method]["parameters"]
            if p.get("in") == "query"
        }
        assert set(params) == set(schema().fields), path
        for name, field in schema().fields.items():
            for rule in field.validators:
                if hasattr(rule, "max") and rule.max is not None and "$ref" not in params[name]:
                    bound = "maximum" if params[name]["type"] == "integer" else "maxLength"
                    assert params[name][bound] == rule.max, (path, name)
    events = spec["paths"]["/v1/games/{game_id}/events"]["get"]["parameters"]
    limit = next(p for p in events if p.get("name") == "limit")["schema"]
    assert (limit["minimum"], limit["maximum"], limit["default"]) == (1, 1000, 100)
