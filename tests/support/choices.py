"""Games played some way in by random and greedy bots, for the tests of the searching bots."""

from __future__ import annotations

import random

from service.core.registry import GAMES
from service.sim.table import Table

CASES = [  # (game, options): every game and variant where a seat chooses
    ("roylet", {}),
    ("bataille", {"variant": "ouverte"}),
    ("bataille", {"variant": "ouverte", "players": 3}),
    ("batayo", {"players": 2}),
    ("batayo", {"players": 3}),
    ("batak", {"mode": "ihaleli"}),
    ("batak", {"mode": "esli"}),
]


def played_in(game: str, options: dict, seed: bytes, steps: int) -> Table:
    """A greedy table of `game` after `steps` moves, each by a random or a greedy bot."""
    n = GAMES[game].seat_count({**{o.name: o.default for o in GAMES[game].options}, **options})
    table = Table(game, options, [{"bot": "greedy"} for _ in range(n)], seed=seed, simulation=True)
    rng = random.Random(steps)
    for _ in range(steps):
        state = table.state
        if state["status"] != "playing":
            break
        seat = GAMES[game].to_move(state)[0]
        table.bot_move(seat, rng.choice(["random", "greedy"]))
    return table
