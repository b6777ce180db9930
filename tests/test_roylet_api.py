"""BatailleRoylet through the API with a bot Ally: docs/rules/roylet.md#rule-2, "the Allies choose
which of them plays face down": a bot Ally waits for its human partner's choice of face, for
min(5 s, the move clock), before it takes one."""

from __future__ import annotations

from service.core.game import add_seconds
from tests.support.helpers import auth

KING, A1, A2 = 0, 1, 2


def bot_ally_game(svc, **options) -> tuple[str, str]:
    created = svc.client.post(
        "/v1/games",
        json={
            "game": "roylet",
            "options": options,
            "seats": [{"bot": "greedy"}, {"bot": "random"}, {"name": "ana"}],
        },
    ).json
    return created["id"], created["seats"][A2]["token"]


def test_the_bot_ally_lets_its_human_partner_choose_the_face(svc):
    gid, ana = bot_ally_game(svc)
    (job,) = svc.jobs.jobs
    at, name, _ = job
    created_at = svc.engine.load(gid)["at"]
    assert name == "bot_moves" and at == add_seconds(created_at, 5)  # not before 5 s
    assert svc.run_jobs() == 0  # nothing due yet: the bot has not played
    view = svc.client.get(f"/v1/games/{gid}", headers=auth(ana)).json
    down = next(a for a in view["legal_actions"] if a["face"] == "down")
    answer = svc.client.post(f"/v1/games/{gid}/actions", json=down, headers=auth(ana))
    assert answer.status_code == 200, answer.json  # ana took face down: nobody beat her to it
    svc.run_jobs()  # now the bot Ally plays at once, face up, and the bot King after it
    played = [
        e["data"]
        for e in svc.client.get(f"/v1/games/{gid}/events").json["events"]
        if e["type"] == "played"
    ]
    assert [(p["seat"], p["face"]) for p in played[:3]] == [(A2, "down"), (A1, "up"), (KING, "up")]


def test_the_bot_ally_plays_once_its_patience_runs_out(svc):
    gid, _ = bot_ally_game(svc, move_timeout_s=3)
    (at,) = [at for at, name, _ in svc.jobs.jobs if name == "bot_moves"]
    assert at == add_seconds(svc.engine.load(gid)["at"], 3)  # min(5 s, the move clock)
    svc.jobs.run(lambda name, args: getattr(svc.engine, name)(*args), now=at)
    played = [e for e in svc.engine.all_events(gid) if e["type"] == "played"]
    assert played and played[0]["data"]["seat"] == A1
