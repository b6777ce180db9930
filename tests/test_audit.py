"""The tie audit, the live stream that resumes, export for offline checks."""

from __future__ import annotations

import json
import threading

import pytest
from click.testing import CliRunner

from service.api import create_app
from service.cli import main
from service.engine import Engine
from service.engine.dispatch import QueueDispatcher
from service.store import Store
from tests.support.helpers import auth, is_sealed
from tests.support.service import read_stream, tied_game


def test_the_tie_audit_follows_a_bataille_chain_step_by_step(svc):
    gid, tokens = tied_game(svc)
    audit = svc.client.get(f"/v1/games/{gid}/ties").json
    assert audit["total"] == 1 and audit["next_offset"] is None
    tie = audit["ties"][0]
    assert (tie["kind"], tie["round"], tie["players"], tie["winner"]) == ("bataille", 1, [0, 1], 0)
    assert [s.get("tied") for s in tie["steps"]] == [[0, 1], [0, 1], None]
    assert [[c["up"] for c in s["cards"]] for s in tie["steps"]] == [
        ["QS", "QH", "3D"],
        ["7S", "7H"],
        ["AS", "KH"],
    ]
    # the face-down cards are hidden from a seat and a spectator while the game runs
    assert [c["down"] for c in tie["steps"][1]["cards"]] == [[None], [None]]
    mine = svc.client.get(f"/v1/games/{gid}/ties", headers=auth(tokens[0])).json["ties"][0]
    assert mine["steps"][1]["cards"][0]["down"] == [None]
    assert svc.client.get(f"/v1/games/{gid}/ties?kind=batayo").json["total"] == 0
    assert tie["versions"] == sorted(tie["versions"])


def test_export_is_for_finished_games_and_verifies_offline(svc, tmp_path):
    gid, _ = tied_game(svc)
    refused = svc.client.get(f"/v1/games/{gid}/export")
    assert refused.status_code == 409 and refused.json["code"] == "game_not_over"
    created = svc.client.post(
        "/v1/games",
        json={
            "game": "bataille",
            "options": {"max_rounds": 40},
            "seats": [{"bot": "random"}, {"bot": "greedy"}],
        },
    ).json
    svc.run_jobs()
    exported = svc.client.get(f"/v1/games/{created['id']}/export").json
    assert exported["server_seed"] and exported["events"][-1]["type"] == "ended"
    path = tmp_path / "game.json"
    path.write_text(json.dumps(exported))
    out = CliRunner().invoke(main, ["verify", "--accept-unsigned", str(path)])
    assert out.exit_code == 0 and out.output.startswith("unsigned"), out.output
    exported["events"][3], exported["events"][4] = exported["events"][4], exported["events"][3]
    path.write_text(json.dumps(exported))
    out = CliRunner().invoke(main, ["verify", str(path)])
    assert out.exit_code == 1 and "version 4" in out.output


def test_a_stream_resumes_after_the_last_event_id_with_no_gap_or_repeat(svc):
    created = svc.client.post(
        "/v1/games",
        json={
            "game": "bataille",
            "options": {"max_rounds": 30},
            "seats": [{"bot": "random"}, {"bot": "random"}],
        },
    ).json
    svc.run_jobs()
    gid = created["id"]
    n = svc.engine.store.version(gid)
    client = svc.client.client
    first = read_stream(client, f"/v1/games/{gid}/stream", limit=7)
    assert [v for v, _, _ in first] == list(range(1, 8))
    rest = read_stream(client, f"/v1/games/{gid}/stream", headers={"Last-Event-ID": "7"})
    assert [v for v, _, _ in rest] == list(range(8, n + 1))  # and then it closed
    assert rest[-1][1] == "ended"
    assert [v for v, _, _ in read_stream(client, f"/v1/games/{gid}/stream?after={n - 2}")] == [
        n - 1,
        n,
    ]
    bad = client.get(f"/v1/games/{gid}/stream", headers={"Last-Event-ID": "x"})
    assert bad.status_code == 400


@pytest.mark.redis
def test_a_live_stream_shows_each_seat_only_what_it_may_see(real_redis):
    jobs = QueueDispatcher()
    engine = Engine(Store(real_redis), jobs, test_games=True)
    client = create_app(engine).test_client()
    created = client.post(
        "/v1/games",
        json={
            "game": "bataille",
            "options": {"variant": "ouverte"},
            "seats": [{"name": "a"}, {"name": "b"}],
            "deal": {"packs": [["QS", "2S"], ["KH", "3H"]]},
        },
    ).json
    gid, (a, b) = created["id"], [s["token"] for s in created["seats"]]
    seen: dict[str, list] = {}

    def watch(name: str, headers: dict, after: int) -> None:
        url = f"/v1/games/{gid}/stream?after={after}"
        seen[name] = seen.get(name, []) + read_stream(client, url, headers, limit=1)

    def follow(after: int) -> list[threading.Thread]:
        watchers = [
            threading.Thread(target=watch, args=("b", auth(b), after)),
            threading.Thread(target=watch, args=("spectator", {}, after)),
        ]
        for w in watchers:
            w.start()
        return watchers

    # each watcher receives a's commit before b has committed: it is sealed then
    watchers = follow(2)
    client.post(f"/v1/games/{gid}/actions", json={"type": "play", "card": "2S"}, headers=auth(a))
    for w in watchers:
        w.join(timeout=30)
    watchers = follow(3)
    client.post(f"/v1/games/{gid}/actions", json={"type": "play", "card": "3H"}, headers=auth(b))
    for w in watchers:
        w.join(timeout=30)
    for name in ("b", "spectator"):
        (v3, t3, d3), (v4, t4, _) = seen[name]
        assert (v3, t3, v4, t4) == (3, "committed", 4, "committed")
        assert is_sealed(d3["data"]["card"])  # seat a's choice, before the reveal
    assert seen["b"][1][2]["data"]["card"] == "3H"  # b sees its own
