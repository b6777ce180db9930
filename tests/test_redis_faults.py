"""What must hold: "No corruption, no double move, whatever Redis does." Each fault is injected
on the tests' own real Redis server (a reply lost after the server applied the command, a stream
rolled back to an older copy, the queue's keys lost), and every answer must be one of
(docs/operations.md, "Faults and what each costs"): the right outcome applied once; a refusal
that changed nothing; or a 503 with Retry-After after which a retry with If-Match or the same
Idempotency-Key reaches exactly one outcome. Never a 500, never a refusal of a move that was in
fact applied."""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import redis

from service.api import create_app
from service.core.game import add_seconds
from service.core.state import awaited, fold, game_of
from service.core.times import utc_now
from service.engine import Engine, Stale
from service.engine.dispatch import RQDispatcher
from service.store import Store, key
from service.store.index import ALL, STATUS
from tests.support.client import CheckedClient
from tests.support.faults import RETRIES, LostReplies, lose_queue, roll_back
from tests.support.helpers import auth
from tests.support.processes import wait_until

pytestmark = pytest.mark.redis

CREATING = "{games}:creating"  # the create journal

HUMANS = {"game": "bataille", "seats": [{"name": "ana"}, {"name": "bob"}]}


@pytest.fixture
def faults(redis_url, redis_server) -> LostReplies:
    return LostReplies()


@pytest.fixture
def engine(faults, redis_server) -> Engine:
    store = Store(faults.client(redis_server.port))
    for script in (store._append, store._create):  # loaded, as on a server in use
        store.redis.script_load(script.script)
    return Engine(store)


@pytest.fixture
def api(engine) -> CheckedClient:
    return CheckedClient(create_app(engine).test_client(), unavailable=True)


def sound(engine: Engine, gid: str) -> dict:
    """The stored log is whole: versions contiguous, each event linked to the one before, the
    chain verified, no card twice (the fold holds the deck exactly), and what the engine loads
    is the fold of the log."""
    events = engine.all_events(gid)
    assert [e["version"] for e in events] == list(range(1, len(events) + 1))
    assert all(b["prev"] == a["hash"] for a, b in itertools.pairwise(events))
    report = engine.verify(gid, None)
    assert report["ok"] or report["status"] == "incomplete", report
    state = fold(events)
    if state["status"] != "open":
        game = game_of(state)
        assert sorted(game.cards(state)) == sorted(game.deck(state["options"]))
    fresh = Engine(Store(engine.store.redis)).load(gid)
    assert fresh == state
    return state


def flips(engine: Engine, gid: str) -> Counter:
    return Counter(e["data"]["seat"] for e in engine.all_events(gid) if e["type"] == "flipped")


# -- a lost reply ----------------------------------------------------------------------------


def test_a_lost_reply_to_an_action_applies_it_once_and_answers_it(engine, api, faults):
    """What must hold: "A lost Redis reply makes redis-py retry the append; the retry meets conflict,
    the engine decides again, and one POST became two flips." Now the resent append finds its
    own command in the stream and answers the first outcome."""
    created = api.post("/v1/games", json=HUMANS).json
    gid, ana = created["id"], created["seats"][0]["token"]
    before = engine.store.counters().get("actions", 0)
    faults.arm(engine.store._append.sha)
    r = api.post(f"/v1/games/{gid}/actions", json={"type": "flip"}, headers=auth(ana))
    assert faults.lost == 1
    assert r.status_code == 200, r.json
    assert flips(engine, gid) == Counter({0: 1})
    assert r.json["game"]["version"] == engine.store.version(gid)
    assert engine.store.counters()["actions"] == before + 1  # counted once, resent or not
    sound(engine, gid)


def test_a_lost_reply_to_an_if_match_action_is_not_refused(engine, api, faults):
    """Never a refusal of a move that was in fact applied: the resent append of an If-Match move
    would meet a stream one batch further and answer 412 without the command id."""
    created = api.post("/v1/games", json=HUMANS).json
    gid, ana = created["id"], created["seats"][0]["token"]
    faults.arm(engine.store._append.sha)
    headers = {**auth(ana), "If-Match": f'"{created["version"]}"'}
    r = api.post(f"/v1/games/{gid}/actions", json={"type": "flip"}, headers=headers)
    assert faults.lost == 1 and r.status_code == 200, r.json
    assert flips(engine, gid) == Counter({0: 1})
    sound(engine, gid)


def test_a_lost_reply_to_a_create_makes_one_whole_game(engine, api, faults):
    """What must hold: "A create whose reply is lost leaves a game with no index, no status, and
    tokens nobody received." The create is one script, and its resend answers it."""
    faults.arm(engine.store._create.sha)
    r = api.post("/v1/games", json=HUMANS)
    assert faults.lost == 1 and r.status_code == 201, r.json
    gid, ana = r.json["id"], r.json["seats"][0]["token"]
    redis_ = engine.store.redis
    assert redis_.zcard(ALL) == 1 and redis_.hget(STATUS, gid) == b"playing"
    assert redis_.zcard(CREATING) == 0
    act = api.post(f"/v1/games/{gid}/actions", json={"type": "flip"}, headers=auth(ana))
    assert act.status_code == 200  # the token the answer gave is the game's
    sound(engine, gid)


def test_lost_replies_to_the_idempotency_claim_and_the_seed_ticket_do_not_refuse_the_create(
    engine, api, faults
):
    """The steps before the script are safe to resend too: the claim of an Idempotency-Key
    finds its own record, the seed ticket its own taker."""
    ticket = api.post("/v1/seeds").json["ticket"]
    faults.arm(b"idem:create")
    faults.arm(b"seedticket:")
    body = {**HUMANS, "seed_ticket": ticket}
    r = api.post("/v1/games", json=body, headers={"Idempotency-Key": "c-lost"})
    assert faults.lost == 2 and r.status_code == 201, r.json
    assert engine.store.redis.zcard(ALL) == 1


def test_a_store_that_keeps_losing_replies_answers_503_and_a_keyed_retry_applies_once(
    engine, api, faults
):
    """Every resend lost: a 503 with Retry-After (never a 500, never a second move), and the
    retry with the same Idempotency-Key answers the move that was applied, once."""
    created = api.post("/v1/games", json=HUMANS).json
    gid, ana = created["id"], created["seats"][0]["token"]
    headers = {**auth(ana), "Idempotency-Key": "flip-1"}
    faults.arm(engine.store._append.sha, times=RETRIES + 1)
    first = api.post(f"/v1/games/{gid}/actions", json={"type": "flip"}, headers=headers)
    assert (first.status_code, first.json["code"]) == (503, "unavailable")
    assert int(first.headers["Retry-After"]) > 0
    assert flips(engine, gid) == Counter({0: 1})  # applied by the first try
    again = api.post(f"/v1/games/{gid}/actions", json={"type": "flip"}, headers=headers)
    assert again.status_code == 200, again.json
    assert [e["type"] for e in again.json["events"]] == ["flipped"]
    assert flips(engine, gid) == Counter({0: 1})
    # with If-Match instead: the version it named is gone, so a refusal that changes nothing
    stale = {**auth(ana), "If-Match": f'"{created["version"]}"'}
    refused = api.post(f"/v1/games/{gid}/actions", json={"type": "flip"}, headers=stale)
    assert (refused.status_code, refused.json["code"]) == (412, "version_mismatch")
    assert flips(engine, gid) == Counter({0: 1})
    sound(engine, gid)


def test_a_create_whose_every_reply_is_lost_is_answered_by_its_keyed_retry(engine, api, faults):
    """The create's script ran but no reply came back: 503, and the retry with the same
    Idempotency-Key answers that game (same id, working tokens), indexed once."""
    faults.arm(engine.store._create.sha, times=RETRIES + 1)
    headers = {"Idempotency-Key": "c-down"}
    first = api.post("/v1/games", json=HUMANS, headers=headers)
    assert (first.status_code, first.json["code"]) == (503, "unavailable")
    redis_ = engine.store.redis
    assert redis_.zcard(CREATING) == 1 and redis_.zcard(ALL) == 0
    again = api.post("/v1/games", json=HUMANS, headers=headers)
    assert again.status_code == 201, again.json
    gid = again.json["id"]
    assert redis_.zrange(ALL, 0, -1) == [gid.encode()]
    assert redis_.zcard(CREATING) == 0
    for seat in again.json["seats"]:
        assert engine.seat_of(gid, seat["token"]) == seat["seat"]
    assert api.post("/v1/games", json=HUMANS, headers=headers).json == again.json
    sound(engine, gid)


def test_the_sweep_finishes_a_create_cut_short_before_its_index(engine, faults):
    """A create whose script ran and whose index never came (no Idempotency-Key to retry with):
    the sweep lists it with its status, so no game is made that nobody lists."""
    faults.arm(engine.store._create.sha, times=RETRIES + 1)
    with pytest.raises(redis.ConnectionError):
        engine.create(HUMANS)
    redis_ = engine.store.redis
    (gid,) = [k.decode().split("{")[1].split("}")[0] for k in redis_.scan_iter("game:*:events")]
    assert redis_.hget(STATUS, gid) is None
    engine.sweep()  # too recent: it could still be under way
    assert redis_.hget(STATUS, gid) is None
    # a minute on: past the time a create may take, well before the game could be abandoned
    later = add_seconds(utc_now(), 60)
    late = Engine(engine.store, clock=lambda: later)
    late.sweep()
    assert redis_.hget(STATUS, gid) == b"playing"
    assert redis_.zrange(ALL, 0, -1) == [gid.encode()]
    assert redis_.zcard(CREATING) == 0


# -- a rolled-back stream --------------------------------------------------------------------


def play(engine: Engine, gid: str, n: int, **kw) -> None:
    """`n` flips by whoever the stream awaits."""
    for _ in range(n):
        state = Engine(Store(engine.store.redis)).load(gid)
        engine.act(gid, awaited(state)[0], {"type": "flip"}, **kw)


@pytest.mark.parametrize("regrown", [False, True], ids=["shorter", "regrown"])
def test_a_rolled_back_stream_makes_the_next_append_refuse_and_reload(engine, regrown):
    """What must hold: "A Redis that loses acknowledged writes makes an API process append on its
    stale cached state: a game with a duplicated card whose chain still verifies." The stream
    is put back as an older DUMP had it (its snapshot left newer than it), and, `regrown`,
    another process appends to the same length: the cached process's next move is decided
    again on the stream's own state, and the game stays whole."""
    engine.snapshot_every = 4
    gid = engine.create(HUMANS)["id"]
    play(engine, gid, 6)
    redis_ = engine.store.redis
    dumped, at = redis_.dump(key(gid, "events")), engine.store.version(gid)
    play(engine, gid, 10)  # this process keeps the state 10 flips on, a snapshot past `at`
    kept = engine.kept.cached(gid)
    assert kept["version"] > at and int(redis_.hget(key(gid, "snap"), "v")) > at
    roll_back(redis_, key(gid, "events"), dumped)
    other = Engine(Store(redis_))
    if regrown:
        while other.store.version(gid) < kept["version"]:
            state = other.load(gid)
            other.act(gid, awaited(state)[0], {"type": "flip"})
        assert other.load(gid)["hash"] != kept["hash"]  # same length, another history
    tip = other.load(gid)
    assert engine.load(gid) == tip  # a read does not serve what the stream lost
    play(engine, gid, 1)
    events = engine.all_events(gid)
    assert events[tip["version"]]["prev"] == tip["hash"]  # built on the stream's tip
    sound(engine, gid)


def test_a_cached_state_the_stream_lost_is_not_appended_on_even_at_the_same_version(engine):
    """The append itself checks the tip's hash: a process deciding on what it kept (no read
    first) at the stream's very length, after the stream lost and regrew, is refused and
    decides again; with If-Match at the stream's version the move applies."""
    gid = engine.create(HUMANS)["id"]
    play(engine, gid, 2)
    redis_ = engine.store.redis
    dumped = redis_.dump(key(gid, "events"))
    play(engine, gid, 2)
    kept = engine.kept.cached(gid)
    roll_back(redis_, key(gid, "events"), dumped)
    other = Engine(Store(redis_))
    play(other, gid, 2)
    tip = other.load(gid)
    assert tip["version"] == kept["version"] and tip["hash"] != kept["hash"]
    seat = awaited(tip)[0]
    events, state = engine.act(gid, seat, {"type": "flip"}, expected=tip["version"])
    assert events[0]["prev"] == tip["hash"] and state["version"] == tip["version"] + 1
    with pytest.raises(Stale):  # If-Match of a version the stream no longer has: refused
        engine.act(gid, awaited(state)[0], {"type": "flip"}, expected=kept["version"])
    sound(engine, gid)


# -- the queue's keys lost -------------------------------------------------------------------


def test_the_sweep_comes_back_after_the_queue_is_lost_and_clocks_fire(redis_url, tmp_path):
    """What must hold: "Losing the queue's keys stops clocks, and the per-minute sweep that would
    restore them lives in that queue too." The worker's watchdog sees the sweep's next job gone
    and starts the chain again; the sweep restores the clock, which plays for the absent seat."""
    client = redis.Redis.from_url(redis_url, socket_timeout=30)
    env = {**os.environ, "REDIS_URL": redis_url, "BATAYO_SWEEP_EVERY_S": "2"}
    batayo = Path(sys.executable).parent / "batayo"
    log = (tmp_path / "worker.log").open("ab")
    worker = subprocess.Popen(
        [str(batayo), "worker"],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        store = Store(client)
        assert wait_until(lambda: store.armed_sweep() is not None, 30)  # the chain is running
        assert lose_queue(client) > 0
        # the chain's next job waits in the store's outbox until due: lost only once handed
        # over, so the outbox loses it here too, as if the queue lost it just after the pump
        client.delete("{outbox}:due", "{outbox}:jobs")
        assert not RQDispatcher(client).exists(store.armed_sweep())
        quiet = Engine(store)  # its create enqueues nothing: only a sweep can start the clock
        gid = quiet.create({**HUMANS, "options": {"move_timeout_s": 1}})["id"]
        clocked = lambda: any(e["actor"] == "clock" for e in quiet.all_events(gid))  # noqa: E731
        assert wait_until(clocked, 30), (tmp_path / "worker.log").read_text()[-3000:]
        chained = lambda: any(  # noqa: E731 - and the chain goes on: waiting, or queued
            f(store.armed_sweep()) for f in (store.outbox.holds, RQDispatcher(client).exists)
        )
        assert wait_until(chained, 10)
        assert "started it again" in (tmp_path / "worker.log").read_text()
        _stop(worker)  # its clocks go on playing: the log is read whole once they stop
        sound(quiet, gid)
    finally:
        _stop(worker)
        log.close()


def _stop(worker: subprocess.Popen) -> None:
    if worker.poll() is not None:
        return
    os.killpg(worker.pid, signal.SIGTERM)
    try:
        worker.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait()
