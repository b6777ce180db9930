"""A game is one explicit declaration (service/core/game.py `Game`): every part named, an
unknown part an error at import, and traits that the rules bear out over random games."""

from __future__ import annotations

import dataclasses

import pytest

from service.core.game import Game, Traits
from service.core.registry import GAMES
from service.core.shapes import Hidden
from service.sim.table import Table
from tests.support.toy import GAME as DUEL

# options under which each game shows its traits (teams: Batak eşli)
OPTIONS = {
    "bataille": [{"deck": 32}, {"players": 3, "deck": 32, "variant": "ouverte"}],
    "batak": [{"deals": 3}, {"mode": "esli", "deals": 3}],
    "batayo": [{"format": "express"}, {"players": 3, "format": "express"}],
    "roylet": [{"rounds": 4}],
}


def test_a_misspelled_part_is_an_error_at_declaration():
    parts = {f.name: getattr(DUEL, f.name) for f in dataclasses.fields(Game) if f.init}
    with pytest.raises(TypeError, match="hnit"):
        Game(**parts, hnit=DUEL.view)


def _has_hidden(shapes) -> bool:
    def hidden(shape) -> bool:
        if isinstance(shape, Hidden):
            return True
        inner = [*getattr(shape, "fields", {}).values(), getattr(shape, "item", None)]
        return any(hidden(s) for s in inner if s is not None)

    return any(hidden(s) for e in shapes for s in e.fields.values())


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_declared_traits_hold_over_random_games(name):
    game = GAMES[name]
    most_awaited, most_winners, shuffled = 0, 0, False
    for options in OPTIONS[name]:
        for i in range(4):
            table = Table(name, options, seed=bytes([i + 1]) * 32)
            shuffled |= any(e["data"].get("rng") for e in table.events)
            while table.state["status"] == "playing":
                seats = game.to_move(table.state)
                most_awaited = max(most_awaited, len(seats))
                table.bot_move(seats[0], "random")
            shuffled |= any(e["data"].get("rng") for e in table.events)
            most_winners = max(most_winners, len(table.state["result"]["winners"]))
    traits = game.traits
    assert traits.simultaneous == (most_awaited > 1)
    assert traits.teams == (most_winners > 1)
    assert traits.chance == shuffled
    shapes = [*game.events.values(), *game.actions]
    assert traits.hidden_information == _has_hidden(shapes)


def test_the_rules_listing_says_each_games_traits():
    from tests.support.service import Service

    listed = {g["id"]: g for g in Service().client.get("/v1/rules").json["games"]}
    for name, game in GAMES.items():
        assert listed[name]["traits"] == game.traits.describe()
    assert set(Traits.__dataclass_fields__) == set(listed["batak"]["traits"])
