"""The lobby: the games on offer and their lifecycle (rules, seed tickets, create, list, join)."""

from __future__ import annotations

import math

from flask import Blueprint, Response, current_app, request

from ..core.game import Game, Option
from ..core.options import options_of
from ..core.registry import GAMES
from ..core.texts import COMMON_OPTIONS, words
from . import schemas, strength
from .http import body_of, engine, idempotency_key, ok, query, refusals, require
from .problems import Problem

bp = Blueprint("lobby", __name__, url_prefix="/v1")
# one instance each: building a marshmallow schema costs more than loading a body with it
CREATE_GAME_SCHEMA = schemas.CreateGame()
JOIN_SCHEMA = schemas.Join()
LIST_QUERY_SCHEMA = schemas.ListQuery()


@bp.get("/rules")
def rules() -> Response:
    games = []
    for name, game in GAMES.items():
        low, high = game.seat_range
        entry = {
            "id": name,
            "title": game.title,
            "seats": {"min": low, "max": high},
            "options": [_option(game, o) for o in options_of(game)],
            "bots": list(game.bots),
            "traits": game.traits.describe(),
            "strength": strength.measured().get(name, []),
        }
        rules_text = words(game.texts, "rules")
        if rules_text:
            entry["rules"] = rules_text
        games.append(entry)
    return ok({"games": games})


def _option(game: Game, option: Option) -> dict:
    """An option as described by its rules, with its meaning in every language written."""
    out = option.describe()
    docs = words({**COMMON_OPTIONS, **game.texts.get("options", {})}, option.name, option.doc)
    if docs:
        out["docs"] = docs
    return out


@bp.post("/seeds")
def seed_ticket() -> Response:
    """A server seed committed before the caller chooses its client seed (docs/fairness.md)."""
    return ok(engine().seed_ticket(), 201)


@bp.post("/games")
@refusals
def create() -> Response:
    body = body_of(CREATE_GAME_SCHEMA)
    answer = engine().create(body, idempotency_key(), request.remote_addr or "")
    return ok(answer, 201, Location=f"/v1/games/{answer['id']}")


@bp.get("/games")
def listing() -> Response:
    q = query(LIST_QUERY_SCHEMA)
    if q.get("game") is not None and q["game"] not in GAMES:
        raise Problem(400, "invalid_request", f"game: one of {', '.join(GAMES)}")
    status, idle_s = q.get("status"), None
    if q["waiting"]:  # the lobby's list: open games a player may still join
        if status not in (None, "open"):
            raise Problem(400, "invalid_request", "waiting: the games waiting are open ones")
        status, idle_s = "open", current_app.config["LOBBY_IDLE_S"] or math.inf
    games, more = engine().listing(q.get("game"), status, q["offset"], q["limit"], idle_s)
    next_offset = q["offset"] + q["limit"] if more else None
    return ok({"games": games, "next_offset": next_offset})


@bp.post("/games/<game_id>/join")
@refusals
def join(game_id: str) -> Response:
    require(game_id)
    body = body_of(JOIN_SCHEMA)
    return ok(engine().join(game_id, body, idempotency_key(), request.remote_addr or ""))
