"""RFC 9457 problem details: every error the API gives, with a stable `code`."""

from __future__ import annotations

from typing import Any

import redis
from flask import Flask, Response, json
from werkzeug.exceptions import HTTPException

STORE_RETRY_AFTER_S = 1

TITLES = {
    400: "Bad request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not found",
    405: "Method not allowed",
    409: "Conflict",
    412: "Precondition failed",
    413: "Request body too large",
    415: "Unsupported media type",
    422: "Rule broken",
    429: "Too many requests",
    500: "Internal error",
    503: "Service unavailable",
}
CODES = {
    400: "invalid_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "body_too_large",
    415: "unsupported_media_type",
    429: "rate_limited",
    500: "internal_error",
}


class Problem(Exception):
    def __init__(self, status: int, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.status, self.code, self.detail, self.extra = status, code, detail, extra


def problem_response(status: int, code: str, detail: str, **extra: Any) -> Response:
    body = {
        "type": f"/problems/{code}",
        "title": TITLES.get(status, "Error"),
        "status": status,
        "detail": detail,
        "code": code,
        **extra,
    }
    response = Response(json.dumps(body), status=status, mimetype="application/problem+json")
    if "retry_after" in extra:
        response.headers["Retry-After"] = str(extra["retry_after"])
    return response


def install(app: Flask) -> None:
    @app.errorhandler(Problem)
    def _problem(exc: Problem) -> Response:
        return problem_response(exc.status, exc.code, exc.detail, **exc.extra)

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException) -> Response:
        status = exc.code or 500
        response = problem_response(status, CODES.get(status, "http_error"), exc.description or "")
        if status == 405 and getattr(exc, "valid_methods", None):
            response.headers["Allow"] = ", ".join(exc.valid_methods)
        return response

    @app.errorhandler(redis.ConnectionError)
    @app.errorhandler(redis.TimeoutError)
    def _store_busy(exc: redis.RedisError) -> Response:
        # the store is away or every connection of the pool is busy: a clean 503, never a 500
        app.logger.warning("the store did not answer: %s", exc)
        return problem_response(
            503,
            "store_unavailable",
            f"the store is busy or away; retry in {STORE_RETRY_AFTER_S} s",
            retry_after=STORE_RETRY_AFTER_S,
        )

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> Response:
        app.logger.exception("unhandled error")
        return problem_response(500, "internal_error", "an unexpected error; it has been logged")
