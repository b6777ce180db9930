"""The bots' pace (option `bot_pace_ms`): how long a bot waits after the last event before it
moves, so that a person at the table can follow. A presentation of time, not a rule: no rule,
refold or simulation reads it; only the service's scheduling of bot moves does.

It applies in a game with at least one human seat, and a seat holder may skip it once no
human seat is still playing (every one eliminated), so the bots play the rest at full speed.
"""

from __future__ import annotations

from .options import option
from .state import game_of


def human_seats(state: dict) -> list[int]:
    """The seats a person holds or may take (every seat that is not a bot's)."""
    return [s["seat"] for s in state.get("seats", []) if not s.get("bot")]


def humans_playing(state: dict) -> list[int]:
    """The human seats still in the game: not eliminated (docs/api.md#bot-pace)."""
    seats_out = game_of(state).seats_out
    out = set(seats_out(state)) if seats_out and state.get("status") == "playing" else set()
    return [s for s in human_seats(state) if s not in out]


def pace_ms(state: dict) -> int:
    """The pace the game's bots keep: its option, if a person holds a seat; else 0."""
    return option(state, "bot_pace_ms") if human_seats(state) else 0


def skippable(state: dict) -> bool:
    """Whether a seat holder may ask the bots to play the rest at full speed: the game is in
    play, its bots keep a pace, and no human seat is still playing."""
    return state.get("status") == "playing" and bool(pace_ms(state)) and not humans_playing(state)
