"""Cross-origin requests (CORS), on flask-cors: off unless the operator names the origins allowed.

`BATAYO_CORS_ORIGINS` (service/settings.py): an allow-list of origins (`https://cards.example`),
or `*` for any. A request from an allowed origin gets `Access-Control-Allow-Origin`, and a
preflight (`OPTIONS` with `Access-Control-Request-Method`) the methods and headers the API
takes. Credentials are never allowed: a seat acts with its bearer token, which a page sends on
its own, not cookies. With an allow-list every answer to a request with an `Origin` varies on
it (flask-cors leaves `Vary` out), so a shared cache never hands one origin's answer to another.
"""

from __future__ import annotations

from flask import Flask, Response, request
from flask_cors import CORS

from .http import vary_on

METHODS = ["GET", "POST"]
HEADERS = [
    "Authorization",
    "Content-Type",
    "If-Match",
    "If-None-Match",
    "Idempotency-Key",
    "Last-Event-ID",
]
EXPOSED = ["ETag", "Location", "Retry-After", "RateLimit", "RateLimit-Policy", "WWW-Authenticate"]
PREFLIGHT_MAX_AGE_S = 600


def install(app: Flask, origins: tuple[str, ...]) -> None:
    app.config["CORS_ORIGINS"] = origins  # the direct path leaves cross-origin calls to Flask
    if not origins:
        return
    CORS(
        app,
        # a WebSocket's 101 is no fetch answer: its route checks `Origin` itself
        resources={r"^(?!/v1/games/[^/]+/socket$).*": {}},
        origins="*" if "*" in origins else list(origins),
        methods=METHODS,
        allow_headers=HEADERS,
        expose_headers=EXPOSED,
        max_age=PREFLIGHT_MAX_AGE_S,
        supports_credentials=False,
        always_send=False,
    )
    if "*" in origins:
        return

    @app.after_request
    def _vary(response: Response) -> Response:
        if "Origin" in request.headers:
            vary_on(response, "Origin")
        return response
