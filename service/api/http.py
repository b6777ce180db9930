"""What every route shares: JSON answers, checked bodies and queries, the caller's seat, the
game id, and the engine's refusals as problems."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import wraps
from typing import Any

from flask import Response, current_app, request
from marshmallow import Schema, ValidationError
from werkzeug.exceptions import ClientDisconnected

from ..core import bounds
from ..core.game import RuleError
from ..engine import Engine, IdempotencyMismatch, NotFound, Stale
from . import schemas
from .encoding import dumps
from .problems import Problem

GAME_ID = bounds.matcher(bounds.GAME_ID)


def engine() -> Engine:
    return current_app.extensions["batayo.engine"]


def ok(body: Any, status: int = 200, **headers: str) -> Response:
    response = Response(dumps(body), status=status, mimetype="application/json")
    response.headers.update(headers)
    return response


def vary_on(response: Response, field: str) -> None:
    """Add `field` to the answer's `Vary`, by hand: werkzeug's `response.vary` raises and catches
    a KeyError on every answer without a `Vary` yet, a measurable share of a plain request's
    CPU (docs/performance.md#shortcuts-judged-in-paired-runs)."""
    have = response.headers.get("Vary")
    if not have:
        response.headers["Vary"] = field
    elif not any(t.strip().lower() in ("*", field.lower()) for t in have.split(",")):
        response.headers["Vary"] = f"{have}, {field}"


def body_of(schema: Schema | None = None) -> dict:
    """The JSON body, checked by `schema` (if any); 400 on anything malformed."""
    try:
        raw = request.get_data()
    except ClientDisconnected:  # the body ended before its length: the client went away
        raise short_body(request.content_length) from None
    if request.mimetype != "application/json":
        raise Problem(415, "unsupported_media_type", "send the body as application/json")
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise Problem(400, "invalid_request", "the body is not valid JSON") from None
    if not isinstance(data, dict):
        raise Problem(400, "invalid_request", "expected a JSON object")
    if not _unicode(data):
        raise Problem(400, "invalid_request", "text must be Unicode: no lone surrogate (\\ud800)")
    return checked(schema, data) if schema is not None else data


def short_body(length: int | None) -> Problem:
    """A body that ended before its `Content-Length` (or whose reading failed): a 400."""
    return Problem(
        400, "invalid_request", f"the body ended before its Content-Length ({length} bytes)"
    )


def _unicode(value: Any) -> bool:
    """Whether every string in a JSON value (keys too) is Unicode text. JSON's `\\udc00` escape
    can write half a surrogate pair, which no store or answer can encode as UTF-8."""
    if isinstance(value, str):
        return value.isascii() or _encodable(value)
    if isinstance(value, dict):
        return all(_unicode(k) and _unicode(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_unicode(v) for v in value)
    return True


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def checked(schema: Schema, data: Any) -> dict:
    if not isinstance(data, dict):
        raise Problem(400, "invalid_request", "expected a JSON object")
    try:
        return schema.load(data)
    except ValidationError as exc:
        raise invalid(exc) from None


def query(schema: Schema) -> dict:
    try:
        args = schemas.query_args(request.args)
    except ValidationError as exc:
        raise invalid(exc) from None
    return checked(schema, args)


def invalid(exc: ValidationError) -> Problem:
    return Problem(400, "invalid_request", _flatten(exc.messages), errors=exc.messages)


def _flatten(messages: Any, prefix: str = "") -> str:
    if isinstance(messages, dict):
        return "; ".join(_flatten(v, f"{prefix}{k}.") for k, v in messages.items())
    if isinstance(messages, list):
        return "; ".join(
            _flatten(m, prefix) if isinstance(m, dict | list) else f"{prefix.rstrip('.')}: {m}"
            for m in messages
        )
    return f"{prefix.rstrip('.')}: {messages}"


def game_id_checked(game_id: str) -> str:
    """Ids are 16 hex digits; anything else never reaches Redis."""
    if not GAME_ID(game_id):
        raise Problem(404, "not_found", "no such game")
    return game_id


def require(game_id: str) -> None:
    """404 unless the game exists (no round trip for a game the engine holds)."""
    if not engine().exists(game_id_checked(game_id)):
        raise Problem(404, "not_found", "no such game")


def load(game_id: str, at: int | None = None) -> dict:
    try:
        return engine().load(game_id_checked(game_id), at)
    except NotFound:
        if at is not None:
            raise Problem(404, "not_found", f"this game has no version {at}") from None
        raise Problem(404, "not_found", "no such game") from None


def caller(game_id: str, required: bool = False) -> int | None:
    """The seat the request's bearer token acts for; None for a spectator."""
    return seat_for(engine(), game_id, request.headers.get("Authorization"), required)


def bearer(header: str | None) -> str | None:
    """The token of an `Authorization: Bearer <token>` header (None: none, or another scheme)."""
    scheme, _, token = (header or "").partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


def seat_for(eng: Engine, game_id: str, header: str | None, required: bool = False) -> int | None:
    """The seat an `Authorization` header acts for; None for a spectator."""
    if not header:
        if required:
            raise Problem(401, "unauthorized", "act with Authorization: Bearer <your seat's token>")
        return None
    token = bearer(header)
    if token is None:
        raise Problem(401, "unauthorized", "use Authorization: Bearer <token>")
    try:
        return eng.seat_of(game_id, token)
    except PermissionError:
        raise Problem(403, "forbidden", "this token belongs to another game") from None
    except LookupError:
        raise Problem(401, "unauthorized", "unknown token for this game") from None


def idempotency_key() -> str | None:
    return checked_key(request.headers.get("Idempotency-Key"))


def checked_key(key: str | None) -> str | None:
    if key is not None and not 1 <= len(key) <= bounds.IDEMPOTENCY_KEY_MAX:
        raise Problem(
            400,
            "invalid_request",
            f"Idempotency-Key must be 1 to {bounds.IDEMPOTENCY_KEY_MAX} characters",
        )
    return key


REFUSALS = (RuleError, Stale, IdempotencyMismatch)


def refusal(exc: Exception) -> Problem:
    """The engine's refusal (nothing changed) as the problem the API answers."""
    if isinstance(exc, RuleError):
        return Problem(exc.status, exc.code, exc.detail)
    if isinstance(exc, Stale):
        return Problem(
            412, "version_mismatch", f"the game is at version {exc.current}", version=exc.current
        )
    return Problem(422, "idempotency_key_reused", str(exc))


def refusals(route: Callable) -> Callable:
    """The engine's refusals as problems: a rule, a stale If-Match, a reused key."""

    @wraps(route)
    def wrapped(*args: Any, **kwargs: Any) -> Response:
        try:
            return route(*args, **kwargs)
        except REFUSALS as exc:
            raise refusal(exc) from None

    return wrapped
