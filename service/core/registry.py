"""The games this service offers: every built-in game under `service/games/`, and the extra
ones the setting `BATAYO_EXTRA_GAMES` names (`module:attribute,...`, for a test's toy game).

The core never imports a game: the registry loads them by name on first use, so the rules sit
above the framework that runs them, and a fifth game is one more package under `service/games/`.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping

from ..settings import current
from .game import Game

BUILTIN = "service.games"


class Registry(Mapping[str, Game]):
    def __init__(self) -> None:
        self._games: dict[str, Game] | None = None

    def _loaded(self) -> dict[str, Game]:
        if self._games is None:
            found = list(importlib.import_module(BUILTIN).builtin())
            found.extend(load(spec) for spec in current().extra_games)
            self._games = {}
            for game in sorted(found, key=lambda g: g.name):
                self._add(game)
        return self._games

    def _add(self, game: Game) -> None:
        if not isinstance(game, Game):
            raise TypeError(f"{game!r} is not a Game")
        if game.name in (self._games or {}):
            raise ValueError(f"two games are named {game.name!r}")
        self._games[game.name] = game

    def load(self) -> None:
        """Import every game now: a server does it as it loads its app, so that no request
        waits for the imports and its collector's freeze covers them."""
        self._loaded()

    def register(self, game: Game) -> None:
        """Offer one more game (a test's toy game) until `unregister`."""
        self._loaded()
        self._add(game)

    def unregister(self, name: str) -> None:
        self._loaded().pop(name, None)

    def __getitem__(self, name: str) -> Game:
        return self._loaded()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._loaded())

    def __len__(self) -> int:
        return len(self._loaded())


def load(spec: str) -> Game:
    """`package.module:NAME` (default attribute `GAME`)."""
    module, _, attr = spec.partition(":")
    return getattr(importlib.import_module(module), attr or "GAME")


GAMES = Registry()
