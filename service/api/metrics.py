"""`GET /metrics` in Prometheus' text format.

Requests are counted in this process. Work done anywhere (events appended, bot moves, clocks
fired) is counted in Redis by whichever process did it, and read at scrape time with the
games by status and RQ's job registries, so one scrape of any API process sees the service.
"""

from __future__ import annotations

from flask import Flask, Response, request
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

from ..engine import Engine

_COUNTERS = {
    "events_appended": "Events appended to game streams",
    "actions": "Actions applied (by seats, bots and clocks)",
    "bot_moves": "Moves played by bots",
    "timers_fired": "Clocks that ran out and acted (move clocks and game clocks)",
    "games_created": "Games created",
    "games_abandoned": "Games ended as abandoned (no new event for their abandon_after_s)",
}


# The request metric's labels take only values from fixed sets, whatever a client sends: a
# series lives for good, so a label of the client's text (a made-up method, a path) would let
# anyone grow /metrics without end. A route is its rule's template, never the path.
METHODS = frozenset({"GET", "POST", "HEAD", "OPTIONS", "PUT", "DELETE", "PATCH"})
OTHER_METHOD = "other"
UNMATCHED = "unmatched"  # the route of a request no rule matched


def method_label(method: str) -> str:
    return method if method in METHODS else OTHER_METHOD


class ServiceCollector:
    """Service-wide figures read from Redis at scrape time."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def collect(self):
        store = self.engine.store
        counters = store.counters()
        for name, doc in _COUNTERS.items():
            family = CounterMetricFamily(f"batayo_{name}", doc)
            family.add_metric([], counters.get(name, 0))
            yield family
        games = GaugeMetricFamily("batayo_games", "Games by status", labels=["status"])
        for status, n in sorted(store.status_counts().items()):
            games.add_metric([status], n)
        yield games
        queue = getattr(self.engine.dispatcher, "queue", None)
        if queue is not None:
            jobs = GaugeMetricFamily("batayo_jobs", "RQ jobs by state", labels=["state"])
            jobs.add_metric(["queued"], queue.count)
            jobs.add_metric(["scheduled"], queue.scheduled_job_registry.count)
            jobs.add_metric(["started"], queue.started_job_registry.count)
            jobs.add_metric(["finished"], queue.finished_job_registry.count)
            jobs.add_metric(["failed"], queue.failed_job_registry.count)
            yield jobs


def install(app: Flask, engine: Engine) -> None:
    registry = CollectorRegistry()
    requests = Counter(
        "batayo_http_requests", "HTTP requests", ["method", "route", "status"], registry=registry
    )
    registry.register(ServiceCollector(engine))

    app.extensions["batayo.requests"] = requests  # the direct path counts its answers too

    @app.after_request
    def _count(response: Response) -> Response:
        route = request.url_rule.rule if request.url_rule else UNMATCHED
        requests.labels(method_label(request.method), route, str(response.status_code)).inc()
        return response

    @app.get("/metrics")
    def metrics() -> Response:
        # content_type, not mimetype: Flask would add a second charset to Prometheus' own
        return Response(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)
