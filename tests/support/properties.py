"""Properties every game must have, as checks over one random game (a hypothesis `games()`
spec): tests/test_properties.py runs them over the built-in games, tests/test_toy_game.py over
the toy game of the tests."""

from __future__ import annotations

import copy
import json
import random

from service.core.state import awaited, evolve, fold
from service.core.views import game_view
from service.sim.table import Table

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


def game_ends_and_replay_equals_live(spec: dict) -> None:
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


def reducers_are_pure(spec: dict) -> None:
    t, _ = play_recording(spec)
    state = fold([])
    for event in t.events:
        before = copy.deepcopy(state)  # by value: a copy shares the input's strings
        first, second = evolve(state, event), evolve(state, event)
        assert first == second
        assert state == before, "evolve must not modify its input"
        state = first


def cards_are_conserved(spec: dict) -> None:
    t, live = play_recording(spec)
    deck = sorted(t.game.deck(t.options))
    for state in live.values():
        if state["status"] != "open":
            assert sorted(t.game.cards(state)) == deck


def legal_actions_only_for_awaited_seats(spec: dict) -> None:
    t, live = play_recording(spec)
    seats = range(len(t.state["seats"]))
    for version in sorted(live)[:: max(1, len(live) // 40)]:
        state = live[version]
        waiting = t.game.to_move(state) if state["status"] == "playing" else []
        for seat in [*seats, None]:
            view = game_view(state, seat)
            json.dumps(view)
            assert bool(view["legal_actions"]) == (seat in waiting), (seat, waiting)


def every_bot_move_is_legal(spec: dict) -> None:
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


ALL = [
    game_ends_and_replay_equals_live,
    reducers_are_pure,
    cards_are_conserved,
    legal_actions_only_for_awaited_seats,
    every_bot_move_is_legal,
]
