"""BATAYO over HTTP: bad commits are 4xx with stable codes and append nothing; a committed card
stays hidden from the other seat and spectators until the reveal."""

from __future__ import annotations

from tests.support.helpers import auth
from tests.support.service import Service

RANKS = ["A", "7", "8", "9", "10", "J", "Q", "K"]


def test_bad_commits_are_refused_with_stable_codes_and_append_nothing():
    svc = Service()
    packs = [[r + s for r in RANKS] for s in "SH"] + [
        ["7C", "8C", "9C", "10C", "JC", "QC", "KC", "AC"]
    ]
    created = svc.client.post(
        "/v1/games",
        json={
            "game": "batayo",
            "options": {"players": 3, "format": "express"},
            "seats": [{"name": "a"}, {"name": "b"}, {"name": "c"}],
            "deal": {"packs": packs},
        },
    ).json
    gid, (a, b, c) = created["id"], [s["token"] for s in created["seats"]]
    url = f"/v1/games/{gid}/actions"

    def refused(token: str, body: dict, status: int, code: str) -> None:
        version = svc.engine.store.version(gid)
        r = svc.client.post(url, json=body, headers=auth(token))
        assert (r.status_code, r.json["code"]) == (status, code), r.json
        assert svc.engine.store.version(gid) == version

    def public_knowledge() -> list[dict]:
        """Each seat's `known` cards: public (a pack is dealt its seat's suit), so "AS" is there
        from the deal; a commit must not change it."""
        return svc.client.get(f"/v1/games/{gid}").json["known"]

    refused(a, {"type": "play", "card": "AH"}, 422, "card_not_in_hand")
    refused(a, {"type": "flip"}, 400, "invalid_request")
    known = public_knowledge()
    assert (
        svc.client.post(url, json={"type": "play", "card": "AS"}, headers=auth(a)).status_code
        == 200
    )
    refused(a, {"type": "play", "card": "7S"}, 409, "already_committed")
    hidden = svc.client.get(f"/v1/games/{gid}/events?after=2", headers=auth(b)).json["events"]
    spectator = svc.client.get(f"/v1/games/{gid}").json
    spectator.pop("known")
    assert "AS" not in str(hidden) and "AS" not in str(spectator)
    assert public_knowledge() == known  # the commit tells nothing of which card it was
    svc.client.post(url, json={"type": "play", "card": "AH"}, headers=auth(b))
    svc.client.post(url, json={"type": "play", "card": "7C"}, headers=auth(c))
    view = svc.client.get(f"/v1/games/{gid}").json
    # docs/rules/batayo.md#rule-3: between the tied players only
    assert sorted(view["to_move"]) == [0, 1]
    refused(c, {"type": "play", "card": "8C"}, 409, "not_in_batayo")
