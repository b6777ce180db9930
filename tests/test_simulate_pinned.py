"""`simulate --seed` plays the same games as the code these results were recorded with (the
start of the turn kinds and Bataille's variant objects): the rules and the random, greedy and
expert bots, game for game. A change that alters any game's course fails here; one that is
meant to must say so and record the new results."""

from __future__ import annotations

import hashlib
import json

import pytest

from service.sim.simulate import simulate

NOW = "2026-01-01T00:00:00.000000Z"

# (game, options, bots by seat, games) -> SHA-256 of the games' results, in game order
PINNED = {
    ("bataille", (), ("random",), 6): "7ca0b8c07edbc613",
    (
        "bataille",
        (("players", 3), ("variant", "ouverte")),
        ("greedy", "random", "greedy"),
        8,
    ): "da59f9772df3523b",
    (
        "bataille",
        (("deck", 32), ("gather", "ordered"), ("variant", "sans_inconnue")),
        ("random",),
        8,
    ): "e94238091e98a2b9",
    ("bataille", (("players", 4), ("shortfall", "play_out")), ("greedy",), 8): "8b9ea2d3819b525c",
    ("batak", (("deals", 3),), ("greedy", "random", "expert", "greedy"), 2): "41e02b30f92bd490",
    ("batak", (("deals", 3), ("mode", "esli")), ("random",), 2): "5b3c50b2e6c751a3",
    ("batayo", (("format", "express"),), ("greedy", "random"), 6): "5575483d6c85bc34",
    (
        "batayo",
        (("format", "express"), ("gather", "ordered"), ("players", 3)),
        ("random",),
        4,
    ): "67962a8fedba98f2",
    ("roylet", (("rounds", 4),), ("greedy", "random", "greedy"), 6): "1dcb988741e1ab8f",
}


def results_digest(game: str, options: tuple, bots: tuple, games: int) -> str:
    _, finals = simulate(game, games, dict(options), list(bots), b"pinned", now=NOW)
    text = json.dumps([s["result"] for s in finals], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@pytest.mark.parametrize("config", list(PINNED), ids=[f"{c[0]}{i}" for i, c in enumerate(PINNED)])
def test_simulate_plays_the_games_it_played(config):
    assert results_digest(*config) == PINNED[config]
