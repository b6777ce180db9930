"""The REST contract of docs/api.md, in-process on fakeredis; every response is checked against
openapi.yaml by the client."""

from __future__ import annotations

import pytest

from service.core.game import add_seconds
from service.core.state import fold
from service.core.times import utc_now
from service.core.views import game_view
from service.store.index import ALL as INDEX_ALL
from tests.support.helpers import auth, is_sealed
from tests.support.service import Service, all_events, new_game


def test_rules_list_every_game_with_options_and_bots(svc):
    games = {g["id"]: g for g in svc.client.get("/v1/rules").json["games"]}
    assert games["bataille"]["seats"] == {"min": 2, "max": 6}
    options = {o["name"]: o for o in games["bataille"]["options"]}
    assert options["variant"]["choices"] == ["classique", "sans_inconnue", "ouverte"]
    assert options["max_rounds"]["default"] == 10_000
    assert {"random", "greedy"} <= set(games["bataille"]["bots"])


def test_a_bot_game_plays_itself_to_the_end_and_verifies(svc):
    created = new_game(svc, seats=[{"bot": "random"}, {"bot": "greedy"}])
    assert created["status"] == "playing" and "token" not in created["seats"][0]
    assert svc.run_jobs() > 0
    gid = created["id"]
    view = svc.client.get(f"/v1/games/{gid}")
    assert view.json["status"] == "finished" and view.json["result"]["reason"]
    assert view.headers["ETag"] == f'"{view.json["version"]}"'
    report = svc.client.get(f"/v1/games/{gid}/verify").json
    assert report["ok"] and report["seed_revealed"] and report["draws_checked"] >= 1
    # after the end everybody sees everything
    events = all_events(svc, gid)
    assert len(events) == view.json["version"]
    assert events[-1]["type"] == "ended" and events[-1]["data"]["server_seed"]
    assert None not in events[1]["data"]["packs"][0]  # the deal, in full


def test_humans_join_play_and_replay_any_version(svc):
    created = new_game(svc, seats=[{"name": "ana"}, {"open": True}], seed="ab" * 32)
    gid, ana = created["id"], created["seats"][0]["token"]
    assert created["status"] == "open"
    joined = svc.client.post(f"/v1/games/{gid}/join", json={"name": "bob", "client_seed": "b"})
    bob = joined.json["token"]
    assert joined.json["seat"] == 1 and joined.json["status"] == "playing"
    full = svc.client.post(f"/v1/games/{gid}/join", json={"name": "eve"})
    assert full.status_code == 409 and full.json["code"] == "game_full"
    for _ in range(6):
        for token in (ana, bob):
            view = svc.client.get(f"/v1/games/{gid}", headers=auth(token)).json
            if view["legal_actions"]:
                r = svc.client.post(
                    f"/v1/games/{gid}/actions", json=view["legal_actions"][0], headers=auth(token)
                )
                assert r.status_code == 200 and r.json["events"][0]["actor"] == view["you"]
    events = all_events(svc, gid)
    full_log = svc.engine.all_events(gid)
    for at in (1, 3, len(full_log) // 2, len(full_log)):
        past = svc.client.get(f"/v1/games/{gid}?at={at}").json
        assert past["version"] == at
        assert past == game_view(fold(full_log[:at]), None)
    assert [e["version"] for e in events] == list(range(1, len(full_log) + 1))
    assert svc.client.get(f"/v1/games/{gid}?at={len(full_log) + 1}").status_code == 404


def test_events_are_paged_and_redacted_for_the_caller(svc):
    created = new_game(svc, options={"variant": "ouverte"})
    gid, ana, bob = created["id"], created["seats"][0]["token"], created["seats"][1]["token"]
    page = svc.client.get(f"/v1/games/{gid}/events?after=0&limit=1").json
    assert [e["version"] for e in page["events"]] == [1] and page["next_after"] == 1
    dealt = svc.client.get(f"/v1/games/{gid}/events?after=1", headers=auth(ana)).json
    packs = dealt["events"][0]["data"]["packs"]
    assert len(packs[0]) == 26 and is_sealed(packs[1])  # ana sees her own pack only
    assert list(dealt["events"][0]["openings"]) == ["/data/packs/0"]  # and can check it
    assert dealt["next_after"] is None
    spectator = svc.client.get(f"/v1/games/{gid}/events?after=1").json["events"][0]
    assert is_sealed(spectator["data"]["packs"][0]) and spectator["openings"] == {}
    assert is_sealed(spectator["data"]["rng"][0]["output"])
    del bob


def test_listing_is_newest_first_and_filters(svc):
    first = new_game(svc)["id"]
    second = new_game(svc, seats=[{"name": "a"}, {"open": True}])["id"]
    games = svc.client.get("/v1/games").json["games"]
    assert [g["id"] for g in games[:2]] == [second, first]
    opened = svc.client.get("/v1/games?status=open&game=bataille").json["games"]
    assert [g["id"] for g in opened] == [second]
    page = svc.client.get("/v1/games?limit=1").json
    assert len(page["games"]) == 1 and page["next_offset"] == 1


def test_the_lobbys_list_holds_open_games_newest_first_idle_ones_left_out(svc):
    """`waiting=1`: the open games a player may still join, newest first, without those whose
    last event is older than the server's `BATAYO_LOBBY_IDLE_S` (an hour by default); every
    other listing still has them."""
    now = [utc_now()]
    svc.engine.clock = lambda: now[0]
    three = [{"name": "a"}, {"open": True}, {"open": True}]
    stale = new_game(svc, seats=[{"name": "a"}, {"open": True}])["id"]
    joined_late = new_game(svc, seats=three, options={"players": 3})["id"]
    new_game(svc)  # two people: in play at once, never waiting
    now[0] = add_seconds(now[0], 3601)
    svc.client.post(f"/v1/games/{joined_late}/join", json={"name": "b"})  # an event: not idle
    fresh = new_game(svc, seats=[{"name": "a"}, {"open": True}])["id"]
    waiting = svc.client.get("/v1/games?waiting=1").json
    assert [g["id"] for g in waiting["games"]] == [fresh, joined_late]
    assert all(g["status"] == "open" for g in waiting["games"])
    assert stale in [g["id"] for g in svc.client.get("/v1/games?status=open").json["games"]]
    assert svc.client.get("/v1/games?waiting=1&status=playing").status_code == 400
    assert svc.client.get("/v1/games?waiting=2").status_code == 400


def test_if_match_applies_only_at_that_version(svc):
    created = new_game(svc)
    gid, ana = created["id"], created["seats"][0]["token"]
    stale = svc.client.post(
        f"/v1/games/{gid}/actions", json={"type": "flip"}, headers={**auth(ana), "If-Match": '"1"'}
    )
    assert stale.status_code == 412 and stale.json["code"] == "version_mismatch"
    assert stale.json["version"] == created["version"]
    ok = svc.client.post(
        f"/v1/games/{gid}/actions",
        json={"type": "flip"},
        headers={**auth(ana), "If-Match": f'"{created["version"]}"'},
    )
    assert ok.status_code == 200 and ok.headers["ETag"] == f'"{created["version"] + 1}"'


def test_idempotency_key_returns_the_first_answer_and_appends_nothing(svc):
    created = new_game(svc)
    gid, ana = created["id"], created["seats"][0]["token"]
    headers = {**auth(ana), "Idempotency-Key": "k-1"}
    first = svc.client.post(f"/v1/games/{gid}/actions", json={"type": "flip"}, headers=headers)
    again = svc.client.post(f"/v1/games/{gid}/actions", json={"type": "flip"}, headers=headers)
    assert again.status_code == 200 and again.json == first.json
    assert svc.engine.store.version(gid) == created["version"] + 1
    other = svc.client.post(f"/v1/games/{gid}/actions", json={"type": "pass"}, headers=headers)
    assert other.status_code == 422 and other.json["code"] == "idempotency_key_reused"
    # a create retried with its key: the same game and the same tokens
    body = {"game": "bataille", "seats": [{"name": "x"}, {"bot": "random"}]}
    one = svc.client.post("/v1/games", json=body, headers={"Idempotency-Key": "c-1"})
    two = svc.client.post("/v1/games", json=body, headers={"Idempotency-Key": "c-1"})
    assert one.json == two.json and one.json["seats"][0]["token"]
    three = svc.client.post(
        "/v1/games", json={**body, "options": {"deck": 32}}, headers={"Idempotency-Key": "c-1"}
    )
    assert three.status_code == 422


def test_test_seeds_and_deals_need_the_server_setting():
    svc = Service(test_games=False)
    for extra in ({"seed": "ab" * 32}, {"deal": {"packs": [["AS"], ["KS"]]}}):
        r = svc.client.post(
            "/v1/games",
            json={"game": "bataille", "seats": [{"bot": "random"}, {"bot": "random"}], **extra},
        )
        assert r.status_code == 400 and "BATAYO_TEST_GAMES" in r.json["detail"]


def test_a_fixed_seed_makes_the_deal_computable_in_advance(svc):
    """docs/fairness.md: the stream of event v is HMAC(server_seed, f"{game_id}|{salt}|{v}|{k}"), so
    with a fixed seed the deal is known from the game id alone."""
    from service.core import fairness
    from service.core.cards import deck

    body = {"game": "bataille", "seats": [{"bot": "random"}, {"bot": "random"}], "seed": "cd" * 32}
    created = new_game(svc, **body)
    dealt = svc.engine.all_events(created["id"])[1]
    rng = fairness.Rng(bytes.fromhex("cd" * 32), created["id"], fairness.salt(["", ""]), 2)
    order = rng.shuffle(deck(), "deck")
    assert dealt["data"]["rng"][0]["output"] == order
    assert dealt["data"]["packs"][0] == order[0::2][::-1]
    assert svc.engine.all_events(created["id"])[0]["data"]["test"] is True


BAD_CREATES = [
    ({"game": "bataille"}, 400, "seats"),
    ({"game": "poker", "seats": [{"bot": "random"}]}, 400, "unknown game"),
    (
        {"game": "bataille", "seats": [{"bot": "random"}] * 2, "options": {"speed": 1}},
        400,
        "unknown option",
    ),
    (
        {"game": "bataille", "seats": [{"bot": "random"}] * 2, "options": {"players": 9}},
        400,
        "between",
    ),
    (
        {"game": "bataille", "seats": [{"bot": "random"}] * 2, "options": {"deck": 40}},
        400,
        "one of",
    ),
    (
        {"game": "bataille", "seats": [{"bot": "random"}] * 2, "options": {"players": 2.5}},
        400,
        "options",
    ),
    ({"game": "bataille", "seats": [{"bot": "random"}] * 3}, 400, "2 seats"),
    ({"game": "bataille", "seats": [{"bot": "nobody"}] * 2}, 400, "no bot"),
    (
        {"game": "bataille", "seats": [{"name": "a", "bot": "random"}, {"bot": "random"}]},
        400,
        "a seat is",
    ),
    ({"game": "bataille", "seats": [{"open": False}, {"bot": "random"}]}, 400, "a seat is"),
    ({"game": "bataille", "seats": [{"bot": "random"}] * 2, "extra": 1}, 400, "Unknown field"),
    ({"game": "bataille", "seats": [{"bot": "random"}] * 2, "seed": "xyz"}, 400, "hexadecimal"),
    ({"game": "bataille", "seats": [{"name": "x" * 41}, {"bot": "random"}]}, 400, "name"),
    (
        {
            "game": "bataille",
            "seats": [{"bot": "random"}] * 2,
            "deal": {"packs": [["AS", "AS"], ["KS"]]},
        },
        400,
        "twice",
    ),
    (
        {
            "game": "bataille",
            "seats": [{"bot": "random"}] * 2,
            "deal": {"packs": [["1OH"], ["KS"]]},
        },
        400,
        "not a card",
    ),
]


@pytest.mark.parametrize(("body", "status", "words"), BAD_CREATES)
def test_bad_creates_are_refused_with_a_clear_problem(svc, body, status, words):
    r = svc.client.post("/v1/games", json=body)
    assert r.status_code == status and r.json["code"] == "invalid_request"
    assert words.lower() in r.json["detail"].lower()
    assert svc.engine.store.redis.zcard(INDEX_ALL) == 0


def test_bad_actions_are_refused_and_append_nothing(svc):
    created = new_game(svc)
    gid, ana, bob = created["id"], created["seats"][0]["token"], created["seats"][1]["token"]
    other = new_game(svc)["seats"][0]["token"]
    version = svc.engine.store.version(gid)
    url = f"/v1/games/{gid}/actions"
    cases = [
        (dict(data="{", headers=auth(ana)), 400, "invalid_request"),
        (dict(data="[1]", headers=auth(ana)), 400, "invalid_request"),
        (
            dict(data='{"type": "flip"}', content_type="text/plain", headers=auth(ana)),
            415,
            "unsupported_media_type",
        ),
        (
            dict(json_body={"type": "play", "card": "1OH"}, headers=auth(ana)),
            400,
            "invalid_request",
        ),
        (dict(json_body={"type": "flip", "x": 1}, headers=auth(ana)), 400, "invalid_request"),
        (dict(json_body={"type": "dance"}, headers=auth(ana)), 400, "invalid_request"),
        (dict(json_body={"type": "bid", "tricks": 1.5}, headers=auth(ana)), 400, "invalid_request"),
        (dict(json_body={"type": "flip"}), 401, "unauthorized"),
        (dict(json_body={"type": "flip"}, headers=auth(gid + ".0.nope")), 401, "unauthorized"),
        (
            dict(json_body={"type": "flip"}, headers={"Authorization": "Basic x"}),
            401,
            "unauthorized",
        ),
        (dict(json_body={"type": "flip"}, headers=auth(other)), 403, "forbidden"),
        (dict(json_body={"type": "play", "card": "AS"}, headers=auth(ana)), 400, "invalid_request"),
        (
            dict(json_body={"type": "flip"}, headers={**auth(ana), "If-Match": "soon"}),
            400,
            "invalid_request",
        ),
        (
            dict(json_body={"type": "flip"}, headers={**auth(ana), "Idempotency-Key": ""}),
            400,
            "invalid_request",
        ),
        (dict(data="{" * 100_000, headers=auth(ana)), 413, "body_too_large"),
        (dict(data="[" * 5000 + "]" * 5000, headers=auth(ana)), 400, "invalid_request"),
        (
            dict(data='{"type": "bid", "tricks": ' + "9" * 5000 + "}", headers=auth(ana)),
            400,
            "invalid_request",
        ),
    ]
    for kwargs, status, code in cases:
        r = svc.client.open("POST", url, **kwargs)
        assert (r.status_code, r.json["code"]) == (status, code), (kwargs, r.json)
    assert svc.engine.store.version(gid) == version
    svc.client.post(url, json={"type": "flip"}, headers=auth(ana))
    twice = svc.client.post(url, json={"type": "flip"}, headers=auth(ana))
    assert twice.status_code == 409 and twice.json["code"] == "already_played"
    assert svc.engine.store.version(gid) == version + 1
    del bob


def test_unknown_games_and_routes_are_problems(svc):
    assert svc.client.get("/v1/games/0123456789abcdef").json["code"] == "not_found"
    assert svc.client.get("/v1/games/..%2F..%2Fetc").status_code == 404
    assert svc.client.get("/v1/games/{x}:events").status_code == 404
    gid = new_game(svc)["id"]
    assert svc.client.get(f"/v1/games/{gid}?at=zero").status_code == 400
    assert svc.client.get(f"/v1/games/{gid}?at=0").status_code == 400
    assert svc.client.get(f"/v1/games/{gid}/events?limit=5000").status_code == 400
    assert svc.client.get("/v1/games?status=lost").status_code == 400
    assert svc.client.get("/healthz").json == {"status": "ok"}
    assert svc.client.get("/readyz").json["status"] == "ready"


def test_each_append_is_logged_with_its_events_when_info_is_on(svc, caplog):
    created = new_game(svc)
    token = created["seats"][0]["token"]
    with caplog.at_level("INFO", logger="batayo.engine"):
        r = svc.client.post(
            f"/v1/games/{created['id']}/actions", json={"type": "flip"}, headers=auth(token)
        )
    assert r.status_code == 200
    [record] = [rec for rec in caplog.records if rec.getMessage() == "appended"]
    assert (record.game, record.version) == (created["id"], r.json["game"]["version"])
    assert record.event_types == [e["type"] for e in r.json["events"]]
