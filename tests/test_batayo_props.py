"""BATAYO properties over random games, every player count, format and gathering, timed or not.

At every version: cards are conserved (hands + packs + table + out of play = the format's
cards); replaying the log gives the live state; no view or redacted event shows a card its
viewer may not know, and no committed card is visible to another seat before its reveal.
Every game ends; `legal_actions` is exactly what `decide` accepts.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.core import command
from service.core.game import RuleError
from service.core.state import apply, awaited, clone, fold, legal_actions
from service.core.views import shown_event
from service.games.batayo.bots import BOTS, LOOPING_TRICKS
from service.games.batayo.rules import SEAT_SUITS, cards, deck
from service.games.batayo.stats import summarize
from service.games.batayo.view import knowledge
from service.games.batayo.view import view as batayo_view
from service.sim.table import Table
from tests.support.helpers import without_decks

T0 = "2030-01-01T00:00:00.000000Z"
LATE = "2031-01-01T00:00:00.000000Z"  # any time limit has run out by then


@dataclass
class Spec:
    players: int
    format: str
    gather: str
    bots: list[str]
    seed: bytes
    moves: int  # the bots' own random stream
    max_rounds: int
    fire_at: int | None  # timed game: the action count at which the clock fires


SHORT = st.integers(3, 60)


@st.composite
def specs(draw, max_rounds=SHORT) -> Spec:
    players = draw(st.integers(2, 4))
    timed = draw(st.booleans())
    return Spec(
        players=players,
        format=draw(st.sampled_from(["express", "classique", "longue"])),
        gather=draw(st.sampled_from(["ordered", "random"])),
        # the strong bot searches by play-outs to the game's end: too slow for whole games
        # here (tests/test_strong_bots.py and bench/ladder.py play it)
        bots=[draw(st.sampled_from(sorted(set(BOTS) - {"strong"}))) for _ in range(players)],
        seed=draw(st.binary(min_size=32, max_size=32)),
        moves=draw(st.integers(0, 2**32)),
        max_rounds=draw(max_rounds),
        fire_at=draw(st.integers(0, 120)) if timed else None,
    )


def new_table(spec: Spec) -> Table:
    options = {
        "players": spec.players,
        "format": spec.format,
        "gather": spec.gather,
        "max_rounds": spec.max_rounds,
    }
    if spec.fire_at is not None:
        options["time_limit_s"] = 600
    return Table(
        "batayo",
        options,
        seats=[{"bot": b} for b in spec.bots],
        seed=spec.seed,
        clock=lambda: T0,
    )


def drive(spec: Spec, each=None) -> Table:
    """Play the game out: bots move in a random order among the awaited seats (commits come in
    any order); a timed game's clock fires after `fire_at` actions. `each(t, new_events)`."""
    t = new_table(spec)
    if each:
        each(t, t.events)
    rng = random.Random(spec.moves)
    count = 0
    while t.state["status"] == "playing":
        if count == spec.fire_at:
            new = t.fire("time_limit", now=LATE)
            assert new and new[0]["type"] == "time_up"
        else:
            seat = rng.choice(awaited(t.state))
            new = t.bot_move(seat)
        count += 1
        if each:
            each(t, new)
        assert count < 100_000
    return t


class Watcher:
    """Replays every event beside the live game and checks what each viewer could see."""

    def __init__(self, players: int) -> None:
        self.replayed: dict | None = None
        self.viewers: list[int | None] = [*range(players), None]
        self.known: dict[int | None, set[str]] = {v: set() for v in self.viewers}
        self.deck: list[str] = []

    def learn(self, event: dict) -> None:
        d, kind = event["data"], event["type"]
        public: set[str] = set()
        if kind == "dealt":
            public = set(d["aside"])
        elif kind == "revealed":
            public = {c for c in d["cards"] + d["down"] if c}
        elif kind in ("trick_won", "left_play"):
            # everything on the table was revealed, bar cards turned when the table is cleared
            if kind == "trick_won":
                assert set(d["cards"]) <= self.known[None]
            public = set(d["cards"])
        elif kind == "drew":
            for s, drawn in enumerate(d["cards"]):
                self.known[s] |= set(drawn)
        elif kind == "taken" and d["card"] is not None:
            self.known[d["from"]].add(d["card"])
        for v in self.viewers:
            self.known[v] |= public

    def leaks(self, blob: object, viewer: int | None) -> list[str]:
        text = json.dumps(without_decks(blob))
        return [c for c in self.deck if c not in self.known[viewer] and f'"{c}"' in text]

    def __call__(self, t: Table, new: list[dict]) -> None:
        for event in new:
            if self.replayed is None:
                self.replayed = fold([event])
                continue
            apply(self.replayed, event)
            if event["type"] in ("created", "seat_taken"):
                continue
            state = self.replayed
            if not self.deck:
                self.deck = deck(state["options"])
            # conservation, at every version
            assert sorted(cards(state)) == sorted(self.deck)
            self.learn(event)
            playing = event["type"] != "ended"
            for v in self.viewers:
                if playing:
                    shown = shown_event(event, v, state, t.seed)
                    assert not self.leaks(shown["data"], v), (event, v)
                    if event["type"] == "committed" and v != event["data"]["seat"]:
                        assert set(shown["data"]["card"]) == {"sealed"}
                if state["status"] != "playing":
                    continue
                seen = batayo_view(state, v)
                public = knowledge(state)
                assert not self.leaks(seen, v), (event["type"], v, self.leaks(seen, v))
                for s, k in enumerate(public):  # docs/rules/batayo.md#cards: a pack is a suit
                    assert all(c[-1] == SEAT_SUITS[s] for c in k["blind"])
                    assert not self.leaks([k["seen"], k["under"]], v)
                table = state["table"]
                for s, put in enumerate(table["put"]):
                    for entry, shown_entry in zip(put, seen["players"][s]["table"], strict=True):
                        if entry["shown"]:
                            continue
                        knower = s if entry["how"] == "played" else entry["from"]
                        if v != knower:  # a face-down card, not yet revealed
                            assert shown_entry["card"] is None
        # replay equals live state after every command
        assert self.replayed == t.state


@given(specs())
def test_every_version_conserves_replays_and_hides(spec):
    watcher = Watcher(spec.players)
    t = drive(spec, watcher)
    assert t.state["status"] == "finished"
    assert fold(t.events) == t.state


@given(specs(max_rounds=st.just(2000)))
def test_every_game_ends_with_a_sound_result(spec):
    t = drive(spec)
    state = t.state
    result = state["result"]
    table = state["table"]
    alive = [s for s, out in enumerate(table["out"]) if not out]
    counts = [len(h) + len(p) for h, p in zip(table["hands"], table["packs"], strict=True)]
    assert result["rounds"] == table["tricks"] <= 2000
    assert result["draw"] == (result["winners"] == [])
    assert set(result["winners"]) <= set(alive)
    reason = result["reason"]
    if reason == "last_player":
        assert result["winners"] == alive and len(alive) == 1
    elif reason == "all_out":
        assert alive == []
    elif reason in ("time", "round_limit") and result["winners"]:
        assert counts[result["winners"][0]] == max(counts)
    elif reason in ("sudden_death", "sudden_death_draw"):
        assert spec.fire_at is not None
    else:
        assert reason in ("time", "round_limit")
    if reason == "time" or reason.startswith("sudden_death"):
        assert table["time_up"]
    assert sorted(cards(state)) == sorted(deck(state["options"]))
    assert fold(t.events) == state


@given(specs(max_rounds=st.integers(2, 12)))
def test_legal_actions_are_exactly_what_decide_accepts(spec):
    def each(t: Table, new: list[dict]) -> None:
        state = t.state
        if state["status"] != "playing" or state["version"] % 3:
            return
        version = state["version"]
        for seat in range(spec.players):
            legal = legal_actions(state, seat)
            accepted = []
            for card in deck(state["options"]):
                action = {"type": "play", "card": card}
                try:
                    command.act(state, t.seed, seat, action, T0, seat)
                except RuleError as err:
                    assert err.status in (409, 422)
                    continue
                accepted.append(action)
            order = deck(state["options"])
            assert accepted == sorted(legal, key=lambda a: order.index(a["card"]))
            if seat in awaited(state):
                hand = state["table"]["hands"][seat]
                assert hand and legal == [{"type": "play", "card": c} for c in hand]
            else:
                assert legal == []
        assert t.state["version"] == version

    drive(spec, each)


def test_summarize_reports_batayos_and_endings():
    finals = []
    for i in range(6):
        spec = Spec(
            3,
            "express",
            "ordered",
            ["greedy", "random", "greedy"],
            bytes([i]) * 32,
            i,
            2000,
            5 if i % 2 else None,
        )
        finals.append(drive(spec).state)
    summary = summarize(finals)
    assert summary["games"] == 6
    assert summary["mean_batayos"] == round(sum(s["table"]["batayos"] for s in finals) / 6, 3)
    assert abs(sum(summary["endings"].values()) - 1) < 1e-9
    assert sum(summary["wins"].values()) == sum(len(s["result"]["winners"]) for s in finals)
    assert summarize([]) == {"games": 0}


def test_clone_of_state_is_plain_json():
    t = drive(Spec(4, "longue", "random", ["random"] * 4, bytes(32), 1, 50, 10))
    assert json.loads(json.dumps(t.state)) == clone(t.state)


SWEEP = [
    (players, fmt, gather, fire_at)
    for players in (2, 3, 4)
    for fmt in ("express", "classique", "longue")
    for gather in ("ordered", "random")
    for fire_at in (None, 30)
]


@pytest.mark.parametrize(("players", "fmt", "gather", "fire_at"), SWEEP)
def test_full_games_every_count_and_format(players, fmt, gather, fire_at):
    """Whole games (default cap) for every player count, format and gathering, timed or not,
    with the same checks at every version as above."""
    bots = ["greedy", "random", "greedy", "random"][:players]
    seed = bytes([players, len(fmt), len(gather), fire_at or 0]) * 8
    spec = Spec(players, fmt, gather, bots, seed, players, 2000, fire_at)
    t = drive(spec, Watcher(players))
    assert t.state["status"] == "finished"
    assert fold(t.events) == t.state


@pytest.mark.parametrize(("players", "index"), [(2, 56), (3, 2)])
def test_greedy_players_leave_a_cycle_before_the_round_limit(players, index):
    """With ordered gathering, players who keep their high cards and throw their lowest can
    repeat the same tricks for ever (docs/bots.md#how-the-simpler-bots-play): these all-greedy
    deals ran to the round limit of 2,000 tricks while greedy never varied. Past
    LOOPING_TRICKS its occasional random card ends the cycle."""
    seats = [{"bot": "greedy"}] * players
    t = Table("batayo", {"players": players}, seats, seed=bytes([players, index]) * 16)
    while t.state["status"] == "playing":
        t.bot_move(awaited(t.state)[0])
    assert t.state["result"]["reason"] == "last_player"
    assert t.state["table"]["tricks"] > LOOPING_TRICKS
