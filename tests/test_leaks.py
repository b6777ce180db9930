"""Leak proof, as an attacker would try: nobody sees a card they may not know, in clear or by
working it out from a hash, a `prev`, a digest or a size.

Random games of every kind (all seats human, random legal moves) are played through the API
(fakeredis). From the full event log and each game's rules (docs/rules/, not the redaction code)
this module computes, for every viewer (each seat and the spectator) and every version, the
cards that viewer may know, by "epoch" (the whole game for Bataille and BATAYO; one deal of
Batak; one round of BatailleRoylet: everything is dealt again). Then, while the game runs:

- the view (`GET /v1/games/{id}`) of every viewer at every version,
- the events (`/events`), the tie audit (`/ties`) and the stream (`/stream`) at a dense sample
  of versions,
- and once the game is over, the replayed view (`?at=N`) of every viewer at every version,

are searched for every text that looks like a card; each must be one the viewer may know at
that point (for an event: what the viewer knows now of the event's epoch: docs/fairness.md serves a
value once a later event has shown it). The canonical deck a `"deck": true` shuffle takes as
input says which cards exist, not where they are: it is public.

And every event served is checked as an attacker would use it: its `hash` is that of its sealed
form as served (so it commits to nothing else), `prev` is the hash served before it, each
sealed value is the same size whatever it hides, its digest is not the plain hash of the value
it hides (nor is the event's hash that of the event with the value put back: substituting
candidates tells nothing without the nonce), and every viewer's log, at every sampled version,
verifies by docs/fairness.md alone (`tests/support/page.py`). Counts go to
tests/artifacts/counts-*.json."""

from __future__ import annotations

import hashlib
import json

import pytest

from tests.support import page
from tests.support.helpers import record_counts
from tests.support.leaks import TOTALS, Checker, knowledge, play_and_look

CONFIGS = [
    ("bataille", {"deck": 32, "max_rounds": 25}, 2),
    ("bataille", {"deck": 32, "max_rounds": 15, "players": 3, "variant": "ouverte"}, 2),
    (
        "bataille",
        {"deck": 32, "max_rounds": 15, "variant": "sans_inconnue", "gather": "ordered"},
        1,
    ),
    ("bataille", {"deck": 32, "max_rounds": 15, "shortfall": "play_out", "players": 3}, 1),
    ("batayo", {"format": "express"}, 2),
    ("batayo", {"format": "express", "players": 3, "gather": "random"}, 2),
    ("batak", {"deals": 3, "max_rounds": 2}, 1),
    ("batak", {"deals": 3, "max_rounds": 2, "mode": "esli"}, 1),
    ("roylet", {"rounds": 2, "losing_streak": 2}, 2),
]


@pytest.mark.parametrize(
    ("kind", "options", "seed"),
    [(k, o, s) for k, o, count in CONFIGS for s in range(1, count + 1)],
    ids=lambda x: x if isinstance(x, str) else None,
)
def test_nobody_sees_a_card_they_may_not_know(kind, options, seed):
    leaks = play_and_look(kind, options, seed)
    record_counts(TOTALS)
    assert not leaks, "cards shown that the viewer may not know:\n" + "\n".join(leaks)


def test_the_checker_finds_a_planted_leak():
    """The search is not vacuous: an unsealed deal is caught, and so is a sealed one whose hash
    commits to its clear value (what version 1 did) or whose digest has no nonce."""
    from service.core import sealing
    from service.sim.table import Table

    t = Table("batak", {"deals": 3}, [{"name": "a"}] * 4, seed=bytes(32))
    k = knowledge(t.events, 0)
    checker = Checker("local", "batak", t.events)
    dealt = t.events[1]
    checker.check(dealt, k[1][1], 0, "events", 2, "dealt")
    assert any(".data.hands" in leak for leak in checker.leaks.values()), checker.leaks
    served = [t.shown(e, 0) for e in t.events]
    checker.leaks.clear()
    checker.check(served[1], k[1][1], 0, "events", 2, "dealt")
    checker.attack(served, 0, "events", 2)
    assert not checker.leaks
    # version 1's mistake: the hash of the clear event beside a redacted copy
    v1 = json.loads(json.dumps(served))
    v1[1]["hash"] = hashlib.sha256(page.canonical(sealing.sealed_form(t.events[1], []))).hexdigest()
    checker.attack(v1, 0, "events", 2)
    assert any("commits to more" in leak for leak in checker.leaks.values())
    # a digest without a nonce
    checker.leaks.clear()
    plain = json.loads(json.dumps(served))
    p = plain[1]["sealed"][1]  # seat 1's hand
    plain[1]["data"]["hands"][1] = {
        "sealed": hashlib.sha256(page.canonical(page.at(t.events[1], p))).hexdigest()
    }
    page.reseal(plain, 2)
    checker.attack(plain, 0, "events", 2)
    assert any("without its nonce" in leak for leak in checker.leaks.values()), checker.leaks
