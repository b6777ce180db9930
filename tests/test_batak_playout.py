"""Batak's fast play-out (service/games/batak/playout.py), a second copy of the rules' trick
play: every card it plays is one the rules accept, its trick winners are the rules', and the
strong bot's model of a greedy opponent picks greedy's card."""

from __future__ import annotations

import random

import pytest

from service.core.state import awaited
from service.games.batak import bots, playout
from tests.support.batak import play, table


@pytest.mark.parametrize("mode", ["ihaleli", "esli"])
@pytest.mark.parametrize("overtake", [True, False])
def test_fast_play_out_follows_the_rules(mode, overtake):
    """The expert's play-out engine (bit masks) plays only cards the rules accept, and finds the
    same trick winners: replay every card it chose through the real rules."""
    for seed in range(6):
        t = table(seed=seed, mode=mode, must_overtake_when_trumped=overtake)
        rng = random.Random(seed)
        while t.state["table"]["phase"] != "play":
            t.bot_move(awaited(t.state)[0], "greedy")
        for _ in range(rng.randrange(0, 30)):  # start anywhere in the deal
            t.bot_move(awaited(t.state)[0], "random")
        tab = t.state["table"]
        h = [playout.masks(hand) for hand in tab["hands"]]
        trick = [(p["seat"], *playout.card_int(p["card"])) for p in tab["trick"]]
        record: list = []
        taken = playout.play_out(
            h,
            playout.SUIT_INDEX[tab["trump"]],
            tab["trump_broken"],
            trick,
            tab["turn"],
            list(tab["tricks_taken"]),
            overtake,
            record,
        )
        for seat, s, r in record:
            play(t, seat, playout.card_text(s, r))  # raises RuleError if illegal
        assert t.events[-1]["type"] in ("deal_scored", "dealt", "ended")
        assert (
            next(e for e in reversed(t.events) if e["type"] == "deal_scored")["data"]["tricks"]
            == taken
        )


def _suit_sorted(view: dict) -> dict:
    """The view with its hand and legal cards sorted by suit (S, H, D, C), then rank."""
    key = playout.card_int
    out = {**view, "table": {**view["table"], "hand": sorted(view["table"]["hand"], key=key)}}
    out["legal_actions"] = sorted(view["legal_actions"], key=lambda a: key(a["card"]))
    return out


@pytest.mark.parametrize("overtake", [True, False])
def test_the_strong_bots_model_of_an_opponent_plays_as_greedy(overtake):
    """docs/bots.md (a model of the opponents): in ihaleli the strong bot's play-outs play every
    other seat by greedy's rule. At each turn of real greedy games, the play-out's first card
    for such a seat is the card `greedy` picks from that seat's view (its hand sorted by suit,
    the order in which the play-out breaks greedy's ties)."""
    checked = 0
    for seed in range(8):
        t = table(seed=seed, mode="ihaleli", must_overtake_when_trumped=overtake)
        while t.state["table"]["phase"] != "play":
            t.bot_move(awaited(t.state)[0], "greedy")
        while t.state["status"] == "playing" and t.state["table"]["phase"] == "play":
            tab = t.state["table"]
            seat = tab["turn"]
            record: list = []
            playout.play_out(
                [playout.masks(hand) for hand in tab["hands"]],
                playout.SUIT_INDEX[tab["trump"]],
                tab["trump_broken"],
                [(p["seat"], *playout.card_int(p["card"])) for p in tab["trick"]],
                seat,
                list(tab["tricks_taken"]),
                overtake,
                record,
                own=(seat + 1) & 3,  # the searching seat: any other one
            )
            chosen = bots.greedy(_suit_sorted(t.view(seat)), random.Random(0))
            assert playout.card_text(*record[0][1:]) == chosen["card"]
            checked += 1
            play(t, seat, chosen["card"])
    assert checked == 8 * 52
