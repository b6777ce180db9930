"""BatailleRoylet properties over random games: deals, battles, conservation, replay, legal
actions and what each seat may see (docs/rules/roylet.md)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from service.core import command
from service.core.cards import deck as full_deck
from service.core.fairness import replay_ledger
from service.core.game import RuleError
from service.core.state import apply, awaited, fold, legal_actions
from service.core.views import game_view, shown_event
from service.games.roylet.bots import ally_greedy_on_state, greedy
from service.games.roylet.rules import BATTLES, FACES, ROYALS
from service.games.roylet.stats import summarize
from service.sim.table import Table
from tests.support.helpers import without_decks

KING = 0
VIEWERS = (0, 1, 2, None)
DECK = sorted(full_deck())
ALL = set(full_deck())

games = st.fixed_dictionaries(
    {
        "seed": st.binary(min_size=32, max_size=32),
        "bots": st.lists(st.sampled_from(["random", "greedy"]), min_size=3, max_size=3),
        "rng": st.integers(0, 2**32),
        "options": st.fixed_dictionaries(
            {
                "rounds": st.integers(1, 3),
                "losing_streak": st.integers(1, 3),
                "max_replays": st.integers(0, 2),
            }
        ),
    }
)


def new_table(game: dict) -> Table:
    seats = [{"bot": b} for b in game["bots"]]
    return Table("roylet", game["options"], seats=seats, seed=game["seed"])


def steps(t: Table, game: dict):
    """Play the game with its bots, yielding the events of each action."""
    while t.state["status"] == "playing":
        seat = awaited(t.state)[0]
        yield t.bot_move(seat)


def known(state: dict, viewer: int | None, dealt: list[list[str]]) -> set[str]:
    """The cards `viewer` may know in the current round: the royals (always the King's), its
    own hand as dealt, and every card shown face up or turned this round."""
    t = state["table"]
    out = set(ROYALS)
    if viewer is not None:
        out |= set(dealt[viewer])
    for side in ("king", "allies"):
        for trick in t["tricks"][side]:
            out |= set(trick)
    put = t["put"]
    if put["king"]:
        out.add(put["king"])
    if put["up"]:
        out.add(put["up"]["card"])
    if put["down"] and (put["revealed"] or put["down"]["seat"] == viewer):
        out.add(put["down"]["card"])
    return out


def cards_in(value: object) -> set[str]:
    text = json.dumps(without_decks(value))
    return {c for c in ALL if f'"{c}"' in text}


@given(games)
def test_random_games_keep_every_rule(game):
    t = new_table(game)
    replay = fold(t.events)
    dealt = t.events[-1]["data"]["hands"]
    checked = 0
    for events in steps(t, game):
        for event in events:
            apply(replay, event)  # replay equals live, event by event
            if replay["status"] == "playing":
                assert sorted(t.game.cards(replay)) == DECK
            if event["type"] == "dealt":
                dealt = event["data"]["hands"]
            if replay["status"] != "playing":
                continue
            for viewer in VIEWERS:  # a redacted event shows no card the viewer may not know
                shown = cards_in(shown_event(event, viewer, replay, t.seed)["data"])
                assert shown <= known(replay, viewer, dealt), (event["type"], viewer)
        assert replay == t.state
        if t.state["status"] == "playing":
            for viewer in VIEWERS:
                view = t.view(viewer)
                assert cards_in(view) <= known(t.state, viewer, dealt)
                if viewer is not None:
                    assert view["table"]["hand"] == t.state["table"]["hands"][viewer]
            checked += 1
    assert checked > 0
    assert t.state["status"] == "finished"


@given(games)
def test_every_round_deals_the_royals_and_plays_ten_battles_unless_it_ends_early(game):
    """Rule 1: "The King always holds the four jacks and the king of hearts"; rule 2: "A battle
    (10 per round)" unless rule 5 or 7 end it at once."""
    t = new_table(game)
    list(steps(t, game))
    deals = [e["data"] for e in t.events if e["type"] == "dealt"]
    ends = [e["data"] for e in t.events if e["type"] == "round_ended"]
    assert len(ends) == t.state["result"]["rounds"] == len(deals)
    for event in t.events:  # every shuffle replays from the seed (docs/fairness.md)
        if event["type"] == "dealt" and "rng" in event["data"]:
            ledger = event["data"]["rng"]
            assert replay_ledger(t.seed, "local", t.state["salt"], event["version"], ledger) is None
    for deal in deals:
        assert set(ROYALS) <= set(deal["hands"][KING])
        assert [len(h) for h in deal["hands"]] == [12, 10, 10] and len(deal["out"]) == 20
        assert sorted(c for h in [*deal["hands"], deal["out"]] for c in h) == DECK
    for end in ends:
        tricks = [
            e for e in t.events if e["type"] == "trick" and e["data"]["round"] == end["round"]
        ]
        assert len(tricks) == end["battles"]
        if end["reason"] in ("two_kings", "royals_unplayed"):
            assert end["battles"] <= BATTLES
        else:
            assert end["battles"] == BATTLES
        cards = [c for e in tricks for c in e["data"]["cards"]]
        assert len(cards) == len(set(cards)) == 3 * end["battles"]  # each card once a round
        assert end["tricks"]["king"] + end["tricks"]["allies"] == end["battles"]
    counted = sum(1 for e in ends if e["result"] != "void")
    assert t.state["result"]["counted"] == counted


def _candidates(seat: int) -> list[dict]:
    cards = full_deck()
    plays = [{"type": "play", "card": c} for c in cards]
    faced = [{"type": "play", "card": c, "face": f} for c in cards for f in FACES]
    return plays + faced


@given(games)
def test_legal_actions_are_exactly_what_decide_accepts(game):
    t = new_table(game)
    moves = 0
    for _ in steps(t, game):
        moves += 1
        if moves % 9 or t.state["status"] != "playing":
            continue
        for seat in (0, 1, 2):
            legal = legal_actions(t.state, seat)
            accepted = []
            for action in _candidates(seat):
                try:
                    command.act(t.state, t.seed, seat, action, "2026-01-01T00:00:00Z", seat)
                except RuleError:
                    continue
                accepted.append(action)
            assert accepted == sorted(legal, key=_candidates(seat).index)


def test_bots_finish_games_and_summaries_count_them():
    finals = []
    for i, (king, allies) in enumerate(
        [("random", "random"), ("greedy", "random"), ("random", "greedy"), ("greedy", "greedy")]
    ):
        for j in range(3):
            seats = [{"bot": king}, {"bot": allies}, {"bot": allies}]
            t = Table("roylet", seats=seats, seed=bytes([i, j]) * 16)
            t.play_out()
            assert t.state["status"] == "finished"
            finals.append(t.state)
    summary = summarize(finals)
    assert set(summary) == {
        f"king {k} vs allies {a}+{a}" for k in ("random", "greedy") for a in ("random", "greedy")
    }
    for figures in summary.values():
        assert figures["games"] == 3
        assert figures["king_wins"] + figures["allies_wins"] + figures["draws"] == 1
        assert figures["mean_rounds"] >= 1


def test_the_leak_check_sees_a_leak():
    """The check above is not vacuous: an unredacted deal or face-down card breaks it."""
    t = Table("roylet", seats=[{"bot": "random"}] * 3, seed=bytes(32))
    deal = t.events[-1]
    hands = deal["data"]["hands"]
    for viewer in VIEWERS:
        assert not cards_in(deal["data"]) <= known(t.state, viewer, hands)
        assert cards_in(t.shown(deal, viewer)["data"]) <= known(t.state, viewer, hands)
    events = t.act(1, {"type": "play", "card": hands[1][0], "face": "down"})
    for viewer in (0, 2, None):
        assert hands[1][0] not in known(t.state, viewer, hands)
        assert hands[1][0] in cards_in(events[0]["data"])
        assert hands[1][0] not in cards_in(t.shown(events[0], viewer)["data"])
        assert hands[1][0] not in cards_in(t.view(viewer))
    assert hands[1][0] in cards_in(t.view(1)["table"]["table"])


@given(games)
def test_the_play_out_policy_on_the_state_chooses_as_greedy_on_the_view(game):
    """The strong bots' play-outs read the greedy Ally's choice straight from the state (a
    shortcut, docs/performance.md#bot-shortcuts): at every version, for every Ally awaited,
    it is the card and face `greedy` picks from that seat's view."""
    t = new_table(game)
    compared = []
    for _ in steps(t, game):
        state = t.state
        if state["status"] != "playing":
            continue
        for seat in awaited(state):
            if seat != KING:
                fast = ally_greedy_on_state(state, seat)
                assert fast == greedy(game_view(state, seat), None), seat
                compared.append(fast)
    assert compared
