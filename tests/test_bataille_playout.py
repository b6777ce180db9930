"""Bataille ouverte's fast play-out (`service/games/bataille/playout.py`) against the rules
code: in states sampled the way the strong bot samples them, every candidate's round gives
the same score both ways, whatever the options (docs/performance.md#bot-shortcuts)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from service.games.bataille import bots
from service.sim.table import Table
from tests.support.choices import PLAYED, assert_fast_play_outs_agree, moved_on, played_in
from tests.support.helpers import examples

options = st.fixed_dictionaries(
    {
        "variant": st.just("ouverte"),
        "players": st.integers(2, 4),
        "deck": st.sampled_from([32, 52]),
        "gather": st.sampled_from(["random", "ordered"]),
        "shortfall": st.sampled_from(["forfeit", "play_out"]),
    }
)


@settings(max_examples=examples(80), deadline=None)
@given(options=options, **PLAYED)
def test_the_fast_round_scores_every_candidate_as_the_rules_code_does(options, seed, steps, draw):
    state = played_in("bataille", options, seed, steps).state
    if state["status"] == "playing":
        assert_fast_play_outs_agree(bots.SEARCH, state, draw)


# short packs of few values: batailles at once, and rule 6's shortfalls within them
short_deals = st.lists(
    st.lists(st.sampled_from(["9S", "9H", "9D", "KS", "KH", "KD", "AC"]), min_size=1, max_size=4),
    min_size=2,
    max_size=3,
)


@settings(max_examples=examples(300), deadline=None)
@given(
    packs=short_deals,
    shortfall=st.sampled_from(["forfeit", "play_out"]),
    gather=st.sampled_from(["random", "ordered"]),
    seed=st.binary(min_size=32, max_size=32),
    steps=st.integers(0, 6),
    draw=st.integers(),
)
def test_the_fast_round_scores_short_packs_as_the_rules_code_does(
    packs, shortfall, gather, seed, steps, draw
):
    seen: set[str] = set()
    packs = [[c for c in p if not (c in seen or seen.add(c))] for p in packs]
    if not all(packs):
        return
    options = {"variant": "ouverte", "players": len(packs), "deck": 32}
    options |= {"shortfall": shortfall, "gather": gather}
    seats = [{"bot": "greedy"} for _ in packs]
    table = Table("bataille", options, seats, seed=seed, deal={"packs": packs}, simulation=True)
    moved_on(table, steps, random.Random(draw))
    if table.state["status"] == "playing":
        assert_fast_play_outs_agree(bots.SEARCH, table.state, draw)


def test_a_strong_game_is_the_same_with_the_fast_round_or_the_rules_code(monkeypatch):
    """The strong bot's moves, and so whole games, do not change with the shortcut."""
    from dataclasses import replace

    from service.sim.simulate import play

    seats = [{"bot": "strong"}, {"bot": "greedy"}, {"bot": "strong"}]
    options = {"variant": "ouverte", "players": 3, "deck": 32, "max_rounds": 60}
    now = "2026-12-02T00:00:00.000000Z"
    fast = play("bataille", options, seats, b"playout-differential-seed-000002", 0, now)
    monkeypatch.setattr(bots, "SEARCH", replace(bots.SEARCH, fast=None))
    plain = play("bataille", options, seats, b"playout-differential-seed-000002", 0, now)
    assert fast["table"] == plain["table"] and fast["result"] == plain["result"]
