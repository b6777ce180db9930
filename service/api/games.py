"""The `/v1` routes of API.md."""

from __future__ import annotations

import json
import re
from typing import Any

from flask import Blueprint, Response, current_app, request, stream_with_context
from marshmallow import Schema, ValidationError

from ..core.game import RuleError
from ..core.verify import verify
from ..core.views import game_view, redact_event
from ..engine import Engine, IdempotencyMismatch, NotFound, Stale
from ..games import GAMES, options_of
from . import schemas
from .problems import Problem

bp = Blueprint("games", __name__, url_prefix="/v1")
# one instance each: building a marshmallow schema costs more than loading a body with it
ACTION_SCHEMA = schemas.Action()
CREATE_GAME_SCHEMA = schemas.CreateGame()
EVENTS_QUERY_SCHEMA = schemas.EventsQuery()
JOIN_SCHEMA = schemas.Join()
LIST_QUERY_SCHEMA = schemas.ListQuery()
STREAM_QUERY_SCHEMA = schemas.StreamQuery()
TIES_QUERY_SCHEMA = schemas.TiesQuery()
VIEW_QUERY_SCHEMA = schemas.ViewQuery()
GAME_ID = re.compile(r"^[0-9a-f]{16}$")
IF_MATCH = re.compile(r'^(?:W/)?"?(\d{1,15})"?$')


def engine() -> Engine:
    return current_app.extensions["batayo.engine"]


def ok(body: Any, status: int = 200, **headers: str) -> Response:
    response = Response(json.dumps(body), status=status, mimetype="application/json")
    response.headers.update(headers)
    return response


def body_of(schema: Schema) -> dict:
    """The JSON body, checked by `schema`; 400 on anything malformed."""
    raw = request.get_data()
    if request.mimetype != "application/json":
        raise Problem(415, "unsupported_media_type", "send the body as application/json")
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise Problem(400, "invalid_request", "the body is not valid JSON") from None
    return checked(schema, data)


def checked(schema: Schema, data: Any) -> dict:
    if not isinstance(data, dict):
        raise Problem(400, "invalid_request", "expected a JSON object")
    try:
        return schema.load(data)
    except ValidationError as exc:
        raise _invalid(exc) from None


def query(schema: Schema) -> dict:
    try:
        args = schemas.query_args(request.args)
    except ValidationError as exc:
        raise _invalid(exc) from None
    return checked(schema, args)


def _invalid(exc: ValidationError) -> Problem:
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


def rule_problem(exc: RuleError) -> Problem:
    return Problem(exc.status, exc.code, exc.detail)


def game_id_checked(game_id: str) -> str:
    """Ids are 16 hex digits; anything else never reaches Redis."""
    if not GAME_ID.match(game_id):
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
    """The seat the bearer token acts for; None for a spectator."""
    header = request.headers.get("Authorization")
    if not header:
        if required:
            raise Problem(401, "unauthorized", "act with Authorization: Bearer <your seat's token>")
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Problem(401, "unauthorized", "use Authorization: Bearer <token>")
    try:
        return engine().seat_of(game_id, token.strip())
    except PermissionError:
        raise Problem(403, "forbidden", "this token belongs to another game") from None
    except LookupError:
        raise Problem(401, "unauthorized", "unknown token for this game") from None


def idempotency_key() -> str | None:
    key = request.headers.get("Idempotency-Key")
    if key is not None and not 1 <= len(key) <= 200:
        raise Problem(400, "invalid_request", "Idempotency-Key must be 1 to 200 characters")
    return key


@bp.get("/rules")
def rules() -> Response:
    games = []
    for name, game in GAMES.items():
        counts = [o for o in game.OPTIONS if o.name == "players"]
        low, high = (counts[0].min, counts[0].max) if counts else (game.seat_count({}),) * 2
        games.append(
            {
                "id": name,
                "title": game.TITLE,
                "seats": {"min": low, "max": high},
                "options": [o.describe() for o in options_of(game)],
                "bots": list(game.BOTS),
            }
        )
    return ok({"games": games})


@bp.post("/games")
def create() -> Response:
    body = body_of(CREATE_GAME_SCHEMA)
    try:
        answer = engine().create(body, idempotency_key(), request.remote_addr or "")
    except RuleError as exc:
        raise rule_problem(exc) from None
    except IdempotencyMismatch as exc:
        raise Problem(422, "idempotency_key_reused", str(exc)) from None
    return ok(answer, 201, Location=f"/v1/games/{answer['id']}")


@bp.get("/games")
def listing() -> Response:
    q = query(LIST_QUERY_SCHEMA)
    found, more = engine().store.listing(q.get("game"), q.get("status"), q["offset"], q["limit"])
    games = []
    for gid, _ in found:
        try:
            state = engine().load(gid)
        except NotFound:  # indexed but its first append never happened
            continue
        games.append(
            {
                "id": gid,
                "game": state["game"],
                "status": state["status"],
                "version": state["version"],
                "created_at": state["created_at"],
                "seats": game_view(state, None)["seats"],
                "result": state["result"],
            }
        )
    next_offset = q["offset"] + q["limit"] if more else None
    return ok({"games": games, "next_offset": next_offset})


@bp.post("/games/<game_id>/join")
def join(game_id: str) -> Response:
    require(game_id)
    body = body_of(JOIN_SCHEMA)
    try:
        answer = engine().join(game_id, body, idempotency_key(), request.remote_addr or "")
    except RuleError as exc:
        raise rule_problem(exc) from None
    except IdempotencyMismatch as exc:
        raise Problem(422, "idempotency_key_reused", str(exc)) from None
    return ok(answer)


@bp.get("/games/<game_id>")
def view(game_id: str) -> Response:
    require(game_id)
    seat = caller(game_id)
    at = query(VIEW_QUERY_SCHEMA).get("at")
    state = load(game_id, at)
    return ok(game_view(state, seat), ETag=f'"{state["version"]}"')


@bp.post("/games/<game_id>/actions")
def act(game_id: str) -> Response:
    require(game_id)
    seat = caller(game_id, required=True)
    action = body_of(ACTION_SCHEMA)
    expected = None
    if_match = request.headers.get("If-Match")
    if if_match is not None and if_match.strip() != "*":
        match = IF_MATCH.match(if_match.strip())
        if not match:
            raise Problem(400, "invalid_request", 'If-Match must be a version, e.g. "12"')
        expected = int(match.group(1))
    try:
        events, state = engine().act(game_id, seat, action, expected, idempotency_key())
    except RuleError as exc:
        raise rule_problem(exc) from None
    except Stale as exc:
        raise Problem(
            412, "version_mismatch", f"the game is at version {exc.current}", version=exc.current
        ) from None
    except IdempotencyMismatch as exc:
        raise Problem(422, "idempotency_key_reused", str(exc)) from None
    body = {
        "events": [redact_event(e, seat, state) for e in events],
        "game": game_view(state, seat),
    }
    return ok(body, ETag=f'"{state["version"]}"')


@bp.get("/games/<game_id>/events")
def events(game_id: str) -> Response:
    state = load(game_id)
    seat = caller(game_id)
    q = query(EVENTS_QUERY_SCHEMA)
    found = engine().store.events(game_id, q["after"], q["limit"])
    shown = [redact_event(e, seat, state) for e in found]
    last = found[-1]["version"] if found else q["after"]
    next_after = last if last < state["version"] else None
    return ok({"events": shown, "next_after": next_after})


@bp.get("/games/<game_id>/verify")
def verify_game(game_id: str) -> Response:
    require(game_id)
    return ok(verify(engine().all_events(game_id)))


@bp.get("/games/<game_id>/hint")
def hint(game_id: str) -> Response:
    """Teach me: the game's strongest bot suggests the caller's seat an action, with a reason."""
    state = load(game_id)
    seat = caller(game_id, required=True)
    advise = getattr(GAMES[state["game"]], "hint", None)
    if advise is None:
        raise Problem(404, "no_hint", f"{state['game']} offers no hints")
    suggestion = advise(game_view(state, seat))
    return ok({"seat": seat, "version": state["version"], **suggestion})


@bp.get("/games/<game_id>/ties")
def ties(game_id: str) -> Response:
    """Every tie episode, built from the events as the caller may see them."""
    state = load(game_id)
    seat = caller(game_id)
    q = query(TIES_QUERY_SCHEMA)
    audit = getattr(GAMES[state["game"]], "ties", None)
    shown = [redact_event(e, seat, state) for e in engine().all_events(game_id)]
    episodes = audit(shown) if audit else []
    if q.get("kind"):
        episodes = [e for e in episodes if e["kind"] == q["kind"]]
    page = episodes[q["offset"] : q["offset"] + q["limit"]]
    more = q["offset"] + q["limit"] < len(episodes)
    return ok(
        {
            "ties": page,
            "total": len(episodes),
            "next_offset": q["offset"] + q["limit"] if more else None,
        }
    )


@bp.get("/games/<game_id>/export")
def export(game_id: str) -> Response:
    """A finished game in full: every event, the revealed seed. `batayo verify` checks it."""
    state = load(game_id)
    if state["status"] != "finished":
        raise Problem(409, "game_not_over", "a game can be exported once it has ended")
    events = engine().all_events(game_id)
    body = {
        "format": "batayo-export/1",
        "id": game_id,
        "game": state["game"],
        "server_seed": events[-1]["data"].get("server_seed"),
        "events": events,
    }
    return ok(body, **{"Content-Disposition": f'attachment; filename="{game_id}.json"'})


STREAM_BLOCK_MS = 15_000  # below the Redis client's socket timeout (config.SOCKET_TIMEOUT_S)


@bp.get("/games/<game_id>/stream")
def stream(game_id: str) -> Response:
    """Server-sent events: `id:` is the version; Last-Event-ID (or ?after=) resumes exactly."""
    state = load(game_id)
    seat = caller(game_id)
    after = query(STREAM_QUERY_SCHEMA).get("after")
    last_id = request.headers.get("Last-Event-ID")
    if last_id is not None:
        if not last_id.isdigit() or len(last_id) > 15:
            raise Problem(400, "invalid_request", "Last-Event-ID must be an event version")
        after = int(last_id)
    after = after or 0
    eng = engine()

    def events():
        nonlocal after, state
        yield "retry: 2000\n\n"
        while True:
            if state["status"] == "finished" and after >= state["version"]:
                return
            batch = eng.store.follow(game_id, after, STREAM_BLOCK_MS)
            if not batch:
                yield ": keep-alive\n\n"
                state = eng.load(game_id)
                continue
            state = eng.load(game_id)
            for event in batch:
                shown = redact_event(event, seat, state)
                yield f"id: {event['version']}\nevent: {event['type']}\ndata: {json.dumps(shown)}\n\n"
                after = event["version"]

    response = Response(stream_with_context(events()), mimetype="text/event-stream")
    response.headers.update({"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
    return response
