"""A bot that fails (a bug in it) costs its seat a weaker move, never a stalled game: the bots'
job plays greedy's move for that seat instead, and logs the failure."""

from __future__ import annotations

import logging

import fakeredis

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
