"""The direct path of `POST /v1/games/{id}/actions` (service/api/direct.py) answers as Flask's
route does: the same status, headers and body for the same request on the same game, for every
kind of answer, and the same request metrics and rate-limit counts. Two services with a fixed
clock play the same test game (a fixed seed), one with the direct path and one without; the
whole suite also runs through the direct path, since every test app has it."""

from __future__ import annotations

import fakeredis
import pytest
import redis
from flask import Flask

from service.api import create_app
from service.engine import Engine
from service.engine.dispatch import QueueDispatcher
from service.settings import load
from service.store import Store

from .support.client import CheckedClient

T0 = "2026-12-01T00:00:00.000000Z"
SEED = "5e" * 32
FLIP = b'{"type": "flip"}'


class Side:
    """One service: its engine, its app, and how often the direct path left a request to Flask."""

    def __init__(self, direct: bool, **config) -> None:
        self.engine = Engine(
            Store(fakeredis.FakeRedis()), QueueDispatcher(), test_games=True, clock=lambda: T0
        )
        origins = ",".join(config.pop("CORS_ORIGINS", ()))
        settings = load(cors_origins=origins) if origins else None
        self.app: Flask = create_app(self.engine, direct_path=direct, settings=settings)
        self.app.config.update({"RATE_LIMIT": 0, "RATE_LIMIT_TOKEN": 0, **config})
        self.to_flask = 0
        if direct:
            path = self.app.wsgi_app
            flask_wsgi = path.flask

            def counted(environ, start_response):
                self.to_flask += 1
                return flask_wsgi(environ, start_response)

            path.flask = counted
        self.client = CheckedClient(self.app.test_client())  # every answer to the contract
        self.raw = self.app.test_client()  # for a 500 the test provokes
        self.tokens: dict[str, list[str]] = {}

    def create(self, seed: str = SEED) -> str:
        body = {"game": "bataille", "seats": [{"name": "ana"}, {"name": "bob"}], "seed": seed}
        created = self.client.post("/v1/games", json=body).json
        self.tokens[created["id"]] = [s["token"] for s in created["seats"]]
        return created["id"]

    def post(self, gid: str, body: bytes, seat: int | None = 0, token_of=None, **headers: str):
        """An action on `gid` with `seat`'s token (of the game `token_of(self)` names, if
        given); `raw` for the unchecked client."""
        headers.setdefault("Content-Type", "application/json")
        if seat is not None:
            token = self.tokens[token_of(self) if token_of else gid][seat]
            headers.setdefault("Authorization", f"Bearer {token}")
        client = self.raw if headers.pop("raw", None) else self.client
        return client.post(f"/v1/games/{gid}/actions", data=body, headers=headers)


def answer(response) -> tuple[int, list[tuple[str, str]], bytes]:
    return response.status_code, sorted(response.headers.items()), response.get_data()


@pytest.fixture
def sides() -> tuple[Side, Side]:
    return Side(direct=True), Side(direct=False)


def both(sides, gid_of, *args, **headers) -> tuple[int, list, bytes]:
    """The same request to both sides: their answers, which must be equal."""
    direct, flask = sides
    got = [answer(side.post(gid_of(side), *args, **headers)) for side in (direct, flask)]
    assert got[0] == got[1]
    return got[0]


def test_every_kind_of_answer_is_flasks(sides):
    direct, flask = sides
    for side in sides:
        side.create()
        side.create("77" * 32)  # another game, whose token is of "another game"
    game = lambda side: next(iter(side.tokens))  # noqa: E731
    other = lambda side: list(side.tokens)[1]  # noqa: E731

    def taken(expected_to_flask: int, *args, **headers) -> tuple[int, list, bytes]:
        before = direct.to_flask
        got = both(sides, *args, **headers)
        assert direct.to_flask - before == expected_to_flask, got
        return got

    # answered by the direct path: a plain flip, compressed as the client prefers
    assert taken(0, game, FLIP, 0)[0] == 200
    status, headers, _ = taken(0, game, FLIP, 1, raw="1", **{"Accept-Encoding": "gzip, br;q=0.5"})
    assert status == 200 and ("Content-Encoding", "gzip") in headers
    assert ("Content-Encoding", "br") in taken(
        0, game, FLIP, 0, raw="1", **{"Accept-Encoding": "br"}
    )[1]
    version = int(dict(taken(0, game, FLIP, 1)[1])["ETag"].strip('"'))
    assert taken(0, game, FLIP, 0, **{"If-Match": f'"{version}"'})[0] == 200
    assert taken(0, game, FLIP, 1, **{"If-Match": f'"{version}", "{version + 1}"'})[0] == 200
    assert taken(0, game, FLIP, 0, **{"Idempotency-Key": "k1"})[0] == 200
    assert taken(0, game, FLIP, 0, **{"Idempotency-Key": "k1"})[0] == 200  # its replay

    # refusals: Flask answers them again, and nothing was applied twice
    refused = [
        (409, (game, FLIP, 0)),  # not this seat's turn (seat 0 flipped under k1)
        (412, (game, FLIP, 1), {"If-Match": '"1"'}),
        (400, (game, FLIP, 1), {"If-Match": "W/x"}),
        (422, (game, b'{"type": "pass"}', 0), {"Idempotency-Key": "k1"}),
        (400, (game, FLIP, 1), {"Idempotency-Key": "k" * 201}),
        (400, (game, b"{not json", 1)),
        (400, (game, b"[1, 2]", 1)),
        (400, (game, b'{"type": NaN}', 1)),
        (400, (game, b'{"type": "flip", "n": 123456789012345678901234567890}', 1)),
        (400, (game, b'{"type": "\\ud800"}', 1)),
        (401, (game, FLIP, None)),
        (401, (game, FLIP, 1), {"Authorization": "Basic abc"}),
        (401, (game, FLIP, 1), {"Authorization": "Bearer nope"}),
        (403, (other, FLIP, 1), {"token_of": game}),  # the first game's token
        (400, (game, b'{"type": "nonsense"}', 1)),
    ]
    for status, args, *headers in refused:
        got = taken(1, *args, **(headers[0] if headers else {}))
        assert got[0] == status, (args, got)

    # not taken at all: Flask's own, straight away
    not_taken = [
        (415, (game, FLIP, 1), {"Content-Type": "text/plain", "raw": "1"}),
        (400, (game, b"", 1), {}),
        (413, (game, b"{" + b" " * 70_000 + b"}", 1), {}),
    ]
    for status, args, headers in not_taken:
        assert taken(1, *args, **headers)[0] == status
    before = direct.to_flask
    short = {"CONTENT_LENGTH": str(len(FLIP) + 10)}  # the body ended short of its length
    got = [
        answer(
            side.raw.post(
                f"/v1/games/{game(side)}/actions",
                data=FLIP,
                headers={"Authorization": f"Bearer {side.tokens[game(side)][1]}"},
                content_type="application/json",
                environ_overrides=short,
            )
        )
        for side in sides
    ]
    # the same problem; the direct path gives it itself (there is no body to read again)
    assert got[0] == got[1] and got[0][0] == 400 and direct.to_flask == before
    assert answer(direct.client.post("/v1/games/0123456789abcdef/actions", data=FLIP)) == answer(
        flask.client.post("/v1/games/0123456789abcdef/actions", data=FLIP)
    )

    # the game went on alike, and the request metrics count alike
    assert direct.client.get(f"/v1/games/{game(direct)}/events").json == (
        flask.client.get(f"/v1/games/{game(flask)}/events").json
    )
    assert _requests(direct) == _requests(flask)


def _requests(side: Side) -> list[str]:
    text = side.client.get("/metrics").get_data(as_text=True)
    return sorted(
        line for line in text.splitlines() if line.startswith("batayo_http_requests_total")
    )


def test_a_request_is_counted_once_by_the_rate_limits():
    """A refusal the direct path leaves to Flask is not counted a second time; over the limit,
    the 429 is Flask's."""
    # a clock that stands still mid-window: both sides then say the same seconds to retry
    config = {"RATE_LIMIT_TOKEN": 4, "RATE_CLOCK": lambda: 1_800_000_030.0}
    sides = Side(direct=True, **config), Side(direct=False, **config)
    for side in sides:  # each side counts in its own store
        side.create()
    game = lambda side: next(iter(side.tokens))  # noqa: E731
    left = []
    for body in (FLIP, FLIP, b"[]", FLIP):  # taken, taken, refused (Flask's), then whatever
        _, headers, _ = both(sides, game, body, 1)
        left.append(dict(headers)["RateLimit"].split(";")[1])
    assert left == [f"r={n}" for n in (3, 2, 1, 0)]
    assert [both(sides, game, FLIP, 1)[0] for _ in range(2)] == [429, 429]


@pytest.mark.parametrize(
    "failure, status",
    [(redis.exceptions.ConnectionError("gone"), 503), (ValueError("a bug"), 500)],
)
def test_the_store_away_or_a_bug_after_the_engine_was_called(sides, monkeypatch, failure, status):
    """Once the engine was called the outcome may be unknown: Flask's handlers answer with the
    exception (a 503 to retry, a 500 for a bug), and the action is not tried a second time."""
    calls = []
    for side in sides:
        side.create()

        def failing(*args, _calls=calls, **kwargs):
            _calls.append(args)
            raise failure

        monkeypatch.setattr(side.engine, "act", failing)
    game = lambda side: next(iter(side.tokens))  # noqa: E731
    before = sides[0].to_flask
    got = both(sides, game, FLIP, 0, raw="1")
    assert got[0] == status and len(calls) == 2  # once a side
    assert sides[0].to_flask == before


def test_cors_requests_are_flasks():
    sides = (
        Side(direct=True, CORS_ORIGINS=("https://cards.example",)),
        Side(direct=False, CORS_ORIGINS=("https://cards.example",)),
    )
    for side in sides:
        side.create()
    game = lambda side: next(iter(side.tokens))  # noqa: E731
    before = sides[0].to_flask
    status, headers, _ = both(sides, game, FLIP, 0, Origin="https://cards.example")
    assert status == 200 and ("Access-Control-Allow-Origin", "https://cards.example") in headers
    assert sides[0].to_flask == before + 1
