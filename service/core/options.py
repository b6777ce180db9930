"""A game's options: its own, then the ones every game has (docs/rules/common.md)."""

from __future__ import annotations

from typing import Any

from .game import Game, Option

ABANDON_AFTER_S = 7 * 86_400  # docs/rules/common.md#abandoned-games: a week without a new event
BOT_PACE_MAX_MS = 5_000  # slower than this, a person waits rather than follows

COMMON_OPTIONS = (
    Option(
        "move_timeout_s",
        None,
        min=1,
        max=86_400,
        nullable=True,
        type="integer",
        doc="seconds a seat may take to move before the service plays for it",
    ),
    Option(
        "abandon_after_s",
        ABANDON_AFTER_S,
        min=60,
        max=365 * 86_400,
        type="integer",
        doc="seconds without a new event after which a game in play ends with no winner "
        "(reason `abandoned`)",
    ),
    Option(
        "bot_pace_ms",
        0,
        min=0,
        max=BOT_PACE_MAX_MS,
        type="integer",
        doc="milliseconds a bot waits after the last event before it moves, in a game with a "
        "human seat, so a person can follow; a presentation of time, not a rule (0: at once)",
    ),
)
# Options added after games were stored: the `created` event of a game made before one has no
# value for it, and the game reads as having its default (the option did not exist, so the
# game was made under the rules that are now its default).
ADDED_LATER = {"abandon_after_s": ABANDON_AFTER_S, "bot_pace_ms": 0}


def options_of(game: Game) -> list[Option]:
    """The game's own options, then the common ones (`timeout_bot` names one of its bots)."""
    timeout_bot = Option(
        "timeout_bot",
        "random",
        choices=tuple(game.bots),
        doc="the bot that plays for a seat whose clock ran out",
    )
    return [*game.options, *COMMON_OPTIONS, timeout_bot]


def resolve_options(game: Game, given: dict) -> dict:
    """Every option of the game with its value: given ones checked, the rest defaulted.

    Raises ValueError naming the first unknown or bad option.
    """
    specs = {o.name: o for o in options_of(game)}
    for name in given:
        if name not in specs:
            known = ", ".join(specs)
            raise ValueError(f"unknown option {name!r} for {game.name} (known: {known})")
    return {
        name: spec.check(given[name]) if name in given else spec.default
        for name, spec in specs.items()
    }


def with_later(options: dict) -> dict:
    """Stored options with the default of every option added since they were stored."""
    missing = {name: v for name, v in ADDED_LATER.items() if name not in options}
    return {**options, **missing} if missing else options


def as_before_later(options: dict) -> dict:
    """Options without those added later that have their default: as a game with the same
    choices was described before they existed."""
    return {k: v for k, v in options.items() if k not in ADDED_LATER or v != ADDED_LATER[k]}


def option(state: dict, name: str) -> Any:
    """A stored game's option `name`; its default if the game was made before it existed."""
    options = state["options"]
    return options[name] if name in options else ADDED_LATER[name]
