"""La Bataille over random games: nobody sees a face-down card or a pack's order."""

from __future__ import annotations

import json
import re

from hypothesis import given
from hypothesis import strategies as st

from service.core.cards import value
from service.core.state import fold
from service.core.views import game_view, shown_event
from service.games.bataille.bots import greedy
from service.games.bataille.rules import _available, deck
from service.sim.table import Table
from tests.support.helpers import without_decks
from tests.support.strategies import games

CARD = re.compile(r'"((?:10|[2-9JQKA])[SHDC])"')


def shown(obj) -> set[str]:
    obj = without_decks(obj)
    return set(CARD.findall(json.dumps(obj)))


def public_cards(event: dict) -> set[str]:
    """Cards an event puts face up for everyone."""
    d = event["data"]
    if event["type"] == "flipped" or (event["type"] == "short" and d["up"]):
        return {d["up"]}
    if event["type"] == "revealed":
        return set(d["up"].values())
    return set()


@given(games(["bataille"]), st.data())
def test_no_viewer_sees_a_card_it_may_not_know(spec, data):
    seats = [{"bot": b} for b in spec["bots"]]
    t = Table("bataille", spec["options"], seats, seed=spec["seed"], game_id="leak")
    t.play_out()
    ouverte = t.options["variant"] == "ouverte"
    viewers = [*range(len(seats)), None]
    known = {v: set() for v in viewers}
    state = fold(t.events[:1])
    for event in t.events[1:]:
        state = fold([event], state)
        if state["status"] == "finished":
            break
        for v in viewers:
            known[v] |= public_cards(event)
            if ouverte and v is not None:
                # a seat holds its own pack in hand, and picks up its won pile when short
                known[v] |= set(_available(state, v))
                if state["table"]["put"][v]:
                    known[v] |= {*state["table"]["put"][v]["down"], state["table"]["put"][v]["up"]}
            leaked = shown(shown_event(event, v, state, t.seed)) - known[v]
            assert not leaked, (v, event["type"], leaked)
            leaked = shown(game_view(state, v)) - known[v]
            assert not leaked, (v, "view", leaked)


@given(st.lists(st.sampled_from(deck({"deck": 52})), min_size=2, max_size=20, unique=True))
def test_greedy_in_a_bataille_puts_its_highest_card_up_and_its_lowest_down(cards):
    """docs/bots.md (how the simpler bots play): in an open bataille greedy puts its highest
    card up and its lowest down, the first such pair of its legal actions (which offer every
    ordered pair of the cards it may put, as `legal_actions` lists them)."""
    legal = [{"type": "play", "card": c, "down": d} for c in cards for d in cards if c != d]
    expected = max(legal, key=lambda a: (value(a["card"]), -value(a["down"])))
    assert greedy({"legal_actions": legal}, None) == expected
