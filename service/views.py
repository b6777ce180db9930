"""What a caller may see: the game view of API.md and redacted events.

Seat `None` is a spectator. Once the game has ended everybody sees every event in full.
"""

from __future__ import annotations

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


def game_view(state: dict, seat: int | None) -> dict:
    game = game_of(state)
    playing = state["status"] == "playing"
    return {
        "id": state["id"],
        "game": state["game"],
        "version": state["version"],
        "status": state["status"],
        "test": state["test"],
        "options": state["options"],
        "seats": public_seats(state),
        "you": seat,
        "to_move": game.to_move(state) if playing else [],
        "legal_actions": game.legal_actions(state, seat) if playing and seat is not None else [],
        "table": game.view(state, seat),
        "rounds": game.rounds(state),
        "result": state["result"],
        "seed_commitment": state["seed_commitment"],
        "clocks": dict(_clocks(state)) if playing else {},
    }


def _clocks(state: dict) -> list[tuple[str, str]]:
    from .command import due_timers  # the clocks are the command side's; views only show them

    return due_timers(state)


def redact_event(event: dict, seat: int | None, state: dict) -> dict:
    """The event as `seat` may see it, given the game's current state."""
    if state["status"] == "finished" or event["type"] in _GENERIC:
        return event
    return game_of(state).redact(event, seat, state["options"])
