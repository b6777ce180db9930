"""La Bataille over random games: nobody sees a face-down card or a pack's order."""

from __future__ import annotations

import json
import re

from hypothesis import given
from hypothesis import strategies as st

from service.core.state import fold
from service.core.views import game_view, shown_event
from service.games.bataille.rules import _available
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
