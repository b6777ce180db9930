"""Contract fuzzing: schemathesis generates requests from openapi.yaml for every operation and
sends them to the Flask app in-process (fakeredis, test games allowed). Every answer must be
below 500, have a documented status and content type, and match its documented schema and
headers.

Path parameters hit real games (open, playing and finished ones of every kind) as well as
generated ids, and requests carry real seat tokens as well as generated ones. The number of
cases run is written to tests/artifacts/counts-*.json (key `contract_cases`).

Then stateful: schemathesis' state machine chains calls along the spec's links (a created or
joined game's id into its view, log, actions, join, verification, ties), with the same checks
at every step (`contract_stateful_steps`)."""

from __future__ import annotations

import os
from pathlib import Path

import fakeredis
import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st

schemathesis = pytest.importorskip("schemathesis")

from schemathesis.checks import not_a_server_error  # noqa: E402
from schemathesis.specs.openapi.checks import (  # noqa: E402
    content_type_conformance,
    missing_required_header,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
    unsupported_method,
)

from service.api import create_app  # noqa: E402
from service.core.registry import GAMES  # noqa: E402
from service.engine import Engine  # noqa: E402
from service.engine.dispatch import QueueDispatcher  # noqa: E402
from service.store import Store  # noqa: E402
from tests.support.helpers import record_counts  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "openapi.yaml"
EXAMPLES = int(os.environ.get("BATAYO_CONTRACT_EXAMPLES", "30"))
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
    negative_data_rejection,
    missing_required_header,
    unsupported_method,
]


def _world():
    """An app with games in every state: per kind an all-bot game played to its end, a game of
    humans in play, and an open game."""
    jobs = QueueDispatcher()
    engine = Engine(Store(fakeredis.FakeRedis()), jobs, test_games=True)
    app = create_app(engine)
    app.config["RATE_LIMIT"] = 0  # the limiter is tested on its own (tests/test_abuse.py)
    app.config["RATE_LIMIT_TOKEN"] = 0
    client = app.test_client()
    finished, live, tokens = [], [], []
    small = {"bataille": {"deck": 32, "max_rounds": 30}, "batayo": {"format": "express"}}
    small["batak"] = {"deals": 3}
    small["roylet"] = {"rounds": 2}
    for name, game in GAMES.items():
        options = small.get(name, {})
        n = game.seat_count({**{o.name: o.default for o in game.options}, **options})
        bots = client.post(
            "/v1/games",
            json={"game": name, "options": options, "seats": [{"bot": "random"}] * n},
        )
        assert bots.status_code == 201, bots.json
        finished.append(bots.json["id"])
        humans = client.post(
            "/v1/games",
            json={"game": name, "options": options, "seats": [{"name": f"p{i}"} for i in range(n)]},
        )
        assert humans.status_code == 201, humans.json
        live.append(humans.json["id"])
        tokens += [s["token"] for s in humans.json["seats"]]
        opened = client.post(
            "/v1/games",
            json={
                "game": name,
                "options": options,
                "seats": [{"name": "host"}] + [{"open": True}] * (n - 1),
            },
        )
        assert opened.status_code == 201, opened.json
        live.append(opened.json["id"])
        tokens.append(opened.json["seats"][0]["token"])
    jobs.run(lambda job, args: getattr(engine, job)(*args))
    for gid in finished:
        assert client.get(f"/v1/games/{gid}").json["status"] == "finished", gid
    return app, finished, live, tokens


APP, FINISHED, LIVE, TOKENS = _world()
schema = schemathesis.openapi.from_path(str(SPEC))
schema.app = APP
CASES = {"n": 0, "by_status": {}, "steps": 0}


@schema.hook
def flatmap_path_parameters(context, path_parameters):
    """Real games (a live game's stream never ends, so the stream gets finished ones only)."""
    if not path_parameters or "game_id" not in path_parameters:
        return st.just(path_parameters)
    real = FINISHED if context.operation.path.endswith("/stream") else FINISHED + LIVE
    return st.one_of(
        st.just(path_parameters),
        st.sampled_from(real).map(lambda gid: {**path_parameters, "game_id": gid}),
    )


@schema.hook
def flatmap_headers(context, headers):
    """Real seat tokens (of this game or another) besides whatever was generated."""
    # (a stream is only ever asked of a finished game, so a Last-Event-ID never blocks; kept as
    # generated, so that a request schemathesis made invalid reaches the server invalid)
    headers = dict(headers or {})
    return st.one_of(
        st.just(headers),
        st.sampled_from(TOKENS).map(lambda t: {**headers, "Authorization": f"Bearer {t}"}),
    )


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)
def test_every_answer_conforms_to_the_spec(case):
    response = case.call(headers={"Accept-Encoding": "identity"})  # its WSGI transport: no gunzip
    CASES["n"] += 1
    CASES["by_status"][response.status_code] = CASES["by_status"].get(response.status_code, 0) + 1
    case.validate_response(response, checks=CHECKS)


class Workflow(schema.as_state_machine()):
    """Stateful: sequences of calls that follow the spec's links (a created game's id into its
    view, log, join, actions, verification), with the same checks at every step."""

    def setup(self):
        """A world of its own for each scenario: a join or an action that changed the shared
        one would answer a replayed scenario otherwise, and Hypothesis needs each scenario to
        draw the same way when it runs again."""
        global APP, FINISHED, LIVE, TOKENS
        APP, FINISHED, LIVE, TOKENS = _world()
        schema.app = APP

    def get_call_kwargs(self, case):
        return {"headers": {"Accept-Encoding": "identity"}}

    def validate_response(self, response, case, additional_checks=None, **kwargs):
        CASES["steps"] += 1
        case.validate_response(response, checks=CHECKS, transport_kwargs=kwargs or None)


TestStatefulContract = Workflow.TestCase
TestStatefulContract.settings = settings(
    max_examples=int(os.environ.get("BATAYO_STATEFUL_EXAMPLES", "15")),
    stateful_step_count=6,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)


def test_report_the_number_of_contract_cases():
    """Runs after the fuzzing (same module, later in file order): record the count."""
    if CASES["n"] == 0:
        pytest.skip("the contract fuzzing did not run in this session")
    record_counts({"contract_cases": CASES["n"], "contract_stateful_steps": CASES["steps"]})
    print(f"\ncontract fuzzing: {CASES['n']} cases, by status {sorted(CASES['by_status'].items())}")
    print(f"stateful (links): {CASES['steps']} steps")
