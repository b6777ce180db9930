"""A game's log and its audits: events, the live stream, ties, verification, the export."""

from __future__ import annotations

import json

from flask import Blueprint, Response, request, stream_with_context

from . import schemas
from .http import caller, engine, load, ok, query, refusals, require
from .problems import Problem

bp = Blueprint("log", __name__, url_prefix="/v1")
EVENTS_QUERY_SCHEMA = schemas.EventsQuery()
STREAM_QUERY_SCHEMA = schemas.StreamQuery()
TIES_QUERY_SCHEMA = schemas.TiesQuery()


@bp.get("/games/<game_id>/events")
def events(game_id: str) -> Response:
    load(game_id)
    seat = caller(game_id)
    q = query(EVENTS_QUERY_SCHEMA)
    shown, state = engine().events(game_id, seat, q["after"], q["limit"])
    last = shown[-1]["version"] if shown else q["after"]
    next_after = last if last < state["version"] else None
    return ok({"events": shown, "next_after": next_after})


@bp.get("/games/<game_id>/verify")
def verify_game(game_id: str) -> Response:
    require(game_id)
    return ok(engine().verify(game_id, caller(game_id)))


@bp.get("/games/<game_id>/ties")
def ties(game_id: str) -> Response:
    """Every tie episode, built from the events as the caller may see them."""
    load(game_id)
    seat = caller(game_id)
    q = query(TIES_QUERY_SCHEMA)
    episodes = engine().ties(game_id, seat)
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
@refusals
def export(game_id: str) -> Response:
    """A finished game in full: every event, the revealed seed. `batayo verify` checks it."""
    load(game_id)
    body = engine().export(game_id)
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
            batch = eng.follow(game_id, after, STREAM_BLOCK_MS)
            if not batch:
                yield ": keep-alive\n\n"
                state = eng.load(game_id)
                continue
            state = eng.load(game_id)
            for event in eng.shown(batch, seat, state):
                yield f"id: {event['version']}\nevent: {event['type']}\ndata: {json.dumps(event)}\n\n"
                after = event["version"]

    response = Response(stream_with_context(events()), mimetype="text/event-stream")
    response.headers.update({"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
    return response
