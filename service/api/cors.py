"""Cross-origin requests (CORS): off unless the operator names the origins allowed.

`BATAYO_CORS_ORIGINS` (service/settings.py; `CORS_ORIGINS` in the app's config): an allow-list
of origins (`https://cards.example`), or `*` for any. A request from an allowed origin gets
`Access-Control-Allow-Origin` with that origin, and a preflight (`OPTIONS` with
`Access-Control-Request-Method`) the methods and headers the API takes. Credentials are never
allowed: a seat acts with its bearer token, which a page sends on its own, not cookies.
"""

from __future__ import annotations

from flask import Flask, Response, request

from .http import vary_on

METHODS = "GET, POST"
HEADERS = "Authorization, Content-Type, If-Match, If-None-Match, Idempotency-Key, Last-Event-ID"
EXPOSED = "ETag, Location, Retry-After, RateLimit, RateLimit-Policy, WWW-Authenticate"
PREFLIGHT_MAX_AGE_S = 600


def install(app: Flask, origins: tuple[str, ...]) -> None:
    app.config.setdefault("CORS_ORIGINS", origins)

    @app.after_request
    def _cors(response: Response) -> Response:
        allowed = app.config["CORS_ORIGINS"]
        origin = request.headers.get("Origin")
        # a WebSocket's 101 is no fetch answer: its `Origin` was checked by its route
        if not allowed or not origin or response.status_code == 101:
            return response
        vary_on(response, "Origin")
        if "*" not in allowed and origin not in allowed:
            return response
        response.headers["Access-Control-Allow-Origin"] = "*" if "*" in allowed else origin
        response.headers["Access-Control-Expose-Headers"] = EXPOSED
        if request.method == "OPTIONS" and "Access-Control-Request-Method" in request.headers:
            response.headers["Access-Control-Allow-Methods"] = METHODS
            response.headers["Access-Control-Allow-Headers"] = HEADERS
            response.headers["Access-Control-Max-Age"] = str(PREFLIGHT_MAX_AGE_S)
        return response
