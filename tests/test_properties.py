"""Properties every game must have, over random games of every built-in game: replay equals
live state, reducers are pure, cards are conserved, every game ends, views and bots behave
(the checks are in tests/support/properties.py)."""

from __future__ import annotations

from hypothesis import given

from tests.support import properties
from tests.support.strategies import games


@given(games())
def test_every_game_ends_and_replay_equals_live_state_at_every_version(spec):
    properties.game_ends_and_replay_equals_live(spec)


@given(games())
def test_reducers_are_pure(spec):
    properties.reducers_are_pure(spec)


@given(games())
def test_cards_are_conserved_at_every_version(spec):
    properties.cards_are_conserved(spec)


@given(games())
def test_views_show_legal_actions_only_to_awaited_seats(spec):
    properties.legal_actions_only_for_awaited_seats(spec)


@given(games())
def test_every_bot_move_is_legal(spec):
    properties.every_bot_move_is_legal(spec)
