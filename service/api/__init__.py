"""The Flask app: `/v1` routes, health checks, problem+json errors."""

from __future__ import annotations

from flask import Flask, Response, json

from ..core.registry import GAMES
from ..engine import Engine
from ..live import Hub, LiveSettings
from ..settings import Settings, current
from ..web import bp as web_bp
from . import (
    compression,
    cors,
    direct,
    history,
    limits,
    lobby,
    metrics,
    openapi,
    play,
    problems,
    proxies,
    stream,
    websocket,
)

MAX_BODY = 64 * 1024


def create_app(
    engine: Engine,
    live: LiveSettings | None = None,
    direct_path: bool = True,
    settings: Settings | None = None,
) -> Flask:
    """The app; without `direct_path`, Flask answers actions too (the tests compare both).
    `settings` default to the process's own (read from the environment at start)."""
    settings = settings or current()
    GAMES.load()
    app = Flask("batayo")
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    app.config["LOBBY_IDLE_S"] = settings.lobby_idle_s  # GET /v1/games?waiting=1
    app.extensions["batayo.engine"] = engine
    app.extensions["batayo.live"] = Hub(engine, live or LiveSettings.of(settings))
    problems.install(app)
    limits.install(app, engine.store.redis, settings)
    metrics.install(app, engine)
    cors.install(app, settings.cors_origins)
    compression.install(app)
    app.register_blueprint(lobby.bp)
    app.register_blueprint(play.bp)
    app.register_blueprint(history.bp)
    app.register_blueprint(stream.bp)
    app.register_blueprint(websocket.bp)
    app.register_blueprint(web_bp)
    if direct_path:
        app.wsgi_app = direct.Direct(app, app.wsgi_app)  # type: ignore[method-assign]
    if settings.trusted_proxies:  # outermost: every layer sees the client the proxies name
        app.wsgi_app = proxies.Forwarded(app.wsgi_app, settings.trusted_proxies)  # type: ignore[method-assign]

    @app.get("/healthz")
    def healthz() -> Response:
        return Response(json.dumps({"status": "ok"}), mimetype="application/json")

    @app.get("/openapi.json")
    def openapi_json() -> Response:
        return Response(json.dumps(openapi.document()), mimetype="application/json")

    @app.get("/readyz")
    def readyz() -> Response:
        # not ready only when the store cannot take writes: with the job queue away, actions
        # are still taken (their jobs wait in the store's outbox), so the body only says so
        parts = engine.health()
        if parts["store"] != "ok":
            return problems.problem_response(
                503, "not_ready", "the store cannot take writes", **parts
            )
        return Response(json.dumps({"status": "ready", **parts}), mimetype="application/json")

    return app
