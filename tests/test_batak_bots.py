"""Batak bots: legal, view-only, the expert's inferences, the hint, and the simulator's
summary (the fast play-out's own tests: test_batak_playout.py)."""

from __future__ import annotations

import random

import pytest

import service.games.batak as batak
from service.core.cards import deck as full_deck
from service.core.state import awaited
from service.core.views import game_view
from service.games.batak import bots, playout
from service.sim.table import Table
from tests.support.batak import auction, hands_with, play, table


def test_constraints_from_voids_and_forced_overtakes():
    """What the expert infers: a seat that did not follow is void; one that followed below the
    highest card when it would have had to beat it holds nothing higher; a void seat that played
    a side card holds no trump."""
    hands = hands_with({1: ["5H"], 2: ["KH"], 3: ["3H"]}, avoid={3: "H"})
    t = table(hands)
    auction(t, declarer=1, bid=4, trump="S")
    play(t, 1, "5H")
    play(t, 2, "KH")
    play(t, 3, "3H")  # below the king: holds no heart above the king
    allow = bots.constraints(t.view(0)["table"], True)
    assert allow[3][1] == (1 << 12) - 1  # hearts 2..K still possible, not the ace
    assert allow[2][1] == bots.FULL
    t2 = table(hands_with({1: ["5H"]}, avoid={2: "HS"}))
    auction(t2, declarer=1, bid=4, trump="S")
    play(t2, 1, "5H")
    play(t2, 2, next(c for c in t2.state["table"]["hands"][2] if c[-1] == "D"))
    allow = bots.constraints(t2.view(0)["table"], True)
    assert allow[2][1] == 0 and allow[2][0] == 0  # void in hearts and in trump
    assert t2.view(0)["table"]["voids"][2] == ["S", "H"]


def test_sampled_worlds_respect_what_was_seen():
    rng = random.Random(1)
    t = table(seed=5)
    while t.state["table"]["phase"] != "play" or len(t.state["table"]["tricks"]) < 5:
        t.bot_move(awaited(t.state)[0], "greedy")
    seat = awaited(t.state)[0]
    view = t.view(seat)["table"]
    allow = bots.constraints(view, True)
    seen = set(view["played"]) | set(view["hand"])
    unseen = [playout.card_int(c) for c in full_deck() if c not in seen]
    counts = [0 if q == seat else view["hand_counts"][q] for q in range(4)]
    for _ in range(50):
        world = bots.sample_world(rng, unseen, counts, allow, seat, playout.masks(view["hand"]))
        for q in range(4):
            assert sum(m.bit_count() for m in world[q]) == view["hand_counts"][q]
            if q != seat:
                assert all(world[q][s] & ~allow[q][s] == 0 for s in range(4))
        dealt = [
            (s, r)
            for q in range(4)
            if q != seat
            for s in range(4)
            for r in range(13)
            if world[q][s] >> r & 1
        ]
        assert sorted(dealt) == sorted(unseen)


@pytest.mark.parametrize("name", ["random", "greedy", "expert"])
def test_bots_finish_games_in_both_modes(name):
    for mode in ("ihaleli", "esli"):
        t = Table(
            "batak",
            {"mode": mode, "deals": 3, "max_rounds": 2},
            seats=[{"bot": name}] * 4,
            seed=bytes(32),
        )
        t.play_out()
        assert t.state["status"] == "finished"
        assert t.state["result"]["reason"] in ("deals_played", "round_limit")


def test_greedy_bids_from_its_hand_and_names_its_best_suit():
    """A hand of 13 spades is worth every trick: greedy bids, names spades, and makes it."""
    hands = hands_with({1: [r + "S" for r in playout.RANKS]})
    t = table(hands, deals=3)
    view = t.view(1)
    assert bots.greedy(view, random.Random(0)) == {"type": "bid", "tricks": 4}
    t.act(1, {"type": "bid", "tricks": 4})
    for seat in (2, 3, 0):
        t.act(seat, {"type": "pass"})
    assert bots.greedy(t.view(1), random.Random(0)) == {"type": "trump", "suit": "S"}
    assert bots.expert(t.view(1), random.Random(0)) == {"type": "trump", "suit": "S"}


def test_greedy_wins_cheaply_and_keeps_high_cards():
    hands = hands_with({1: ["5H"], 2: ["9H", "KH", "AH", "2H"]}, avoid={2: "H"})
    t = table(hands)
    auction(t, declarer=1, bid=4, trump="S")
    play(t, 1, "5H")
    assert bots.greedy(t.view(2), random.Random(0)) == {"type": "play", "card": "9H"}


def test_expert_takes_the_only_sure_winner_at_the_end():
    """Last to play with the ace and the deuce of the led suit: the expert wins the trick only
    if it must (overtake rule); here it must play the ace since it beats the king."""
    hands = hands_with({1: ["KH"], 2: ["2H", "AH"]}, avoid={2: "H"})
    t = table(hands)
    auction(t, declarer=1, bid=4, trump="S")
    play(t, 1, "KH")
    view = game_view(t.state, 2)
    assert view["legal_actions"] == [{"type": "play", "card": "AH"}]
    assert bots.expert(view, random.Random(0)) == {"type": "play", "card": "AH"}


def test_summarize_counts_contracts_and_average_scores():
    states = []
    for seed in range(3):
        t = Table(
            "batak",
            {"deals": 3},
            seats=[{"bot": "greedy"}, {"bot": "random"}] * 2,
            seed=seed.to_bytes(32, "big"),
        )
        t.play_out()
        states.append(t.state)
    summary = batak.GAME.summarize(states)
    records = [r for s in states for r in s["table"]["scores"]]
    assert summary["deals"] == len(records)
    made = sum(v["made"] for v in summary["contracts_by_bid"].values())
    failed = sum(v["failed"] for v in summary["contracts_by_bid"].values())
    assert made == sum(r["made"] for r in records) and made + failed == len(records)
    greedy_points = [r["points"][s] for r in records for s in (0, 2)]
    assert summary["average_score_per_deal"]["greedy"] == round(
        sum(greedy_points) / len(greedy_points), 3
    )
