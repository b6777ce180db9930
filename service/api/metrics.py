"""Prometheus metrics: `GET /metrics`, what this process (or, under gunicorn, this container's
workers) did, counters that only grow; `GET /metrics/service`, the service's figures (games by
status, jobs by state, the totals in Redis), the same from every process.

How to scrape each: docs/operations.md#metrics.
"""

from __future__ import annotations

import time

from flask import Flask, Response, g, request
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from redis.exceptions import RedisError

from ..engine import Engine
from ..settings import shared_metrics
from ..store import counters

# The request metrics' labels take only values from fixed sets, whatever a client sends: a
# series lives for good, so a label of the client's text (a made-up method, a path) would let
# anyone grow /metrics without end. A route is its rule's template, never the path.
METHODS = frozenset({"GET", "POST", "HEAD", "OPTIONS", "PUT", "DELETE", "PATCH"})
OTHER_METHOD = "other"
UNMATCHED = "unmatched"  # the route of a request no rule matched
DURATIONS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
# the counter of connections the server turned away over BATAYO_CONNECTIONS_PER_ADDRESS
# (service/wsgi_io.py counts them; they never reach the app)
CONNECTIONS_REFUSED = "batayo.connections_refused"
# the counter of players' sockets passed to the worker that owns their game (service/handoff.py)
SOCKETS_PASSED = "batayo.sockets_passed"


def method_label(method: str) -> str:
    return method if method in METHODS else OTHER_METHOD


class ServiceCollector:
    """The service's figures, read from Redis at scrape time."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def collect(self):
        store = self.engine.store
        totals = store.counters()
        for name, doc in counters.NAMES.items():
            family = CounterMetricFamily(f"batayo_service_{name}", f"{doc}, by every process")
            family.add_metric([], totals.get(name, 0))
            yield family
        games = GaugeMetricFamily("batayo_games", "Games by status", labels=["status"])
        for status, n in sorted(store.status_counts().items()):
            games.add_metric([status], n)
        yield games
        outbox = getattr(self.engine.dispatcher, "outbox", None)
        if outbox is not None:
            waiting = GaugeMetricFamily(
                "batayo_outbox_jobs",
                "Jobs due, waiting in the store for the queue",
                labels=["kind"],
            )
            for kind, n in outbox.waiting().items():
                waiting.add_metric([kind], n)
            yield waiting
        rq = getattr(self.engine.dispatcher, "queue", None)
        if rq is not None:
            yield from _jobs(rq)


def _jobs(rq) -> list:
    """RQ's jobs by queue and state, and whether the queue answers (an outage is a figure)."""
    up = GaugeMetricFamily("batayo_queue_up", "Whether the job queue answers (1) or not (0)")
    jobs = GaugeMetricFamily("batayo_jobs", "RQ jobs by queue and state", labels=["queue", "state"])
    try:
        for name, queue in rq.queues.items():
            jobs.add_metric([name, "queued"], queue.count)
            jobs.add_metric([name, "scheduled"], queue.scheduled_job_registry.count)
            jobs.add_metric([name, "started"], queue.started_job_registry.count)
            jobs.add_metric([name, "failed"], queue.failed_job_registry.count)
    except RedisError:
        up.add_metric([], 0)
        return [up]
    up.add_metric([], 1)
    return [up, jobs]


def this_process(own: CollectorRegistry) -> bytes:
    """What this process did (with `own`, the app's request metrics), or under gunicorn what
    every worker process of the container did."""
    folder = shared_metrics()
    if folder is not None:
        summed = CollectorRegistry()
        multiprocess.MultiProcessCollector(summed, path=str(folder))
        return generate_latest(summed)
    return generate_latest(own) + generate_latest(counters.PROCESS)


def install(app: Flask, engine: Engine) -> None:
    own = CollectorRegistry()
    requests = Counter(
        "batayo_http_requests", "HTTP requests", ["method", "route", "status"], registry=own
    )
    durations = Histogram(
        "batayo_http_request_duration_seconds",
        "Time to answer a request (to its first byte, for a stream)",
        ["method", "route"],
        buckets=DURATIONS,
        registry=own,
    )
    service = CollectorRegistry()
    service.register(ServiceCollector(engine))

    app.extensions["batayo.requests"] = requests  # the direct path counts its answers too
    app.extensions["batayo.durations"] = durations
    app.extensions[CONNECTIONS_REFUSED] = Counter(
        "batayo_connections_refused",
        "Connections answered 503 and closed before their request was read: their address "
        "held BATAYO_CONNECTIONS_PER_ADDRESS connections already",
        registry=own,
    )
    app.extensions[SOCKETS_PASSED] = Counter(
        "batayo_sockets_passed",
        "Players' sockets this worker accepted and passed, unread, to the worker that serves "
        "their game's other players",
        registry=own,
    )

    @app.before_request
    def _start() -> None:
        g.started = time.perf_counter()

    @app.after_request
    def _count(response: Response) -> Response:
        route = request.url_rule.rule if request.url_rule else UNMATCHED
        method = method_label(request.method)
        requests.labels(method, route, str(response.status_code)).inc()
        started = g.get("started")
        if started is not None:
            durations.labels(method, route).observe(time.perf_counter() - started)
        return response

    @app.get("/metrics")
    def metrics() -> Response:
        # content_type, not mimetype: Flask would add a second charset to Prometheus' own
        return Response(this_process(own), content_type=CONTENT_TYPE_LATEST)

    @app.get("/metrics/service")
    def service_metrics() -> Response:
        return Response(generate_latest(service), content_type=CONTENT_TYPE_LATEST)
