"""Two actions on one game in one process take turns (service/engine/turns.py): the second
decides on the state the first appended, so it meets no conflict; where appends reach the store
in the order sent, on the state the first's append will leave, its append right behind; and a
turn not had in time, or a state that did not land, is decided again, correct all the same (the
append is conditional)."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading
from pathlib import Path

import fakeredis

from service.engine import Engine, turns
from service.store import Conflict, Store

from .support.service import Service, new_game

FLIP = {"type": "flip"}


def _engine_and_game() -> tuple[Engine, str]:
    svc = Service()
    created = new_game(svc)
    return svc.engine, created["id"]


def _watch(
    engine: Engine, in_order: bool = False, fail_first: bool = False
) -> tuple[list[str], list[int]]:
    """Record appends and conflicts; the first append waits (up to 1 s) for another action to
    decide meanwhile, which only happens if the two do not take turns, or if the turn is handed
    on. `in_order`: a store whose appends land in the order sent, as a server's do (one
    connection, `Pipe`), the appends sent meanwhile waiting behind the first. `fail_first`: the
    first append is lost, a conflict, as if another process had written first."""
    engine.store.pipelined = in_order
    log: list[str] = []
    conflicts: list[int] = []
    first = {"inside": False, "done": False}
    decided = threading.Event()
    order = threading.Lock() if in_order else contextlib.nullcontext()
    append, seed = engine.store.append, engine.kept.seed

    def watched_append(game_id, expected, *args, **kwargs):
        with order:
            if not first["done"]:
                first["done"] = first["inside"] = True
                log.append("another decided meanwhile" if decided.wait(1.0) else "alone")
                first["inside"] = False
                if fail_first:
                    conflicts.append(expected)
                    raise Conflict(expected)
            try:
                return append(game_id, expected, *args, **kwargs)
            except Conflict:
                conflicts.append(expected)
                raise

    def seen_seed(game_id):  # read by every decision, just before it is made
        if first["inside"]:
            decided.set()
        return seed(game_id)

    engine.store.append = watched_append
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


def _flips_of_the_round(engine: Engine, gid: str, version: int) -> list[int]:
    """The seats whose flip the log holds after `version`, in order."""
    events = engine.store.events(gid, version, 100)
    return [e["data"]["seat"] for e in events if e["type"] == "flipped"]


def test_in_order_the_second_decides_on_the_firsts_append_under_way():
    engine, gid = _engine_and_game()
    version = engine.load(gid)["version"]
    log, conflicts = _watch(engine, in_order=True)
    answers = _both_flip(engine, gid)
    # seat 1 decided while seat 0's append was under way, and its append landed right behind
    assert log == ["another decided meanwhile"] and conflicts == []
    assert sorted(_flips_of_the_round(engine, gid, version)) == [0, 1]
    assert max(state["version"] for _, state in answers) == engine.load(gid)["version"]
    assert engine.turns._turns == {}  # both done: the turn forgotten, no state under way kept


def test_in_order_a_state_that_did_not_land_is_decided_again():
    engine, gid = _engine_and_game()
    version = engine.load(gid)["version"]
    log, conflicts = _watch(engine, in_order=True, fail_first=True)
    answers = _both_flip(engine, gid)
    # seat 1 decided on seat 0's state, which never landed: its append found another tip, and
    # both decided again on what the store holds; each flip is in the log once
    assert log == ["another decided meanwhile"] and len(conflicts) >= 2
    assert sorted(_flips_of_the_round(engine, gid, version)) == [0, 1]
    assert all(answer is not None for answer in answers)
    fresh = Engine(engine.store).load(gid)
    assert fresh["version"] == engine.load(gid)["version"] == max(s["version"] for _, s in answers)


def test_a_hold_hands_its_turn_on_and_forgets_a_state_that_landed():
    engine = Engine(Store(fakeredis.FakeRedis()))
    first = engine.turns.hold("a")
    state = {"version": 3}
    first.hand_on(state)
    second = engine.turns.hold("a")  # had at once: the first's append is under way
    assert second.basis() is state
    first.landed(state)
    assert second.basis() is None  # landed: the kept state is the one to decide on
    first.end()
    second.end()
    assert engine.turns._turns == {}


def test_a_state_under_way_is_cleared_only_by_its_own_append():
    engine = Engine(Store(fakeredis.FakeRedis()))
    first = engine.turns.hold("a")
    mine, theirs = {"version": 3}, {"version": 4}
    first.hand_on(mine)
    second = engine.turns.hold("a")
    second.hand_on(theirs)  # decided on `mine`, its append behind the first's
    first.landed(mine)
    third = engine.turns.hold("a")
    assert third.basis() is theirs  # still under way: the next decides on it
    for hold in (first, second, third):
        hold.end()
    assert engine.turns._turns == {}


_UNDER_GEVENT = """
import json
import sys

from gevent import monkey

monkey.patch_all()

import fakeredis
import gevent

from service.core.state import awaited
from service.engine import Engine
from service.store import Conflict, Store, clients

AT = "2026-01-01T00:00:00Z"
BODY = {"game": "bataille", "seats": [{"name": "a"}, {"name": "b"}], "seed": "ab" * 32}


def engine_on(url):
    client = clients.plain(url, pool_size=8, wait_s=1, socket_timeout=5, what="REDIS_URL")
    return Engine(Store(client), test_games=True, clock=lambda: AT)


def played(engine, at_once, gid):
    engine.create({**BODY, "id": gid})
    state = engine.load(gid)
    while state["status"] != "finished" and state["version"] < 200:
        seats = awaited(state)
        if at_once:  # every awaited seat's flip from a greenlet of its own, in one loop turn
            flips = [gevent.spawn(engine.act, gid, seat, {"type": "flip"}) for seat in seats]
            gevent.joinall(flips, raise_error=True)
        else:
            for seat in seats:
                engine.act(gid, seat, {"type": "flip"})
        state = engine.load(gid)
    return [(e["type"], e["data"]) for e in engine.store.events(gid, 0, 1000)]


chained = engine_on(sys.argv[1])
plain = Engine(Store(fakeredis.FakeRedis()), test_games=True, clock=lambda: AT)  # one by one
conflicts = []
append = chained.store.append


def counted(game_id, expected, *args, **kwargs):
    try:
        return append(game_id, expected, *args, **kwargs)
    except Conflict:
        conflicts.append(expected)
        raise


chained.store.append = counted
pipe = chained.store._append._pipe
at_once = played(chained, True, sys.argv[2])
print(json.dumps({
    "pipelined": chained.store.pipelined,
    "same": at_once == played(plain, False, sys.argv[2]),
    "conflicts": conflicts,
    "calls": pipe.calls,
    "batches": pipe.batches,
    "events": len(at_once),
}))
"""


def test_under_gevent_two_flips_ride_in_one_send_and_play_as_taken_in_turn(redis_url):
    """In a process gevent patched, as a server's is, on a real Redis: both flips of a round,
    sent at once, go to Redis in one send, the second decided on the state the first's append
    will leave, with no conflict; and the game's log is the one the same flips make taken one
    after the other."""
    done = subprocess.run(
        [sys.executable, "-c", _UNDER_GEVENT, redis_url, "000000000000ab01"],
        cwd=Path(__file__).resolve().parents[1],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["pipelined"] and got["same"] and got["conflicts"] == []
    assert got["events"] > 20 and got["batches"] < got["calls"], got
