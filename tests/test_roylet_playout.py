"""BatailleRoylet's fast play-out (`service/games/roylet/playout.py`) against the rules code:
in states sampled the way the strong bots sample them, every candidate's round ends the same
both ways (docs/performance.md#bot-shortcuts)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from service.core import search
from service.core.registry import GAMES
from service.core.state import clone
from service.core.views import game_view
from service.games.roylet import bots
from tests.support.choices import played_in


@settings(max_examples=60, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32), steps=st.integers(0, 120), draw=st.integers())
def test_the_fast_round_scores_every_candidate_as_the_rules_code_does(seed, steps, draw):
    table = played_in("roylet", {}, seed, steps)
    state = table.state
    if state["status"] != "playing":
        return
    seat = GAMES["roylet"].to_move(state)[0]
    view = game_view(state, seat)
    rng = random.Random(draw)
    for _ in range(3):
        root = bots.SEARCH.world(view, rng)
        before = clone(root)
        for action in view["legal_actions"]:
            plain = search.plain_score(bots.SEARCH, root, seat, action, rng)
            assert bots.SEARCH.fast(root, seat, action, rng) == plain, action
        assert root == before  # neither play-out moved the sampled state


def test_a_strong_game_is_the_same_with_the_fast_round_or_the_rules_code(monkeypatch):
    """The strong bots' moves, and so whole games, do not change with the shortcut."""
    from dataclasses import replace

    from service.sim.simulate import play

    seats = [{"bot": "strong"}, {"bot": "greedy"}, {"bot": "strong"}]
    options = {"rounds": 2, "losing_streak": 2}
    now = "2026-12-02T00:00:00.000000Z"
    fast = play("roylet", options, seats, b"playout-differential-seed-000001", 0, now)
    monkeypatch.setattr(bots, "SEARCH", replace(bots.SEARCH, fast=None))
    plain = play("roylet", options, seats, b"playout-differential-seed-000001", 0, now)
    assert fast["table"]["results"] == plain["table"]["results"]
    assert fast["version"] == plain["version"] and fast["result"] == plain["result"]
