"""'audits (/ties, /verify) of long games cached or paged'. The cached or
incremental answer must equal a fresh audit of the whole log, for every caller, at every
step of a game in play (reveals included), once it has ended, and once it is archived."""

from __future__ import annotations

import contextlib
import uuid

import fakeredis
from hypothesis import given, settings
from hypothesis import strategies as st

from service.core import signing
from service.core.state import game_of
from service.core.verify import verify
from service.core.views import closed_as_null
from service.engine import Engine
from service.engine.dispatch import QueueDispatcher
from service.store import Store
from service.store.archive import Archive
from tests.support.leaks import DEEP

GAMES = {
    # Bataille ouverte: face-down cards hidden "until reveal" (a reveal reopens older events)
    "bataille": ({"variant": "ouverte"}, 2),
    "batayo": ({}, 2),
    "batak": ({}, 4),
    "roylet": ({}, 3),
}


def fresh(engine: Engine, gid: str, seat: int | None) -> tuple[list[dict], dict]:
    """The audits as the routes made them before any cache: the whole log, shown anew."""
    state = engine.load(gid)
    shown = engine.shown(engine.store.events(gid), seat, state)
    audit = game_of(state).ties
    ties = audit([closed_as_null(e) for e in shown]) if audit else []
    report = verify(shown)  # with the verdict of a server without a key: never signed
    return ties, {
        **report,
        "verdict": signing.verdict(report["status"], "unsigned"),
        "signature": None,
    }


def run(jobs: QueueDispatcher, engine: Engine, steps: int) -> None:
    with contextlib.suppress(RuntimeError):  # more jobs keep coming: the game is in play
        jobs.run(lambda job, args: getattr(engine, job)(*args), limit=steps)


# each example plays a whole game and audits it afresh at every step: CI takes 10 of them,
# HYPOTHESIS_PROFILE=deep its profile's count
@settings(max_examples=settings.default.max_examples if DEEP else 10)
@given(
    game=st.sampled_from(list(GAMES)),
    seed=st.binary(min_size=32, max_size=32),
    steps=st.lists(st.integers(1, 40), min_size=1, max_size=12),
    seats=st.lists(st.sampled_from([None, 0, 1]), min_size=1, max_size=4),
)
def test_cached_audits_equal_fresh_ones_at_every_step(game, seed, steps, seats):
    options, n = GAMES[game]
    jobs = QueueDispatcher()
    engine = Engine(Store(fakeredis.FakeRedis()), jobs, test_games=True)
    created = engine.create(
        {"game": game, "options": options, "seats": [{"bot": "random"}] * n, "seed": seed.hex()}
    )
    gid = created["id"]
    for i, step in enumerate([*steps, 100_000]):
        run(jobs, engine, step)
        for seat in seats[i % len(seats) :] + seats[: i % len(seats)]:
            assert (engine.ties(gid, seat), engine.verify(gid, seat)) == fresh(engine, gid, seat)
    state = engine.load(gid)
    assert state["status"] == "finished"
    assert engine.verify(gid, None)["status"] == "ok"
    for seat in (None, 0):  # a finished game's audits: made once, kept with the game
        assert (engine.ties(gid, seat), engine.verify(gid, seat)) == fresh(engine, gid, seat)


def test_a_finished_games_audits_are_kept_with_it_and_read_by_another_process():
    jobs = QueueDispatcher()
    client = fakeredis.FakeRedis()
    url = f"memory://batayo-test-{uuid.uuid4().hex}"
    engine = Engine(Store(client, Archive(url)), jobs, test_games=True)
    gid = engine.create({"game": "bataille", "seats": [{"bot": "greedy"}] * 2})["id"]
    run(jobs, engine, 100_000)
    answer = (engine.ties(gid, None), engine.verify(gid, 1))
    assert answer == fresh(engine, gid, None)
    assert client.hkeys(f"game:{{{gid}}}:audits")  # kept with the game's hash tag
    other = Engine(Store(client, Archive(url)), test_games=True)
    assert (other.ties(gid, 0), other.verify(gid, None)) == answer
    engine.archiver.after_s = 0
    assert engine.archiver.archive(gid) == "archived"
    third = Engine(Store(client, Archive(url)), test_games=True)
    assert (third.ties(gid, None), third.verify(gid, 0)) == answer  # from the archive
