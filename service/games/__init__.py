"""The registry of game modules: every module in this package that declares NAME is a game.

Adding a game means adding one module here and nothing else.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

from ..core.game import Option

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


def _discover() -> dict[str, ModuleType]:
    games = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(module, "NAME"):
            games[module.NAME] = module
    return dict(sorted(games.items()))


GAMES: dict[str, ModuleType] = _discover()


def options_of(game: ModuleType) -> list[Option]:
    """The game's own options, then the common ones (`timeout_bot` names one of its bots)."""
    bots = tuple(game.BOTS)
    timeout_bot = Option(
        "timeout_bot",
        "random",
        choices=bots,
        doc="the bot that plays for a seat whose clock ran out",
    )
    return [*game.OPTIONS, *COMMON_OPTIONS, timeout_bot]


def resolve_options(game: ModuleType, given: dict) -> dict:
    """Every option of the game with its value: given ones checked, the rest defaulted.

    Raises ValueError naming the first unknown or bad option.
    """
    specs = {o.name: o for o in options_of(game)}
    for name in given:
        if name not in specs:
            known = ", ".join(specs)
            raise ValueError(f"unknown option {name!r} for {game.NAME} (known: {known})")
    return {
        name: spec.check(given[name]) if name in given else spec.default
        for name, spec in specs.items()
    }
