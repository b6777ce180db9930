"""Batak properties over random games (hypothesis, `ci` profile bounds the examples)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.core import advice, command
from service.core.cards import deck as full_deck
from service.core.game import RuleError
from service.core.state import awaited, fold, legal_actions
from service.core.views import game_view, shown_event
from service.games.batak import bots as batak_bots
from service.games.batak import rules
from service.sim.table import Table
from tests.support.helpers import is_sealed, without_decks

BOT_NAMES = ["random", "greedy", "expert"]


@pytest.fixture(autouse=True, scope="module")
def _light_expert():
    """The expert with fewer samples: these properties are about the rules, not its strength."""
    knobs = {"BID_WORLDS": 4, "PLAY_ROLLOUTS": 24, "MIN_WORLDS": 3, "MAX_WORLDS": 8}
    saved = {k: getattr(batak_bots, k) for k in knobs}
    for k, v in knobs.items():
        setattr(batak_bots, k, v)
    yield
    for k, v in saved.items():
        setattr(batak_bots, k, v)


games = st.fixed_dictionaries(
    {
        "seed": st.integers(0, 2**64),
        "mode": st.sampled_from(["ihaleli", "esli"]),
        "overtake": st.booleans(),
        "first_dealer": st.integers(0, 3),
        "bots": st.lists(st.sampled_from(BOT_NAMES), min_size=4, max_size=4),
        "rng": st.integers(0, 2**32),
    }
)


def run(spec: dict, deals: int = 3, max_rounds: int = 1) -> tuple[Table, list[dict]]:
    """Play a whole game with bots; return the table and the live state after every action."""
    t = Table(
        "batak",
        {
            "mode": spec["mode"],
            "must_overtake_when_trumped": spec["overtake"],
            "first_dealer": spec["first_dealer"],
            "deals": deals,
            "max_rounds": max_rounds,
        },
        seats=[{"bot": b} for b in spec["bots"]],
        seed=spec["seed"].to_bytes(32, "big"),
    )
    states = [t.state]
    while t.state["status"] == "playing":
        seat = awaited(t.state)[0]
        t.bot_move(seat)
        states.append(t.state)
    return t, states


def deal_tricks(events: list[dict]) -> list[list[dict]]:
    """The trick events of each deal."""
    out: list[list[dict]] = []
    for e in events:
        if e["type"] == "dealt":
            out.append([])
        elif e["type"] == "trick":
            out[-1].append(e["data"])
    return out


@given(games)
def test_every_deal_has_13_tricks_of_4_cards_each_card_once(spec):
    t, _ = run(spec)
    assert t.state["status"] == "finished"
    per_deal = deal_tricks(t.events)
    assert len(per_deal) == len(t.state["table"]["scores"]) == 1
    for tricks in per_deal:
        assert [tr["number"] for tr in tricks] == list(range(1, 14))
        cards = [p["card"] for tr in tricks for p in tr["cards"]]
        assert all(len(tr["cards"]) == 4 for tr in tricks)
        assert sorted(cards) == sorted(full_deck())
        for tr in tricks:  # play goes to the right: seat + 1
            seats = [p["seat"] for p in tr["cards"]]
            assert seats == [(tr["leader"] + i) % 4 for i in range(4)]


@given(games)
def test_scores_add_up_from_the_tricks(spec):
    """docs/rules/batak.md#rule-5, recomputed from the trick events."""
    t, _ = run(spec, max_rounds=2)
    esli = spec["mode"] == "esli"
    records = t.state["table"]["scores"]
    running = [0] * 4
    for tricks, record in zip(deal_tricks(t.events), records, strict=True):
        taken = [sum(1 for tr in tricks if tr["winner"] == s) for s in range(4)]
        assert record["tricks"] == taken
        decl, bid = record["declarer"], record["bid"]
        if esli:
            team = [taken[0] + taken[2], taken[1] + taken[3]]
            made = team[decl % 2] >= bid
            pts = [team[s % 2] for s in range(4)]
            if not made:
                pts = [-bid if s % 2 == decl % 2 else pts[s] for s in range(4)]
        else:
            made = taken[decl] >= bid
            pts = [-bid if (s == decl and not made) else taken[s] for s in range(4)]
        assert record["made"] is made and record["points"] == pts
        running = [a + b for a, b in zip(running, pts, strict=True)]
        assert record["totals"] == running
    assert t.state["result"]["scores"] == running


@given(games)
def test_replay_equals_live_state_and_cards_are_conserved(spec):
    t, states = run(spec, max_rounds=2)
    replayed = fold([])
    by_version = {s["version"]: s for s in states}
    for event in t.events:
        replayed = fold([event], replayed)
        if replayed["status"] == "playing" or replayed["version"] == t.state["version"]:
            assert sorted(rules.cards(replayed)) == sorted(full_deck())
        if replayed["version"] in by_version:
            assert replayed == by_version[replayed["version"]]
    assert replayed == t.state


def _candidates(state: dict, seat: int) -> list[dict]:
    """Every action body a client could post: each bid 0..14, pass, each suit, each card."""
    return [
        *({"type": "bid", "tricks": n} for n in range(15)),
        {"type": "pass"},
        *({"type": "trump", "suit": s} for s in "SHDC"),
        *({"type": "play", "card": c} for c in full_deck()),
    ]


@given(games, st.data())
def test_legal_actions_is_exactly_what_decide_accepts(spec, data):
    t, states = run(spec, deals=3, max_rounds=1)
    picks = data.draw(st.lists(st.sampled_from(states), min_size=1, max_size=5))
    for state in picks:
        if state["status"] != "playing":
            continue
        for seat in range(4):
            legal = legal_actions(state, seat)
            if seat not in awaited(state):
                assert legal == []
                continue
            assert legal, "legal_actions is never empty on your turn"
            accepted = []
            for action in _candidates(state, seat):
                try:
                    command.act(state, t.seed, seat, action, "2026-01-01T00:00:00.000000Z", seat)
                except RuleError as e:
                    assert e.status in (400, 409, 422) and e.code and e.detail
                    continue
                accepted.append(action)
            assert sorted(map(json.dumps, accepted)) == sorted(map(json.dumps, legal))


def _quoted(cards: set[str]) -> set[str]:
    return {f'"{c}"' for c in cards}


@given(games)
def test_a_seat_never_sees_another_hand(spec):
    """Views: "a seat sees its own hand only"; the deal event and its ledger are redacted. At every
    version, for every seat and the spectator, neither the view nor the event just appended (as
    the viewer may see it) shows a card that lies in another seat's hand."""
    t, _ = run(spec, deals=3, max_rounds=2)
    state = fold([])
    for event in t.events:
        state = fold([event], state)
        if state["status"] != "playing":
            continue
        hands = state["table"]["hands"]
        for viewer in (None, 0, 1, 2, 3):
            hidden = _quoted({c for s in range(4) if s != viewer for c in hands[s]})
            text = json.dumps(without_decks(shown_event(event, viewer, state, t.seed)))
            assert not any(q in text for q in hidden), (event["type"], viewer)
            view_text = json.dumps(game_view(state, viewer))
            assert not any(q in view_text for q in hidden), (event["type"], viewer)
        if event["type"] == "dealt":  # each seat gets exactly its own hand, the shuffle sealed
            for viewer in (None, 0, 1, 2, 3):
                data = shown_event(event, viewer, state, t.seed)["data"]
                for s in range(4):
                    mine = data["hands"][s]
                    assert mine == event["data"]["hands"][s] if s == viewer else is_sealed(mine)
                assert all(is_sealed(e["output"]) for e in data.get("rng", []))


@given(games)
def test_bots_only_use_the_view_and_the_hint_is_legal(spec):
    """The strong bot's hint is one of the seat's legal actions, with a reason code."""
    t, states = run(spec, deals=3, max_rounds=1)
    for state in states[::7][:2]:  # a strong search each: a few states an example
        if state["status"] != "playing":
            continue
        seat = awaited(state)[0]
        view = game_view(state, seat)
        hint = advice.hint(state, seat, t.seed)
        assert hint["action"] in view["legal_actions"]
        assert hint["reason"]["code"] in advice.HINT_CODES
        assert advice.hint(state, seat, t.seed) == hint  # the same secret: the same advice
        other = (seat + 1) % 4
        assert advice.hint(state, other, t.seed)["action"] is None
