"""RFC 9457 problem details: every error the API gives, with a stable `code`."""

from __future__ import annotations

from typing import Any

import redis
from flask import Flask, Response, has_request_context, request
from werkzeug.exceptions import HTTPException

from .encoding import dumps

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
    426: "Upgrade required",
    429: "Too many requests",
    500: "Internal error",
    503: "Unavailable",
}
CODES = {
    400: "invalid_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "body_too_large",
    406: "not_acceptable",
    415: "unsupported_media_type",
    429: "rate_limited",
    500: "internal_error",
}


# Every code the framework answers with (the games add their rules' own: `Game.problems`); the
# contract enumerates them all, so a client can switch on `code`.
FRAMEWORK = {
    "invalid_request": "a malformed body, query or header, an unknown field, a bad option",
    "unauthorized": "a token is needed and is missing, malformed or unknown",
    "forbidden": "a token of another game",
    "not_found": "no such game (or no such version of it), or no such route",
    "method_not_allowed": "the route does not take this method",
    "body_too_large": "the body is over 64 KiB",
    "unsupported_media_type": "the body is not application/json",
    "not_acceptable": "the route cannot answer in a media type the request accepts",
    "rate_limited": "too many requests from this client or with this token",
    "too_many_games": "this client address has its maximum of games in play: finish one first",
    "not_ready": "the store cannot take writes (readiness; the job queue never makes it 503)",
    "unavailable": "the store does not answer: retry after Retry-After seconds",
    "internal_error": "a bug on the server: it has been logged",
    "http_error": "another HTTP error",
    "version_mismatch": "If-Match names another version than the game's",
    "idempotency_key_reused": "this Idempotency-Key was used with another body",
    "request_in_progress": "the first request with this Idempotency-Key is still running",
    "not_your_turn": "the seat's move is not awaited now",
    "not_started": "seats are still open",
    "game_over": "the game has ended",
    "game_not_over": "only a finished game can be exported",
    "unsigned": "this server has no signing key: its logs are unsigned",
    "tip_hidden": "a game of fairness version 1 in play serves no hashes, so no signature",
    "game_full": "every seat is taken",
    "id_taken": "a test game's fixed id exists already",
    "busy": "too many concurrent writes to this game; retry",
    "seed_ticket_unknown": "no such seed ticket",
    "seed_ticket_used": "the seed ticket was used by another game",
    "seed_ticket_expired": "the seed ticket has expired",
    "no_hint": "this game offers no hints",
    "cannot_skip": "the bots keep no pace in this game, or a human seat is still playing",
    "too_many_streams": "this client address has its maximum of open streams",
    "streams_full": "this server process has its maximum of open streams: retry elsewhere",
    "upgrade_required": "the route takes a WebSocket upgrade (RFC 6455) only",
}


class Problem(Exception):
    def __init__(self, status: int, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.status, self.code, self.detail, self.extra = status, code, detail, extra


# The store not answering (a lost connection, a timeout, a failover under way): a 503 to retry,
# never a 500. Any other Redis error is a bug of ours and stays a 500.
STORE_DOWN = (
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    redis.exceptions.ClusterDownError,
    redis.exceptions.TryAgainError,
    redis.exceptions.ReadOnlyError,
    redis.exceptions.MasterDownError,
    redis.exceptions.RedisClusterException,  # no node of a cluster reachable, a slot uncovered
    redis.exceptions.AskError,  # MOVED/ASK to a plain client: a slot moving, or a cluster
    # named without BATAYO_REDIS_CLUSTER (refused at start; a server turned cluster later)
)
RETRY_AFTER_S = 1


def problem_body(status: int, code: str, detail: str, **extra: Any) -> dict[str, Any]:
    """The RFC 9457 object itself: the body of an answer, or a socket's `refused` frame."""
    return {
        "type": f"/problems/{code}",
        "title": TITLES.get(status, "Error"),
        "status": status,
        "detail": detail,
        "code": code,
        **extra,
    }


def problem_response(status: int, code: str, detail: str, **extra: Any) -> Response:
    body = problem_body(status, code, detail, **extra)
    response = Response(dumps(body), status=status, mimetype="application/problem+json")
    if status == 401:  # RFC 9110 11.6.1, RFC 6750 3: say how to authenticate
        given = request.headers.get("Authorization") if has_request_context() else None
        error = ', error="invalid_token"' if given else ""
        response.headers["WWW-Authenticate"] = f'Bearer realm="batayo"{error}'
    if "retry_after" in extra:
        response.headers["Retry-After"] = str(extra["retry_after"])
    elif status == 503:
        response.headers["Retry-After"] = str(RETRY_AFTER_S)
    return response


def unavailable() -> Response:
    """The store is away, or every connection of the pool is busy: a clean 503, never a 500."""
    return problem_response(503, "unavailable", "the store does not answer; retry shortly")


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

    def _store_down(exc: Exception) -> Response:
        app.logger.warning("the store does not answer: %s", exc)
        return unavailable()

    for kind in STORE_DOWN:
        app.register_error_handler(kind, _store_down)

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> Response:
        app.logger.exception("unhandled error")
        return problem_response(500, "internal_error", "an unexpected error; it has been logged")
