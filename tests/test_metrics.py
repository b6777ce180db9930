"""GET /metrics: requests by route and status, and the service-wide counters kept in Redis."""

from __future__ import annotations

import re

from tests.support.service import Service


def metric(text: str, name: str, labels: str = "") -> float:
    pattern = rf"^{re.escape(name)}{re.escape(labels)} ([0-9.e+]+)$"
    found = re.search(pattern, text, re.MULTILINE)
    assert found, f"{name}{labels} missing"
    return float(found.group(1))


def test_metrics_count_requests_events_bot_moves_and_games():
    svc = Service()
    created = svc.client.post(
        "/v1/games",
        json={
            "game": "bataille",
            "options": {"max_rounds": 20},
            "seats": [{"bot": "random"}, {"bot": "greedy"}],
        },
    ).json
    svc.client.post(
        "/v1/games", json={"game": "bataille", "seats": [{"name": "a"}, {"open": True}]}
    )
    svc.client.get("/v1/games/0123456789abcdef")
    svc.run_jobs()
    text = svc.client.get("/metrics").get_data(as_text=True)
    events = svc.engine.store.version(created["id"])
    assert metric(text, "batayo_events_appended_total") >= events
    assert metric(text, "batayo_bot_moves_total") > 0
    assert metric(text, "batayo_games_created_total") == 2
    assert metric(text, "batayo_games", '{status="finished"}') == 1
    assert metric(text, "batayo_games", '{status="open"}') == 1
    assert (
        metric(text, "batayo_http_requests_total", '{method="POST",route="/v1/games",status="201"}')
        == 2
    )
    assert (
        metric(
            text,
            "batayo_http_requests_total",
            '{method="GET",route="/v1/games/<game_id>",status="404"}',
        )
        == 1
    )
