"""Batak over HTTP: illegal cards are 422s naming the rule, and Teach me suggests a legal move."""

from __future__ import annotations

from tests.support.helpers import auth
from tests.support.service import Service

HANDS = [
    ["AS", "KS", "QS", "JS", "10S", "9S", "8S", "7S", "6S", "5S", "4S", "3S", "2S"],
    ["AH", "KH", "QH", "JH", "10H", "9H", "8H", "7H", "6H", "5H", "4H", "3H", "2H"],
    ["AD", "KD", "QD", "JD", "10D", "9D", "8D", "7D", "6D", "5D", "4D", "3D", "2D"],
    ["AC", "KC", "QC", "JC", "10C", "9C", "8C", "7C", "6C", "5C", "4C", "3C", "2C"],
]


def test_an_illegal_card_is_a_422_naming_the_rule_and_hint_suggests_a_legal_action():
    svc = Service()
    created = svc.client.post(
        "/v1/games",
        json={
            "game": "batak",
            "seats": [{"name": f"p{i}"} for i in range(4)],
            "deal": {"hands": HANDS},
        },
    ).json
    gid, tokens = created["id"], [s["token"] for s in created["seats"]]
    view = svc.client.get(f"/v1/games/{gid}").json
    bidder = view["to_move"][0]
    asked = svc.client.get(f"/v1/games/{gid}/hint", headers=auth(tokens[bidder]))
    assert asked.status_code == 202  # a worker searches
    svc.run_jobs()
    tip = svc.client.get(f"/v1/games/{gid}/hint", headers=auth(tokens[bidder])).json
    mine = svc.client.get(f"/v1/games/{gid}", headers=auth(tokens[bidder])).json
    assert tip["action"] in mine["legal_actions"] and tip["reason"]["code"] in ("bid", "pass")
    low = svc.client.post(
        f"/v1/games/{gid}/actions", json={"type": "bid", "tricks": 2}, headers=auth(tokens[bidder])
    )
    assert low.status_code == 422 and low.json["code"] == "bid_too_low"
    assert "4" in low.json["detail"]
    other = (bidder + 1) % 4
    idle = svc.client.get(f"/v1/games/{gid}/hint", headers=auth(tokens[other])).json
    assert idle["action"] is None and idle["reason"]["code"] == "not_your_turn"
    assert svc.client.get(f"/v1/games/{gid}/hint").status_code == 401
