"""Games played some way in by random and greedy bots, for the tests of the searching bots."""

from __future__ import annotations

import random

from hypothesis import strategies as st

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


# hypothesis' arguments of `played_in` and of the draws of `assert_fast_play_outs_agree`
PLAYED = {
    "seed": st.binary(min_size=32, max_size=32),
    "steps": st.integers(0, 300),
    "draw": st.integers(),
}


def played_in(game: str, options: dict, seed: bytes, steps: int) -> Table:
    """A greedy table of `game` after `steps` moves, each by a random or a greedy bot."""
    n = GAMES[game].seat_count({**{o.name: o.default for o in GAMES[game].options}, **options})
    table = Table(game, options, [{"bot": "greedy"} for _ in range(n)], seed=seed, simulation=True)
    return moved_on(table, steps, random.Random(steps))


def moved_on(table: Table, steps: int, rng: random.Random) -> Table:
    """`table` after up to `steps` more moves, each by a random or a greedy bot (`rng`'s pick),
    or until its game ends."""
    to_move = GAMES[table.state["game"]].to_move
    for _ in range(steps):
        state = table.state
        if state["status"] != "playing":
            break
        table.bot_move(to_move(state)[0], rng.choice(["random", "greedy"]))
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
            fast = how.fast(root, seat, action, fast_rng, search.rules_stream(root, seed))
            assert fast == plain, action
            assert fast_rng.getstate() == rng.getstate(), action
        assert root == before
