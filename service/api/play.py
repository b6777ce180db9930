"""Playing a game: its view (now or at any version), actions, hints."""

from __future__ import annotations

import re

from flask import Blueprint, Response, request

from ..core.views import game_view
from . import schemas
from .http import body_of, caller, engine, idempotency_key, load, ok, query, refusals, require
from .problems import Problem

bp = Blueprint("play", __name__, url_prefix="/v1")
VIEW_QUERY_SCHEMA = schemas.ViewQuery()
IF_MATCH = re.compile(r'^(?:W/)?"?(\d{1,15})"?$')


@bp.get("/games/<game_id>")
def view(game_id: str) -> Response:
    require(game_id)
    seat = caller(game_id)
    at = query(VIEW_QUERY_SCHEMA).get("at")
    state = load(game_id, at)
    return ok(game_view(state, seat), ETag=f'"{state["version"]}"')


@bp.post("/games/<game_id>/actions")
@refusals
def act(game_id: str) -> Response:
    require(game_id)
    seat = caller(game_id, required=True)
    action = body_of()
    expected = None
    if_match = request.headers.get("If-Match")
    if if_match is not None and if_match.strip() != "*":
        match = IF_MATCH.match(if_match.strip())
        if not match:
            raise Problem(400, "invalid_request", 'If-Match must be a version, e.g. "12"')
        expected = int(match.group(1))
    eng = engine()
    events, state = eng.act(game_id, seat, action, expected, idempotency_key())
    body = {"events": eng.shown(events, seat, state), "game": game_view(state, seat)}
    return ok(body, ETag=f'"{state["version"]}"')


@bp.get("/games/<game_id>/hint")
def hint(game_id: str) -> Response:
    """Teach me: the game's strongest bot suggests the caller's seat an action, with a reason."""
    state = load(game_id)
    seat = caller(game_id, required=True)
    suggestion = engine().hint(game_id, seat)
    if suggestion is None:
        raise Problem(404, "no_hint", f"{state['game']} offers no hints")
    return ok(suggestion)
