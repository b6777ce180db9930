"""The one place a bot is chosen and seeded: the seat's own bot, the timeout bot of a seat
whose clock ran out, or the hint's adviser. Each sees only its seat's view and draws from a
stream derived from the server seed (docs/fairness.md), so nobody can predict its next move
from public data, while the same game (a simulation's seed) plays the same way again."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from .fairness import secret_rng
from .game import Bot, Game
from .state import bot_seats, game_of
from .views import LazyView, game_view

T = TypeVar("T")
_ONE = (None,)
# the levels every game offers: a scan of the legal actions, played where they are asked for;
# every other level (`strong`, Batak's `expert`) searches: long CPU work a move
LIGHT = frozenset({"random", "greedy"})
# where a searching level's move is made, if not here: (game, level, view, random source) to
# the action (see `offload`)
Away = Callable[[str, str, Mapping, Any], dict]
_away: Away | None = None


class _Whims:
    """A bot's random source, made on its first real draw. Most moves draw nothing, or choose
    among one legal action: such a choice is known without the stream, and the draws it
    would have made are made when the stream is first needed, so every later draw is the
    same as if the stream had been made at once."""

    __slots__ = ("_args", "_owed", "_rng")

    def __init__(self, *args: Any) -> None:
        self._args = args
        self._rng: random.Random | None = None
        self._owed = 0

    def _get(self) -> random.Random:
        if self._rng is None:
            self._rng = rng = secret_rng(*self._args)
            for _ in range(self._owed):
                rng.choice(_ONE)
        return self._rng

    def random(self) -> float:
        return self._get().random()

    def choice(self, seq: Sequence[T]) -> T:
        if self._rng is None and len(seq) == 1:
            self._owed += 1
            return seq[0]
        return self._get().choice(seq)

    def randrange(self, start: int, stop: int | None = None) -> int:
        return self._get().randrange(start, stop)

    def shuffle(self, x: list) -> None:
        self._get().shuffle(x)


def whims(state: dict, server_seed: bytes, seat: int, purpose: str = "bot") -> _Whims:
    return _Whims(server_seed, state["id"], state["version"], seat, purpose)


def offload(run: Away | None) -> None:
    """Make every move of a searching level through `run` (None: here). `batayo serve`'s
    in-process worker sends them to child processes (service/cli/searchers.py), so that no
    search runs on the API's event loop; RQ workers and simulations play them where they are."""
    global _away
    _away = run


def play(game: Game, level: str, view: Mapping, rng: Any) -> dict:
    """The action of `game`'s bot `level` for the seat of `view`, drawing from `rng`: made here,
    or sent where `offload` said (with the view's fields worked out, and the same draws)."""
    if _away is not None and level not in LIGHT:
        return _away(game.name, level, dict(view), rng)
    return game.bots[level](view, rng)


def bot_of(state: dict, seat: int) -> str:
    return bot_seats(state)[seat]


def choose(
    state: dict, seat: int, server_seed: bytes, bot: str | None = None, lazy: bool = False
) -> dict:
    """The action bot `bot` (by default the seat's own) plays for `seat` now. `lazy`: the view's
    fields are worked out as the bot reads them (valid until the state moves on)."""
    game = game_of(state)
    name = bot or bot_of(state, seat)
    view: Mapping = LazyView(state, seat) if lazy else game_view(state, seat)
    return play(game, name, view, whims(state, server_seed, seat))


def chooser(
    game: Game, server_seed: bytes, chosen: Mapping[int, str]
) -> Callable[[dict, int, list[int]], dict]:
    """`choose` with lazy views for a simulation that plays `chosen` bots (by seat) in one game
    to its end: the bots are looked up once, and the seats awaited, which the caller knows, are
    the view's `to_move`. The same views and the same whims as `choose`."""
    played: dict[int, Bot] = {seat: game.bots[name] for seat, name in chosen.items()}

    def choose_(state: dict, seat: int, awaited: list[int]) -> dict:
        whims_ = _Whims(server_seed, state["id"], state["version"], seat, "bot")
        return played[seat](LazyView(state, seat, awaited, game), whims_)

    return choose_
