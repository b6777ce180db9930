"""The shapes of the answers, as TypedDicts: what every game shares. A game's own parts (its
table, its actions, its events' data) are plain JSON here; the generated contract
(`openapi.yaml`, `/openapi.json`) types them per game for a client generator."""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

Status = Literal["open", "playing", "finished"]


class Seat(TypedDict):
    seat: int
    open: bool
    name: NotRequired[str]
    bot: NotRequired[str]
    token: NotRequired[str]


class Created(TypedDict):
    id: str
    game: str
    version: int
    status: Status
    seed_commitment: str
    seats: list[Seat]


class Joined(TypedDict):
    id: str
    seat: int
    token: str
    version: int
    status: Status


class GameView(TypedDict):
    id: str
    game: str
    version: int
    status: Status
    test: bool
    options: dict[str, Any]
    seats: list[Seat]
    you: int | None
    to_move: list[int]
    legal_actions: list[dict[str, Any]]
    table: dict[str, Any]
    rounds: int
    result: dict[str, Any] | None
    seed_commitment: str
    fairness: int
    clocks: dict[str, str]
    skippable: bool


class Skipped(TypedDict):
    id: str
    version: int
    bot_pace_ms: int


class Event(TypedDict):
    version: int
    type: str
    at: str
    actor: int | str
    data: dict[str, Any]
    sealed: NotRequired[list[str]]
    openings: NotRequired[dict[str, str]]
    prev: NotRequired[str]
    hash: NotRequired[str]


class EventsPage(TypedDict):
    game: str
    events: list[Event]
    next_after: int | None


class ActionResult(TypedDict):
    events: list[Event]
    game: GameView


class Problem(TypedDict):
    type: str
    title: str
    status: int
    detail: str
    code: str
