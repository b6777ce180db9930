"""A game is one module: the toy game of tests/support/toy.py, registered by the
tests and nowhere else, is offered by the API, played through it to the end with its values
sealed, verified with its own rules, simulated, and meets every property and the leak proof,
with no line of the service written for it."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from hypothesis import given

from service.cli import main
from service.core.registry import GAMES
from tests.support import page, properties, toy
from tests.support.helpers import auth, is_sealed, record_counts
from tests.support.leaks import TOTALS, play_and_look
from tests.support.strategies import games


@pytest.fixture(scope="module", autouse=True)
def registered():
    GAMES.register(toy.GAME)
    yield toy.GAME
    GAMES.unregister(toy.GAME.name)


def test_the_api_offers_it_with_its_options_and_bots(svc):
    rules = {g["id"]: g for g in svc.client.get("/v1/rules").json["games"]}
    duel = rules["duel"]
    assert duel["seats"] == {"min": 2, "max": 2} and duel["bots"] == ["random", "greedy"]
    assert duel["options"][0]["name"] == "rounds"


def test_it_is_played_through_the_api_sealed_and_verified_with_its_rules(svc):
    created = svc.client.post(
        "/v1/games",
        json={"game": "duel", "seats": [{"name": "ana", "client_seed": "a"}, {"name": "bob"}]},
    )
    assert created.status_code == 201, created.json
    gid = created.json["id"]
    tokens = [s["token"] for s in created.json["seats"]]
    # the framework checks the action's shape, and the seat's turn
    bad = svc.client.post(
        f"/v1/games/{gid}/actions", json={"type": "flip"}, headers=auth(tokens[0])
    )
    assert bad.status_code == 400 and "commit" in bad.json["detail"]
    while True:
        view = svc.client.get(f"/v1/games/{gid}", headers=auth(tokens[0])).json
        if view["status"] == "finished":
            break
        seat = view["to_move"][0]
        mine = svc.client.get(f"/v1/games/{gid}", headers=auth(tokens[seat])).json
        answer = svc.client.post(
            f"/v1/games/{gid}/actions", json=mine["legal_actions"][0], headers=auth(tokens[seat])
        )
        assert answer.status_code == 200, answer.json
        other = 1 - seat
        seen = svc.client.get(f"/v1/games/{gid}/events", headers=auth(tokens[other])).json
        committed = [e for e in seen["events"] if e["type"] == "committed"][-1]
        if not any(
            e["type"] == "revealed" and e["version"] > committed["version"] for e in seen["events"]
        ):
            assert is_sealed(committed["data"]["card"])  # the other seat's card, face down
    report = svc.client.get(f"/v1/games/{gid}/verify").json
    assert report["status"] == "ok", report
    assert report["checked"]["play"] == 1 + 2 * toy.HAND  # the create and every commit, refolded
    events = svc.client.get(f"/v1/games/{gid}/events").json["events"]
    assert page.check(events) == ("ok", None)
    assert svc.client.get(f"/v1/games/{gid}/ties").status_code == 200


def test_it_simulates():
    out = CliRunner().invoke(
        main, ["simulate", "duel", "--games", "20", "--seats", "random,greedy", "--json"]
    )
    assert out.exit_code == 0, out.output
    summary = json.loads(out.output)
    assert summary["games"] == 20 and summary["rounds"]["max"] == 3


@given(games(["duel"]))
def test_it_has_every_property_of_a_game(spec):
    for check in properties.ALL:
        check(spec)


@pytest.mark.parametrize("seed", [1, 2])
def test_nobody_sees_a_card_they_may_not_know(seed):
    leaks = play_and_look("duel", {}, seed)
    record_counts(TOTALS)
    assert not leaks, "\n".join(leaks)
