"""The game state and its reducer: the lifecycle every game shares, then the game's own `apply`.

State is plain JSON-able data, so a snapshot is its JSON: a `GameState` (below), whose `table`
is the game's own (each game types its table in its rules). `evolve` is pure (it copies);
`fold` copies once and applies many events in place, which is what replay needs to be fast.
"""

from __future__ import annotations

import marshal
from collections.abc import Iterable
from typing import Any, Literal, NotRequired, TypedDict, cast, get_args

from .chain import GENESIS
from .game import Game
from .registry import GAMES

Status = Literal["new", "open", "playing", "finished"]
# the statuses a game is listed and shown with (it is "new" only while its create is built)
SHOWN_STATUSES = tuple(s for s in get_args(Status) if s != "new")


class SeatState(TypedDict):
    seat: int
    name: NotRequired[str]  # a person's, once the seat is taken
    bot: NotRequired[str]  # a bot's seat
    open: NotRequired[bool]  # waiting for a person to join
    client_seed: NotRequired[str | None]


class GameState(TypedDict):
    """The lifecycle every game shares (`created`, `seat_taken`, the deal, `ended`); from
    `created` on, every key but the last four is there."""

    version: int  # of the last event applied
    hash: str | None  # that event's (None in a simulation, which has no chain)
    status: Status
    id: NotRequired[str]
    game: NotRequired[str]
    options: NotRequired[dict[str, Any]]  # every option, resolved
    seats: NotRequired[list[SeatState]]
    seed_commitment: NotRequired[str]
    test: NotRequired[bool]  # fixed seed or deal: never presented as fair
    salt: NotRequired[str | None]  # from the seats' client seeds, at the deal
    result: NotRequired[dict[str, Any] | None]  # the game's `result`, once finished
    created_at: NotRequired[str]
    at: NotRequired[str]  # the last event's time
    table: NotRequired[Any]  # the game's own: typed by its rules
    fairness: NotRequired[int]  # the docs/fairness.md version the game was created under
    revealed_at: NotRequired[int]  # the last event that revealed values hidden "until reveal"
    started_at: NotRequired[str]  # the deal's time
    deal: NotRequired[dict]  # a test game's fixed deal
    awaited: NotRequired[dict[str, str]]  # with move clocks: since when each seat is awaited
    event_budget: NotRequired[int]  # the most events the game may have (from `created`)


class BadLog(ValueError):
    """Events that do not follow each other (a gap, a repeat, an unknown game)."""


def initial() -> GameState:
    return {"version": 0, "hash": GENESIS, "status": "new"}


# immutable leaves a copy may share: strings are most of a state's objects, and a copy that
# shares them is cheaper than a marshal round trip (docs/performance.md#simulation-shortcuts)
_SHARED = frozenset({str, int, float, bool, type(None)})


def clone(state: dict) -> dict:
    """A deep copy of plain data: every dict and list copied, immutable leaves shared."""
    return _copied_dict(state)


def _copied_dict(data: dict) -> dict:
    out = data.copy()
    for key, value in data.items():
        if type(value) not in _SHARED:
            out[key] = _copied(value)
    return out


def _copied_list(items: list) -> list:
    for item in items:
        if type(item) not in _SHARED:
            return [v if type(v) in _SHARED else _copied(v) for v in items]
    return items[:]  # a list of leaves (a pack of cards): one C-level copy


def _copied(value: Any) -> Any:
    kind = type(value)
    if kind is dict:
        return _copied_dict(value)
    if kind is list:
        return _copied_list(value)
    # anything else plain data holds (a tuple, a set, bytes): marshal copies it whole
    return marshal.loads(marshal.dumps(value))  # noqa: S302 - our own data, never from outside


def game_of(state: dict) -> Game:
    return GAMES[state["game"]]


def awaited(state: dict) -> list[int]:
    """The seats whose action is awaited: none unless the game is being played."""
    return game_of(state).to_move(state) if state.get("status") == "playing" else []


def legal_actions(state: dict, seat: int | None) -> list[dict]:
    """Exactly the bodies `seat` may post now (none for a spectator or a seat not awaited)."""
    if seat is None or seat not in awaited(state):
        return []
    return game_of(state).legal_actions(state, seat)


_LIFECYCLE = frozenset({"created", "seat_taken", "ended"})


def apply(state: dict, event: dict, game: Game | None = None) -> None:
    """Apply one event to `state` in place; `game`, the state's game if the caller has it."""
    if event["version"] != state["version"] + 1:
        raise BadLog(f"event {event['version']} cannot follow version {state['version']}")
    kind: str = event["type"]
    data: dict = event["data"]
    if kind not in _LIFECYCLE:  # the game's own events, by far the most
        if "salt" in data:  # the first game event: the deal
            state["salt"] = data["salt"]
            state["status"] = "playing"
            state["started_at"] = event["at"]
        if game is None:
            game = game_of(state)
        game.apply(state, event)
        if kind in game.reveal_events:  # values hidden "until reveal" are now public
            state["revealed_at"] = event["version"]
    elif kind == "created":
        if data["game"] not in GAMES:
            raise BadLog(f"unknown game {data['game']!r}")
        game = GAMES[data["game"]]
        state.update(
            id=data["id"],
            game=data["game"],
            options=data["options"],
            seats=[dict(s) for s in data["seats"]],
            seed_commitment=data["seed_commitment"],
            test=data["test"],
            salt=None,
            result=None,
            status="open",
            created_at=event["at"],
            table=game.setup(data["options"]),
            fairness=data.get("fairness", 1),
            revealed_at=0,
        )
        if "deal" in data:
            state["deal"] = data["deal"]
        if "event_budget" in data:
            state["event_budget"] = data["event_budget"]
    elif kind == "seat_taken":
        seat = state["seats"][data["seat"]]
        seat.pop("open", None)
        seat.update(name=data["name"], client_seed=data.get("client_seed"))
    elif kind == "ended":
        state["status"] = "finished"
        state["result"] = data["result"]
    state["version"] = event["version"]
    state["hash"] = event["hash"]
    state["at"] = event["at"]
    if state["options"].get("move_timeout_s"):
        _track_waits(state, event["at"])


def _track_waits(state: dict, at: str) -> None:
    """Move clocks: since when each awaited seat has been waited for (kept while it still is)."""
    if state["status"] != "playing":
        state.pop("awaited", None)
        return
    before = state.get("awaited") or {}
    state["awaited"] = {str(s): before.get(str(s), at) for s in game_of(state).to_move(state)}


def evolve(state: dict, event: dict) -> dict:
    """The reducer as a pure function: a new state, the input untouched."""
    new = clone(state)
    apply(new, event)
    return new


def fold(events: Iterable[dict], state: dict | None = None) -> dict:
    """The state after `events`, starting from `state` (not modified) or from nothing."""
    current = cast(dict, initial()) if state is None else clone(state)
    for event in events:
        apply(current, event)
    return current


def open_seats(state: dict) -> list[int]:
    return [s["seat"] for s in state.get("seats", []) if s.get("open")]


def bot_seats(state: dict) -> dict[int, str]:
    return {s["seat"]: s["bot"] for s in state.get("seats", []) if s.get("bot")}
