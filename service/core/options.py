"""A game's options: its own, then the ones every game has (RULES.md, Common ground)."""

from __future__ import annotations

from .game import Game, Option

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
)


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
