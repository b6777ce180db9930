"""Abandoned games (docs/rules/common.md#abandoned-games): a game in play with no new event for
`abandon_after_s` (default a week) ends with no winner, reason `abandoned`, and reveals its seed,
so a stranger who joins and never moves cannot freeze a game, nor keep its log unverifiable.
The sweep finds such games in the idle index and ends them through the engine's append."""

from __future__ import annotations

import fakeredis
import pytest

from service.api import create_app
from service.core import command
from service.core.game import add_seconds
from service.core.options import resolve_options
from service.core.registry import GAMES
from service.core.times import at_ms
from service.core.verify import verify
from service.engine import Engine
from service.engine.dispatch import QueueDispatcher
from service.store import Store
from service.store.index import IDLE, GameIndex
from tests.support.client import CheckedClient
from tests.support.helpers import auth

START = "2026-01-01T00:00:00.000000Z"
WEEK = 7 * 86_400
REMOTE = "203.0.113.7"  # a remote client (TEST-NET-3): loopback callers are not capped


class Clock:
    def __init__(self, now: str) -> None:
        self.now = now

    def __call__(self) -> str:
        return self.now

    def after(self, seconds: float) -> str:
        self.now = add_seconds(self.now, seconds)
        return self.now


class Served:
    """The engine on fakeredis with a clock the test moves, and a client checked against the
    contract (openapi.yaml), as a remote client at its address."""

    def __init__(self, **engine_kw) -> None:
        self.clock, self.jobs = Clock(START), QueueDispatcher()
        store = Store(fakeredis.FakeRedis())
        self.engine = Engine(store, self.jobs, clock=self.clock, **engine_kw)
        raw = create_app(self.engine).test_client()
        raw.environ_base["REMOTE_ADDR"] = REMOTE
        self.client = CheckedClient(raw)

    def run_jobs(self) -> None:
        self.jobs.run(lambda job, args: getattr(self.engine, job)(*args), now=self.clock.now)

    def create(self, options: dict, seats: list[dict]) -> dict:
        r = self.client.post(
            "/v1/games", json={"game": "bataille", "options": options, "seats": seats}
        )
        assert r.status_code == 201, r.json
        return r.json

    def idle(self) -> dict[str, float]:
        return {
            k.decode(): s for k, s in self.engine.store.redis.zrange(IDLE, 0, -1, withscores=True)
        }


HUMAN_AND_BOT = [{"name": "ana"}, {"bot": "random"}]
HUMANS = [{"name": "ana"}, {"name": "bob"}]


def test_a_game_whose_seat_never_moves_is_abandoned_after_abandon_after_s_and_verifies():
    s = Served()
    gid = s.create({"abandon_after_s": 60}, HUMAN_AND_BOT)["id"]
    s.run_jobs()  # the bot flips; ana never does
    last = s.engine.load(gid)["at"]
    assert s.idle() == {gid: at_ms(add_seconds(last, 60))}
    s.clock.now = add_seconds(last, 59.999999)
    s.engine.sweep()
    assert s.client.get(f"/v1/games/{gid}").json["status"] == "playing"

    s.clock.now = add_seconds(last, 60)
    s.engine.sweep()
    view = s.client.get(f"/v1/games/{gid}").json
    assert view["status"] == "finished"
    assert view["result"]["reason"] == "abandoned" and view["result"]["winners"] == []
    ended = s.client.get(f"/v1/games/{gid}/events").json["events"][-1]
    assert ended["type"] == "ended" and ended["data"]["cause"] == {"abandon": {}}
    assert ended["at"] == s.clock.now and ended["actor"] == "server"
    assert ended["data"]["server_seed"] == s.engine.store.meta(gid)["seed"]  # the seed revealed
    assert s.idle() == {}
    assert s.engine.store.listing(None, "finished", 0, 10)[0] == [(gid, "finished")]
    assert s.engine.store.counters()["games_abandoned"] == 1

    exported = s.client.get(f"/v1/games/{gid}/export").json
    report = verify(exported["events"])
    assert report["status"] == "ok" and report["seed_revealed"], report
    assert s.client.get(f"/v1/games/{gid}/verify").json["status"] == "ok"


def test_a_game_that_keeps_moving_is_never_abandoned():
    """The idle score is a bound from below: a game that moved since is given its real deadline
    by the sweep, and is abandoned only a full abandon_after_s after its last event."""
    s = Served()
    created = s.create({"abandon_after_s": 60}, HUMANS)
    gid, tokens = created["id"], [seat["token"] for seat in created["seats"]]
    for _ in range(6):  # six minutes of play, a move every 40 s, a sweep every 30 s
        s.clock.after(40)
        for seat in s.client.get(f"/v1/games/{gid}").json["to_move"]:
            r = s.client.post(
                f"/v1/games/{gid}/actions", json={"type": "flip"}, headers=auth(tokens[seat])
            )
            assert r.status_code == 200, r.json
        s.engine.sweep()
        s.clock.after(30)
        s.engine.sweep()
        state = s.engine.load(gid)
        if state["status"] == "finished":  # the game itself came to its end
            assert state["result"]["reason"] != "abandoned"
            return
        assert s.idle() == {gid: at_ms(add_seconds(state["at"], 60))}
    assert s.engine.load(gid)["status"] == "playing"


@pytest.mark.parametrize("value", [59, 0, -1, 365 * 86_400 + 1, "60", 60.5, True])
def test_an_abandon_after_s_out_of_bounds_is_a_400_problem_and_creates_nothing(value):
    s = Served()
    r = s.client.post(
        "/v1/games",
        json={"game": "bataille", "options": {"abandon_after_s": value}, "seats": HUMANS},
    )
    assert r.status_code == 400 and r.mimetype == "application/problem+json"
    assert r.json["code"] == "invalid_request" and "abandon_after_s" in r.json["detail"]
    assert s.client.get("/v1/games").json["games"] == []


def test_every_game_offers_the_option_with_its_default_in_the_rules():
    s = Served()
    for game in s.client.get("/v1/rules").json["games"]:
        option = next(o for o in game["options"] if o["name"] == "abandon_after_s")
        assert (option["default"], option["min"], option["type"]) == (WEEK, 60, "integer")


def stored_before_the_option(engine: Engine, game_id: str) -> None:
    """A two-human Bataille stored as a service did before `abandon_after_s` existed: its
    created event lacks the option, and it has no idle score."""
    options = resolve_options(GAMES["bataille"], {})
    del options["abandon_after_s"]
    seats = [{"seat": 0, "name": "ana"}, {"seat": 1, "name": "bob"}]
    seed = b"7" * 32
    cmd = command.create(game_id, "bataille", options, seats, seed, START, test=False)
    engine.store.create(game_id, {"seed": seed.hex(), "game": "bataille"}, cmd.events, "old")
    engine.store.game_index.add(game_id, "bataille", "playing", at_ms(START))  # no idle score
    assert "abandon_after_s" not in engine.all_events(game_id)[0]["data"]["options"]


def test_a_game_stored_before_the_option_has_its_default_and_is_abandoned_a_week_on():
    s = Served()
    gid = "0123456789abcdef"
    stored_before_the_option(s.engine, gid)
    assert s.idle() == {}
    assert s.client.get(f"/v1/games/{gid}").json["options"]["abandon_after_s"] == WEEK
    s.engine.sweep()  # the sweep's walk of the games in play gives it its idle score
    assert s.idle() == {gid: at_ms(add_seconds(START, WEEK))}
    s.clock.now = add_seconds(START, WEEK - 1)
    s.engine.sweep()
    assert s.engine.load(gid)["status"] == "playing"
    s.clock.now = add_seconds(START, WEEK)
    s.engine.sweep()
    state = s.engine.load(gid)
    assert state["status"] == "finished" and state["result"]["reason"] == "abandoned"
    export = s.client.get(f"/v1/games/{gid}/export").json
    assert verify(export["events"])["status"] == "ok"


def test_a_client_at_its_cap_creates_again_once_its_game_is_abandoned():
    s = Served(games_per_client=1)
    gid = s.create({"abandon_after_s": 60}, HUMANS)["id"]
    refused = s.client.post("/v1/games", json={"game": "bataille", "seats": HUMANS})
    assert (refused.status_code, refused.json["code"]) == (429, "too_many_games")
    s.clock.after(60)
    s.engine.sweep()
    assert s.engine.load(gid)["result"]["reason"] == "abandoned"
    assert s.client.post("/v1/games", json={"game": "bataille", "seats": HUMANS}).status_code == 201


def test_the_sweep_takes_due_games_in_bounded_pages(monkeypatch):
    """A pass looks at most IDLE_MOST due games (the rest wait for the next pass), and a game
    that cannot be ended now is skipped, not looked at again and again."""
    from service.engine import scheduling

    monkeypatch.setattr(scheduling, "IDLE_PAGE", 2)
    monkeypatch.setattr(scheduling, "IDLE_MOST", 4)
    s = Served()
    for _ in range(7):
        s.create({"abandon_after_s": 60}, HUMANS)
    s.clock.after(60)
    busy = s.engine.store.game_index.idle(at_ms(s.clock.now), 1)[0]  # the first due
    real = scheduling.Scheduler.abandon
    monkeypatch.setattr(
        scheduling.Scheduler,
        "abandon",
        lambda self, gid: "busy" if gid == busy else real(self, gid),
    )
    assert s.engine.scheduler.abandon_idle() == 3  # 4 looked at, the busy one among them
    assert s.engine.scheduler.abandon_idle() == 3
    assert sorted(s.idle()) == [busy]


def test_a_game_not_in_play_leaves_the_idle_index_when_the_sweep_finds_it():
    s = Served()
    gid = s.create({"abandon_after_s": 60}, [{"name": "ana"}, {"open": True}])["id"]
    assert s.idle() == {}  # open: not in play, nobody to wait for yet
    s.engine.store.game_index.keep_idle({gid: 0}, new=True)  # a stale entry (an end lost, say)
    assert s.engine.abandon(gid) == "not playing" and s.idle() == {}


def test_the_idle_index_is_kept_with_the_status_on_every_store(any_redis):
    """One slot with the listing index (`{games}`), so a cluster keeps it in the same script."""
    index = GameIndex(any_redis)
    index.add("a", "bataille", "playing", 1, idle_ms=500)
    index.add("b", "bataille", "open", 2, idle_ms=None)
    index.set_status("b", "playing", idle_ms=700)
    index.add("c", "bataille", "playing", 3, idle_ms=900)
    assert index.idle(800, 10) == ["a", "b"] and index.idle(800, 1, start=1) == ["b"]
    index.keep_idle({"a": 1000, "z": 5})  # only games still in it are scored again
    index.keep_idle({"b": 1, "y": 600}, new=True)  # only games not in it yet are added
    assert index.idle(10_000, 10) == ["y", "b", "c", "a"]
    index.set_status("a", "finished")
    index.drop_idle("y")
    assert index.idle(10_000, 10) == ["b", "c"]


def test_a_seeded_test_game_has_the_id_the_same_request_had_before_the_option():
    """A test game's id is its request's: the option at its default leaves it as it was (so a
    request repeated across the upgrade finds its game), another value makes another game."""
    from service.engine.creating import plan

    body = {"game": "bataille", "seed": "ab" * 32, "seats": HUMANS}
    assert plan(body, True).id == "6661355eb344afc0"  # what 4cb5e2b made of this request
    assert plan({**body, "options": {"abandon_after_s": WEEK}}, True).id == "6661355eb344afc0"
    assert plan({**body, "options": {"abandon_after_s": 60}}, True).id != "6661355eb344afc0"
