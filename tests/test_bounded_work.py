"""Bounded work per game. Sane maxima for `max_rounds` and the time options
(a clear 400 beyond, nothing created); a per-game event budget that ends a game as its rules say
(docs/rules/common.md#event-budget: "A per-game event budget ... ends a game the same way with
reason `event_limit`"); a per-client cap on games in play (a clear 429)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import fakeredis
import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.api import create_app
from service.core.command import EVENT_BUDGET
from service.core.game import RuleError
from service.core.options import options_of
from service.core.registry import GAMES
from service.engine import Engine
from service.engine.dispatch import QueueDispatcher
from service.sim.table import Table
from service.store import Store
from tests.support.client import CheckedClient

BOTS = {"bataille": 2, "batayo": 2, "batak": 4, "roylet": 3}


def bots(game: str) -> list[dict]:
    return [{"bot": "greedy"}] * BOTS[game]


# -- maxima ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "option", "too_much"),
    [
        ("bataille", "max_rounds", 20_001),
        ("batayo", "max_rounds", 5_001),
        ("batak", "max_rounds", 101),
        ("roylet", "rounds", 101),
        ("roylet", "losing_streak", 101),
        ("roylet", "max_replays", 101),
        ("bataille", "move_timeout_s", 86_401),
        ("batayo", "time_limit_s", 7 * 86_400 + 1),
        ("bataille", "max_rounds", 1_000_000),  # the issue's: accepted before
    ],
)
def test_an_option_beyond_its_maximum_is_a_400_and_creates_nothing(svc, game, option, too_much):
    r = svc.client.post(
        "/v1/games", json={"game": game, "options": {option: too_much}, "seats": bots(game)}
    )
    assert (r.status_code, r.json["code"]) == (400, "invalid_request")
    assert option in r.json["detail"] and str(too_much) in r.json["detail"]
    assert svc.client.get("/v1/games").json["games"] == []


def test_every_bound_option_has_a_maximum_the_rules_list_shows(svc):
    """A client can read each bound before it asks: /v1/rules lists every option's maximum."""
    rules = {g["id"]: g for g in svc.client.get("/v1/rules").json["games"]}
    for name, game in GAMES.items():
        listed = {o["name"]: o for o in rules[name]["options"]}
        for option in options_of(game):
            if option.kind() == "integer" and option.choices is None:
                assert option.max is not None, (name, option.name)
                assert listed[option.name]["max"] == option.max


def test_the_largest_max_rounds_stays_under_the_event_budget():
    """docs/rules/common.md#event-budget: the budget is "set above what the largest allowed
    max_rounds can produce": games of greedy bots at each game's most rounds, counted in events per
    round."""
    for game, players in (("bataille", 2), ("bataille", 6), ("batayo", 2), ("batayo", 4)):
        most = next(o.max for o in options_of(GAMES[game]) if o.name == "max_rounds")
        worst = 0.0
        for i in range(6):
            options = {"max_rounds": 200, "players": players}
            seats = [{"bot": "greedy"}] * players
            t = Table(game, options, seats, game_id=f"r{i}", simulation=True)
            t.play_out()
            worst = max(worst, t.state["version"] / max(1, t.state["result"]["rounds"]))
        assert worst * most < EVENT_BUDGET, (game, players, worst)


# -- the event budget ------------------------------------------------------------------------


def budgeted(game: str, budget: int, seed: int = 0, **options) -> Table:
    """A game of greedy bots whose every option lets it run long, with a small budget."""
    long = {"roylet": {"rounds": 100, "losing_streak": 100, "max_replays": 100}}
    opts = {**long.get(game, {"max_rounds": 5000 if game != "batak" else 100}), **options}
    t = Table(game, opts, bots(game), game_id=f"b{seed}", event_budget=budget)
    t.play_out()
    return t


def before_end(t: Table) -> dict:
    return t.replay(len(t.events) - 1)  # the state the `ended` event was decided on


@pytest.mark.parametrize("game", list(BOTS))
def test_a_game_at_its_event_budget_ends_with_reason_event_limit(game):
    budget = 60
    t = budgeted(game, budget)
    result = t.state["result"]
    assert t.state["status"] == "finished" and result["reason"] == "event_limit"
    assert t.events[-1]["type"] == "ended" and t.events[0]["data"]["event_budget"] == budget
    assert budget <= t.state["version"] <= budget + 20  # the batch that reached it, then ended


def test_bataille_at_the_budget_the_player_with_most_cards_wins():
    """Bataille: "the player with the most cards in pack and won pile wins (cards on the table
    count for nobody), equal leaders draw"."""
    for seed in range(4):
        t = budgeted("bataille", 120 + seed, seed)
        table = before_end(t)["table"]
        cards = [len(p) + len(w) for p, w in zip(table["packs"], table["won"], strict=True)]
        result = t.state["result"]
        assert result["cards"] == cards
        leaders = [s for s, n in enumerate(cards) if n == max(cards)]
        assert result["winners"] == (leaders if len(leaders) == 1 else [])


def test_batayo_at_the_budget_the_player_with_most_cards_wins():
    """BATAYO: "the player still in with the most cards in hand and pack wins (cards put down in
    the trick count for nobody), equal leaders draw"."""
    for seed in range(4):
        t = budgeted("batayo", 100 + seed, seed)
        table = before_end(t)["table"]
        cards = [len(h) + len(p) for h, p in zip(table["hands"], table["packs"], strict=True)]
        result = t.state["result"]
        assert result["cards"] == cards
        leaders = [s for s, n in enumerate(cards) if n == max(cards) and not table["out"][s]]
        assert result["winners"] == (leaders if len(leaders) == 1 else [])


def test_batak_at_the_budget_the_highest_total_of_the_deals_scored_wins():
    """Batak: "the deal in play is not scored, and the highest total of the deals scored wins,
    a tie at the top draws"."""
    t = budgeted("batak", 200)  # past the first deal (about 70 events), within the third
    totals = before_end(t)["table"]["totals"]
    result = t.state["result"]
    assert result["scores"] == totals and result["rounds"] >= 1
    leaders = [s for s, n in enumerate(totals) if n == max(totals)]
    assert result["winners"] == (leaders if len(leaders) == 1 else [])


def test_roylet_at_the_budget_nobody_wins():
    """BatailleRoylet: "the King has not survived his rounds and the Allies have not beaten him
    often enough in a row, so nobody wins: a draw"."""
    result = budgeted("roylet", 150).state["result"]
    assert result["winners"] == [] and result["draw"]


@given(
    game=st.sampled_from(list(BOTS)),
    budget=st.integers(min_value=20, max_value=400),
    seed=st.integers(min_value=0, max_value=10**6),
)
def test_no_game_outruns_its_budget_and_the_simulation_agrees(game, budget, seed):
    """Whatever the budget, a game ends by it; the simulator (its own fast path) ends it at the
    same event with the same result."""
    stored = budgeted(game, budget, seed)
    fast = Table(
        game, stored.options, bots(game), game_id=f"b{seed}", event_budget=budget, simulation=True
    )
    fast.play_out()
    assert stored.state["version"] <= budget + 20
    assert fast.state["version"] == stored.state["version"]
    assert fast.state["result"] == stored.state["result"]


def test_a_stored_game_ended_by_its_budget_verifies_with_the_rules():
    """The budget is in the log (`created`), so the proof re-decides the end exactly."""
    jobs = QueueDispatcher()
    engine = Engine(Store(fakeredis.FakeRedis()), jobs, event_budget=90)
    gid = engine.create({"game": "bataille", "seats": bots("bataille")})["id"]
    jobs.run(lambda job, args: getattr(engine, job)(*args))
    state = engine.load(gid)
    assert state["result"]["reason"] == "event_limit"
    assert engine.verify(gid, None)["ok"]


# -- the cap on games in play per client -----------------------------------------------------


REMOTE = "203.0.113.7"  # a remote client (TEST-NET-3): loopback callers are not counted


def capped(cap: int, address: str = REMOTE) -> tuple[Engine, CheckedClient, object]:
    engine = Engine(Store(fakeredis.FakeRedis()), QueueDispatcher(), games_per_client=cap)
    app = create_app(engine)
    one, other = app.test_client(), app.test_client()
    one.environ_base["REMOTE_ADDR"] = address
    other.environ_base["REMOTE_ADDR"] = "198.51.100.9"  # another remote client
    return engine, CheckedClient(one), other


HUMANS = {"game": "bataille", "seats": [{"name": "ana"}, {"name": "bob"}]}


def test_loopback_callers_are_not_counted_against_the_cap():
    """service/engine/caps.py: a caller on this machine (the operator, a bench, an undeclared
    local proxy) is not one remote client; BATAYO_CAP_LOOPBACK=1 counts it too."""
    _, client, _ = capped(1, address="127.0.0.1")
    assert [client.post("/v1/games", json=HUMANS).status_code for _ in range(3)] == [201] * 3


def test_a_client_at_its_cap_of_games_in_play_gets_a_429_and_nothing_is_created():
    _, client, _ = capped(2)
    for _ in range(2):
        assert client.post("/v1/games", json=HUMANS).status_code == 201
    r = client.post("/v1/games", json=HUMANS)
    assert (r.status_code, r.json["code"]) == (429, "too_many_games")
    assert "2 games in play" in r.json["detail"]
    assert len(client.get("/v1/games").json["games"]) == 2


@pytest.mark.redis
def test_concurrent_creates_at_the_cap_take_exactly_the_places_left(server_redis):
    """docs/operations.md#bounded-work: the count and the add are one script, so creates at the very same
    instant neither pass the cap nor refuse one while a place is left (8 at once, 3 places)."""
    cap, tries = 3, 8
    engine = Engine(Store(server_redis), QueueDispatcher(), games_per_client=cap)
    for round_ in range(5):  # a new client address each round: each starts with every place
        address = f"203.0.113.{round_ + 10}"
        start = threading.Barrier(tries)

        def create(_: int, address: str = address, start: threading.Barrier = start) -> int:
            start.wait()
            try:
                engine.create(HUMANS, client=address)
            except RuleError as exc:
                assert exc.code == "too_many_games"
                return 429
            return 201

        with ThreadPoolExecutor(tries) as pool:
            answers = list(pool.map(create, range(tries)))
        assert sorted(answers) == [201] * cap + [429] * (tries - cap)
        created = [gid for gid, _ in engine.store.listing(None, None, 0, 100)[0]]
        holders = {engine.store.meta(gid)["client"] for gid in created[:cap]}
        assert len(holders) == 1 and engine.store.client_games(holders.pop())[0] == cap


def test_the_cap_is_per_client_address():
    _, client, raw = capped(1)
    assert client.post("/v1/games", json=HUMANS).status_code == 201
    other = raw.post("/v1/games", json=HUMANS, environ_overrides={"REMOTE_ADDR": "192.0.2.9"})
    assert other.status_code == 201


def test_a_game_that_ends_frees_its_slot():
    """A game ended by a process that does not know of the cap (an older one, or the end's
    release lost) is found ended by the check of the client's held games."""
    engine, client, _ = capped(1)
    created = client.post("/v1/games", json={**HUMANS, "options": {"max_rounds": 1}}).json
    assert client.post("/v1/games", json=HUMANS).status_code == 429
    gid = created["id"]
    other = Engine(engine.store)  # no cap: it frees no slot as the game ends
    while other.load(gid)["status"] == "playing":
        other.act(gid, other.view(gid, None)["to_move"][0], {"type": "flip"})
    assert client.post("/v1/games", json=HUMANS).status_code == 201


def test_the_engine_that_ends_a_game_frees_the_slot_at_once():
    engine, client, _ = capped(1)
    created = client.post("/v1/games", json={**HUMANS, "options": {"max_rounds": 1}}).json
    gid = created["id"]
    while engine.load(gid)["status"] == "playing":
        engine.act(gid, engine.view(gid, None)["to_move"][0], {"type": "flip"})
    who = engine.store.redis.hget(f"game:{{{gid}}}:meta", "client").decode()
    assert engine.store.client_games(who)[0] == 0


def test_an_idempotent_replay_of_a_create_is_not_refused_by_the_cap():
    _, client, _ = capped(1)
    headers = {"Idempotency-Key": "cap-1"}
    first = client.post("/v1/games", json=HUMANS, headers=headers)
    again = client.post("/v1/games", json=HUMANS, headers=headers)
    assert first.status_code == again.status_code == 201 and first.json == again.json
