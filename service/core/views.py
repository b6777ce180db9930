"""What a caller may see: the game view of API.md and redacted events.

Seat `None` is a spectator. Once the game has ended everybody sees every event in full.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from .state import game_of

_GENERIC = {"created", "seat_taken", "ended"}


def public_seats(state: dict) -> list[dict]:
    out = []
    for s in state.get("seats", []):
        entry: dict[str, Any] = {"seat": s["seat"]}
        for key in ("name", "bot"):
            if s.get(key) is not None:
                entry[key] = s[key]
        entry["open"] = bool(s.get("open"))
        out.append(entry)
    return out


def _playing(state: dict) -> bool:
    return state["status"] == "playing"


# The view of API.md, field by field: each is a function of (state, seat).
_FIELDS: dict[str, Callable[[dict, int | None], Any]] = {
    "id": lambda state, seat: state["id"],
    "game": lambda state, seat: state["game"],
    "version": lambda state, seat: state["version"],
    "status": lambda state, seat: state["status"],
    "test": lambda state, seat: state["test"],
    "options": lambda state, seat: state["options"],
    "seats": lambda state, seat: public_seats(state),
    "you": lambda state, seat: seat,
    "to_move": lambda state, seat: game_of(state).to_move(state) if _playing(state) else [],
    "legal_actions": lambda state, seat: (
        game_of(state).legal_actions(state, seat) if _playing(state) and seat is not None else []
    ),
    "table": lambda state, seat: game_of(state).view(state, seat),
    "rounds": lambda state, seat: game_of(state).rounds(state),
    "result": lambda state, seat: state["result"],
    "seed_commitment": lambda state, seat: state["seed_commitment"],
    "clocks": lambda state, seat: dict(_clocks(state)) if _playing(state) else {},
}


def game_view(state: dict, seat: int | None) -> dict:
    return {key: field(state, seat) for key, field in _FIELDS.items()}


class LazyView(Mapping):
    """The same view as `game_view`, each field computed when first read: what a bot in a
    simulation gets (most bots read one or two fields). Valid only until the state moves on."""

    __slots__ = ("_got", "_seat", "_state")

    def __init__(self, state: dict, seat: int | None) -> None:
        self._state = state
        self._seat = seat
        self._got: dict[str, Any] = {}

    def __getitem__(self, key: str) -> Any:
        got = self._got
        if key not in got:
            got[key] = _FIELDS[key](self._state, self._seat)
        return got[key]

    def __iter__(self) -> Iterator[str]:
        return iter(_FIELDS)

    def __len__(self) -> int:
        return len(_FIELDS)


def _clocks(state: dict) -> list[tuple[str, str]]:
    from .command import due_timers  # the clocks are the command side's; views only show them

    return due_timers(state)


def redact_event(event: dict, seat: int | None, state: dict) -> dict:
    """The event as `seat` may see it, given the game's current state."""
    if state["status"] == "finished" or event["type"] in _GENERIC:
        return event
    return game_of(state).redact(event, seat, state["options"])
