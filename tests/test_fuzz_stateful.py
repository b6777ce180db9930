"""Stateful fuzzing: a hypothesis state machine plays games of every kind through the Flask test
client (fakeredis), as random seats, with valid actions (from the seat's `legal_actions`) and
invalid ones (random bodies, a seat that is not awaited, another game's token, a stale If-Match,
an Idempotency-Key reused with another body), joins open seats and lets the bots move.

After every step: no 5xx and every answer matches openapi.yaml (tests/apiclient.py); a refused
request appended nothing; an accepted one grew the version by exactly the events it returned;
a retry with the same Idempotency-Key returned the first answer; and for the game touched,
replaying its stored events (`service.core.state.fold`) gives the live view of every seat and of a
spectator, with `ETag` the version. Counts go to tests/artifacts/counts-*.json."""

from __future__ import annotations

import hashlib
import json

import fakeredis
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
)

from service.api import create_app
from service.core.plain import is_plain
from service.core.registry import GAMES
from service.core.state import fold
from service.core.views import game_view
from service.engine import Engine
from service.engine.dispatch import QueueDispatcher
from service.store import Store
from tests.support.client import CheckedClient
from tests.support.helpers import auth, examples, record_counts

TOTALS = {"stateful_runs": 0, "stateful_steps": 0, "stateful_games": 0, "stateful_actions": 0}

SMALL = {
    "bataille": [{"deck": 32, "max_rounds": 40}, {"deck": 32, "variant": "ouverte"}],
    "batayo": [{"format": "express"}, {"format": "express", "players": 3, "gather": "random"}],
    "batak": [{"deals": 3}, {"deals": 3, "mode": "esli"}],
    "roylet": [{"rounds": 2}],
}

FIELDS = ["type", "card", "down", "tricks", "suit", "face", "seat", "x"]
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False),
    st.text(max_size=6),
    st.sampled_from(
        ["play", "flip", "bid", "pass", "trump", "AS", "10H", "1OH", "QS", "up", "down", "S", "x"]
    ),
)
BODIES = st.one_of(
    st.dictionaries(st.sampled_from(FIELDS), SCALARS, max_size=4),
    st.lists(SCALARS, max_size=3),
    SCALARS,
)


class Games(RuleBasedStateMachine):
    games = Bundle("games")

    def __init__(self) -> None:
        super().__init__()
        self.jobs = QueueDispatcher()
        self.engine = Engine(Store(fakeredis.FakeRedis()), self.jobs, test_games=True)
        app = create_app(self.engine)
        app.config["RATE_LIMIT"] = app.config["RATE_LIMIT_TOKEN"] = 0
        self.client = CheckedClient(app.test_client())
        self.info: dict[str, dict] = {}  # game id -> {"tokens": {seat: token}, "idem": {...}}
        self.touched: str | None = None
        TOTALS["stateful_runs"] += 1

    # -- helpers --------------------------------------------------------------------------------

    def version(self, gid: str) -> int:
        return self.engine.store.version(gid)

    def view(self, gid: str, seat: int | None) -> dict:
        token = self.info[gid]["tokens"].get(seat) if seat is not None else None
        r = self.client.get(f"/v1/games/{gid}", headers=auth(token) if token else None)
        assert r.status_code == 200, r.json
        return r.json

    def post_action(self, gid: str, token: str | None, body=None, data=None, headers=None):
        headers = {**(auth(token) if token else {}), **(headers or {})}
        url = f"/v1/games/{gid}/actions"
        if data is not None:
            return self.client.open("POST", url, data=data, headers=headers)
        return self.client.post(url, json=body, headers=headers)

    def accepted(self, gid: str, before: int, r) -> None:
        """An accepted action: the version grew by exactly the events returned, in order."""
        after = self.version(gid)
        versions = [e["version"] for e in r.json["events"]]
        assert versions == list(range(before + 1, before + 1 + len(versions))), versions
        assert after == before + len(versions) and len(versions) >= 1
        assert r.json["game"]["version"] == after and r.headers["ETag"] == f'"{after}"'
        TOTALS["stateful_actions"] += 1

    def refused(self, gid: str, before: int, r, *statuses: int) -> None:
        assert 400 <= r.status_code < 500, (r.status_code, r.json)
        if statuses:
            assert r.status_code in statuses, (r.status_code, r.json)
        assert self.version(gid) == before, "a refused request appended something"

    def awaited(self, gid: str) -> list[int]:
        state = self.engine.load(gid)
        return [s for s in self.view(gid, None)["to_move"] if s in self.info[gid]["tokens"]] * (
            state["status"] == "playing"
        )

    # -- rules ----------------------------------------------------------------------------------

    @precondition(lambda self: len(self.info) < 4)
    @rule(
        target=games,
        kind=st.sampled_from(sorted(GAMES)),
        variant=st.integers(0, 1),
        seating=st.lists(
            st.sampled_from(["human", "human", "human", "bot", "open"]), min_size=4, max_size=4
        ),
    )
    def create(self, kind, variant, seating):
        options = SMALL[kind][variant % len(SMALL[kind])]
        game = GAMES[kind]
        defaults = {o.name: o.default for o in game.options}
        n = game.seat_count({**defaults, **options})
        seats = []
        for i in range(n):
            how = seating[i % len(seating)] if i else "human"  # seat 0 is always a person
            seats.append(
                {"name": f"p{i}", "client_seed": f"s{i}"}
                if how == "human"
                else {"bot": "random"}
                if how == "bot"
                else {"open": True}
            )
        # a seed from what was drawn: the same steps deal the same cards, so Hypothesis sees
        # the same game again when it replays them (a fresh random seed is external state)
        seed = hashlib.sha256(f"{kind}/{variant}/{seating}/{len(self.info)}".encode()).hexdigest()
        body = {"game": kind, "options": options, "seats": seats, "seed": seed}
        r = self.client.post("/v1/games", json=body)
        assert r.status_code == 201, r.json
        gid = r.json["id"]
        self.info[gid] = {
            "tokens": {s["seat"]: s["token"] for s in r.json["seats"] if "token" in s},
            "idem": {},
        }
        assert self.version(gid) == r.json["version"]
        TOTALS["stateful_games"] += 1
        self.touched = gid
        return gid

    @rule(gid=games, name=st.text(min_size=1, max_size=40).filter(lambda s: s.strip()))
    def join(self, gid, name):
        before = self.version(gid)
        r = self.client.post(f"/v1/games/{gid}/join", json={"name": name})
        if r.status_code == 200:
            assert self.version(gid) > before
            self.info[gid]["tokens"][r.json["seat"]] = r.json["token"]
            seats = self.view(gid, None)["seats"]
            assert seats[r.json["seat"]]["name"] == name  # unicode names stored intact
        elif not is_plain(name):  # control characters are refused before the game is looked at
            self.refused(gid, before, r, 400)
        else:
            self.refused(gid, before, r, 409)
        self.touched = gid

    @rule(
        gid=games,
        picks=st.lists(st.integers(0, 10**6), min_size=1, max_size=12),
        if_match=st.booleans(),
        key=st.booleans(),
    )
    def valid_actions(self, gid, picks, if_match, key):
        """A few legal moves in a row, each by a random awaited seat."""
        self.touched = gid
        for pick in picks:
            seats = self.awaited(gid)
            if not seats:
                return
            seat = seats[pick % len(seats)]
            legal = self.view(gid, seat)["legal_actions"]
            assert legal, f"seat {seat} is awaited but has no legal action"
            body = legal[(pick // 7) % len(legal)]
            before = self.version(gid)
            headers = {}
            if if_match:
                headers["If-Match"] = f'"{before}"'
            if key:
                headers["Idempotency-Key"] = f"k-{gid}-{before}-{seat}"
            r = self.post_action(gid, self.info[gid]["tokens"][seat], body, headers=headers)
            assert r.status_code == 200, (body, r.json)
            self.accepted(gid, before, r)
            if key:
                self.info[gid]["idem"][headers["Idempotency-Key"]] = (seat, body, r.json)

    @rule(gid=games, body=BODIES, seat_pick=st.integers(0, 3))
    def random_body(self, gid, body, seat_pick):
        tokens = self.info[gid]["tokens"]
        seat = sorted(tokens)[seat_pick % len(tokens)]
        before = self.version(gid)
        r = self.post_action(gid, tokens[seat], data=json.dumps(body))
        if r.status_code == 200:  # a random body can be a legal move
            self.accepted(gid, before, r)
        else:
            self.refused(gid, before, r)
        self.touched = gid

    @rule(gid=games, pick=st.integers(0, 10**6))
    def seat_not_awaited(self, gid, pick):
        """Another seat's legal move, posted by a seat that is not awaited: refused (409)."""
        state = self.engine.load(gid)
        if state["status"] != "playing":
            return
        to_move = set(self.view(gid, None)["to_move"])
        idle = [s for s in self.info[gid]["tokens"] if s not in to_move]
        movers = [s for s in self.awaited(gid)]
        if not idle or not movers:
            return
        mover, seat = movers[pick % len(movers)], idle[pick % len(idle)]
        legal = self.view(gid, mover)["legal_actions"]
        before = self.version(gid)
        r = self.post_action(gid, self.info[gid]["tokens"][seat], legal[pick % len(legal)])
        self.refused(gid, before, r, 409, 422, 400)
        self.touched = gid

    @rule(gid=games, other=games)
    def other_games_token(self, gid, other):
        if gid == other:
            return
        before = self.version(gid)
        token = next(iter(self.info[other]["tokens"].values()))
        r = self.post_action(gid, token, {"type": "flip"})
        self.refused(gid, before, r, 403)
        r = self.post_action(gid, f"{gid}.0.{token.split('.')[-1]}", {"type": "flip"})
        self.refused(gid, before, r, 401)  # a forged token naming this game
        self.touched = gid

    @rule(gid=games, back=st.integers(1, 5))
    def stale_if_match(self, gid, back):
        tokens = self.info[gid]["tokens"]
        seats = self.awaited(gid) or sorted(tokens)
        seat = seats[0]
        legal = self.view(gid, seat)["legal_actions"] or [{"type": "flip"}]
        before = self.version(gid)
        stale = before - back if before - back >= 0 else before + back
        r = self.post_action(gid, tokens[seat], legal[0], headers={"If-Match": f'"{stale}"'})
        self.refused(gid, before, r, 412)
        assert r.json["version"] == before
        self.touched = gid

    @rule(gid=games, pick=st.integers(0, 10**6), body=BODIES)
    def reused_idempotency_key(self, gid, pick, body):
        used = self.info[gid]["idem"]
        if not used:
            return
        key = sorted(used)[pick % len(used)]
        seat, first_body, first_answer = used[key]
        token = self.info[gid]["tokens"][seat]
        before = self.version(gid)
        again = self.post_action(gid, token, first_body, headers={"Idempotency-Key": key})
        assert again.status_code == 200 and again.json == first_answer
        assert self.version(gid) == before, "an idempotent retry appended something"
        if body != first_body:
            r = self.post_action(
                gid, token, data=json.dumps(body), headers={"Idempotency-Key": key}
            )
            self.refused(gid, before, r, 422, 400, 415)
        self.touched = gid

    @precondition(lambda self: any(not j[0] for j in self.jobs.jobs))
    @rule(count=st.integers(1, 40))
    def bots_move(self, count):
        """Run up to `count` due bot jobs (a bot's move may make another due)."""
        for _ in range(count):
            due = [j for j in self.jobs.jobs if not j[0]]
            if not due:
                break
            self.jobs.jobs.remove(due[0])
            gid = due[0][2][0]
            before = self.version(gid)
            getattr(self.engine, due[0][1])(*due[0][2])
            assert self.version(gid) >= before
            self.touched = gid

    # -- invariants -----------------------------------------------------------------------------

    @invariant()
    def replay_equals_the_live_view(self):
        TOTALS["stateful_steps"] += 1
        gid = self.touched
        if gid is None:
            return
        events = self.engine.all_events(gid)
        assert [e["version"] for e in events] == list(range(1, len(events) + 1))
        replayed = fold(events)
        for seat in [None, *sorted(self.info[gid]["tokens"])]:
            token = self.info[gid]["tokens"].get(seat) if seat is not None else None
            r = self.client.get(f"/v1/games/{gid}", headers=auth(token) if token else None)
            assert r.status_code == 200
            assert r.headers["ETag"] == f'"{len(events)}"'
            assert r.json == json.loads(json.dumps(game_view(replayed, seat)))


Games.TestCase.settings = settings(
    max_examples=examples(20),
    stateful_step_count=40,
    deadline=None,
    database=None,
    derandomize=True,
    phases=[Phase.explicit, Phase.generate],  # no shrinking: CI time is bounded; the steps print
    suppress_health_check=list(HealthCheck),
)
TestGames = Games.TestCase


def test_report_stateful_counts():
    if TOTALS["stateful_runs"] == 0:
        return
    record_counts(TOTALS)
    print(f"\nstateful fuzzing: {TOTALS}")
