"""Properties every game must have, over random games of every registered game: replay equals
live state, reducers are pure, cards are conserved, every game ends, views and bots behave."""

from __future__ import annotations

import json
import marshal
import random

from hypothesis import given

from service.core.state import awaited, evolve, fold
from service.core.views import game_view
from service.sim.table import Table
from tests.support.strategies import games

MAX_ACTIONS = 20_000


def play_recording(spec: dict) -> tuple[Table, dict[int, dict]]:
    """Play a random game to its end; the live state after every action, by version."""
    seats = [{"bot": b} for b in spec["bots"]]
    t = Table(spec["game"], spec["options"], seats, seed=spec["seed"], game_id="prop")
    rng = random.Random(spec["rng_seed"])
    live = {t.state["version"]: t.state}
    for _ in range(MAX_ACTIONS):
        if t.state["status"] != "playing":
            break
        seat = rng.choice(awaited(t.state))
        t.bot_move(seat)
        live[t.state["version"]] = t.state
    return t, live


@given(games())
def test_every_game_ends_and_replay_equals_live_state_at_every_version(spec):
    t, live = play_recording(spec)
    assert t.state["status"] == "finished", "the game must end"
    result = t.state["result"]
    assert result["draw"] == (result["winners"] == [])
    state = fold([])
    for event in t.events:
        state = evolve(state, event)
        if event["version"] in live:
            assert state == live[event["version"]]
    # a snapshot is the state's JSON: it must come back equal
    assert json.loads(json.dumps(t.state)) == t.state


@given(games())
def test_reducers_are_pure(spec):
    t, _ = play_recording(spec)
    state = fold([])
    for event in t.events:
        before = marshal.dumps(state)
        first, second = evolve(state, event), evolve(state, event)
        assert first == second
        assert marshal.dumps(state) == before, "evolve must not modify its input"
        state = first


@given(games())
def test_cards_are_conserved_at_every_version(spec):
    t, live = play_recording(spec)
    deck = sorted(t.game.deck(t.options))
    for state in live.values():
        if state["status"] != "open":
            assert sorted(t.game.cards(state)) == deck


@given(games())
def test_views_show_legal_actions_only_to_awaited_seats(spec):
    t, live = play_recording(spec)
    seats = range(len(t.state["seats"]))
    for version in sorted(live)[:: max(1, len(live) // 40)]:
        state = live[version]
        waiting = t.game.to_move(state) if state["status"] == "playing" else []
        for seat in [*seats, None]:
            view = game_view(state, seat)
            json.dumps(view)
            assert bool(view["legal_actions"]) == (seat in waiting), (seat, waiting)


@given(games())
def test_every_bot_move_is_legal(spec):
    seats = [{"bot": b} for b in spec["bots"]]
    t = Table(spec["game"], spec["options"], seats, seed=spec["seed"], game_id="bots")
    rng = random.Random(spec["rng_seed"])
    for _ in range(MAX_ACTIONS):
        if t.state["status"] != "playing":
            break
        seat = awaited(t.state)[0]
        view = t.view(seat)
        action = t.game.bots[spec["bots"][seat]](view, rng)
        assert action in view["legal_actions"]
        t.act(seat, action, actor="bot")
    assert t.state["status"] == "finished"
