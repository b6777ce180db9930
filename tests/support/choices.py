"""Games played some way in by random and greedy bots, for the tests of the searching bots."""

from __future__ import annotations

import random

from service.core import search
from service.core.registry import GAMES
from service.core.state import clone
from service.core.views import game_view
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


def assert_fast_play_outs_agree(
    how: search.Search, state: dict, draw: int, worlds: int = 3, most: int = 12
) -> None:
    """In `worlds` states sampled from the awaited seat's view, each of its first `most` legal
    actions scores the same by the game's fast play-out as through the rules code, and neither
    moves the sampled state. Both ways start from one state of the play-out's generator and
    the same seed, and leave the generator in one state: they draw alike."""
    assert how.fast is not None
    seat = GAMES[state["game"]].to_move(state)[0]
    view = game_view(state, seat)
    rng = random.Random(draw)
    seed = rng.randbytes(16)
    for _ in range(worlds):
        root = how.world(view, rng)
        before = clone(root)
        for action in view["legal_actions"][:most]:
            fast_rng = random.Random()
            fast_rng.setstate(rng.getstate())
            plain = search.plain_score(how, root, seat, action, rng, seed)
            assert how.fast(root, seat, action, fast_rng, seed) == plain, action
            assert fast_rng.getstate() == rng.getstate(), action
        assert root == before
