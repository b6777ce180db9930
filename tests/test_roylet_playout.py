"""BatailleRoylet's fast play-out (`service/games/roylet/playout.py`) against the rules code:
in states sampled the way the strong bots sample them, every candidate's round ends the same
both ways (docs/performance.md#bot-shortcuts)."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from service.games.roylet import bots
from service.sim.simulate import play
from tests.support.choices import assert_fast_play_outs_agree, played_in
from tests.support.helpers import examples


@settings(max_examples=examples(60), deadline=None)
@given(seed=st.binary(min_size=32, max_size=32), steps=st.integers(0, 120), draw=st.integers())
def test_the_fast_round_scores_every_candidate_as_the_rules_code_does(seed, steps, draw):
    state = played_in("roylet", {}, seed, steps).state
    if state["status"] == "playing":
        assert_fast_play_outs_agree(bots.SEARCH, state, draw)


def test_a_strong_game_is_the_same_with_the_fast_round_or_the_rules_code(monkeypatch):
    """The strong bots' moves, and so whole games, do not change with the shortcut."""
    seats = [{"bot": "strong"}, {"bot": "greedy"}, {"bot": "strong"}]
    options = {"rounds": 2, "losing_streak": 2}
    now = "2026-12-02T00:00:00.000000Z"
    fast = play("roylet", options, seats, b"playout-differential-seed-000001", 0, now)
    monkeypatch.setattr(bots, "SEARCH", replace(bots.SEARCH, fast=None))
    plain = play("roylet", options, seats, b"playout-differential-seed-000001", 0, now)
    assert fast["table"]["results"] == plain["table"]["results"]
    assert fast["version"] == plain["version"] and fast["result"] == plain["result"]
