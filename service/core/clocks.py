"""Clocks: what becomes due when (docs/rules/common.md#move-clocks; a game's own clocks,
such as BATAYO's time limit). Derived from the state alone, so a sweep can restore them."""

from __future__ import annotations

from .game import add_seconds
from .options import option
from .state import bot_seats, game_of


def due_timers(state: dict) -> list[tuple[str, str]]:
    """Every clock as (key, due time ISO 8601): the game's own (`timers`), and with
    `move_timeout_s` one `move:<seat>` per awaited human seat."""
    if state.get("status") != "playing":
        return []
    timers = game_of(state).timers
    clocks = list(timers(state)) if timers else []
    timeout = state["options"].get("move_timeout_s")
    if timeout:
        bots = bot_seats(state)
        for seat, since in sorted(state.get("awaited", {}).items()):
            if int(seat) not in bots:
                clocks.append((f"move:{seat}", add_seconds(since, timeout)))
    return clocks


def abandon_due(state: dict) -> str | None:
    """When a game in play is abandoned if nothing happens (docs/rules/common.md#abandoned-games: no
    new event for `abandon_after_s`): its last event's time plus the option. None unless in play.
    It only ever moves later, as events come."""
    if state.get("status") != "playing":
        return None
    return add_seconds(state["at"], option(state, "abandon_after_s"))
