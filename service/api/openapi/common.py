"""The parts of the contract every game shares: ids, seats, events' envelope, problems, lists,
verification, ties, the export, the stream's messages; declared as shapes (core/shapes.py),
the games' own vocabulary, each bound from core/bounds.py."""

from __future__ import annotations

from dataclasses import replace

from ...core import bounds
from ...core.advice import HINT_CODES
from ...core.shapes import (
    AnyOf,
    Bool,
    Choice,
    Int,
    Json,
    ListOf,
    MapOf,
    Nullable,
    Obj,
    Opt,
    Pattern,
    Ref,
    Shape,
    Text,
    Types,
)
from ...core.state import SHOWN_STATUSES
from ...core.texts import LANGS


def ref(name: str) -> dict:
    """The schema of a reference to the component `name`."""
    return Ref(name).schema()


STRING = Text(None)  # text of any length: what the server writes
OBJECT = Obj(extra=None)  # any object
INT = Int()
NUMBER = Types(("number",))
BOOL = Bool()
INT_OR_NULL = Types(("integer", "null"))
HEX64 = Pattern(bounds.HEX64)
TIME = Text(None, format="date-time", examples=("2026-11-29T22:53:26.123456Z",))
SEALED = Ref("Sealed")
SEAT_NUMBER = Int(0)
VERSION = Int(1)
ED25519 = Choice(("Ed25519",))
IDEMPOTENCY_KEY = Text(bounds.IDEMPOTENCY_KEY_MAX, min=1)
KEY_ID = Pattern(bounds.KEY_ID, doc="the first 16 hex digits of SHA-256 of the raw public key")

HEALTH_PARTS: dict[str, Shape] = {
    "store": Opt(Choice(("ok", "down"))),
    "queue": Opt(
        Choice(
            ("ok", "down", "inline", "none"),
            doc="the job queue; `down` never makes /readyz answer 503",
        )
    ),
    "workers": Opt(
        Choice(
            ("ok", "dead", "none", "inline", "unknown"),
            doc="`ok`: a worker beat lately; `dead`: every one stopped",
        )
    ),
}


def _problem(codes: list[str]) -> dict[str, Shape]:
    return {
        "type": Text(None, examples=("/problems/not_your_turn",)),
        "title": STRING,
        "status": Int(400, 599),
        "detail": STRING,
        "code": Choice(tuple(codes), enum=True, doc="stable, machine-readable"),
        "errors": Opt(Ref("FieldErrors")),
        "version": Opt(Int(doc="version_mismatch: the current version")),
        "retry_after": Opt(Int(doc="rate_limited: seconds to wait")),
    }


def schemas(codes: list[str], games: list[str]) -> dict[str, dict]:
    """The shared components; `codes`: every problem code, `games`: every game's name."""
    return {name: shape.schema() for name, shape in shapes(codes, games).items()}


def shapes(codes: list[str], games: list[str]) -> dict[str, Shape]:
    """The shared components, declared."""
    return {
        **_ids(games),
        **_envelope(),
        **_problems(codes),
        **_games(),
        **_fairness(),
        **_ties(),
        **_health(codes),
        **_causes(),
        **_stream(),
        **_socket(),
    }


def _ids(games: list[str]) -> dict[str, Shape]:
    """A game's id, its name, its status."""
    return {
        "GameId": Pattern(bounds.GAME_ID, examples=("3f2a9c0d1e4b5a67",)),
        "GameName": Choice(tuple(games), enum=True),
        "Status": Choice(SHOWN_STATUSES, enum=True),
    }


def _games() -> dict[str, Shape]:
    """Rules, seats, the answers of create, join, lists and hints."""
    return {
        "Option": Obj(
            {
                "name": STRING,
                "type": Choice(("integer", "string", "boolean")),
                "default": Types(("integer", "string", "boolean", "null")),
                "choices": Opt(ListOf(Types(("integer", "string", "boolean")))),
                "min": Opt(INT),
                "max": Opt(INT),
                "nullable": BOOL,
                "doc": Opt(STRING),
                "docs": Opt(Ref("RulesText")),
            }
        ),
        "RulesText": Obj(
            {lang: STRING if lang == "en" else Opt(STRING) for lang in LANGS},
            doc="words for people in each language the viewer speaks (English always)",
        ),
        "GameRules": Obj(
            {
                "id": Ref("GameName"),
                "title": STRING,
                "seats": Obj({"min": INT, "max": INT}),
                "options": ListOf(Ref("Option")),
                "bots": ListOf(STRING),
                "traits": Obj(
                    {
                        name: BOOL
                        for name in ("simultaneous", "hidden_information", "teams", "chance")
                    },
                    doc="what kind of game it is (each holds with some options)",
                ),
                "rules": Opt(Ref("RulesText")),
                "strength": ListOf(Ref("Strength")),
            },
            extra=True,  # the rules in words and more are added by the games' own pages
        ),
        "Strength": Obj(
            {
                "target": STRING,
                "level": STRING,
                "against": STRING,
                "options": OBJECT,
                "seats": ListOf(SEAT_NUMBER),
                "games": INT,
                "wins": INT,
                "win_rate": NUMBER,
                "interval95": ListOf(NUMBER),
                "goal": NUMBER,
                "met": BOOL,
                "round_limit_share": NUMBER,
                "quick": BOOL,
                "commit": STRING,
                "date": STRING,
            },
            doc="a level's measured strength (bench/ladder.py): `level` in `seats` (as dealt "
            "first; the seats rotate over the games), `against` in the others, with `options`; "
            "won `wins` of `games`, a 95% interval; the goal is met when the interval's lower "
            "end reaches it, at the ladder's own n (`quick`: a smaller n, a first look, never "
            "`met`). `commit` is the code measured",
        ),
        "Rules": Obj({"games": ListOf(Ref("GameRules"))}),
        "SeedTicket": Obj({"ticket": STRING, "seed_commitment": HEX64, "expires_at": TIME}),
        "Seat": Obj(
            {
                "seat": SEAT_NUMBER,
                "name": Opt(STRING),
                "bot": Opt(STRING),
                "open": BOOL,
                "token": Opt(Text(None, doc="shown once")),
            }
        ),
        "SeatStored": Obj(
            {
                "seat": SEAT_NUMBER,
                "name": Opt(STRING),
                "client_seed": Opt(Types(("string", "null"))),
                "bot": Opt(STRING),
                "open": Opt(BOOL),
            }
        ),
        "Created": Obj(
            {
                "id": Ref("GameId"),
                "game": Ref("GameName"),
                "version": VERSION,
                "status": Ref("Status"),
                "seed_commitment": HEX64,
                "seats": ListOf(Ref("Seat")),
            }
        ),
        "Joined": Obj(
            {
                "id": Ref("GameId"),
                "seat": SEAT_NUMBER,
                "token": STRING,
                "version": VERSION,
                "status": Ref("Status"),
            }
        ),
        "GameSummary": Obj(
            {
                "id": Ref("GameId"),
                "game": Ref("GameName"),
                "status": Ref("Status"),
                "version": VERSION,
                "created_at": TIME,
                "seats": ListOf(Ref("Seat")),
                "result": Nullable(Ref("Result")),
            }
        ),
        "GameList": Obj({"games": ListOf(Ref("GameSummary")), "next_offset": INT_OR_NULL}),
        "Hint": Obj(
            {
                "seat": SEAT_NUMBER,
                "version": INT,
                "action": Nullable(
                    Ref("Action"),
                    doc="a body to post to /actions; null when it is not your turn",
                ),
                "reason": Obj(
                    {
                        "code": Choice(
                            HINT_CODES,
                            enum=True,
                            doc="why, worded by the viewer in each language "
                            "(`hint:<code>` in strings.js)",
                        ),
                        "params": Obj(
                            extra=None,
                            doc="the code's values: `card` (one of your own), "
                            "`choices`, `face`, `tricks`, `suit`, `action`",
                        ),
                    }
                ),
            }
        ),
        "HintPending": Obj(
            {"seat": SEAT_NUMBER, "version": INT, "pending": Choice((True,), enum=True)}
        ),
        "Skipped": Obj(
            {
                "id": Ref("GameId"),
                "version": Int(doc="the game's version when asked"),
                "bot_pace_ms": Choice((0,), doc="the bots now play the rest at full speed"),
            }
        ),
    }


def _health(codes: list[str]) -> dict[str, Shape]:
    """What /healthz and /readyz answer."""
    return {
        "Health": Obj({"status": STRING, **HEALTH_PARTS}, extra=None),
        "NotReady": Obj(
            {**_problem(codes), **HEALTH_PARTS},
            doc="RFC 9457, with the states of the store, the job queue and the workers",
        ),
    }


def _fairness() -> dict[str, Shape]:
    """Verification and the signing keys."""
    return {
        "Verification": Obj(
            {
                "status": Choice(
                    ("ok", "v1", "incomplete", "failed"),
                    doc="the log's own checks. v1: a log of fairness version 1, checked as far"
                    " as version 1 can say, never ok; incomplete: the game runs, what could be"
                    " checked so far held",
                ),
                "ok": BOOL,
                "fairness": INT_OR_NULL,
                "checked": MapOf(Types(("integer", "boolean"))),
                "version": Types(("integer", "null"), doc="the first that fails"),
                "reason": Types(("string", "null")),
                "events": INT,
                "draws_checked": INT,
                "seed_revealed": BOOL,
                "test_game": Bool(doc="a fixed seed or deal: never fair"),
                "verdict": Choice(
                    ("ok", "unsigned", "v1", "incomplete", "failed"),
                    doc="the log's checks and its signature together (`batayo verify` exits 0,"
                    " 4, 5, 3, 1 for them). ok: sound, and signed by this server's key;"
                    " unsigned: sound, but no key of this server signed it",
                ),
                "signature": Nullable(Ref("Signature")),
            }
        ),
        "Signature": Obj(
            {
                "alg": ED25519,
                "key": KEY_ID,
                "game": STRING,
                "version": VERSION,
                "tip": HEX64,
                "signature": Text(None, doc="base64 of the 64-byte signature"),
            },
            doc="the server's Ed25519 signature over the canonical JSON of"
            ' {"context": "batayo-tip-signature/1", "game", "key", "tip", "version"}'
            " (docs/fairness.md): the log up to `version`, whose last event's hash is `tip`",
        ),
        "PublicKey": Obj(
            {
                "kid": KEY_ID,
                "alg": ED25519,
                "public_key": Text(None, doc="base64 of the raw 32 bytes"),
                "pem": Text(None, doc="the same key as SubjectPublicKeyInfo PEM"),
                "current": Bool(doc="false: a retired key"),
            },
            doc="a public key the server signs (or signed) logs with",
        ),
        "PublicKeys": Obj({"keys": ListOf(Ref("PublicKey"))}),
    }


def _ties() -> dict[str, Shape]:
    """Ties (cards put down, reveals and random takes until one seat wins) and their pages."""
    versions = ListOf(INT)
    return {
        "TieStep": Obj(
            {"versions": versions},
            extra=True,
            doc="one step of a tie: cards put down, reveals, random takes, who won",
        ),
        "Tie": Obj(
            {
                "kind": STRING,
                "round": Opt(INT_OR_NULL),
                "players": ListOf(INT),
                "steps": ListOf(Ref("TieStep")),
                "versions": versions,
                "winner": Opt(INT_OR_NULL),
            },
            extra=True,
        ),
        "TiesPage": Obj({"ties": ListOf(Ref("Tie")), "total": INT, "next_offset": INT_OR_NULL}),
    }


def _envelope() -> dict[str, Shape]:
    """What every event carries besides its data: seals, openings, who acted."""
    return {
        "Sealed": Obj(
            {"sealed": HEX64},
            doc="a value the caller may not see (yet): its digest (FAIRNESS v2)",
        ),
        "SealedPointers": ListOf(
            Pattern(bounds.POINTER),
            doc="JSON pointers of the event's sealed values (FAIRNESS v2)",
        ),
        "Openings": MapOf(
            HEX64, doc="pointer -> nonce (hex) of each sealed value the caller may see"
        ),
        "Actor": AnyOf(
            (SEAT_NUMBER, Choice(("bot", "clock", "server"))),
            doc='a seat, "bot", "clock" or "server"',
        ),
    }


def _problems(codes: list[str]) -> dict[str, Shape]:
    """An error's answer (RFC 9457)."""
    return {
        "FieldErrors": MapOf(
            AnyOf((ListOf(STRING), Ref("FieldErrors"))),
            doc="invalid_request: the messages, by field (list items by index)",
        ),
        "Problem": Obj(_problem(codes), doc="RFC 9457"),
    }


def _causes() -> dict[str, Shape]:
    """What caused a batch of events, but an action (each game's own)."""
    return {
        "CauseCreate": Obj({"create": Obj()}, doc="a create"),
        "CauseJoin": Obj({"join": Obj({"seat": SEAT_NUMBER})}, doc="a seat taken"),
        "CauseTimer": Obj({"timer": Obj({"due": TIME})}, doc="a clock ran out"),
        "CauseAbandon": Obj(
            {"abandon": Obj()},
            doc="no new event for the game's abandon_after_s: it ends, abandoned",
        ),
    }


def _stream() -> dict[str, Shape]:
    """The messages of /stream."""
    return {
        "StreamEvent": Obj(
            {
                "id": Int(1, doc="the event's version"),
                "event": Text(None, doc="the event's type"),
                "data": Ref("Event"),
            },
            doc="one message of /stream: an event",
        ),
        "StreamView": Obj(
            {
                "id": Int(0, doc="the view's version"),
                "event": Choice(("view",)),
                "data": Ref("GameView"),
            },
            doc="one message of /stream?view=1: the game view after the events",
        ),
        "StreamItem": Obj(
            {
                "id": Opt(Pattern(bounds.DIGITS, doc="the version")),
                "event": Opt(Text(None, doc="the event's type, or `view`")),
                "data": Opt(
                    Json(
                        AnyOf((Ref("Event"), Ref("GameView"))),
                        doc="the event (or the view) as JSON: see StreamMessage",
                    )
                ),
                "retry": Opt(Int(doc="reconnect after this many ms")),
            },
            doc="one server-sent message of /stream, as the event-stream format has it",
        ),
        "StreamMessage": AnyOf(
            (Ref("StreamView"), Ref("StreamEvent")),
            doc="a server-sent message of /stream, its `data:` line parsed as JSON",
        ),
    }


def _socket() -> dict[str, Shape]:
    """The frames of /socket: each a text frame holding one JSON object."""
    return {
        "SocketId": Types(
            ("string", "integer"),
            max=bounds.SOCKET_ID_MAX,
            doc="the client's own id of an `act` frame, echoed unchanged",
        ),
        "SocketAuth": Obj(
            {"auth": Text(None, min=1, doc="the seat's token")},
            doc="client to server, first on a socket opened with the subprotocol "
            "`batayo.v1` (a browser's, which cannot send `Authorization`): within 5 s, or 1008",
        ),
        "SocketAct": Obj(
            {
                "act": Ref("Action"),
                "id": Ref("SocketId"),
                "if_match": Opt(Int(0, doc="only at this version, as `If-Match` (else 412)")),
                "key": Opt(
                    replace(
                        IDEMPOTENCY_KEY, doc="as `Idempotency-Key`: the same key answers the same"
                    )
                ),
            },
            doc="client to server: an action, as the body of POST /actions",
        ),
        "SocketClientMessage": AnyOf(
            (Ref("SocketAct"), Ref("SocketAuth")), doc="a frame the client sends on /socket"
        ),
        "SocketEvent": Obj(
            {"event": Ref("Event")},
            doc="server to client: an event of the log, as /events shows it to the caller",
        ),
        "SocketView": Obj(
            {"view": Ref("GameView")},
            doc="server to client (with view=1): the caller's game view, as GET gives it, "
            "on connecting and after each batch of events",
        ),
        "SocketActed": Obj(
            {
                "acted": Obj(
                    {"id": Ref("SocketId"), "version": Int(1, doc="the version the action reached")}
                )
            },
            doc="server to client: an `act` applied, after that action's own events",
        ),
        "SocketRefused": Obj(
            {
                "refused": Obj(
                    {
                        "id": Nullable(
                            Ref("SocketId"),
                            doc="the `act` frame's id; null for a frame that is no `act` frame",
                        ),
                        "problem": Ref("Problem"),
                    }
                )
            },
            doc="server to client: a frame refused, with the problem POST /actions "
            "would answer (`retry_after` for 429 and 503, `version` for 412)",
        ),
        "SocketServerMessage": AnyOf(
            (Ref("SocketEvent"), Ref("SocketView"), Ref("SocketActed"), Ref("SocketRefused")),
            doc="a frame the server sends on /socket",
        ),
    }
