"""The built-in games: every package here that declares `GAME` is one (the registry in
`service.core.registry` finds them). Adding a game means adding one package here."""

from __future__ import annotations

import importlib
import pkgutil

from ..core.game import Game


def builtin() -> list[Game]:
    games = []
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("_"):
            module = importlib.import_module(f"{__name__}.{info.name}")
            if isinstance(getattr(module, "GAME", None), Game):
                games.append(module.GAME)
    return games
