"""The bots' pace (docs/api.md#bot-pace): option `bot_pace_ms`, whose default is the server
setting BATAYO_BOT_PACE_MS. A paced bot move is a job due that long after the last event, so
nothing moves before it; a human's clock starts when the paced move lands; `simulate` and the
refold ignore the pace; once no human seat plays, a seat holder may skip to the end.

Time is a fake clock here, and the jobs run only once due: what is counted is the work done
before and after the due time, not a latency."""

from __future__ import annotations

import itertools
import json
import threading
import time

import fakeredis
import pytest

from service.core.game import add_seconds
from service.core.options import BOT_PACE_MAX_MS
from service.core.pace import pace_ms
from service.core.times import at_ms, moment
from service.core.verify import verify
from service.engine import Engine
from service.engine.dispatch import InlineDispatcher, OutboxDispatcher
from service.settings import Settings, SettingsError, load
from service.sim.simulate import simulate
from service.store import Store
from tests.support.golden import path as golden_path
from tests.support.helpers import auth
from tests.support.service import Service

T0 = "2026-01-01T00:00:00.000000Z"


class Clock:
    def __init__(self, now: str) -> None:
        self.now = now

    def __call__(self) -> str:
        return self.now


def paced_service(pace_ms: int = 0) -> tuple[Service, Clock]:
    svc, clock = Service(), Clock(T0)
    svc.engine.clock = clock
    svc.engine.bot_pace_ms = pace_ms
    return svc, clock


def run_due(svc: Service, clock: Clock) -> int:
    return svc.jobs.run(lambda job, args: getattr(svc.engine, job)(*args), now=clock.now)


def create(svc: Service, **body) -> dict:
    r = svc.client.post("/v1/games", json=body)
    assert r.status_code == 201, r.json
    return r.json


def human_and_bot(svc: Service, **options) -> tuple[str, str]:
    made = create(svc, game="bataille", options=options, seats=[{"name": "ana"}, {"bot": "random"}])
    return made["id"], made["seats"][0]["token"]


# -- the option and the setting ----------------------------------------------------------------


def test_the_setting_defaults_to_0_and_is_bounded_as_the_option(monkeypatch):
    assert Settings().bot_pace_ms == 0
    monkeypatch.setenv("BATAYO_BOT_PACE_MS", "500")
    assert Settings().bot_pace_ms == 500
    for bad in ("-1", str(BOT_PACE_MAX_MS + 1), "soon"):
        monkeypatch.setenv("BATAYO_BOT_PACE_MS", bad)
        with pytest.raises(SettingsError, match="BATAYO_BOT_PACE_MS"):
            load()
    monkeypatch.setenv("BATAYO_BOT_PACE_MS", str(BOT_PACE_MAX_MS))
    assert Settings().bot_pace_ms == BOT_PACE_MAX_MS


@pytest.mark.parametrize("bad", [-1, BOT_PACE_MAX_MS + 1, 0.5, "fast", None])
def test_a_pace_out_of_bounds_is_a_400_and_makes_nothing(bad):
    svc, _ = paced_service()
    r = svc.client.post(
        "/v1/games",
        json={"game": "bataille", "options": {"bot_pace_ms": bad}, "seats": [{"name": "a"}] * 2},
    )
    assert r.status_code == 400 and r.json["code"] == "invalid_request"
    assert "bot_pace_ms" in r.json["detail"]
    assert list(svc.engine.store.playing()) == []


def test_the_servers_pace_is_recorded_in_a_game_with_a_human_seat_only():
    svc, _ = paced_service(pace_ms=450)
    gid, _ = human_and_bot(svc)
    created = svc.engine.all_events(gid, 0, 1)[0]
    assert created["data"]["options"]["bot_pace_ms"] == 450  # in the log: replays show it
    assert svc.client.get(f"/v1/games/{gid}").json["options"]["bot_pace_ms"] == 450
    chosen, _ = human_and_bot(svc, bot_pace_ms=0)  # the create's own choice wins
    assert svc.engine.load(chosen)["options"]["bot_pace_ms"] == 0
    bots = create(svc, game="bataille", seats=[{"bot": "random"}, {"bot": "greedy"}])
    assert svc.engine.load(bots["id"])["options"]["bot_pace_ms"] == 0  # nobody to follow


# -- scheduling --------------------------------------------------------------------------------


def test_a_paced_bot_move_lands_no_earlier_than_the_pace():
    svc, clock = paced_service()
    gid, token = human_and_bot(svc, bot_pace_ms=400)
    start = svc.engine.store.version(gid)
    clock.now = add_seconds(T0, 0.399)
    run_due(svc, clock)
    assert svc.engine.store.version(gid) == start  # not due: the bot has not moved
    clock.now = add_seconds(T0, 0.4)
    assert run_due(svc, clock) == 1
    flipped = svc.engine.all_events(gid, start)
    assert [e["actor"] for e in flipped] == ["bot"] and flipped[0]["at"] == clock.now
    # the human's move, then the bot's next one: again the pace after the last event
    r = svc.client.post(f"/v1/games/{gid}/actions", json={"type": "flip"}, headers=auth(token))
    assert r.status_code == 200
    human_at = svc.engine.load(gid)["at"]
    assert run_due(svc, clock) == 0
    clock.now = add_seconds(human_at, 0.4)
    assert run_due(svc, clock) == 1
    assert svc.engine.all_events(gid)[-1]["at"] >= add_seconds(human_at, 0.4)


def test_without_a_pace_the_bot_moves_at_once():
    svc, clock = paced_service()
    gid, _ = human_and_bot(svc)
    start = svc.engine.store.version(gid)
    assert run_due(svc, clock) == 1 and svc.engine.store.version(gid) > start


def test_a_humans_clock_starts_when_the_paced_bot_move_lands():
    svc, clock = paced_service()
    gid, token = human_and_bot(svc, bot_pace_ms=2000, move_timeout_s=30)
    svc.client.post(f"/v1/games/{gid}/actions", json={"type": "flip"}, headers=auth(token))
    view = svc.client.get(f"/v1/games/{gid}", headers=auth(token)).json
    assert view["to_move"] == [1] and "move:0" not in view["clocks"]  # ana waits for the bot
    clock.now = add_seconds(T0, 2)
    run_due(svc, clock)
    view = svc.client.get(f"/v1/games/{gid}", headers=auth(token)).json
    landed = svc.engine.all_events(gid)[-1]["at"]
    assert landed == clock.now and view["to_move"] == [0, 1]
    assert view["clocks"]["move:0"] == add_seconds(landed, 30)  # not T0 + 30


def test_a_paced_job_waits_in_the_outbox_to_the_millisecond():
    """Under `batayo worker` the paced job is an outbox entry due at the last event's time plus
    the pace: no pump hands it to a worker before, one does at its due time."""
    store = Store(fakeredis.FakeRedis())
    clock = Clock(T0)
    engine = Engine(store, OutboxDispatcher(store.outbox), clock=clock)
    made = engine.create(
        {
            "game": "bataille",
            "options": {"bot_pace_ms": 750},
            "seats": [{"name": "ana"}, {"bot": "random"}],
        }
    )
    due = at_ms(T0) + 750
    assert store.outbox.claim(due - 1) == []
    claimed = store.outbox.claim(due)
    assert [(body["job"], body["args"], body["due"]) for _, body, _ in claimed] == [
        ("bot_moves", [made["id"], made["version"]], due)
    ]


def test_an_idle_pump_looks_again_when_the_next_job_falls_due():
    """The pump of `batayo worker` waits for new work at most POLL_S, less when an outbox
    entry falls due sooner: a paced move is handed over at its due time, not POLL_S late."""
    from workers.pump import POLL_S, SOONEST_S, Pump

    store = Store(fakeredis.FakeRedis())
    pump = Pump(store, queue=None)
    assert pump.idle_wait() == POLL_S  # nothing waits
    now = int(time.time() * 1000)
    store.outbox.put("bots-g-2", "bot_moves", ("g", 2), now + 10_000)
    assert pump.idle_wait() == POLL_S  # nothing falls due before the next look
    store.outbox.put("bots-g-1", "bot_moves", ("g", 1), now + 60)
    assert SOONEST_S <= pump.idle_wait() <= 0.06
    store.outbox.put("timer-g", "fire_timer", ("g", "move:0"), now - 5)  # a clock due already
    assert pump.idle_wait() == SOONEST_S


def test_a_paced_job_holds_no_worker_and_a_clock_is_not_behind_it():
    """The embedded worker (one thread) runs a clock due while a paced bot move waits."""
    engine = Engine(Store(fakeredis.FakeRedis()))
    ran: list[str] = []
    done = threading.Event()

    def call(job: str, args: tuple) -> None:
        ran.append(job)
        if job == "fire_timer":
            done.set()

    engine.dispatcher = dispatcher = InlineDispatcher(call)
    try:
        dispatcher.enqueue("bot_moves", ("g", 1), at=add_seconds(engine.clock(), 5))
        dispatcher.enqueue("fire_timer", ("g", "move:0"), at=add_seconds(engine.clock(), 0.05))
        assert done.wait(2), "the clock waited behind the paced bot move"
        assert ran == ["fire_timer"]
    finally:
        dispatcher.stop()


def test_paced_bot_moves_in_real_time_land_after_the_pace():
    """The embedded worker, on the real clock: each bot move at least the pace after the event
    before it, the human's (and within twice the pace at least once: the wait is not longer).
    Bots awaited together move in one job, so one pace after the last event."""
    pace = 0.15
    engine = Engine(Store(fakeredis.FakeRedis()))
    engine.dispatcher = InlineDispatcher(lambda job, args: getattr(engine, job)(*args))
    try:
        made = engine.create(
            {
                "game": "bataille",
                "options": {"bot_pace_ms": int(pace * 1000), "players": 3},
                "seats": [{"name": "ana"}, {"bot": "random"}, {"bot": "random"}],
            }
        )
        gid = made["id"]
        gaps: list[float] = []
        for _ in range(2):
            seen = engine.store.version(gid)
            engine.act(gid, 0, {"type": "flip"})
            for _ in range(200):  # till the bots have moved, at their pace, and ana is awaited
                state = engine.load(gid)
                if state["status"] != "playing" or 0 in engine.view(gid, 0)["to_move"]:
                    break
                threading.Event().wait(0.02)
            events = engine.all_events(gid, seen)
            for before, bot in itertools.pairwise(events):
                if bot["actor"] == "bot" and before["actor"] != "bot":
                    gaps.append((moment(bot["at"]) - moment(before["at"])).total_seconds())
        assert len(gaps) >= 2
        assert min(gaps) >= pace, gaps
        assert min(gaps) < 2 * pace, gaps
    finally:
        engine.dispatcher.stop()


# -- what ignores the pace ---------------------------------------------------------------------


def test_a_golden_log_has_no_pace_and_reads_as_0():
    """Logs made before the option have none in their `created` event: they verify as written
    and read as pace 0 (tests/test_golden_logs.py refolds them all)."""
    export = json.loads(golden_path("bataille-humans-seeded").read_text())
    assert "bot_pace_ms" not in export["events"][0]["data"]["options"]
    assert verify(export["events"])["status"] == "ok"
    created = export["events"][0]["data"]
    assert any("bot" not in s for s in created["seats"])  # a person's seat: the pace would apply
    assert pace_ms({"options": created["options"], "seats": created["seats"]}) == 0


def test_simulate_ignores_the_pace():
    paced, _ = simulate("bataille", 3, {"bot_pace_ms": BOT_PACE_MAX_MS}, ["random"], b"s" * 16)
    plain, _ = simulate("bataille", 3, {}, ["random"], b"s" * 16)
    for summary in (paced, plain):
        summary.pop("games_per_s")
    assert paced == plain


def test_a_test_games_id_is_the_same_with_the_default_pace():
    svc, _clock = paced_service()
    body = {
        "game": "bataille",
        "seed": "ab" * 32,
        "options": {"deck": 32},
        "seats": [{"name": "ana"}, {"bot": "random"}],
    }
    plain = create(svc, **body)["id"]
    svc2, _ = paced_service()
    body["options"] = {"deck": 32, "bot_pace_ms": 0}
    assert create(svc2, **body)["id"] == plain  # the default leaves a test game's id as it was
    body["options"] = {"deck": 32, "bot_pace_ms": 300}
    assert create(svc2, **body)["id"] != plain


# -- skip to the end ---------------------------------------------------------------------------


def out_first(svc: Service, pace_ms: int) -> tuple[str, str]:
    """docs/rules/bataille.md#rule-7: ana's one card loses the first round; she is out."""
    made = create(
        svc,
        game="bataille",
        options={"players": 3, "bot_pace_ms": pace_ms, "max_rounds": 40},
        seats=[{"name": "ana"}, {"bot": "random"}, {"bot": "random"}],
        deal={"packs": [["2S"], ["QS", "3H", "7S", "4S"], ["KH", "5H", "8D", "9C"]]},
    )
    return made["id"], made["seats"][0]["token"]


def test_skip_to_the_end_once_no_human_plays():
    svc, clock = paced_service()
    gid, token = out_first(svc, 1000)
    early = svc.client.post(f"/v1/games/{gid}/skip", headers=auth(token))
    assert early.status_code == 409 and early.json["code"] == "cannot_skip"
    assert svc.client.get(f"/v1/games/{gid}").json["skippable"] is False
    svc.client.post(f"/v1/games/{gid}/actions", json={"type": "flip"}, headers=auth(token))
    clock.now = add_seconds(T0, 1)
    run_due(svc, clock)  # the bots flip: ana's 2S loses, and she is out
    view = svc.client.get(f"/v1/games/{gid}", headers=auth(token)).json
    assert view["status"] == "playing" and view["table"]["players"][0]["out"] is True
    assert view["skippable"] is True
    assert run_due(svc, clock) == 0  # the next bot move waits for its pace
    assert svc.client.post(f"/v1/games/{gid}/skip").status_code == 401  # a seat holder asks
    skipped = svc.client.post(f"/v1/games/{gid}/skip", headers=auth(token))
    assert skipped.status_code == 200 and skipped.json["bot_pace_ms"] == 0
    run_due(svc, clock)  # at the same instant: every remaining move at full speed
    assert svc.engine.load(gid)["status"] == "finished"
    export = svc.client.get(f"/v1/games/{gid}/export").json
    assert export["events"][0]["data"]["options"]["bot_pace_ms"] == 1000
    assert verify(export["events"])["status"] == "ok"  # the refold ignores pace and skip
    again = svc.client.post(f"/v1/games/{gid}/skip", headers=auth(token))
    assert again.status_code == 409 and again.json["code"] == "game_over"


def test_no_skip_without_a_pace():
    svc, _ = paced_service()
    gid, token = out_first(svc, 0)
    svc.client.post(f"/v1/games/{gid}/actions", json={"type": "flip"}, headers=auth(token))
    svc.engine.bot_moves(gid, svc.engine.store.version(gid))  # one job: the bots flip, ana is out
    view = svc.client.get(f"/v1/games/{gid}").json
    assert view["status"] == "playing" and view["table"]["players"][0]["out"] is True
    assert view["skippable"] is False  # nothing to skip: the bots already play at once
    r = svc.client.post(f"/v1/games/{gid}/skip", headers=auth(token))
    assert r.status_code == 409 and r.json["code"] == "cannot_skip"
