"""Nothing stops for good when the job queue (BATAYO_QUEUE_URL, a plain Redis of its own) goes
away while the store is fine: workers and their pumps wait and go on, actions are answered and
their jobs wait in the store's outbox, clocks are never behind bot moves, and the health checks
say what is up and what is down."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time

import fakeredis
import pytest
import redis

from service.api import create_app
from service.cli.working import run
from service.core.clocks import due_timers
from service.core.game import add_seconds
from service.engine import Engine
from service.engine.dispatch import InlineDispatcher, OutboxDispatcher, RQDispatcher
from service.store import Store
from service.store.outbox import STALE_MS, Beats
from tests.support.processes import start_worker, wait_until
from tests.support.redis_server import RedisServer
from tests.support.serving import BATAYO

BOTS = {"game": "bataille", "seats": [{"bot": "random"}, {"bot": "greedy"}]}
# the queue keeps what it held across its restart (as a queue with persistence would)
KEEPS = ("--appendonly", "yes", "--appendfsync", "always")


@pytest.fixture
def queue_server(tmp_path):
    server = RedisServer(tmp_path / "queue", *KEEPS)
    yield server
    server.stop()


def engine_on(store_client: redis.Redis, queue_client: redis.Redis, **kw) -> Engine:
    store = Store(store_client)
    return Engine(store, OutboxDispatcher(store.outbox, RQDispatcher(queue_client)), **kw)


def stop(process: subprocess.Popen, sig=signal.SIGTERM) -> None:
    if process.poll() is not None:
        return
    os.killpg(process.pid, sig)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def healthcheck(env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(
        [BATAYO, "healthcheck", "worker"],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=30,
    )


# -- the worker and its pump outlive the queue ------------------------------------------------


@pytest.mark.redis
def test_a_workers_loop_never_waits_long_for_its_command_channels_thread(queue_server):
    """service/cli/working.py `_stop`: RQ's command channel is a thread of redis-py's reading
    with a 60 s timeout, and redis-py 8 waits for it to end on `stop`; a loop that stopped just
    as the thread went back to reading waited that long, and the games with it. A stop, and
    a worker's unsubscribe, wait a second at most."""
    from service.cli.working import COMMANDS_STOP_S, _stop, worker_class

    client = queue_server.client()
    pubsub = client.pubsub()
    pubsub.subscribe(**{"batayo-test-commands": lambda message: None})
    thread = pubsub.run_in_thread(sleep_time=60, daemon=True)
    time.sleep(0.3)  # reading, with nothing to come
    started = time.monotonic()
    _stop(thread)
    assert time.monotonic() - started < 2 * COMMANDS_STOP_S + 1
    client.publish("batayo-test-commands", "wake")  # its read returns; stopped, it ends
    thread.join(5)
    assert not thread.is_alive()

    worker = worker_class(fork=False, grace=5.0)(["batayo-test"], connection=client)
    worker.subscribe()
    time.sleep(0.3)
    started = time.monotonic()
    worker.unsubscribe()
    assert time.monotonic() - started < 2 * COMMANDS_STOP_S + 1


@pytest.mark.redis
@pytest.mark.slow
def test_a_worker_outlives_the_queue_going_away_and_its_games_and_clocks_go_on(
    real_redis, redis_url, queue_server, tmp_path
):
    engine = engine_on(real_redis, queue_server.client())
    log = tmp_path / "worker.log"
    env = {"BATAYO_QUEUE_URL": queue_server.url, "BATAYO_SWEEP_EVERY_S": "3600"}
    worker = start_worker(log, redis_url, **env)
    try:
        bots = engine.create({**BOTS, "options": {"max_rounds": 400}})["id"]
        timed = engine.create(
            {
                "game": "bataille",
                "options": {"move_timeout_s": 1, "max_rounds": 400},
                "seats": [{"name": "ana"}, {"bot": "random"}],
            }
        )["id"]
        clock_moves = lambda: sum(e["actor"] == "clock" for e in engine.all_events(timed))  # noqa: E731
        assert wait_until(lambda: engine.load(bots)["version"] > 5 and clock_moves() >= 1, 30), (
            log.read_text()[-3000:]
        )
        queue_server.stop()
        time.sleep(5)  # RQ's own loop quits within this, and its scheduler child too
        assert worker.poll() is None, log.read_text()[-3000:]
        before, clocks_before = engine.load(bots)["version"], clock_moves()
        queue_server.start_again()

        # no sweep comes (every hour): the worker, its pump and the jobs waiting go on by
        # themselves
        # the bots' game moves on (or has reached its end: a short Bataille may)
        def moved_on() -> bool:
            state = engine.load(bots)
            return state["version"] > before + 10 or state["status"] != "playing"

        assert wait_until(moved_on, 30), log.read_text()[-3000:]
        assert wait_until(lambda: clock_moves() >= clocks_before + 2, 30), log.read_text()[-3000:]
        assert worker.poll() is None
    finally:
        stop(worker)


# -- an action while the queue is away ---------------------------------------------------------


@pytest.mark.redis
@pytest.mark.slow
def test_an_action_while_the_queue_is_away_is_answered_and_its_bots_move_once_it_is_back(
    real_redis, redis_url, queue_server, tmp_path
):
    engine = engine_on(real_redis, queue_server.client())
    client = create_app(engine).test_client()
    log = tmp_path / "worker.log"
    env = {"BATAYO_QUEUE_URL": queue_server.url, "BATAYO_SWEEP_EVERY_S": "3600"}
    worker = start_worker(log, redis_url, **env)  # its one sweep at start runs now, not later
    try:
        assert wait_until(lambda: healthcheck({"REDIS_URL": redis_url}).returncode == 0, 30)
        queue_server.stop()
        created = client.post(
            "/v1/games", json={"game": "bataille", "seats": [{"name": "ana"}, {"bot": "random"}]}
        )
        assert created.status_code == 201, created.json
        gid, token = created.json["id"], created.json["seats"][0]["token"]
        auth = {"Authorization": f"Bearer {token}", "Idempotency-Key": "first-flip"}
        action = {"type": "flip"}
        answered = client.post(f"/v1/games/{gid}/actions", json=action, headers=auth)
        assert answered.status_code == 200, answered.json
        again = client.post(f"/v1/games/{gid}/actions", json=action, headers=auth)
        assert again.status_code == 200 and again.json == answered.json
        version = engine.load(gid)["version"]
        time.sleep(1)
        assert engine.load(gid)["version"] == version  # nothing moves without the queue
        queue_server.start_again()
        assert wait_until(lambda: engine.load(gid)["version"] > version, 20), log.read_text()[
            -3000:
        ]
    finally:
        stop(worker)


# -- clocks are never behind bot moves --------------------------------------------------------


def test_the_embedded_worker_runs_a_due_clock_before_the_bot_moves_waiting():
    """Bot moves that keep coming (each job enqueues the game's next, as 60 all-bot games do)
    never hold a due clock back: it runs next, however many wait (the jobs started after it
    was due and before it are counted, not timed)."""
    ran: list[tuple[str, float]] = []
    done = threading.Event()

    def call(job: str, args: tuple) -> None:
        ran.append((job, time.time()))
        if job == "fire_timer":
            done.set()
            return
        time.sleep(0.0003)  # a bot move's work
        if args[1] < 200:  # the game's next bot move
            dispatcher.enqueue("bot_moves", (args[0], args[1] + 1))

    dispatcher = InlineDispatcher(call)
    try:
        for game in range(60):
            dispatcher.enqueue("bot_moves", (f"g{game}", 0))
        due = time.time() + 0.3
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(due)) + f".{int(due % 1 * 1e6):06d}Z"
        dispatcher.enqueue("fire_timer", ("clocked", "move:0"), at=stamp)
        assert done.wait(60)
    finally:
        dispatcher.stop()
    clock_at = next(t for job, t in ran if job == "fire_timer")
    ahead = [job for job, t in ran if due <= t < clock_at]
    assert len(ahead) <= 1, len(ahead)  # the job under way when it fell due, at most
    assert clock_at - due < 2.0  # within 1 s, with a 2x margin


@pytest.mark.redis
@pytest.mark.slow
def test_a_due_clock_goes_ahead_of_sixty_games_of_bot_moves_through_rq(
    real_redis, redis_url, queue_server, tmp_path
):
    engine = engine_on(real_redis, queue_server.client())
    log = tmp_path / "worker.log"
    env = {"BATAYO_QUEUE_URL": queue_server.url, "BATAYO_SWEEP_EVERY_S": "3600"}
    games = [engine.create({**BOTS, "options": {"max_rounds": 2000}})["id"] for _ in range(60)]
    worker = start_worker(log, redis_url, **env)
    try:
        assert wait_until(lambda: all(engine.load(g)["version"] > 4 for g in games[:10]), 60)
        timed = engine.create(
            {
                "game": "bataille",
                "options": {"move_timeout_s": 1},
                "seats": [{"name": "ana"}, {"bot": "random"}],
            }
        )["id"]
        due = dict(due_timers(engine.load(timed)))["move:0"]
        fired = lambda: [e for e in engine.all_events(timed) if e["actor"] == "clock"]  # noqa: E731
        assert wait_until(lambda: bool(fired()), 30), log.read_text()[-3000:]
        at = fired()[0]["at"]
        # bot moves made between the clock's due time and its firing: a job or two under way,
        # never the sixty games' queue
        between = sum(
            1
            for g in games
            for e in engine.all_events(g)
            if due < e["at"] < at and e["actor"] == "bot"
        )
        assert between <= 12, (due, at, between)
        assert at <= add_seconds(due, 2)  # within 1 s, with a 2x margin
    finally:
        stop(worker)


# -- what the health checks say ----------------------------------------------------------------


@pytest.mark.redis
def test_readyz_names_the_store_the_queue_and_the_workers_and_fails_for_the_store_only(
    real_redis, queue_server
):
    engine = engine_on(real_redis, queue_server.client())
    client = create_app(engine).test_client()
    ready = client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json == {"status": "ready", "store": "ok", "queue": "ok", "workers": "none"}
    queue_server.stop()
    away = client.get("/readyz")
    assert away.status_code == 200, away.json  # the store takes every action meanwhile
    assert away.json == {"status": "ready", "store": "ok", "queue": "down", "workers": "none"}
    queue_server.start_again()
    gone = Store(redis.Redis(port=1, socket_timeout=1, socket_connect_timeout=1))
    down = Engine(gone, OutboxDispatcher(gone.outbox, RQDispatcher(queue_server.client())))
    refused = create_app(down).test_client().get("/readyz")
    assert refused.status_code == 503
    assert refused.json["code"] == "not_ready"
    assert (refused.json["store"], refused.json["queue"]) == ("down", "ok")


def test_a_worker_whose_pump_or_loop_stopped_beating_is_dead():
    beats = Beats(fakeredis.FakeRedis())
    now = 1_000_000
    beats.beat("h|1", "pump", now)
    beats.beat("h|1", "loop", now)
    beats.beat("h|2", "pump", now)
    beats.beat("h|2", "loop", now - STALE_MS - 1)  # its loop stopped
    beats.beat("h|3", "pump", now - STALE_MS - 1)  # its pump stopped
    beats.beat("h|3", "loop", now)
    beats.beat("h|4", "pump", now)
    beats.beat("h|4", "loop", now - 60_000, "busy")  # in a long job: alive
    beats.beat("other|5", "pump", now)
    beats.beat("other|5", "loop", now)
    alive, dead = beats.alive(now, "h")
    assert alive == ["h|1", "h|4"]
    assert dict(dead) == {"h|2": "its worker loop stopped", "h|3": "its pump stopped"}


@pytest.mark.redis
@pytest.mark.slow
def test_the_worker_healthcheck_says_a_killed_worker_is_dead_within_ten_seconds(
    redis_url, tmp_path
):
    env = {"REDIS_URL": redis_url}
    worker = start_worker(tmp_path / "worker.log", redis_url)
    try:
        assert wait_until(lambda: healthcheck(env).returncode == 0, 30)
        os.killpg(worker.pid, signal.SIGKILL)  # no goodbye: its beats just stop
        worker.wait()
        killed = time.monotonic()
        assert wait_until(lambda: healthcheck(env).returncode == 1, 10)
        assert time.monotonic() - killed < 10
        assert "no worker" in healthcheck(env).stderr
    finally:
        stop(worker)


class Queue:
    """The job queue as the worker's loop asks it: away for the first `away` pings."""

    def __init__(self, away: int = 0) -> None:
        self.away, self.pings = away, 0

    def ping(self) -> bool:
        self.pings += 1
        if self.pings <= self.away:
            raise redis.ConnectionError("away")
        return True


def test_a_job_the_lost_queue_cut_short_is_given_back_and_the_loop_goes_on():
    """RQ pops a job from one of several queues and keeps no trace of it if its start then
    fails: the queue went away between the pop and the start. The worker gives that job back
    (into the outbox) instead of leaving it to the sweep, and its loop starts again."""

    class Held:
        id = "bots-g-71"

    class Loop:
        made = 0

        def __init__(self) -> None:
            Loop.made += 1
            self.first = Loop.made == 1
            self._stop_requested = False
            self.holding = None

        def work(self, burst: bool = False) -> None:
            if self.first:  # took a job, then the queue went away under it
                self.holding = Held()
                raise redis.ConnectionError("the queue went away")
            self._stop_requested = True  # the next loop runs until it is asked to stop

    given: list = []
    run(Loop, Queue(), wait_s=0, give_back=given.append)
    assert [job.id for job in given] == ["bots-g-71"] and Loop.made == 2


def test_a_worker_started_while_the_queue_is_away_waits_for_it():
    """RQ asks the queue as it makes a worker: a worker started (or restarted) while the queue
    is away waits until it answers, then works, instead of exiting and leaving games without
    a worker where nothing restarts it."""

    class Loop:
        made = 0

        def __init__(self) -> None:
            Loop.made += 1
            if Loop.made < 3:
                raise redis.ConnectionError("Error 111 connecting: Connection refused")
            self._stop_requested = False
            self.holding = None

        def work(self, burst: bool = False) -> None:
            self._stop_requested = True

    queue = Queue(away=3)
    run(Loop, queue, wait_s=0)
    assert Loop.made == 3 and queue.pings >= 4


class Blinking:
    """A job queue that is away for the first `away` calls of the pump, then answers."""

    def __init__(self, away: int) -> None:
        self.away, self.handed = away, []
        self.connection = self

    def ping(self) -> bool:
        return True

    def _maybe_away(self) -> None:
        if self.away > 0:
            self.away -= 1
            raise redis.ConnectionError("away")

    def hand(self, jobs) -> int:
        self._maybe_away()
        self.handed += list(jobs)
        return len(self.handed)

    def move_retries(self) -> int:
        self._maybe_away()
        return 0


def test_a_pump_that_regains_the_queue_asks_for_a_sweep_at_once():
    """A job the queue handed out as it went down (popped, its reply lost) is in no list and no
    outbox: once the queue answers again, the pump puts a sweep due now, so every game in play
    gets its work back without waiting for the next scheduled sweep."""
    from workers.pump import Pump

    store = Store(fakeredis.FakeRedis())
    pump = Pump(store, Blinking(away=1))
    stop = threading.Event()
    thread = threading.Thread(target=pump.run, args=(stop,), daemon=True)
    thread.start()
    try:
        assert wait_until(lambda: any(j[1] == "sweep" for j in pump.queue.handed), 5)
    finally:
        stop.set()
        thread.join(5)
    sweeps = [j for j in pump.queue.handed if j[1] == "sweep"]
    assert len(sweeps) == 1 and sweeps[0][2] == [0]
