"""The request bodies of the contract, generated from the marshmallow schemas that check them
(service/api/schemas.py, through `checked`), with what each game adds: its name, its options,
its seats' number and bots, its deal."""

from __future__ import annotations

from typing import Any

from ...core.game import Game
from ...core.shapes import AnyOf, Ref
from ..schemas import CreateGame, Join, SeatIn
from .checked import object_schema
from .common import ref

# the kinds of seat every game shares; a bot's seat names the game's own bots
SHARED_SEATS = {
    "SeatPerson": "a person's seat; its token comes in the answer",
    "SeatOpen": "a seat left open for someone to join",
}


def _seat(kind: str) -> dict[str, Any]:
    named = SeatIn.KINDS[kind]
    return object_schema(SeatIn(), only=named, required=named[:1])


def shared() -> dict[str, dict]:
    """The bodies every game shares: a join, a person's seat, an open seat."""
    out = {"Join": object_schema(Join())}
    out.update({kind: {**_seat(kind), "description": doc} for kind, doc in SHARED_SEATS.items()})
    return out


def of_game(game: Game, p: str, deal: dict) -> dict[str, dict]:
    """A game's create (`<p>Create`) and the seats it takes; `deal`: the schema of its deal."""
    bot = _seat("SeatBot")
    bot["properties"]["bot"]["enum"] = list(game.bots)
    create = object_schema(CreateGame())
    props = create["properties"]
    low, high = game.seat_range
    props["game"]["const"] = game.name
    props["options"] = ref(f"{p}OptionsIn")
    props["seats"].update(minItems=low, maxItems=high, items=ref(f"{p}SeatRequest"))
    props["deal"] = {**deal, "description": props["deal"]["description"]}
    props["id"] = {**ref("GameId"), "description": props["id"]["description"]}
    create["description"] = f"Create a game of {game.title}; it starts once every seat is taken."
    return {
        f"{p}SeatBot": bot,
        f"{p}SeatRequest": AnyOf(
            (Ref("SeatPerson"), Ref(f"{p}SeatBot"), Ref("SeatOpen")), one=True
        ).schema(),
        f"{p}Create": create,
    }
