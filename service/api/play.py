"""Playing a game: its view (now or at any version), actions, hints."""

from __future__ import annotations

from collections.abc import Callable

from flask import Blueprint, Response, current_app, request

from ..core.views import game_view
from ..engine import Engine
from . import caching, limits, schemas
from .http import body_of, caller, engine, idempotency_key, load, ok, query, refusals, require
from .problems import Problem

bp = Blueprint("play", __name__, url_prefix="/v1")
VIEW_QUERY_SCHEMA = schemas.ViewQuery()


@bp.get("/games/<game_id>")
def view(game_id: str) -> Response:
    require(game_id)
    seat = caller(game_id)
    at = query(VIEW_QUERY_SCHEMA).get("at")
    state = load(game_id, at)
    immutable = at is not None or state["status"] == "finished"
    return caching.read(game_view(state, seat), state["version"], immutable)


@bp.post("/games/<game_id>/actions")
@refusals
def act(game_id: str) -> Response:
    require(game_id)
    seat = caller(game_id, required=True)
    action = body_of()
    body, version = acted(
        engine(), game_id, seat, action, request.headers.get("If-Match"), idempotency_key()
    )
    return ok(body, ETag=f'"{version}"')


def acted(
    eng: Engine,
    game_id: str,
    seat: int,
    action: dict,
    if_match: str | None,
    idem_key: str | None,
) -> tuple[dict, int]:
    """A seat's action applied: the answer's body and the version it reached. Shared by the
    route and its direct path (service/api/direct.py)."""
    events, state = applied(eng, game_id, seat, action, if_match, idem_key)
    body = {"events": eng.shown(events, seat, state), "game": game_view(state, seat)}
    return body, state["version"]


@bp.post("/games/<game_id>/skip")
@refusals
def skip(game_id: str) -> Response:
    """Skip to the end: once no human seat is still playing, a seat holder asks the bots to
    play the rest at full speed instead of at the game's `bot_pace_ms` (docs/api.md#bot-pace)."""
    require(game_id)
    caller(game_id, required=True)
    return ok(engine().skip(game_id))


def applied(
    eng: Engine,
    game_id: str,
    seat: int,
    action: dict,
    if_match: str | None,
    idem_key: str | None,
    decided: Callable[[dict], None] | None = None,
) -> tuple[list[dict], dict]:
    """A seat's action applied after the route's checks (`If-Match`, idempotency): the events
    appended and the new state, without the answer's body (the socket sends its events and
    view as frames of their own). `decided`: as `Engine.act`'s."""
    expected = caching.if_match(if_match, lambda: eng.load(game_id)["version"])
    return eng.act(game_id, seat, action, expected, idem_key, decided=decided)


HINT_RETRY_S = 1  # a strong move is searched in well under a second (docs/bots.md)


@bp.get("/games/<game_id>/hint")
def hint(game_id: str) -> Response:
    """Teach me: the game's strong bot suggests the caller's seat an action, with a reason (a
    code and its parameters). While a worker searches, 202 and Retry-After: ask again."""
    state = load(game_id)
    seat = caller(game_id, required=True)
    limits.hint_limit(current_app, request.headers.get("Authorization"))
    suggestion = engine().hint(game_id, seat)
    if suggestion is None:
        raise Problem(404, "no_hint", f"{state['game']} offers no hints")
    if suggestion.get("pending"):
        return ok(suggestion, 202, **{"Retry-After": str(HINT_RETRY_S)})
    return ok(suggestion)
