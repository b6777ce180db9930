"""The simulator's short cuts (no sealing, no copy per action, lazy views) change nothing: a
simulated game plays exactly as the same game played through the engine and as a sealed Table."""

from __future__ import annotations

import hashlib

import fakeredis
import pytest

from service.core import bots as bot_choice
from service.core.state import awaited
from service.core.views import LazyView, game_view
from service.engine import Engine
from service.sim.simulate import play, seats_for, simulate
from service.sim.table import Table
from service.store import Store

CASES = [
    ("bataille", {}, ["random"]),
    ("bataille", {"variant": "ouverte"}, ["random", "greedy"]),
    ("bataille", {"players": 3, "gather": "ordered", "deck": 32}, ["greedy"]),
    ("batayo", {}, ["random", "greedy"]),
    ("roylet", {}, ["random"]),
    ("batak", {}, ["greedy"]),
]


def _without_chain(event: dict) -> dict:
    return {k: v for k, v in event.items() if k not in ("prev", "hash", "sealed", "digests")}


@pytest.mark.parametrize(("game", "options", "bots"), CASES)
def test_simulated_game_equals_a_sealed_table(game, options, bots):
    seats = seats_for(game, options, bots)
    seed = hashlib.sha256(b"same" + game.encode()).digest()
    now = "2026-01-01T00:00:00.000000Z"
    sim = Table(game, options, seats, seed=seed, game_id="g1", clock=lambda: now, simulation=True)
    sealed = Table(game, options, seats, seed=seed, game_id="g1", clock=lambda: now)
    sim.play_out()
    sealed.play_out()
    assert [_without_chain(e) for e in sim.events] == [_without_chain(e) for e in sealed.events]
    assert {**sim.state, "hash": None} == {**sealed.state, "hash": None}
    assert sealed.state["result"] is not None


@pytest.mark.parametrize(("game", "options", "bots"), CASES[:2] + CASES[3:4])
def test_simulate_plays_the_game_the_engine_plays(game, options, bots):
    """`simulate`'s game 0 and the same game (seed, id) through the engine, its bots chosen and
    seeded in the one place both use."""
    seats = seats_for(game, options, bots)
    seed = b"engine-vs-sim"
    final = play(game, options, seats, seed, 0)
    game_seed = hashlib.sha256(seed + (0).to_bytes(8, "big")).digest()
    eng = Engine(Store(fakeredis.FakeRedis()), None, test_games=True)
    body = {"game": game, "options": options, "seats": seats, "seed": game_seed.hex()}
    gid = eng.create({**body, "id": final["id"]})["id"]
    state = eng.load(gid)
    while state["status"] == "playing":
        seat = awaited(state)[0]
        _, state = eng.act(gid, seat, bot_choice.choose(state, seat, game_seed), actor="bot")
    assert state["result"] == final["result"]
    untimed = {k: v for k, v in state["table"].items() if k != "clock_start"}  # BATAYO's clock
    assert untimed == {k: v for k, v in final["table"].items() if k != "clock_start"}
    assert state["version"] == final["version"]


def test_lazy_view_is_the_view():
    t = Table("batak", {}, [{"bot": "greedy"}] * 4, seed=b"v" * 32, game_id="v")
    for _ in range(30):
        seat = awaited(t.state)[0]
        assert dict(LazyView(t.state, seat)) == game_view(t.state, seat)
        assert dict(LazyView(t.state, None)) == game_view(t.state, None)
        t.bot_move(seat)


@pytest.mark.parametrize(("game", "options", "bots"), [CASES[0], CASES[3]])
def test_parallel_simulate_equals_the_serial_run(game, options, bots):
    """`--jobs`: the same seed gives the same games, in the same order, on any number of
    processes."""
    now = "2026-01-01T00:00:00.000000Z"
    serial, serial_finals = simulate(game, 9, options, bots, b"jobs", now=now)
    done: list[int] = []
    parallel, parallel_finals = simulate(
        game, 9, options, bots, b"jobs", done.append, jobs=2, now=now
    )
    assert parallel_finals == serial_finals
    assert {**parallel, "games_per_s": 0} == {**serial, "games_per_s": 0}
    assert sum(done) == 9 and len(done) > 1  # the progress bar moves as spans finish


def test_simulate_keeps_the_state_a_table_keeping_its_events_reaches():
    """`simulate` keeps no event and no cause: its final state is the one a simulated Table
    that keeps every event reaches."""
    seats = seats_for("bataille", {}, ["random"])
    final = play("bataille", {}, seats, b"kept", 3)
    game_seed = hashlib.sha256(b"kept" + (3).to_bytes(8, "big")).digest()
    now = final["at"]
    t = Table("bataille", {}, seats, seed=game_seed, game_id=final["id"], clock=lambda: now)
    t.play_out()
    assert t.state == {**final, "hash": t.state["hash"]}
