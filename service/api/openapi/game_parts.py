"""Each game's part of the contract, from its declarations (`Game`, its shapes and options):
options, action bodies, table, result, view, every event type's data, the create request.

A game named `x_y` gets components named `XY...`: `XYAction` (a `oneOf` on `type`), `XYTable`,
`XYResult`, `XYView`, `XYEvent` (a `oneOf` on `type` of `XYEvent<Type>`), `XYCreate`.
"""

from __future__ import annotations

from typing import Any

from ...core.game import Game, Option
from ...core.options import ADDED_LATER, options_of
from ...core.shapes import ANY, Event, Opt
from . import common, requests
from .common import ref

# the shared shapes as schemas, until this module declares its parts as shapes too
HEX64, SEALED, TIME = common.HEX64.schema(), common.SEALED.schema(), common.TIME.schema()

LIFECYCLE = ("created", "seat_taken", "ended")


def camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.replace("-", "_").split("_"))


def option_schema(option: Option, request: bool = False) -> dict:
    """An option's schema. In a request its default is said in words: a `default` makes
    openapi-typescript (by default) type the field as always present, which a request's
    options need not be."""
    out = option.shape.schema()
    doc = option.doc
    if request:
        shown = "null" if option.default is None else str(option.default).lower()
        doc = f"{doc} (default: {shown})" if doc else f"default: {shown}"
    else:
        out["default"] = option.default
    if doc:
        out["description"] = doc
    return out


def _options(game: Game, required: bool) -> dict:
    options = options_of(game)
    return {
        "type": "object",
        "properties": {o.name: option_schema(o, request=not required) for o in options},
        # an option added later is absent from the `created` event of a game made before it
        "required": [o.name for o in options if o.name not in ADDED_LATER] if required else [],
        "additionalProperties": False,
    }


def _discriminated(names: dict[str, str], prop: str = "type") -> dict:
    """A `oneOf` of components, told apart by the constant `prop` (value -> component)."""
    return {
        "oneOf": [ref(c) for c in names.values()],
        "discriminator": {
            "propertyName": prop,
            "mapping": {v: f"#/components/schemas/{c}" for v, c in names.items()},
        },
    }


def _result(game: Game, prefix: str) -> dict:
    base: dict[str, Any] = {
        "winners": {"type": "array", "items": {"type": "integer", "minimum": 0}},
        "draw": {"type": "boolean"},
        "reason": {"type": "string"},
        "rounds": {"type": "integer", "minimum": 0},
    }
    extra = game.result_shape or {}
    required = [*base, *(k for k, s in extra.items() if not isinstance(s, Opt) and k not in base)]
    base.update({k: s.schema() for k, s in extra.items()})
    return {
        "type": "object",
        "description": f"How a game of {game.title} ended: winners (none: a draw) and why.",
        "properties": base,
        "required": required,
        "additionalProperties": game.result_shape is None,
    }


def _view(game: Game, p: str) -> dict:
    out = _common_view(game, p)
    if game.knowledge_shape is not None:  # the game's public knowledge, by seat
        out["required"].append("known")
        out["properties"]["known"] = {
            "anyOf": [game.knowledge_shape.schema(), {"type": "null"}],
            "description": "what the public log tells of each seat's cards, one entry a seat "
            "(null for a game stored before the game kept it)",
        }
    return out


def _common_view(game: Game, p: str) -> dict:
    return {
        "type": "object",
        "description": f"A game of {game.title} as the caller may see it.",
        "required": [
            "id",
            "game",
            "version",
            "status",
            "test",
            "options",
            "seats",
            "you",
            "to_move",
            "legal_actions",
            "table",
            "rounds",
            "result",
            "seed_commitment",
            "fairness",
            "clocks",
            "skippable",
        ],
        "properties": {
            "id": ref("GameId"),
            "game": {"type": "string", "const": game.name},
            "version": {"type": "integer", "minimum": 1},
            "status": ref("Status"),
            "test": {"type": "boolean", "description": "a test game (fixed seed or deal)"},
            "options": ref(f"{p}Options"),
            "seats": {"type": "array", "items": ref("Seat")},
            "you": {
                "type": ["integer", "null"],
                "description": "the caller's seat; null for a spectator",
            },
            "to_move": {"type": "array", "items": {"type": "integer", "minimum": 0}},
            "legal_actions": {
                "type": "array",
                "items": ref(f"{p}Action"),
                "description": "exactly the bodies the caller may post now",
            },
            "table": ref(f"{p}Table"),
            "rounds": {"type": "integer", "minimum": 0},
            "result": {"anyOf": [ref(f"{p}Result"), {"type": "null"}]},
            "seed_commitment": HEX64,
            "fairness": {
                "type": "integer",
                "enum": [1, 2],
                "description": "the FAIRNESS version the game follows",
            },
            "clocks": {
                "type": "object",
                "description": "running clocks and when they run out: `move:<seat>` "
                "(`move_timeout_s`) and the game's own",
                "additionalProperties": TIME,
            },
            "skippable": {
                "type": "boolean",
                "description": "no human seat is still playing and the bots keep a pace "
                "(`bot_pace_ms`): a seat holder may POST /skip to see the end at once",
            },
        },
        "additionalProperties": False,
    }


def _ledger_entry(rule: Any, part: str) -> dict:
    """A ledger entry's input or output: public, or sealed as the event's ledger rule says."""
    hidden = getattr(rule, part, None) if rule is not None else None
    return hidden.schema(SEALED) if hidden is not None else ANY.schema()


def _data(game: Game, p: str, declared: Event) -> dict:
    ledger = declared.ledger
    data = {name: shape.schema(SEALED) for name, shape in declared.fields.items()}
    data.update(
        rng={
            "type": "array",
            "description": "the draws this event made (FAIRNESS): replay them from the seed",
            "items": {
                "type": "object",
                "required": ["op", "input", "output", "why"],
                "properties": {
                    "op": {"type": "string", "enum": ["shuffle", "choice"]},
                    "input": _ledger_entry(ledger, "input"),
                    "output": _ledger_entry(ledger, "output"),
                    "why": {"type": "string"},
                    "deck": {"type": "boolean", "const": True},
                },
                "additionalProperties": False,
            },
        },
        cause=ref(f"{p}Cause"),
        client_seeds={"type": "array", "items": {"type": "string"}},
        salt=HEX64,
    )
    required = [k for k, s in declared.fields.items() if not isinstance(s, Opt)]
    return {
        "type": "object",
        "properties": data,
        "required": required,
        "additionalProperties": False,
    }


def _lifecycle_data(game: Game, p: str, kind: str) -> dict:
    cause = {"cause": ref(f"{p}Cause")}
    if kind == "created":
        props: dict[str, Any] = {
            "id": ref("GameId"),
            "game": {"type": "string", "const": game.name},
            "options": ref(f"{p}Options"),
            "seats": {"type": "array", "items": ref("SeatStored")},
            "seed_commitment": HEX64,
            "test": {"type": "boolean"},
            "fairness": {"type": "integer", "enum": [2]},
            "deal": {"anyOf": [_deal(game), SEALED, {"type": "null"}]},
            "event_budget": {
                "type": "integer",
                "minimum": 1,
                "description": "the most events the game may have: reached, it ends "
                "(reason `event_limit`); absent in games created before budgets",
            },
        }
        required = ["id", "game", "options", "seats", "seed_commitment", "test"]
    elif kind == "seat_taken":
        props = {
            "seat": {"type": "integer", "minimum": 0},
            "name": {"type": "string"},
            "client_seed": {"type": ["string", "null"]},
        }
        required = ["seat", "name", "client_seed"]
    else:
        props = {
            "result": ref(f"{p}Result"),
            "server_seed": {**HEX64, "description": "the seed, revealed at the end (FAIRNESS)"},
        }
        required = ["result", "server_seed"]
    return {
        "type": "object",
        "properties": {**props, **cause},
        "required": required,
        "additionalProperties": False,
    }


def _event(kind: str, data: dict, doc: str) -> dict:
    out: dict[str, Any] = {
        "type": "object",
        "required": ["version", "type", "at", "actor", "data"],
        "properties": {
            "version": {"type": "integer", "minimum": 1},
            "type": {"type": "string", "const": kind},
            "at": TIME,
            "actor": ref("Actor"),
            "data": data,
            "sealed": ref("SealedPointers"),
            "openings": ref("Openings"),
            "prev": HEX64,
            "hash": HEX64,
        },
        "additionalProperties": False,
    }
    if doc:
        out["description"] = doc
    return out


def _cause(p: str, game: Game) -> dict[str, dict]:
    """What caused a batch of events, in its first event: an action (its body as served: the
    parts the caller may not see sealed), the create, a join (`Cause*`, shared), a clock."""
    served = {}
    for action in game.actions:
        name = f"{p}ActionServed{camel(action.type)}"
        served[name] = {**action.body().schema(SEALED), "title": name}
    action = {
        "type": "object",
        "required": ["seat", "by", "body"],
        "properties": {
            "seat": {"type": "integer", "minimum": 0},
            "by": {"type": "string", "enum": ["seat", "bot", "clock"]},
            "body": {"anyOf": [ref(n) for n in served]} if served else {"type": "object"},
        },
        "additionalProperties": False,
    }
    return {
        **served,
        f"{p}CauseAction": {
            "type": "object",
            "required": ["action"],
            "properties": {"action": action},
            "additionalProperties": False,
        },
        f"{p}Cause": {
            "description": "what caused this batch of events",
            "oneOf": [
                ref(f"{p}CauseAction"),
                ref("CauseCreate"),
                ref("CauseJoin"),
                ref("CauseTimer"),
                ref("CauseAbandon"),
            ],
        },
    }


def _deal(game: Game) -> dict:
    return game.deal_shape.schema() if game.deal_shape is not None else {"type": "object"}


def components(game: Game) -> dict[str, dict]:
    """Every component of one game's part of the contract, by name."""
    p = camel(game.name)
    out: dict[str, dict] = {
        f"{p}Options": _options(game, required=True),
        f"{p}OptionsIn": {
            **_options(game, required=False),
            "description": "options left out take their default",
        },
    }
    actions = {}
    for action in game.actions:
        name = f"{p}Action{camel(action.type)}"
        out[name] = {**action.body().schema(), "title": name}  # a title names a client's class
        actions[action.type] = name
    out[f"{p}Action"] = _discriminated(actions) if actions else {"type": "object"}
    table = game.table_shape.schema() if game.table_shape is not None else {"type": "object"}
    out[f"{p}Table"] = {
        "description": f"the {game.title} table as the caller may see it",
        **table,
    }
    out[f"{p}Result"] = _result(game, p)
    out[f"{p}View"] = _view(game, p)
    out.update(_cause(p, game))
    events = {}
    for kind in LIFECYCLE:
        events[kind] = f"{p}Event{camel(kind)}"
        out[events[kind]] = _event(kind, _lifecycle_data(game, p, kind), "")
    for kind, declared in game.events.items():
        events[kind] = f"{p}Event{camel(kind)}"
        out[events[kind]] = _event(kind, _data(game, p, declared), declared.doc)
    out[f"{p}Event"] = {
        "description": f"one event of a game of {game.title}, as the caller may see it",
        **_discriminated(events),
    }
    out.update(requests.of_game(game, p, _deal(game)))
    out.update(_pages(game, p))
    return out


def _pages(game: Game, p: str) -> dict[str, dict]:
    """The answers that carry a game's events, one schema per game: a client tells games'
    events apart by the answer's game, since two games may write events of the same type."""
    events = {"type": "array", "items": ref(f"{p}Event")}
    game_name = {"type": "string", "const": game.name}

    def page(props: dict, required: list[str], doc: str) -> dict:
        return {
            "type": "object",
            "description": doc,
            "required": required,
            "properties": props,
            "additionalProperties": False,
        }

    return {
        f"{p}EventsPage": page(
            {"game": game_name, "events": events, "next_after": {"type": ["integer", "null"]}},
            ["game", "events", "next_after"],
            "a page of the log; `next_after`: where the next page starts (null: the end)",
        ),
        f"{p}ActionResult": page(
            {"events": events, "game": ref(f"{p}View")},
            ["events", "game"],
            "the events an action appended, as the caller may see them, and the new view",
        ),
        f"{p}Export": page(
            {
                "format": {"type": "string", "const": "batayo-export/2"},
                "id": ref("GameId"),
                "game": game_name,
                "server_seed": {"type": ["string", "null"]},
                "events": events,
                "signature": {"anyOf": [ref("Signature"), {"type": "null"}]},
            },
            ["format", "id", "game", "server_seed", "events", "signature"],
            "a finished game in full: every event in clear with its opening, the seed, and the"
            " server's signature over its tip (null: the server has no signing key)",
        ),
    }


def names(game: Game) -> dict[str, str]:
    """The names of a game's top components, by role."""
    p = camel(game.name)
    roles = ("Action", "Table", "Result", "View", "Event", "Create")
    return {role: f"{p}{role}" for role in (*roles, "EventsPage", "ActionResult", "Export")}
