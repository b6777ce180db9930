"""The contract, generated: the whole OpenAPI document, built from the game registry, so it
cannot drift from what the games declare.

`build(games)` makes the document for any set of games. The committed `openapi.yaml` is the
built-in games' (`python -m service.api.openapi > openapi.yaml`; a test checks they are equal);
a server serves its own registry's at `/openapi.json`, extra games (BATAYO_EXTRA_GAMES)
included.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.game import Game
from ...core.registry import GAMES
from ...core.shapes import AnyOf, Ref, Shape, Tagged
from ..problems import FRAMEWORK
from . import common, game_parts, paths, requests

VERSION = "0.2.0"


def problem_codes(offered: Mapping[str, Game]) -> list[str]:
    codes = dict.fromkeys(FRAMEWORK)
    for game in offered.values():
        codes.update(dict.fromkeys(game.problems))
    return list(codes)


def _examples(offered: Mapping[str, Game]) -> tuple[dict, dict]:
    create, act = {}, {}
    for name, game in offered.items():
        n = game.seat_range[0]
        seats: list[dict] = [{"name": "Ana", "client_seed": "a seed of my own"}]
        seats += [{"bot": "greedy"}] * (n - 1)
        create[name] = {"summary": game.title, "value": {"game": name, "seats": seats}}
        for action in game.actions:
            body: dict[str, Any] = {"type": action.type}
            for field, shape in action.fields.items():
                example = shape.schema().get("examples") or shape.schema().get("enum")
                if example:
                    body[field] = example[0]
            act.setdefault(f"{name}_{action.type}", {"summary": game.title, "value": body})
    return create, act


def build(offered: Mapping[str, Game]) -> dict:
    """The OpenAPI 3.1 document of a server offering these games."""
    names = {name: game_parts.names(game) for name, game in offered.items()}
    schemas = common.schemas(problem_codes(offered), list(offered)) | requests.shared()
    for game in offered.values():
        schemas.update(game_parts.components(game))

    def union(role: str, one: bool = False, doc: str = "") -> Shape:
        return AnyOf(tuple(Ref(n[role]) for n in names.values()), one=one, doc=doc)

    def by_game(role: str) -> Shape:
        return Tagged("game", {g: Ref(n[role]) for g, n in names.items()})

    every_game = {
        "GameView": by_game("View"),
        "CreateGame": by_game("Create"),
        # a game's action types may share a name with another game's: told apart by the game
        "Action": union("Action", doc="one of your view's `legal_actions`"),
        "Event": union("Event"),
        "Result": union("Result"),
        "EventsPage": by_game("EventsPage"),
        "Export": by_game("Export"),
        "ActionResult": union("ActionResult", one=True),
    }
    schemas.update({name: shape.schema() for name, shape in every_game.items()})
    create_examples, action_examples = _examples(offered)
    titles = ", ".join(g.title for g in offered.values())
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "batayo",
            "version": VERSION,
            "description": f"An event-sourced card-game service: {titles}. Every action is an "
            "event in the game's hash-chained log; every shuffle and random pick is verifiable "
            "(FAIRNESS). Errors are `application/problem+json` with a stable `code`. Generated "
            "from the games' declarations: never edit it by hand.",
        },
        "servers": [{"url": "/", "description": "the server this document is served from"}],
        "tags": [{"name": "games"}, {"name": "health"}, {"name": "keys"}],
        "paths": paths.paths(create_examples, action_examples),
        "components": {
            "securitySchemes": {
                "seatToken": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "a seat's token, from create or join; without one the "
                    "caller is a spectator",
                }
            },
            "parameters": paths.parameters(),
            "headers": paths.headers(),
            "responses": paths.responses(),
            "schemas": schemas,
        },
    }


def builtin() -> dict[str, Game]:
    """The games under service/games/ alone: what the committed document describes."""
    from ...games import builtin as found

    return {g.name: g for g in sorted(found(), key=lambda g: g.name)}


_served: dict[tuple, dict] = {}


def document() -> dict:
    """The document of this server's registry (built once per set of games)."""
    key = tuple((name, id(game)) for name, game in GAMES.items())
    if key not in _served:
        _served.clear()
        _served[key] = build(GAMES)
    return _served[key]


def dump(doc: dict) -> str:
    """The document as YAML, every shared piece written out (no anchors: plain for any tool)."""
    import yaml

    class Plain(yaml.SafeDumper):
        def ignore_aliases(self, data: Any) -> bool:
            return True

    return yaml.dump(doc, Dumper=Plain, sort_keys=False, allow_unicode=True, width=100)
