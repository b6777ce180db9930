"""The service in-process for the API tests: an engine on fakeredis, its jobs collected and run
when a test says, and a client that checks every answer against openapi.yaml."""

from __future__ import annotations

import json

import fakeredis

from service.api import create_app
from service.engine import Engine
from service.engine.dispatch import QueueDispatcher
from service.store import Store
from tests.support.client import CheckedClient, check_stream_message
from tests.support.helpers import auth


class Service:
    def __init__(self, test_games: bool = True) -> None:
        self.jobs = QueueDispatcher()
        self.engine = Engine(Store(fakeredis.FakeRedis()), self.jobs, test_games=test_games)
        self.client = CheckedClient(create_app(self.engine).test_client())

    def run_jobs(self) -> int:
        return self.jobs.run(lambda job, args: getattr(self.engine, job)(*args))


def all_events(svc: Service, gid: str, headers: dict | None = None) -> list[dict]:
    """Every event, page by page, following next_after."""
    out, after = [], 0
    while after is not None:
        page = svc.client.get(f"/v1/games/{gid}/events?after={after}", headers=headers).json
        out += page["events"]
        after = page["next_after"]
    return out


def new_game(svc: Service, **body) -> dict:
    body.setdefault("game", "bataille")
    body.setdefault("seats", [{"name": "ana", "client_seed": "a1"}, {"name": "bob"}])
    r = svc.client.post("/v1/games", json=body)
    assert r.status_code == 201, r.json
    return r.json


PACKS = [["QS", "2S", "7S", "4S", "AS", "8S"], ["QH", "3H", "7H", "5H", "KH", "8H"], ["3D", "4D"]]


def tied_game(svc: Service) -> tuple[str, list[str]]:
    """docs/rules/bataille.md#rule-4: Q against Q, then 7 against 7, then AS takes all 11 cards."""
    created = svc.client.post(
        "/v1/games",
        json={
            "game": "bataille",
            "options": {"players": 3},
            "seats": [{"name": "ana"}, {"name": "bob"}, {"name": "cy"}],
            "deal": {"packs": PACKS},
        },
    ).json
    gid, tokens = created["id"], [s["token"] for s in created["seats"]]
    for _ in range(3):
        view = svc.client.get(f"/v1/games/{gid}").json
        for seat in view["to_move"]:
            r = svc.client.post(
                f"/v1/games/{gid}/actions", json={"type": "flip"}, headers=auth(tokens[seat])
            )
            assert r.status_code == 200
    return gid, tokens


def read_stream(client, url: str, headers: dict | None = None, limit: int | None = None) -> list:
    """The (id, event type, data) of each server-sent event; stop after `limit` of them."""
    response = client.get(url, headers=headers or {}, buffered=False)
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    got, buffer = [], ""
    for chunk in response.response:
        buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buffer:
            message, buffer = buffer.split("\n\n", 1)
            fields = dict(
                line.split(": ", 1)
                for line in message.splitlines()
                if ": " in line and not line.startswith(":")
            )
            if "id" in fields:
                check_stream_message(fields)
                got.append((int(fields["id"]), fields["event"], json.loads(fields["data"])))
                if limit is not None and len(got) == limit:
                    response.close()
                    return got
    return got
