"""Hypothesis strategies for random games of any registered game."""

from __future__ import annotations

from hypothesis import strategies as st

from service.core.registry import GAMES

# bots that search (a tenth of a second a move): whole games of them are too slow for a
# property run; tests/test_strong_bots.py checks them move by move
SEARCHING = frozenset({"strong"})


@st.composite
def options_for(draw, game: str) -> dict:
    """Every option with choices drawn; player counts drawn; caps kept small so games stay short."""
    options: dict = {}
    for option in GAMES[game].options:
        if option.choices is not None:
            options[option.name] = draw(st.sampled_from(option.choices))
        elif option.name == "players":
            options[option.name] = draw(st.integers(option.min, option.max))
        elif option.name == "max_rounds":
            options[option.name] = draw(st.sampled_from([20, min(200, option.max)]))
    return options


@st.composite
def games(draw, names: list[str] | None = None) -> dict:
    """A game to play: its name, options, seed and one bot a seat."""
    game = draw(st.sampled_from(names or sorted(GAMES)))
    options = draw(options_for(game))
    from service.core.options import resolve_options

    count = GAMES[game].seat_count(resolve_options(GAMES[game], options))
    offered = sorted(b for b in GAMES[game].bots if b not in SEARCHING)
    bots = draw(st.lists(st.sampled_from(offered), min_size=count, max_size=count))
    return {
        "game": game,
        "options": options,
        "seed": draw(st.binary(min_size=32, max_size=32)),
        "bots": bots,
        "rng_seed": draw(st.integers(0, 2**32)),
    }
