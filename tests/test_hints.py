"""`GET /v1/games/{id}/hint` (docs/api.md, Teach me): every game's strong bot suggests one of the
seat's legal actions, with a reason code; a search runs in a worker job, once per version and
seat; hints have their own rate limit; only a seat of the game may ask; the reason names no card
the seat may not see."""

from __future__ import annotations

import inspect
import json
import re

import pytest

from service.core import advice
from service.core.options import resolve_options
from service.core.registry import GAMES
from tests.support.service import Service
from workers import jobs as worker_jobs

CARD = re.compile(r"\b(?:10|[2-9JQKA])[SHDC]\b")
GAMES_PLAYED = [
    ("bataille", {}),
    ("bataille", {"variant": "ouverte"}),
    ("batayo", {}),
    ("batayo", {"players": 3}),
    ("batak", {}),
    ("batak", {"mode": "esli"}),
    ("roylet", {}),
]


def auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def created(svc: Service, game: str, options: dict) -> tuple[str, list[str]]:
    n = GAMES[game].seat_count(resolve_options(GAMES[game], options))
    body = {"game": game, "options": options, "seats": [{"name": f"p{i}"} for i in range(n)]}
    answer = svc.client.post("/v1/games", json=body).json
    return answer["id"], [s["token"] for s in answer["seats"]]


def asked(svc: Service, gid: str, token: str) -> dict:
    """The hint, once its job (if any) has run."""
    first = svc.client.get(f"/v1/games/{gid}/hint", headers=auth(token))
    if first.status_code == 202:
        assert first.headers["Retry-After"] == "1" and first.json["pending"] is True
        svc.run_jobs()
        first = svc.client.get(f"/v1/games/{gid}/hint", headers=auth(token))
    assert first.status_code == 200, first.json
    return first.json


@pytest.mark.parametrize(("game", "options"), GAMES_PLAYED)
def test_every_game_hints_a_legal_action_and_its_reason_shows_no_hidden_card(game, options):
    """A few moves of each game played by following the hints: each is one of the seat's
    `legal_actions`, and every card its reason names is one the seat's view shows."""
    svc = Service()
    gid, tokens = created(svc, game, options)
    for _ in range(4):
        view = svc.client.get(f"/v1/games/{gid}").json
        if view["status"] != "playing":
            break
        seat = view["to_move"][0]
        mine = svc.client.get(f"/v1/games/{gid}", headers=auth(tokens[seat])).json
        hint = asked(svc, gid, tokens[seat])
        assert hint["seat"] == seat and hint["version"] == mine["version"]
        assert hint["action"] in mine["legal_actions"]
        assert hint["reason"]["code"] in advice.HINT_CODES
        named = set(CARD.findall(json.dumps(hint["reason"])))
        assert named <= set(CARD.findall(json.dumps(mine)))
        played = svc.client.post(
            f"/v1/games/{gid}/actions", json=hint["action"], headers=auth(tokens[seat])
        )
        assert played.status_code == 200, played.json


def test_one_search_per_version_and_seat(monkeypatch):
    searches = []
    real = advice.hint

    def counted(state, seat, seed):
        if advice.searched(advice.game_view(state, seat)):
            searches.append((state["version"], seat))
        return real(state, seat, seed)

    monkeypatch.setattr(advice, "hint", counted)
    svc = Service()
    gid, tokens = created(svc, "roylet", {})
    seat = svc.client.get(f"/v1/games/{gid}").json["to_move"][0]
    answers = [
        svc.client.get(f"/v1/games/{gid}/hint", headers=auth(tokens[seat])) for _ in range(3)
    ]
    assert [a.status_code for a in answers] == [202, 202, 202]
    assert searches == []  # never on the API's request: in the worker's job
    assert [job for _, job, _ in svc.jobs.jobs] == ["compute_hint"]  # one job for the three
    _, name, args = svc.jobs.jobs[0]
    inspect.signature(getattr(worker_jobs, name)).bind(*args)  # what an RQ worker runs
    svc.run_jobs()
    again = [svc.client.get(f"/v1/games/{gid}/hint", headers=auth(tokens[seat])) for _ in range(3)]
    assert {a.status_code for a in again} == {200} and len({json.dumps(a.json) for a in again}) == 1
    version = again[0].json["version"]
    assert svc.engine.compute_hint(gid, version, seat) == "kept"  # a repeated job: no search
    assert searches == [(version, seat)]
    idle = next(s for s in range(3) if s != seat)
    waiting = svc.client.get(f"/v1/games/{gid}/hint", headers=auth(tokens[idle])).json
    if waiting["action"] is None:  # the seat may have nothing to do: answered without a search
        assert waiting["reason"] == {"code": "not_your_turn", "params": {}}
        assert searches == [(version, seat)]


def test_hints_have_their_own_rate_limit():
    svc = Service()
    app = svc.client.client.application
    app.config["HINT_RATE_LIMIT"] = 2
    gid, tokens = created(svc, "bataille", {})
    url = f"/v1/games/{gid}/hint"
    codes = [svc.client.get(url, headers=auth(tokens[0])).status_code for _ in range(3)]
    assert codes == [200, 200, 429]
    refused = svc.client.get(url, headers=auth(tokens[0]))
    assert refused.headers["Content-Type"] == "application/problem+json"
    assert refused.json["code"] == "rate_limited" and int(refused.headers["Retry-After"]) >= 1
    assert svc.client.get(url, headers=auth(tokens[1])).status_code == 200  # per seat token
    view = svc.client.get(f"/v1/games/{gid}", headers=auth(tokens[0]))
    assert view.status_code == 200  # the game's other routes are not counted against it


def test_only_a_seat_of_the_game_may_ask():
    svc = Service()
    gid, _ = created(svc, "roylet", {})
    _, others = created(svc, "roylet", {})
    url = f"/v1/games/{gid}/hint"
    spectator = svc.client.get(url)
    assert spectator.status_code == 401 and spectator.json["code"] == "unauthorized"
    assert svc.client.get(url, headers=auth(others[0])).status_code == 403
    assert svc.client.get(url, headers=auth("not-a-token")).status_code == 401
    assert svc.jobs.jobs == []  # nothing was searched for them
