"""What follows an append (service/engine/projections.py): each projection alone, and the sweep
catching up on all of them for a game whose end was appended by a process that died before it
projected anything."""

from __future__ import annotations

import fakeredis

from service.engine import Engine
from service.engine.dispatch import QueueDispatcher
from service.engine.projections import (
    Appended,
    archive_mark,
    audit_job,
    cap_release,
    status_index,
)
from service.store import Store

REMOTE = "203.0.113.7"  # a remote client: the cap counts it
HUMANS = {"game": "bataille", "options": {"max_rounds": 1}, "seats": [{"name": "a"}, {"name": "b"}]}


def capped_engine() -> tuple[Engine, QueueDispatcher]:
    jobs = QueueDispatcher()
    return Engine(Store(fakeredis.FakeRedis()), jobs, games_per_client=1), jobs


def play_out(engine: Engine, gid: str) -> None:
    while engine.load(gid)["status"] == "playing":
        engine.act(gid, engine.view(gid, None)["to_move"][0], {"type": "flip"})


def ended(engine: Engine, gid: str) -> Appended:
    return Appended(gid, engine.load(gid), "playing")


def audits_queued(jobs: QueueDispatcher, gid: str) -> int:
    return sum(1 for _, job, args in jobs.jobs if job == "audit" and args == (gid,))


def finished_game(no_projections: bool = False):
    engine, jobs = capped_engine()
    gid = engine.create(HUMANS, client=REMOTE)["id"]
    if no_projections:  # the process dies right after the end's append
        engine.projections.after_append = lambda change, dispatcher: None
    play_out(engine, gid)
    return engine, jobs, gid


def test_the_status_index_lists_the_game_by_its_status():
    engine, _, gid = finished_game(no_projections=True)
    store = engine.store
    assert store.listing(None, "playing", 0, 10)[0] == [(gid, "playing")]
    status_index(store, ended(engine, gid))
    status_index(store, ended(engine, gid))  # again: the same
    assert store.listing(None, "finished", 0, 10)[0] == [(gid, "finished")]
    assert store.listing(None, "playing", 0, 10)[0] == []


def test_the_archive_mark_is_made_once_and_only_for_a_finished_game():
    engine, _, gid = finished_game(no_projections=True)
    store = engine.store
    archive_mark(store, Appended(gid, {**engine.load(gid), "status": "playing"}, None))
    assert store.archive_due(2**62, 10) == []
    archive_mark(store, ended(engine, gid))
    archive_mark(store, ended(engine, gid))
    assert store.archive_due(2**62, 10) == [gid]


def test_the_audit_job_is_queued_under_one_id_per_game():
    engine, jobs, gid = finished_game(no_projections=True)
    audit_job(jobs, ended(engine, gid))
    assert audits_queued(jobs, gid) == 1
    audit_job(None, ended(engine, gid))  # no queue known: nothing to do


def test_the_cap_release_frees_the_creators_place():
    engine, _, gid = finished_game(no_projections=True)
    who = engine.store.meta(gid)["client"]
    assert engine.store.client_games(who)[0] == 1
    cap_release(engine.store, ended(engine, gid))
    cap_release(engine.store, ended(engine, gid))
    assert engine.store.client_games(who)[0] == 0


def test_an_append_projects_its_end_at_once():
    engine, jobs, gid = finished_game()
    assert engine.store.listing(None, "finished", 0, 10)[0] == [(gid, "finished")]
    assert engine.store.archive_due(2**62, 10) == [gid]
    assert audits_queued(jobs, gid) == 1
    assert engine.store.client_games(engine.store.meta(gid)["client"])[0] == 0


def test_the_sweep_catches_up_on_an_end_whose_projections_were_lost():
    """A process died between the end's append and its projections: the sweep lists the game
    as finished, marks it for the archive, queues its audits and frees its client's place."""
    engine, jobs, gid = finished_game(no_projections=True)
    who = engine.store.meta(gid)["client"]
    assert engine.store.client_games(who)[0] == 1 and engine.store.archive_due(2**62, 10) == []
    del engine.projections.after_append  # the next process: projections as usual
    engine.sweep()
    assert engine.store.listing(None, "finished", 0, 10)[0] == [(gid, "finished")]
    assert engine.store.archive_due(2**62, 10) == [gid]
    assert audits_queued(jobs, gid) == 1
    assert engine.store.client_games(who)[0] == 0
