"""BATAYO's fast play-out (`service/games/batayo/playout.py`) against the rules code: in states
sampled the way the strong bot samples them, every candidate scores the same both ways and
draws alike, whatever the options, with BATAYOs, rule 4's eliminations, the round limit,
rule 6's sudden death and greedy's way out of a cycle (docs/performance.md#bot-shortcuts)."""

from __future__ import annotations

import random
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from service.games.batayo import bots
from service.games.batayo.rules import SEAT_SUITS
from service.sim.simulate import play
from service.sim.table import Table
from tests.support.choices import PLAYED, assert_fast_play_outs_agree, moved_on, played_in
from tests.support.helpers import examples

options = st.fixed_dictionaries(
    {
        "players": st.integers(2, 4),
        "format": st.sampled_from(["express", "classique"]),
        "gather": st.sampled_from(["random", "ordered"]),
    }
)


def _shifted(state: dict, tricks: int, max_rounds: int, time_up: bool) -> dict:
    """`state` with `tricks` more tricks counted (past LOOPING_TRICKS greedy shakes), the
    round limit `max_rounds` tricks away, and the time limit run out or not."""
    t = state["table"]
    t["tricks"] += tricks
    t["time_up"] = time_up
    state["options"] = {**state["options"], "max_rounds": t["tricks"] + max_rounds}
    return state


@settings(max_examples=examples(80), deadline=None)
@given(
    options=options,
    **PLAYED,
    tricks=st.sampled_from([0, 0, bots.LOOPING_TRICKS]),
    max_rounds=st.sampled_from([1, 3, 2000]),
    time_up=st.booleans(),
)
def test_the_fast_play_out_scores_every_candidate_as_the_rules_code_does(
    options, seed, steps, draw, tricks, max_rounds, time_up
):
    state = played_in("batayo", options, seed, steps).state
    if state["status"] == "playing":
        state = _shifted(state, tricks, max_rounds, time_up)
        assert_fast_play_outs_agree(bots.SEARCH, state, draw)


# short packs of few ranks: BATAYOs at once, takes from short hands, eliminations and, with the
# time run out, sudden death
short_ranks = st.lists(st.sampled_from(["7", "8", "K", "A"]), min_size=1, max_size=6, unique=True)


@settings(max_examples=examples(200), deadline=None)
@given(
    ranks=st.lists(short_ranks, min_size=2, max_size=4),
    gather=st.sampled_from(["random", "ordered"]),
    seed=st.binary(min_size=32, max_size=32),
    steps=st.integers(0, 8),
    draw=st.integers(),
    time_up=st.booleans(),
)
def test_the_fast_play_out_scores_short_packs_as_the_rules_code_does(
    ranks, gather, seed, steps, draw, time_up
):
    packs = [[r + SEAT_SUITS[s] for r in rs] for s, rs in enumerate(ranks)]
    options = {"players": len(packs), "format": "express", "gather": gather}
    seats = [{"bot": "greedy"} for _ in packs]
    table = Table("batayo", options, seats, seed=seed, deal={"packs": packs}, simulation=True)
    moved_on(table, steps, random.Random(draw))
    if table.state["status"] == "playing":
        assert_fast_play_outs_agree(bots.SEARCH, _shifted(table.state, 0, 2000, time_up), draw)


def test_a_strong_game_is_the_same_with_the_fast_play_out_or_the_rules_code(monkeypatch):
    """The strong bot's moves, and so whole games, do not change with the shortcut."""
    seats = [{"bot": "strong"}, {"bot": "greedy"}, {"bot": "strong"}]
    options = {"players": 3, "format": "express", "gather": "random"}
    now = "2026-12-02T00:00:00.000000Z"
    fast = play("batayo", options, seats, b"playout-differential-seed-000003", 0, now)
    monkeypatch.setattr(bots, "SEARCH", replace(bots.SEARCH, fast=None))
    plain = play("batayo", options, seats, b"playout-differential-seed-000003", 0, now)
    assert fast["table"] == plain["table"] and fast["result"] == plain["result"]
