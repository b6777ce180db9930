"""Two actions on one game in one process take turns (service/engine/turns.py): the second
decides on the state the first appended, so it meets no conflict; and a turn not had in time goes
ahead without it, correct all the same (the append is conditional)."""

from __future__ import annotations

import threading

import fakeredis

from service.engine import Engine, turns
from service.store import Conflict, Store

from .support.service import Service, new_game

FLIP = {"type": "flip"}


def _engine_and_game() -> tuple[Engine, str]:
    svc = Service()
    created = new_game(svc)
    return svc.engine, created["id"]


def _watch(engine: Engine) -> tuple[list[str], list[int]]:
    """Record appends and conflicts; the first append waits (up to 1 s) for another action to
    decide meanwhile, which only happens if the two do not take turns."""
    log: list[str] = []
    conflicts: list[int] = []
    first = {"inside": False, "done": False}
    decided = threading.Event()
    append, seed = engine.store.append, engine.kept.seed

    def slow_append(game_id, expected, *args, **kwargs):
        if not first["done"]:
            first["done"] = first["inside"] = True
            log.append("another decided meanwhile" if decided.wait(1.0) else "alone")
            first["inside"] = False
        try:
            return append(game_id, expected, *args, **kwargs)
        except Conflict:
            conflicts.append(expected)
            raise

    def seen_seed(game_id):  # read by every decision, just before it is made
        if first["inside"]:
            decided.set()
        return seed(game_id)

    engine.store.append = slow_append
    engine.kept.seed = seen_seed
    return log, conflicts


def _both_flip(engine: Engine, game_id: str) -> list:
    out: list = [None, None]

    def flip(seat: int) -> None:
        out[seat] = engine.act(game_id, seat, FLIP)

    threads = [threading.Thread(target=flip, args=(seat,)) for seat in (0, 1)]
    threads[0].start()
    threads[0].join(0.2)  # seat 0 is inside its append
    threads[1].start()
    for t in threads:
        t.join(10)
    return out


def test_the_second_action_decides_on_the_firsts_state():
    engine, gid = _engine_and_game()
    version = engine.load(gid)["version"]
    log, conflicts = _watch(engine)
    answers = _both_flip(engine, gid)
    assert log == ["alone"] and conflicts == []  # seat 1 decided after seat 0's append
    assert sorted(state["version"] for _, state in answers)[-1] == engine.load(gid)["version"]
    assert engine.load(gid)["version"] > version + 1


def test_without_a_turn_in_time_it_goes_ahead_and_stays_correct(monkeypatch):
    monkeypatch.setattr(turns, "WAIT_S", 0.05)
    engine, gid = _engine_and_game()
    log, conflicts = _watch(engine)
    answers = _both_flip(engine, gid)
    assert log == ["another decided meanwhile"] and conflicts  # seat 1 went ahead, then retried
    versions = [state["version"] for _, state in answers]
    assert len(set(versions)) == 2 and max(versions) == engine.load(gid)["version"]


def test_turns_are_per_game_and_forgotten(monkeypatch):
    monkeypatch.setattr(turns, "WAIT_S", 0.05)
    engine = Engine(Store(fakeredis.FakeRedis()))
    a = engine.turns.take("a")
    b = engine.turns.take("b")  # another game's turn: had at once
    assert a is not None and b is not None and a is not b
    other: list = []
    waiter = threading.Thread(target=lambda: other.append(engine.turns.take("a")))
    waiter.start()
    waiter.join(5)
    assert other == [None]  # "a" is held: not had in time
    a.give()
    b.give()
    again = engine.turns.take("a")
    assert again is not None  # given back: had again
    again.give()
    assert len(engine.turns._turns) == 0  # nobody holds or waits for any: forgotten


def test_a_spare_turn_serves_another_game_and_spares_are_bounded():
    engine = Engine(Store(fakeredis.FakeRedis()))
    first = engine.turns.take("a")
    first.give()
    second = engine.turns.take("b")
    assert second is first and second.game_id == "b"  # the same lock, free, for another game
    held = [engine.turns.take(f"g{i}") for i in range(turns.SPARE + 10)]
    for turn in held:
        turn.give()
    second.give()
    assert len(engine.turns._spare) == turns.SPARE and engine.turns._turns == {}
