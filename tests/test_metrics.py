"""Metrics that add up (service/api/metrics.py): `/metrics` counts what its process did (or, under
gunicorn, every worker process of the server), so the sum over the servers is the service and a
server's count never goes backwards; `/metrics/service` shows the service's figures once."""

from __future__ import annotations

import pytest

from tests.support.processes import start_worker, wait_until
from tests.support.redis_server import free_port
from tests.support.service import Service
from tests.support.serving import call, metric, production, scrape, serve

BOTS = {"game": "bataille", "options": {"max_rounds": 20}, "seats": [{"bot": "random"}] * 2}
HUMANS = {"game": "bataille", "seats": [{"name": "a"}, {"name": "b"}]}


def test_metrics_count_requests_events_bot_moves_and_games():
    svc = Service()
    before = svc.client.get("/metrics").get_data(as_text=True)
    created = svc.client.post("/v1/games", json=BOTS).json
    svc.client.post(
        "/v1/games", json={"game": "bataille", "seats": [{"name": "a"}, {"open": True}]}
    )
    svc.client.get("/v1/games/0123456789abcdef")
    svc.run_jobs()
    text = svc.client.get("/metrics").get_data(as_text=True)

    def grew(name: str) -> float:  # counters of this process: other tests' games count too
        return metric(text, name) - metric(before, name)

    events = svc.engine.store.version(created["id"])
    assert grew("batayo_events_appended_total") >= events
    assert grew("batayo_bot_moves_total") > 0
    assert grew("batayo_games_created_total") == 2
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
    route = '{method="POST",route="/v1/games"}'
    assert metric(text, "batayo_http_request_duration_seconds_count", route) == 2

    service = svc.client.get("/metrics/service").get_data(as_text=True)
    assert metric(service, "batayo_games", '{status="finished"}') == 1
    assert metric(service, "batayo_games", '{status="open"}') == 1
    assert metric(service, "batayo_service_games_created_total") == 2
    assert metric(service, "batayo_service_events_appended_total") >= events
    assert "batayo_games{" not in text  # service-wide figures are not a process's


@pytest.mark.redis
@pytest.mark.slow
def test_two_servers_counts_sum_to_the_services(redis_url, tmp_path):
    """Each server counts only what it did: summed over the servers (as Prometheus does), the
    games created are the service's, never a multiple of them."""
    env = {"REDIS_URL": redis_url, "BATAYO_GAMES_PER_CLIENT": "0"}
    a, b = serve(tmp_path, env, name="a"), serve(tmp_path, env, name="b")
    try:
        for port, n in ((a.port, 2), (b.port, 3)):
            for _ in range(n):
                assert call(port, "POST", "/v1/games", HUMANS)[0] == 201
        by_a, by_b = scrape(a.port), scrape(b.port)
        created = [metric(t, "batayo_games_created_total") for t in (by_a, by_b)]
        assert created == [2, 3]
        posts = '{method="POST",route="/v1/games",status="201"}'
        assert metric(by_a, "batayo_http_requests_total", posts) == 2
        assert metric(by_b, "batayo_http_requests_total", posts) == 3
        for port in (a.port, b.port):  # the service's figures, the same from either (another
            # process's counts reach Redis within a second: asserted with a 2x margin)

            def totals(port=port) -> float:
                return metric(
                    scrape(port, "/metrics/service"), "batayo_service_games_created_total"
                )

            if not wait_until(lambda: totals() == 5, 2.0):  # what each server logged, to see why
                logs = [
                    line for s in (a, b) for line in s.text().splitlines() if "counters" in line
                ]
                pytest.fail(f"the service's games created read {totals()}, not 5: {logs}")
            service = scrape(port, "/metrics/service")
            assert metric(service, "batayo_games", '{status="playing"}') == 5
    finally:
        a.stop()
        b.stop()


@pytest.mark.redis
@pytest.mark.slow
def test_a_gunicorn_servers_metrics_add_up_its_workers_and_never_go_backwards(redis_url, tmp_path):
    """Two worker processes behind one port: whichever answers the scrape, it counts what both
    did (prometheus_client's multiprocess mode), so the count never goes backwards."""
    server = production(
        tmp_path,
        redis_url,
        {"WEB_CONCURRENCY": "2", "BATAYO_GAMES_PER_CLIENT": "0"},
    )
    try:
        for _ in range(12):  # a new connection each: the kernel spreads them over the workers
            status, _, _ = call(server.port, "POST", "/v1/games", HUMANS)
            assert status == 201
        for _ in range(10):
            text = scrape(server.port)
            assert metric(text, "batayo_games_created_total") == 12
        service = scrape(server.port, "/metrics/service")
        assert metric(service, "batayo_games", '{status="playing"}') == 12
    finally:
        server.stop()


@pytest.mark.redis
@pytest.mark.slow
def test_a_worker_serves_what_it_did_on_its_metrics_port(redis_url, tmp_path):
    port = free_port()
    api = serve(tmp_path, {"REDIS_URL": redis_url})
    worker = start_worker(tmp_path / "worker.log", redis_url, BATAYO_WORKER_METRICS_PORT=str(port))
    try:
        status, body, _ = call(api.port, "POST", "/v1/games", BOTS)
        assert status == 201

        def finished() -> bool:
            return call(api.port, "GET", f"/v1/games/{body['id']}")[1]["status"] == "finished"

        assert wait_until(finished, 30)

        def counted() -> float:
            try:
                return metric(scrape(port), "batayo_bot_moves_total")
            except (OSError, AssertionError):
                return 0

        assert wait_until(lambda: counted() > 0, 10)
        assert metric(scrape(api.port), "batayo_bot_moves_total") == 0  # the API moved none
    finally:
        worker.terminate()
        worker.wait(20)
        api.stop()
