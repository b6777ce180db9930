"""The framework's turn kinds (service/core/turn_kinds.py): each game declares one, the awaited
seats come from it, and a declaration that contradicts it is an error at import."""

from __future__ import annotations

import dataclasses

import pytest

from service.core.game import Game, Traits
from service.core.registry import GAMES
from service.core.turn_kinds import CommitReveal, Sequential, Simultaneous
from service.games.bataille import header as bataille_header
from service.games.bataille import rules as bataille_rules
from service.games.bataille.variants import VARIANTS, variant
from tests.support.toy import GAME as DUEL


def _parts(**changed) -> dict:
    parts = {f.name: getattr(DUEL, f.name) for f in dataclasses.fields(Game) if f.init}
    return {**parts, **changed}


def test_sequential_awaits_one_seat_or_none():
    turns = Sequential(lambda state: state["turn"])
    assert turns.to_move({"turn": 2}) == [2]
    assert turns.to_move({"turn": None}) == []
    assert not turns.simultaneous


def test_a_simultaneous_step_is_complete_once_nobody_owes_a_move_in_a_game_playing():
    turns = Simultaneous(lambda state: state["owing"])
    assert turns.simultaneous
    assert turns.to_move({"owing": [0, 2], "status": "playing"}) == [0, 2]
    assert not turns.complete({"owing": [0, 2], "status": "playing"})
    assert turns.complete({"owing": [], "status": "playing"})
    assert not turns.complete({"owing": [], "status": "finished"})


def test_commit_then_reveal_awaits_the_open_seat_after_the_commits():
    """Roylet's shape: the Allies commit, then the King plays in the open before the reveal."""
    turns = CommitReveal(
        lambda state: state["owing"],
        commit="played",
        reveal="revealed",
        then=Sequential(lambda state: state["king"]),
    )
    assert turns.to_move({"owing": [1, 2], "king": None}) == [1, 2]
    assert turns.to_move({"owing": [], "king": 0}) == [0]
    assert turns.complete({"owing": [], "king": None, "status": "playing"})


def test_the_games_declare_the_turn_kind_they_play():
    assert isinstance(GAMES["batak"].turns, Sequential)
    assert type(GAMES["bataille"].turns) is Simultaneous
    assert isinstance(GAMES["batayo"].turns, CommitReveal)
    roylet = GAMES["roylet"].turns
    assert isinstance(roylet, CommitReveal) and roylet.then is not None
    # Bataille's choosing variant commits and reveals with the header's events
    bataille_rules.CHOICES.check(bataille_header.EVENTS)
    for game in GAMES.values():
        assert game.to_move == game.turns.to_move


def test_a_turn_kind_that_contradicts_the_declaration_is_an_error():
    with pytest.raises(ValueError, match="simultaneous"):
        Game(**_parts(turns=Sequential(lambda state: None)))
    traits = Traits(simultaneous=True, hidden_information=True, teams=False, chance=True)
    unsealed = CommitReveal(DUEL.turns.owing, commit="dealt", reveal="revealed")
    with pytest.raises(ValueError, match="seals"):
        Game(**_parts(turns=unsealed, traits=traits))
    no_reveal = CommitReveal(DUEL.turns.owing, commit="committed", reveal="dealt")
    with pytest.raises(ValueError, match="reveals"):
        Game(**_parts(turns=no_reveal, traits=traits))


def test_each_bataille_variant_is_one_object_chosen_by_the_option():
    """docs/rules/bataille.md#options: `sans_inconnue` puts no face-down card in a bataille,
    `ouverte` lets players choose their cards."""
    option = next(o for o in bataille_rules.OPTIONS if o.name == "variant")
    assert option.choices == tuple(VARIANTS)
    for name, chosen in VARIANTS.items():
        assert variant({"variant": name}) is chosen
    cards = [VARIANTS[n].bataille_cards for n in ("classique", "sans_inconnue", "ouverte")]
    assert cards == [2, 1, 2]
    assert [n for n, v in VARIANTS.items() if v.chooses] == ["ouverte"]
