"""Each game's part of the contract, from its declarations (`Game`, its shapes and options):
options, action bodies, table, result, view, every event type's data, the create request.

A game named `x_y` gets components named `XY...`: `XYAction` (a `oneOf` on `type`), `XYTable`,
`XYResult`, `XYView`, `XYEvent` (a `oneOf` on `type` of `XYEvent<Type>`), `XYCreate`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ...core import bounds
from ...core.game import Game, Option
from ...core.options import ADDED_LATER, options_of
from ...core.shapes import (
    ANY,
    AnyOf,
    Bool,
    Choice,
    Default,
    Event,
    Int,
    ListOf,
    MapOf,
    Nullable,
    Obj,
    Opt,
    Pattern,
    Ref,
    Shape,
    Tagged,
    Types,
)
from . import requests
from .common import (
    BOOL,
    HEX64,
    INT_OR_NULL,
    OBJECT,
    SEALED,
    SEAT_NUMBER,
    STRING,
    TIME,
    VERSION,
)

LIFECYCLE = ("created", "seat_taken", "ended")
COUNT = Int(0)  # rounds played
NULL = Types(("null",))


def camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.replace("-", "_").split("_"))


def option_shape(option: Option, request: bool = False) -> Shape:
    """An option's shape in the contract. In a request its default is said in words: a
    `default` makes openapi-typescript (by default) type the field as always present, which a
    request's options need not be."""
    if not request:
        return Default(option.shape, option.default, doc=option.doc)
    shown = "null" if option.default is None else str(option.default).lower()
    return replace(
        option.shape, doc=f"{option.doc} (default: {shown})" if option.doc else f"default: {shown}"
    )


def _options(game: Game, required: bool, doc: str = "") -> Obj:
    """The options as the view and the `created` event have them (`required`), or as a create
    may give them (each may be left out)."""
    fields: dict[str, Shape] = {}
    for option in options_of(game):
        shape = option_shape(option, request=not required)
        # an option added later is absent from the `created` event of a game made before it
        fields[option.name] = shape if required and option.name not in ADDED_LATER else Opt(shape)
    return Obj(fields, doc=doc)


def _discriminated(names: dict[str, str], doc: str = "") -> Shape:
    """A `oneOf` of components, told apart by their constant `type` (value -> component)."""
    if not names:
        return OBJECT
    return Tagged("type", {v: Ref(c) for v, c in names.items()}, doc=doc)


def _result(game: Game) -> Obj:
    fields: dict[str, Shape] = {
        "winners": ListOf(SEAT_NUMBER),
        "draw": BOOL,
        "reason": STRING,
        "rounds": COUNT,
    }
    for name, shape in (game.result_shape or {}).items():  # a base field stays required
        fields[name] = shape.of if name in fields and isinstance(shape, Opt) else shape
    return Obj(
        fields,
        extra=game.result_shape is None,
        doc=f"How a game of {game.title} ended: winners (none: a draw) and why.",
    )


def _view(game: Game, p: str) -> Obj:
    fields: dict[str, Shape] = {
        "id": Ref("GameId"),
        "game": Choice((game.name,)),
        "version": VERSION,
        "status": Ref("Status"),
        "test": Bool(doc="a test game (fixed seed or deal)"),
        "options": Ref(f"{p}Options"),
        "seats": ListOf(Ref("Seat")),
        "you": Types(("integer", "null"), doc="the caller's seat; null for a spectator"),
        "to_move": ListOf(SEAT_NUMBER),
        "legal_actions": ListOf(
            Ref(f"{p}Action"), doc="exactly the bodies the caller may post now"
        ),
        "table": Ref(f"{p}Table"),
        "rounds": COUNT,
        "result": Nullable(Ref(f"{p}Result")),
        "seed_commitment": HEX64,
        "fairness": Choice((1, 2), doc="the FAIRNESS version the game follows"),
        "clocks": MapOf(
            TIME,
            doc="running clocks and when they run out: `move:<seat>` "
            "(`move_timeout_s`) and the game's own",
        ),
        "skippable": Bool(
            doc="no human seat is still playing and the bots keep a pace "
            "(`bot_pace_ms`): a seat holder may POST /skip to see the end at once"
        ),
    }
    if game.knowledge_shape is not None:  # the game's public knowledge, by seat
        fields["known"] = Nullable(
            game.knowledge_shape,
            doc="what the public log tells of each seat's cards, one entry a seat "
            "(null for a game stored before the game kept it)",
        )
    return Obj(fields, doc=f"A game of {game.title} as the caller may see it.")


def _ledger_entry(rule: Any, part: str) -> Shape:
    """A ledger entry's input or output: public, or sealed as the event's ledger rule says."""
    hidden = getattr(rule, part, None) if rule is not None else None
    return hidden if hidden is not None else ANY


def _data(p: str, declared: Event) -> Obj:
    ledger = declared.ledger
    draw = Obj(
        {
            "op": Choice(("shuffle", "choice")),
            "input": _ledger_entry(ledger, "input"),
            "output": _ledger_entry(ledger, "output"),
            "why": STRING,
            "deck": Opt(Choice((True,))),
        }
    )
    return Obj(
        {
            **declared.fields,
            "rng": Opt(
                ListOf(
                    draw,
                    doc="the draws this event made (FAIRNESS): replay them from the seed",
                )
            ),
            "cause": Opt(Ref(f"{p}Cause")),
            "client_seeds": Opt(ListOf(STRING)),
            "salt": Opt(HEX64),
        }
    )


def _lifecycle_data(game: Game, p: str, kind: str) -> Obj:
    if kind == "created":
        fields: dict[str, Shape] = {
            "id": Ref("GameId"),
            "game": Choice((game.name,)),
            "options": Ref(f"{p}Options"),
            "seats": ListOf(Ref("SeatStored")),
            "seed_commitment": HEX64,
            "test": BOOL,
            "fairness": Opt(Choice((2,), enum=True)),
            "deal": Opt(AnyOf((_deal(game), SEALED, NULL))),
            "event_budget": Opt(
                Int(
                    1,
                    doc="the most events the game may have: reached, it ends "
                    "(reason `event_limit`); absent in games created before budgets",
                )
            ),
        }
    elif kind == "seat_taken":
        fields = {"seat": SEAT_NUMBER, "name": STRING, "client_seed": Types(("string", "null"))}
    else:
        fields = {
            "result": Ref(f"{p}Result"),
            "server_seed": Pattern(bounds.HEX64, doc="the seed, revealed at the end (FAIRNESS)"),
        }
    return Obj({**fields, "cause": Opt(Ref(f"{p}Cause"))})


def _event(kind: str, data: Obj, doc: str) -> Obj:
    return Obj(
        {
            "version": VERSION,
            "type": Choice((kind,)),
            "at": TIME,
            "actor": Ref("Actor"),
            "data": data,
            "sealed": Opt(Ref("SealedPointers")),
            "openings": Opt(Ref("Openings")),
            "prev": Opt(HEX64),
            "hash": Opt(HEX64),
        },
        doc=doc,
    )


def _cause(p: str, game: Game) -> dict[str, Shape]:
    """What caused a batch of events, in its first event: an action (its body as served: the
    parts the caller may not see sealed), the create, a join (`Cause*`, shared), a clock."""
    served: dict[str, Shape] = {}
    for action in game.actions:
        name = f"{p}ActionServed{camel(action.type)}"
        served[name] = replace(action.body(), title=name)
    action = Obj(
        {
            "seat": SEAT_NUMBER,
            "by": Choice(("seat", "bot", "clock")),
            "body": AnyOf(tuple(Ref(n) for n in served)) if served else OBJECT,
        }
    )
    return {
        **served,
        f"{p}CauseAction": Obj({"action": action}),
        f"{p}Cause": AnyOf(
            tuple(
                Ref(n)
                for n in (
                    f"{p}CauseAction",
                    "CauseCreate",
                    "CauseJoin",
                    "CauseTimer",
                    "CauseAbandon",
                )
            ),
            one=True,
            doc="what caused this batch of events",
        ),
    }


def _deal(game: Game) -> Shape:
    return game.deal_shape if game.deal_shape is not None else OBJECT


def components(game: Game) -> dict[str, dict]:
    """Every component of one game's part of the contract, by name."""
    p = camel(game.name)
    out: dict[str, dict] = {}

    def add(shapes: dict[str, Shape], served: bool = False) -> None:
        """Their schemas; `served`: as served, each hidden part the value or its seal."""
        sealed = SEALED.schema() if served else None
        out.update({name: shape.schema(sealed) for name, shape in shapes.items()})

    actions = {a.type: f"{p}Action{camel(a.type)}" for a in game.actions}
    table = game.table_shape if game.table_shape is not None else OBJECT
    add(
        {
            f"{p}Options": _options(game, required=True),
            f"{p}OptionsIn": _options(
                game, required=False, doc="options left out take their default"
            ),
            # a title names a client's class
            **{actions[a.type]: replace(a.body(), title=actions[a.type]) for a in game.actions},
            f"{p}Action": _discriminated(actions),
            f"{p}Table": replace(
                table, doc=table.doc or f"the {game.title} table as the caller may see it"
            ),
            f"{p}Result": _result(game),
            f"{p}View": _view(game, p),
        }
    )
    add(_cause(p, game), served=True)
    events = {kind: f"{p}Event{camel(kind)}" for kind in (*LIFECYCLE, *game.events)}
    add({events[k]: _event(k, _lifecycle_data(game, p, k), "") for k in LIFECYCLE}, served=True)
    add(
        {events[k]: _event(k, _data(p, e), e.doc) for k, e in game.events.items()},
        served=True,
    )
    add(
        {
            f"{p}Event": _discriminated(
                events, doc=f"one event of a game of {game.title}, as the caller may see it"
            )
        }
    )
    out.update(requests.of_game(game, p, _deal(game).schema()))
    add(_pages(game, p))
    return out


def _pages(game: Game, p: str) -> dict[str, Shape]:
    """The answers that carry a game's events, one schema per game: a client tells games'
    events apart by the answer's game, since two games may write events of the same type."""
    events = ListOf(Ref(f"{p}Event"))
    game_name = Choice((game.name,))
    return {
        f"{p}EventsPage": Obj(
            {"game": game_name, "events": events, "next_after": INT_OR_NULL},
            doc="a page of the log; `next_after`: where the next page starts (null: the end)",
        ),
        f"{p}ActionResult": Obj(
            {"events": events, "game": Ref(f"{p}View")},
            doc="the events an action appended, as the caller may see them, and the new view",
        ),
        f"{p}Export": Obj(
            {
                "format": Choice(("batayo-export/2",)),
                "id": Ref("GameId"),
                "game": game_name,
                "server_seed": Types(("string", "null")),
                "events": events,
                "signature": Nullable(Ref("Signature")),
            },
            doc="a finished game in full: every event in clear with its opening, the seed, and"
            " the server's signature over its tip (null: the server has no signing key)",
        ),
    }


def names(game: Game) -> dict[str, str]:
    """The names of a game's top components, by role."""
    p = camel(game.name)
    roles = ("Action", "Table", "Result", "View", "Event", "Create")
    return {role: f"{p}{role}" for role in (*roles, "EventsPage", "ActionResult", "Export")}
