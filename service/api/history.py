"""A game's log and its audits: events, ties, verification, the export (the live stream is in
`stream`)."""

from __future__ import annotations

from flask import Blueprint, Response

from ..core import signing
from . import caching, schemas
from .http import caller, engine, load, ok, query, refusals, require
from .problems import Problem

bp = Blueprint("history", __name__, url_prefix="/v1")
EVENTS_QUERY_SCHEMA = schemas.EventsQuery()
TIES_QUERY_SCHEMA = schemas.TiesQuery()


@bp.get("/games/<game_id>/events")
def events(game_id: str) -> Response:
    load(game_id)
    seat = caller(game_id)
    q = query(EVENTS_QUERY_SCHEMA)
    shown, state = engine().events(game_id, seat, q["after"], q["limit"])
    last = shown[-1]["version"] if shown else q["after"]
    next_after = last if last < state["version"] else None
    body = {"game": state["game"], "events": shown, "next_after": next_after}
    return caching.read(body, state["version"], state["status"] == "finished")


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
    state = load(game_id)
    body = engine().export(game_id)
    disposition = f'attachment; filename="{game_id}.json"'
    return caching.read(body, state["version"], True, **{"Content-Disposition": disposition})


@bp.get("/games/<game_id>/signature")
@refusals
def signature(game_id: str) -> Response:
    """The server's signature over the game's tip: what the events say, signed (docs/fairness.md).
    The same for every caller: the tip's hash is served to every caller with the events."""
    load(game_id)
    caller(game_id)
    return ok(engine().signature(game_id))


@bp.get("/keys")
def keys() -> Response:
    """Every public key this server signed logs with, the current one last."""
    ring = engine().keys
    if ring is None:
        return ok({"keys": []})
    current = ring.kid
    listed = [signing.describe(k, kid == current) for kid, k in ring.publics().items()]
    return ok({"keys": listed})


@bp.get("/keys/<kid>")
def key(kid: str) -> Response:
    """One public key, by its id (retired ones too: the logs they signed still verify)."""
    ring = engine().keys
    found = ring.publics().get(kid) if ring is not None else None
    if found is None:
        raise Problem(404, "not_found", "no key of this server has this id")
    return ok(signing.describe(found, kid == ring.kid))
