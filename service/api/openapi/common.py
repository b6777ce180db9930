"""The parts of the contract every game shares: ids, seats, events' envelope, problems, lists,
verification, ties, the export, the stream's messages."""

from __future__ import annotations

from typing import Any

from ...core import bounds
from ...core.advice import HINT_CODES
from ...core.bounds import whole
from ...core.state import SHOWN_STATUSES
from ...core.texts import LANGS

HEALTH_PARTS = {
    "store": {"type": "string", "enum": ["ok", "down"]},
    "queue": {
        "type": "string",
        "enum": ["ok", "down", "inline", "none"],
        "description": "the job queue; `down` never makes /readyz answer 503",
    },
    "workers": {
        "type": "string",
        "enum": ["ok", "dead", "none", "inline", "unknown"],
        "description": "`ok`: a worker beat lately; `dead`: every one stopped",
    },
}


def ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


HEX64 = {"type": "string", "pattern": whole(bounds.HEX64)}
TIME = {"type": "string", "format": "date-time", "examples": ["2026-11-29T22:53:26.123456Z"]}
SEALED = ref("Sealed")
SEAT_NUMBER = {"type": "integer", "minimum": 0}

KEY_ID = {
    "type": "string",
    "pattern": whole(bounds.KEY_ID),
    "description": "the first 16 hex digits of SHA-256 of the raw public key",
}


def _object(props: dict, required: list[str] | None = None, **more: Any) -> dict:
    return {
        "type": "object",
        "required": list(props) if required is None else required,
        "properties": props,
        "additionalProperties": False,
        **more,
    }


def schemas(codes: list[str], games: list[str]) -> dict[str, dict]:
    """The shared components; `codes`: every problem code, `games`: every game's name."""
    seat_public = {
        "seat": SEAT_NUMBER,
        "name": {"type": "string"},
        "bot": {"type": "string"},
        "open": {"type": "boolean"},
    }
    problem_props = {
        "type": {"type": "string", "examples": ["/problems/not_your_turn"]},
        "title": {"type": "string"},
        "status": {"type": "integer", "minimum": 400, "maximum": 599},
        "detail": {"type": "string"},
        "code": {"type": "string", "enum": codes, "description": "stable, machine-readable"},
        "errors": ref("FieldErrors"),
        "version": {"type": "integer", "description": "version_mismatch: the current version"},
        "retry_after": {"type": "integer", "description": "rate_limited: seconds to wait"},
    }
    return {
        "GameId": {
            "type": "string",
            "pattern": whole(bounds.GAME_ID),
            "examples": ["3f2a9c0d1e4b5a67"],
        },
        "GameName": {"type": "string", "enum": games},
        "Status": {"type": "string", "enum": list(SHOWN_STATUSES)},
        "Sealed": {
            **_object({"sealed": HEX64}),
            "description": "a value the caller may not see (yet): its digest (FAIRNESS v2)",
        },
        "SealedPointers": {
            "type": "array",
            "items": {"type": "string", "pattern": "^(/[^/]*)+$"},
            "description": "JSON pointers of the event's sealed values (FAIRNESS v2)",
        },
        "Openings": {
            "type": "object",
            "description": "pointer -> nonce (hex) of each sealed value the caller may see",
            "additionalProperties": HEX64,
        },
        "Actor": {
            "description": 'a seat, "bot", "clock" or "server"',
            "anyOf": [SEAT_NUMBER, {"type": "string", "enum": ["bot", "clock", "server"]}],
        },
        "FieldErrors": {
            "type": "object",
            "description": "invalid_request: the messages, by field (list items by index)",
            "additionalProperties": {
                "anyOf": [{"type": "array", "items": {"type": "string"}}, ref("FieldErrors")]
            },
        },
        "Problem": _object(
            problem_props, ["type", "title", "status", "detail", "code"], description="RFC 9457"
        ),
        "Option": _object(
            {
                "name": {"type": "string"},
                "type": {"type": "string", "enum": ["integer", "string", "boolean"]},
                "default": {"type": ["integer", "string", "boolean", "null"]},
                "choices": {"type": "array", "items": {"type": ["integer", "string", "boolean"]}},
                "min": {"type": "integer"},
                "max": {"type": "integer"},
                "nullable": {"type": "boolean"},
                "doc": {"type": "string"},
                "docs": ref("RulesText"),
            },
            ["name", "type", "default", "nullable"],
        ),
        "RulesText": _object(
            {lang: {"type": "string"} for lang in LANGS},
            ["en"],
            description="words for people in each language the viewer speaks (English always)",
        ),
        "GameRules": _object(
            {
                "id": ref("GameName"),
                "title": {"type": "string"},
                "seats": _object({"min": {"type": "integer"}, "max": {"type": "integer"}}),
                "options": {"type": "array", "items": ref("Option")},
                "bots": {"type": "array", "items": {"type": "string"}},
                "traits": _object(
                    {
                        name: {"type": "boolean"}
                        for name in ("simultaneous", "hidden_information", "teams", "chance")
                    },
                    description="what kind of game it is (each holds with some options)",
                ),
                "rules": ref("RulesText"),
            },
            ["id", "title", "seats", "options", "bots", "traits"],
            # the rules in words and more are added by the games' own pages
        )
        | {"additionalProperties": True},
        "Rules": _object({"games": {"type": "array", "items": ref("GameRules")}}),
        "SeedTicket": _object(
            {
                "ticket": {"type": "string"},
                "seed_commitment": HEX64,
                "expires_at": TIME,
            }
        ),
        "Seat": _object(
            {**seat_public, "token": {"type": "string", "description": "shown once"}},
            ["seat", "open"],
        ),
        "SeatStored": _object(
            {
                "seat": SEAT_NUMBER,
                "name": {"type": "string"},
                "client_seed": {"type": ["string", "null"]},
                "bot": {"type": "string"},
                "open": {"type": "boolean"},
            },
            ["seat"],
        ),
        "Created": _object(
            {
                "id": ref("GameId"),
                "game": ref("GameName"),
                "version": {"type": "integer", "minimum": 1},
                "status": ref("Status"),
                "seed_commitment": HEX64,
                "seats": {"type": "array", "items": ref("Seat")},
            }
        ),
        "Joined": _object(
            {
                "id": ref("GameId"),
                "seat": SEAT_NUMBER,
                "token": {"type": "string"},
                "version": {"type": "integer", "minimum": 1},
                "status": ref("Status"),
            }
        ),
        "GameSummary": _object(
            {
                "id": ref("GameId"),
                "game": ref("GameName"),
                "status": ref("Status"),
                "version": {"type": "integer", "minimum": 1},
                "created_at": TIME,
                "seats": {"type": "array", "items": ref("Seat")},
                "result": {"anyOf": [ref("Result"), {"type": "null"}]},
            }
        ),
        "GameList": _object(
            {
                "games": {"type": "array", "items": ref("GameSummary")},
                "next_offset": {"type": ["integer", "null"]},
            }
        ),
        "Hint": _object(
            {
                "seat": SEAT_NUMBER,
                "version": {"type": "integer"},
                "action": {
                    "anyOf": [ref("Action"), {"type": "null"}],
                    "description": "a body to post to /actions; null when it is not your turn",
                },
                "reason": _object(
                    {
                        "code": {
                            "type": "string",
                            "enum": list(HINT_CODES),
                            "description": "why, worded by the viewer in each language "
                            "(`hint:<code>` in strings.js)",
                        },
                        "params": {
                            "type": "object",
                            "description": "the code's values: `card` (one of your own), "
                            "`choices`, `face`, `tricks`, `suit`, `action`",
                        },
                    }
                ),
            }
        ),
        "HintPending": _object(
            {
                "seat": SEAT_NUMBER,
                "version": {"type": "integer"},
                "pending": {"type": "boolean", "enum": [True]},
            }
        ),
        "Skipped": _object(
            {
                "id": ref("GameId"),
                "version": {"type": "integer", "description": "the game's version when asked"},
                "bot_pace_ms": {
                    "type": "integer",
                    "const": 0,
                    "description": "the bots now play the rest at full speed",
                },
            }
        ),
        "Verification": _object(
            {
                "status": {
                    "type": "string",
                    "enum": ["ok", "v1", "incomplete", "failed"],
                    "description": (
                        "the log's own checks. v1: a log of fairness version 1, checked as far as"
                        " version 1 can say, never ok; incomplete: the game runs, what could be"
                        " checked so far held"
                    ),
                },
                "ok": {"type": "boolean"},
                "fairness": {"type": ["integer", "null"]},
                "checked": {
                    "type": "object",
                    "additionalProperties": {"type": ["integer", "boolean"]},
                },
                "version": {"type": ["integer", "null"], "description": "the first that fails"},
                "reason": {"type": ["string", "null"]},
                "events": {"type": "integer"},
                "draws_checked": {"type": "integer"},
                "seed_revealed": {"type": "boolean"},
                "test_game": {"type": "boolean", "description": "a fixed seed or deal: never fair"},
                "verdict": {
                    "type": "string",
                    "enum": ["ok", "unsigned", "v1", "incomplete", "failed"],
                    "description": (
                        "the log's checks and its signature together (`batayo verify` exits 0,"
                        " 4, 5, 3, 1 for them). ok: sound, and signed by this server's key;"
                        " unsigned: sound, but no key of this server signed it"
                    ),
                },
                "signature": {"anyOf": [ref("Signature"), {"type": "null"}]},
            }
        ),
        "Signature": _object(
            {
                "alg": {"type": "string", "const": "Ed25519"},
                "key": KEY_ID,
                "game": {"type": "string"},
                "version": {"type": "integer", "minimum": 1},
                "tip": HEX64,
                "signature": {"type": "string", "description": "base64 of the 64-byte signature"},
            },
            description=(
                "the server's Ed25519 signature over the canonical JSON of"
                ' {"context": "batayo-tip-signature/1", "game", "key", "tip", "version"}'
                " (docs/fairness.md): the log up to `version`, whose last event's hash is `tip`"
            ),
        ),
        "PublicKey": _object(
            {
                "kid": KEY_ID,
                "alg": {"type": "string", "const": "Ed25519"},
                "public_key": {"type": "string", "description": "base64 of the raw 32 bytes"},
                "pem": {
                    "type": "string",
                    "description": "the same key as SubjectPublicKeyInfo PEM",
                },
                "current": {"type": "boolean", "description": "false: a retired key"},
            },
            description="a public key the server signs (or signed) logs with",
        ),
        "PublicKeys": _object({"keys": {"type": "array", "items": ref("PublicKey")}}),
        "TieStep": {
            "type": "object",
            "description": "one step of a tie: cards put down, reveals, random takes, who won",
            "required": ["versions"],
            "properties": {"versions": {"type": "array", "items": {"type": "integer"}}},
            "additionalProperties": True,
        },
        "Tie": {
            "type": "object",
            "required": ["kind", "players", "steps", "versions"],
            "properties": {
                "kind": {"type": "string"},
                "round": {"type": ["integer", "null"]},
                "players": {"type": "array", "items": {"type": "integer"}},
                "steps": {"type": "array", "items": ref("TieStep")},
                "versions": {"type": "array", "items": {"type": "integer"}},
                "winner": {"type": ["integer", "null"]},
            },
            "additionalProperties": True,
        },
        "TiesPage": _object(
            {
                "ties": {"type": "array", "items": ref("Tie")},
                "total": {"type": "integer"},
                "next_offset": {"type": ["integer", "null"]},
            }
        ),
        "Health": {
            "type": "object",
            "required": ["status"],
            "properties": {"status": {"type": "string"}, **HEALTH_PARTS},
        },
        "NotReady": _object(
            {**problem_props, **HEALTH_PARTS},
            ["type", "title", "status", "detail", "code"],
            description="RFC 9457, with the states of the store, the job queue and the workers",
        ),
        "CauseCreate": _object(
            {"create": {"type": "object", "additionalProperties": False}}, description="a create"
        ),
        "CauseJoin": _object({"join": _object({"seat": SEAT_NUMBER})}, description="a seat taken"),
        "CauseTimer": _object({"timer": _object({"due": TIME})}, description="a clock ran out"),
        "CauseAbandon": _object(
            {"abandon": {"type": "object", "additionalProperties": False}},
            description="no new event for the game's abandon_after_s: it ends, abandoned",
        ),
        "StreamEvent": _object(
            {
                "id": {"type": "integer", "minimum": 1, "description": "the event's version"},
                "event": {"type": "string", "description": "the event's type"},
                "data": ref("Event"),
            },
            description="one message of /stream: an event",
        ),
        "StreamView": _object(
            {
                "id": {"type": "integer", "minimum": 0, "description": "the view's version"},
                "event": {"type": "string", "const": "view"},
                "data": ref("GameView"),
            },
            description="one message of /stream?view=1: the game view after the events",
        ),
        "StreamItem": _object(
            {
                "id": {"type": "string", "pattern": "^[0-9]+$", "description": "the version"},
                "event": {"type": "string", "description": "the event's type, or `view`"},
                "data": {
                    "type": "string",
                    "contentMediaType": "application/json",
                    "contentSchema": {"anyOf": [ref("Event"), ref("GameView")]},
                    "description": "the event (or the view) as JSON: see StreamMessage",
                },
                "retry": {"type": "integer", "description": "reconnect after this many ms"},
            },
            [],
            description="one server-sent message of /stream, as the event-stream format has it",
        ),
        "StreamMessage": {
            "description": "a server-sent message of /stream, its `data:` line parsed as JSON",
            "anyOf": [ref("StreamView"), ref("StreamEvent")],
        },
        # the frames of /socket: each a text frame holding one JSON object
        "SocketId": {
            "type": ["string", "integer"],
            "maxLength": bounds.SOCKET_ID_MAX,
            "description": "the client's own id of an `act` frame, echoed unchanged",
        },
        "SocketAuth": _object(
            {"auth": {"type": "string", "minLength": 1, "description": "the seat's token"}},
            description="client to server, first on a socket opened with the subprotocol "
            "`batayo.v1` (a browser's, which cannot send `Authorization`): within 5 s, or 1008",
        ),
        "SocketAct": _object(
            {
                "act": ref("Action"),
                "id": ref("SocketId"),
                "if_match": {
                    "type": "integer",
                    "minimum": 0,
                    "description": "only at this version, as `If-Match` (else 412)",
                },
                "key": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": bounds.IDEMPOTENCY_KEY_MAX,
                    "description": "as `Idempotency-Key`: the same key answers the same",
                },
            },
            ["act", "id"],
            description="client to server: an action, as the body of POST /actions",
        ),
        "SocketClientMessage": {
            "description": "a frame the client sends on /socket",
            "anyOf": [ref("SocketAct"), ref("SocketAuth")],
        },
        "SocketEvent": _object(
            {"event": ref("Event")},
            description="server to client: an event of the log, as /events shows it to the caller",
        ),
        "SocketView": _object(
            {"view": ref("GameView")},
            description="server to client (with view=1): the caller's game view, as GET gives it, "
            "on connecting and after each batch of events",
        ),
        "SocketActed": _object(
            {
                "acted": _object(
                    {
                        "id": ref("SocketId"),
                        "version": {
                            "type": "integer",
                            "minimum": 1,
                            "description": "the version the action reached",
                        },
                    }
                )
            },
            description="server to client: an `act` applied, after that action's own events",
        ),
        "SocketRefused": _object(
            {
                "refused": _object(
                    {
                        "id": {
                            "anyOf": [ref("SocketId"), {"type": "null"}],
                            "description": "the `act` frame's id; null for a frame that is "
                            "no `act` frame",
                        },
                        "problem": ref("Problem"),
                    }
                )
            },
            description="server to client: a frame refused, with the problem POST /actions "
            "would answer (`retry_after` for 429 and 503, `version` for 412)",
        ),
        "SocketServerMessage": {
            "description": "a frame the server sends on /socket",
            "anyOf": [
                ref("SocketEvent"),
                ref("SocketView"),
                ref("SocketActed"),
                ref("SocketRefused"),
            ],
        },
    }
