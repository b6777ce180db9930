"""Move clocks (option `move_timeout_s`): an absent seat is played for by `timeout_bot` when its
clock runs out, through the engine, as a `clock` event; nothing happens before."""

from __future__ import annotations

import fakeredis

from service.core.game import add_seconds
from service.engine import Engine
from service.engine.dispatch import QueueDispatcher
from service.store import Store


class Clock:
    def __init__(self, now: str) -> None:
        self.now = now

    def __call__(self) -> str:
        return self.now


def make(start: str = "2026-01-01T00:00:00.000000Z") -> tuple[Engine, QueueDispatcher, Clock]:
    clock, jobs = Clock(start), QueueDispatcher()
    return Engine(Store(fakeredis.FakeRedis()), jobs, clock=clock), jobs, clock


def test_a_seat_that_never_moves_is_played_for_when_its_clock_runs_out():
    engine, jobs, clock = make()
    created = engine.create(
        {
            "game": "bataille",
            "options": {"move_timeout_s": 30, "timeout_bot": "greedy"},
            "seats": [{"name": "ana"}, {"bot": "random"}],
        }
    )
    gid = created["id"]
    run = lambda now=None: jobs.run(lambda job, args: getattr(engine, job)(*args), now=now)  # noqa: E731
    run()  # the bot flips; ana does not
    view = engine.view(gid, 0)
    due = add_seconds("2026-01-01T00:00:00.000000Z", 30)
    assert view["clocks"] == {"move:0": due} and view["to_move"] == [0]
    version = view["version"]
    clock.now = add_seconds(due, -1)
    assert engine.fire_timer(gid, "move:0") == "not due"
    assert engine.store.version(gid) == version
    clock.now = due
    run(now=due)
    events = engine.all_events(gid)
    played = [e for e in events if e["actor"] == "clock"]
    assert played and played[0]["type"] == "flipped" and played[0]["data"]["seat"] == 0
    # the same clock job again changes nothing: ana's next wait started at `due`, so its clock
    # runs out 30 s later, not now
    after = engine.store.version(gid)
    assert engine.view(gid, 0)["clocks"] == {"move:0": add_seconds(due, 30)}
    assert engine.fire_timer(gid, "move:0") == "not due"
    assert engine.store.version(gid) == after


def test_a_clock_restarts_when_the_seat_is_awaited_again_and_bots_have_none():
    engine, jobs, clock = make()
    created = engine.create(
        {
            "game": "bataille",
            "options": {"move_timeout_s": 10},
            "seats": [{"name": "ana"}, {"bot": "random"}],
        }
    )
    gid = created["id"]
    jobs.run(lambda job, args: getattr(engine, job)(*args))
    clock.now = "2026-01-01T00:00:05.000000Z"
    engine.act(gid, 0, {"type": "flip"})
    jobs.run(lambda job, args: getattr(engine, job)(*args))
    view = engine.view(gid, None)
    assert view["status"] == "playing" and view["to_move"] == [0]
    assert view["clocks"] == {"move:0": "2026-01-01T00:00:15.000000Z"}  # from ana's new wait


def test_without_the_option_there_is_no_clock():
    engine, jobs, _ = make()
    created = engine.create({"game": "bataille", "seats": [{"name": "ana"}, {"name": "bob"}]})
    assert engine.view(created["id"], 0)["clocks"] == {}
    assert jobs.jobs == []
