"""The operations of the contract: paths, parameters, headers, responses, links, security."""

from __future__ import annotations

from typing import Any

from ...core import bounds
from ...core.shapes import Choice, Pattern, Text
from ..schemas import EventsQuery, ListQuery, StreamQuery, TiesQuery, ViewQuery
from ..websocket import DESCRIPTION as SOCKET_DESCRIPTION
from ..websocket import SUBPROTOCOL
from .common import IDEMPOTENCY_KEY, OBJECT, STRING, ref
from .queries import query

SPECTATOR_OR_SEAT: list[dict] = [{}, {"seatToken": []}]
SEAT_ONLY: list[dict] = [{"seatToken": []}]
NOBODY: list[dict] = [{}]

# query bounds: exactly what `service.api.schemas` accepts (a query integer has 1 to 15 digits)


def _json(schema: dict, description: str, headers: dict | None = None, **more: Any) -> dict:
    out: dict[str, Any] = {
        "description": description,
        "content": {"application/json": {"schema": schema}},
    }
    if headers:
        out["headers"] = headers
    out.update(more)
    return out


def _header(name: str) -> dict:
    return {"$ref": f"#/components/headers/{name}"}


RATE_HEADERS = {"RateLimit-Policy": _header("RateLimitPolicy"), "RateLimit": _header("RateLimit")}
READ_HEADERS = {
    "ETag": _header("ETag"),
    "Cache-Control": _header("CacheControl"),
    "Vary": _header("Vary"),
    **RATE_HEADERS,
}


def _problems(*statuses: int) -> dict:
    out = {str(s): {"$ref": "#/components/responses/Problem"} for s in statuses}
    out["429"] = {"$ref": "#/components/responses/RateLimited"}
    out["503"] = {"$ref": "#/components/responses/Unavailable"}
    return out


def _param(name: str) -> dict:
    return {"$ref": f"#/components/parameters/{name}"}


def _game_links(source: str) -> dict:
    """From an answer naming a game (`source`: where its id is), the operations on it (but the
    stream: a game in play's stream does not end, which a tool following links cannot know)."""
    ops = {
        "GetGame": "getGame",
        "GetEvents": "events",
        "VerifyGame": "verify",
        "GetTies": "ties",
        "Act": "act",
        "JoinGame": "joinGame",
        "Skip": "skip",
    }
    return {
        name: {"operationId": op, "parameters": {"game_id": source}} for name, op in ops.items()
    }


def _body(schema: dict, examples: dict | None = None) -> dict:
    media: dict[str, Any] = {"schema": schema}
    if examples:
        media["examples"] = examples
    return {"required": True, "content": {"application/json": media}}


def _op(op_id: str, summary: str, security: list[dict], responses: dict, **more: Any) -> dict:
    return {
        "tags": [more.pop("tag", "games")],
        "summary": summary,
        "operationId": op_id,
        "security": security,
        **more,
        "responses": responses,
    }


def paths(create_examples: dict, action_examples: dict) -> dict:
    game = _param("GameId")
    by_id = _game_links("$response.body#/id")
    same_game = _game_links("$request.path.game_id")
    health = {"tag": "health"}
    upgrade = {"schema": Choice(("websocket",)).schema()}
    return {
        "/healthz": {
            "get": _op(
                "healthz",
                "The process is alive.",
                NOBODY,
                {"200": _json(ref("Health"), "Alive.")},
                **health,
            )
        },
        "/readyz": {
            "get": _op(
                "readyz",
                "The store takes writes (503 only when it does not); the body names the "
                "store's, the job queue's and the workers' states either way.",
                NOBODY,
                {
                    "200": _json(ref("Health"), "Ready."),
                    "503": {
                        "description": "The store cannot take writes (`not_ready`); the "
                        "problem names the same three states.",
                        "content": {"application/problem+json": {"schema": ref("NotReady")}},
                    },
                },
                **health,
            )
        },
        "/metrics": {
            "get": _op(
                "metrics",
                "What this server did, in Prometheus' format: requests and their durations, "
                "events appended, actions, bot moves, clocks fired, games created (counters of "
                "this process, or of every worker process of this container).",
                NOBODY,
                {
                    "200": {
                        "description": "The Prometheus text format (version 0.0.4).",
                        "content": {"text/plain": {"schema": STRING.schema()}},
                    }
                },
                **health,
            )
        },
        "/metrics/service": {
            "get": _op(
                "serviceMetrics",
                "The whole service's figures, the same from every server: games by status and "
                "jobs by state (gauges), and the totals of every process's counters.",
                NOBODY,
                {
                    "200": {
                        "description": "The Prometheus text format (version 0.0.4).",
                        "content": {"text/plain": {"schema": STRING.schema()}},
                    }
                },
                **health,
            )
        },
        "/openapi.json": {
            "get": _op(
                "openapi",
                "This contract, as served by this very server (its games included).",
                NOBODY,
                {"200": _json(OBJECT.schema(), "The OpenAPI document.")},
                **health,
            )
        },
        "/v1/rules": {
            "get": _op(
                "rules",
                "The games offered: seats, options, bots.",
                NOBODY,
                {"200": _json(ref("Rules"), "The games.", RATE_HEADERS), **_problems()},
            )
        },
        "/v1/seeds": {
            "post": _op(
                "seedTicket",
                "A seed ticket: the server's seed, committed before you choose a client seed.",
                NOBODY,
                {
                    "201": _json(ref("SeedTicket"), "The ticket (single use).", RATE_HEADERS),
                    **_problems(),
                },
            )
        },
        "/v1/games": {
            "post": _op(
                "createGame",
                "Create a game; it starts as soon as every seat is taken.",
                NOBODY,
                {
                    "201": _json(
                        ref("Created"),
                        "Created. The tokens of its human seats are shown here, once.",
                        {"Location": _header("Location"), **RATE_HEADERS},
                        links=by_id,
                    ),
                    **_problems(400, 409, 410, 413, 415, 422),
                },
                parameters=[_param("IdempotencyKey")],
                requestBody=_body(ref("CreateGame"), create_examples),
            ),
            "get": _op(
                "listGames",
                "List games, newest first.",
                NOBODY,
                {"200": _json(ref("GameList"), "A page of games.", RATE_HEADERS), **_problems(400)},
                parameters=[
                    query(ListQuery, "game", shape=ref("GameName")),
                    query(ListQuery, "status", shape=ref("Status")),
                    query(ListQuery, "limit"),
                    query(ListQuery, "offset"),
                    query(
                        ListQuery,
                        "waiting",
                        "1: only the games waiting for a player, as a lobby shows them: open, a "
                        "seat still open, and an event within the server's `BATAYO_LOBBY_IDLE_S` "
                        "(an hour by default). A page may then hold fewer than `limit` games: "
                        "follow `next_offset`. Implies `status=open` (another status is a 400).",
                    ),
                ],
            ),
        },
        "/v1/games/{game_id}": {
            "get": _op(
                "getGame",
                "The game as the caller may see it, now or as of version `at`.",
                SPECTATOR_OR_SEAT,
                {
                    "200": _json(ref("GameView"), "The view.", READ_HEADERS, links=same_game),
                    "304": {"$ref": "#/components/responses/NotModified"},
                    **_problems(400, 401, 403, 404),
                },
                parameters=[
                    game,
                    query(ViewQuery, "at", "the view as of this version (a replay)"),
                    _param("IfNoneMatch"),
                ],
            )
        },
        "/v1/games/{game_id}/join": {
            "post": _op(
                "joinGame",
                "Take the first open seat.",
                NOBODY,
                {
                    "200": _json(
                        ref("Joined"),
                        "The seat and its token (shown once).",
                        RATE_HEADERS,
                        links=by_id,
                    ),
                    **_problems(400, 404, 409, 413, 415, 422),
                },
                parameters=[game, _param("IdempotencyKey")],
                requestBody=_body(
                    ref("Join"), {"join": {"value": {"name": "Ana", "client_seed": "my seed"}}}
                ),
            )
        },
        "/v1/games/{game_id}/actions": {
            "post": _op(
                "act",
                "Act as your seat: post one of your view's `legal_actions`.",
                SEAT_ONLY,
                {
                    "200": _json(
                        ref("ActionResult"),
                        "The events appended, as you may see them, and the new view.",
                        {"ETag": _header("ETag"), **RATE_HEADERS},
                        links=same_game,
                    ),
                    **_problems(400, 401, 403, 404, 409, 412, 413, 415, 422),
                },
                parameters=[game, _param("IdempotencyKey"), _param("IfMatch")],
                requestBody=_body(ref("Action"), action_examples),
            )
        },
        "/v1/games/{game_id}/events": {
            "get": _op(
                "events",
                "The event log as the caller may see it; after the end, everybody sees all.",
                SPECTATOR_OR_SEAT,
                {
                    "200": _json(ref("EventsPage"), "A page of events.", READ_HEADERS),
                    "304": {"$ref": "#/components/responses/NotModified"},
                    **_problems(400, 401, 403, 404),
                },
                parameters=[
                    game,
                    query(EventsQuery, "after", "the version to start after"),
                    query(EventsQuery, "limit"),
                    _param("IfNoneMatch"),
                ],
            )
        },
        "/v1/games/{game_id}/verify": {
            "get": _op(
                "verify",
                "FAIRNESS's checks of the log as the caller receives it, the play included.",
                SPECTATOR_OR_SEAT,
                {
                    "200": _json(ref("Verification"), "ok, incomplete, or the first failure."),
                    **_problems(401, 403, 404),
                },
                parameters=[game],
            )
        },
        "/v1/games/{game_id}/signature": {
            "get": _op(
                "signature",
                "The server's signature over the game's tip: now in play, or as it ended.",
                SPECTATOR_OR_SEAT,
                {
                    "200": _json(ref("Signature"), "The signature of the log up to `version`."),
                    **_problems(401, 403, 404, 409),
                },
                description="404 `unsigned`: the server has no signing key. 409 `tip_hidden`: "
                "a game of fairness version 1 in play serves no hashes. The tip is the `hash` "
                "every caller is served with the events, so the signature is the same for all.",
                parameters=[game],
            )
        },
        "/v1/keys": {
            "get": _op(
                "keys",
                "Every public key the server signs or signed logs with (retired ones too).",
                NOBODY,
                {"200": _json(ref("PublicKeys"), "The keys, the current one last."), **_problems()},
                tag="keys",
            )
        },
        "/v1/keys/{kid}": {
            "get": _op(
                "key",
                "One public key, by its id.",
                NOBODY,
                {"200": _json(ref("PublicKey"), "The key."), **_problems(404)},
                parameters=[
                    {
                        "name": "kid",
                        "in": "path",
                        "required": True,
                        "schema": Text(64).schema(),
                    }
                ],
                tag="keys",
            )
        },
        "/v1/games/{game_id}/ties": {
            "get": _op(
                "ties",
                "The audit of every tie (bataille, BATAYO, sudden death, extra deal, void round).",
                SPECTATOR_OR_SEAT,
                {
                    "200": _json(ref("TiesPage"), "A page of tie episodes.", RATE_HEADERS),
                    **_problems(400, 401, 403, 404),
                },
                parameters=[
                    game,
                    query(TiesQuery, "kind"),
                    query(TiesQuery, "offset"),
                    query(TiesQuery, "limit"),
                ],
            )
        },
        "/v1/games/{game_id}/stream": {
            "get": _op(
                "stream",
                "The events live, as server-sent events, as the caller may see them.",
                SPECTATOR_OR_SEAT,
                {
                    "200": {
                        "description": "An event stream: each message is a `StreamMessage` "
                        "(`id:` the version, `event:` the event type or `view`, `data:` JSON). "
                        "Comment lines keep the connection alive; it closes after the last "
                        "event of a finished game.",
                        "headers": {"Cache-Control": _header("NoCache"), **RATE_HEADERS},
                        # OpenAPI 3.1 has no item schema: the schema of an event stream is that
                        # of each message (3.2's `itemSchema`), its `data:` JSON as content
                        "content": {"text/event-stream": {"schema": ref("StreamItem")}},
                    },
                    **_problems(400, 401, 403, 404),
                },
                description="`Last-Event-ID` (or `?after=N`) resumes after that version with no "
                "gap and no repeat.",
                parameters=[
                    game,
                    query(StreamQuery, "after", "the version to start after"),
                    query(
                        StreamQuery,
                        "view",
                        "1: after each batch of events (and first, on connect), the caller's "
                        "game view as a message of its own (`event: view`), so a seat can play "
                        "from its stream alone",
                    ),
                    {
                        "name": "Last-Event-ID",
                        "in": "header",
                        "required": False,
                        "description": "the last version received: resume after it",
                        "schema": Pattern(bounds.NUMBER).schema(),
                    },
                ],
            )
        },
        "/v1/games/{game_id}/socket": {
            "get": _op(
                "socket",
                "One WebSocket per player (RFC 6455): the seat's actions in, what it may see out.",
                SPECTATOR_OR_SEAT,
                {
                    "101": {
                        "description": "Switching to the WebSocket protocol: text frames, one "
                        "JSON object each, `SocketServerMessage` from the server and "
                        "`SocketClientMessage` from the client (OpenAPI describes no frames: "
                        "their schemas are these components).",
                        "headers": {
                            "Upgrade": upgrade,
                            "Sec-WebSocket-Accept": {"schema": STRING.schema()},
                            "Sec-WebSocket-Protocol": {
                                "description": "`batayo.v1` when the client offered it",
                                "schema": Choice((SUBPROTOCOL,)).schema(),
                            },
                        },
                    },
                    "426": {
                        "description": "A request without the WebSocket upgrade.",
                        "headers": {"Upgrade": upgrade},
                        "content": {"application/problem+json": {"schema": ref("Problem")}},
                    },
                    **_problems(400, 401, 403, 404),
                },
                description=SOCKET_DESCRIPTION,
                parameters=[
                    game,
                    query(StreamQuery, "after", "the version to start after"),
                    query(
                        StreamQuery,
                        "view",
                        "1: the caller's game view as a frame of its own (`SocketView`) on "
                        "connecting and after each batch of events",
                    ),
                ],
            )
        },
        "/v1/games/{game_id}/export": {
            "get": _op(
                "export",
                "A finished game in full, to verify offline (`batayo verify`).",
                NOBODY,
                {
                    "200": _json(ref("Export"), "Every event and the revealed seed.", READ_HEADERS),
                    "304": {"$ref": "#/components/responses/NotModified"},
                    **_problems(404, 409),
                },
                parameters=[game, _param("IfNoneMatch")],
            )
        },
        "/v1/games/{game_id}/skip": {
            "post": _op(
                "skip",
                "Skip to the end: the bots play the rest at full speed, not at the game's pace.",
                SEAT_ONLY,
                {
                    "200": _json(ref("Skipped"), "The bots play on at once.", RATE_HEADERS),
                    **_problems(401, 403, 404, 409),
                },
                description="Once no human seat is still playing (every one eliminated), any "
                "seat holder may ask it; the view's `skippable` says when. Asking again changes "
                "nothing. Else 409 `cannot_skip` (no pace, or a human still plays) or "
                "`game_over`. It is not written in the log: the pace is a presentation of time.",
                parameters=[game],
            )
        },
        "/v1/games/{game_id}/hint": {
            "get": _op(
                "hint",
                "Teach me: the strong bot's suggested action for your seat, with a reason.",
                SEAT_ONLY,
                {
                    "200": _json(ref("Hint"), "The suggestion.", RATE_HEADERS),
                    "202": _json(
                        ref("HintPending"),
                        "A worker is searching: ask again after Retry-After seconds.",
                        {**RATE_HEADERS, "Retry-After": _header("RetryAfter")},
                    ),
                    **_problems(401, 403, 404),
                },
                description="Every game's strong bot answers, computed once per version and "
                "seat (a choice that needs a search, by a worker: 202 until then). Hints have "
                "their own limit per seat token (BATAYO_HINT_RATE_LIMIT), over it 429.",
                parameters=[game],
            )
        },
    }


def parameters() -> dict:
    return {
        "GameId": {
            "name": "game_id",
            "in": "path",
            "required": True,
            "schema": ref("GameId"),
        },
        "IdempotencyKey": {
            "name": "Idempotency-Key",
            "in": "header",
            "required": False,
            "description": "a retry with the same key and body returns the first answer and "
            "appends nothing (an action's key is the seat's own; a create's or join's, the "
            "client's)",
            "schema": IDEMPOTENCY_KEY.schema(),
        },
        "IfMatch": {
            "name": "If-Match",
            "in": "header",
            "required": False,
            "description": 'apply only at this version: "12", a list "11", "12", or *; a weak '
            "tag never matches (412)",
            "schema": {"type": "string"},
        },
        "IfNoneMatch": {
            "name": "If-None-Match",
            "in": "header",
            "required": False,
            "description": "304 when the ETag is one of these (or *)",
            "schema": {"type": "string"},
        },
    }


def headers() -> dict:
    text = STRING.schema()
    return {
        "ETag": {
            "description": "the game's version, quoted (a strong tag)",
            "schema": Pattern(f'"{bounds.DIGITS}"').schema(),
        },
        "CacheControl": {
            "description": "`private` with a seat token; `public, max-age=..., immutable` for a "
            "spectator's read of what can no longer change (a `?at=N` view, a finished game); "
            "else `no-cache`",
            "schema": text,
        },
        "NoCache": {"description": "never cached", "schema": text},
        "Vary": {"description": "the answer depends on the token", "schema": text},
        "Location": {"description": "the new game", "schema": text},
        "RateLimitPolicy": {
            "description": 'the limits that apply: `"client";q=600;w=60` (and `"token"`)',
            "schema": text,
        },
        "RateLimit": {
            "description": 'what is left of the closest limit: `"client";r=599;t=42`',
            "schema": text,
        },
        "RetryAfter": {
            "description": "seconds to wait",
            "schema": Pattern(bounds.DIGITS).schema(),
        },
    }


def responses() -> dict:
    problem = {"application/problem+json": {"schema": ref("Problem")}}
    retry = {"Retry-After": {**_header("RetryAfter")}}
    return {
        "Problem": {"description": "An error (RFC 9457).", "content": problem},
        "RateLimited": {
            "description": "Too many requests from this client or with this token "
            "(`rate_limited`), or, creating a game, too many games in play created from this "
            "client address (`too_many_games`).",
            "headers": {**retry, **RATE_HEADERS},
            "content": problem,
        },
        "Unavailable": {
            "description": "The store does not answer; retry after `Retry-After` seconds.",
            "headers": retry,
            "content": problem,
        },
        "NotModified": {
            "description": "Not modified: the ETag is one of `If-None-Match`'s.",
            "headers": {"ETag": _header("ETag")},
        },
    }
