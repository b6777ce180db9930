"""A bot that fails (a bug in it) costs its seat a weaker move, never a stalled game: the bots'
job plays greedy's move for that seat instead, and logs the failure."""

from __future__ import annotations

import logging

import fakeredis
import pytest

from service.core import bots
from service.core.registry import GAMES
from service.engine import Engine
from service.engine.dispatch import QueueDispatcher
from service.store import Store


def test_a_failing_bot_gives_way_to_greedy_for_that_move(monkeypatch, caplog):
    engine = Engine(Store(fakeredis.FakeRedis()), QueueDispatcher())
    made = engine.create(
        {
            "game": "bataille",
            "options": {"variant": "ouverte"},
            "seats": [{"bot": "strong"}, {"name": "ana"}],
        }
    )
    gid, version = made["id"], made["version"]
    before = engine.load(gid)
    greedy = bots.choose(before, 0, engine.kept.seed(gid), "greedy")

    def broken(view, rng):
        raise IndexError("a bug in the bot")

    monkeypatch.setitem(GAMES["bataille"].bots, "strong", broken)
    with caplog.at_level(logging.ERROR, logger="batayo.engine"):
        assert engine.bot_moves(gid, version) == "played"
    after = engine.load(gid)
    assert after["version"] > version and after["table"]["put"][0] is not None
    played = after["table"]["put"][0]["up"]
    assert played == greedy["card"]
    assert any("greedy plays this move" in r.getMessage() for r in caplog.records)


def test_a_bot_move_the_rules_refuse_gives_way_to_greedy(monkeypatch, caplog):
    """A bot that answers a card it does not hold (a bug in it): the rules refuse the move,
    and the job plays greedy's for that seat rather than failing at every retry."""
    engine = Engine(Store(fakeredis.FakeRedis()), QueueDispatcher())
    made = engine.create(
        {"game": "batayo", "options": {"players": 2}, "seats": [{"bot": "strong"}, {"name": "ana"}]}
    )
    gid, version = made["id"], made["version"]
    before = engine.load(gid)
    greedy = bots.choose(before, 0, engine.kept.seed(gid), "greedy")
    foreign = before["table"]["hands"][1][0]  # a card of the other seat's hand

    monkeypatch.setitem(
        GAMES["batayo"].bots, "strong", lambda view, rng: {"type": "play", "card": foreign}
    )
    with caplog.at_level(logging.ERROR, logger="batayo.engine"):
        assert engine.bot_moves(gid, version) == "played"
    after = engine.load(gid)
    assert after["version"] > version and after["table"]["committed"][0] == greedy["card"]
    assert any("refused" in r.getMessage() for r in caplog.records)


def test_a_failing_timeout_bot_gives_way_to_greedy(monkeypatch, caplog):
    """A seat's clock runs out and its `timeout_bot` fails: the clock's job plays greedy's
    move for the seat, logged, rather than failing at every retry."""
    from service.core.game import add_seconds
    from tests.test_clocks import make

    engine, jobs, clock = make()
    options = {"variant": "ouverte", "move_timeout_s": 30, "timeout_bot": "strong"}
    made = engine.create(
        {"game": "bataille", "options": options, "seats": [{"name": "ana"}, {"bot": "greedy"}]}
    )
    gid = made["id"]
    run = lambda now=None: jobs.run(lambda job, args: getattr(engine, job)(*args), now=now)  # noqa: E731
    run()  # the greedy bot commits its card; ana does not
    state = engine.load(gid)
    greedy = bots.choose(state, 0, engine.kept.seed(gid), "greedy")

    def broken(view, rng):
        raise IndexError("a bug in the bot")

    monkeypatch.setitem(GAMES["bataille"].bots, "strong", broken)
    clock.now = add_seconds("2026-01-01T00:00:00.000000Z", 30)
    with caplog.at_level(logging.ERROR, logger="batayo.engine"):
        assert engine.fire_timer(gid, "move:0") == "fired"
    played = [e for e in engine.all_events(gid) if e["actor"] == "clock"]
    assert played and played[0]["data"]["cause"]["action"]["body"] == greedy
    assert any("greedy plays" in r.getMessage() for r in caplog.records)


def test_the_store_away_at_a_clock_is_not_blamed_on_the_timeout_bot(monkeypatch, caplog):
    """The game's seed cannot be read when a clock fires: the job fails (and is retried later)
    with the store's error, and no bot is said to have failed nor greedy to have played."""
    import redis

    from service.core.game import add_seconds
    from tests.test_clocks import make

    engine, jobs, clock = make()
    options = {"variant": "ouverte", "move_timeout_s": 30, "timeout_bot": "strong"}
    made = engine.create(
        {"game": "bataille", "options": options, "seats": [{"name": "ana"}, {"bot": "greedy"}]}
    )
    gid = made["id"]
    jobs.run(lambda job, args: getattr(engine, job)(*args))  # the greedy bot commits its card
    version = engine.load(gid)["version"]
    engine.kept.forget(gid)
    engine.kept._seeds.clear()  # a process that has not read this game's seed yet

    def away(game_id):
        raise redis.ConnectionError("the store is away")

    monkeypatch.setattr(engine.store, "meta", away)
    clock.now = add_seconds("2026-01-01T00:00:00.000000Z", 30)
    with (
        caplog.at_level(logging.ERROR, logger="batayo.engine"),
        pytest.raises(redis.ConnectionError),
    ):
        engine.fire_timer(gid, "move:0")
    assert not any("greedy plays" in r.getMessage() for r in caplog.records)
    assert engine.load(gid)["version"] == version  # nothing appended
