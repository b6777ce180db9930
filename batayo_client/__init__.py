"""A Python client of the batayo API: create, join, view, act, read and follow the log, verify.

    from batayo_client import Client

    api = Client("http://127.0.0.1:8000")
    game = api.create("batak", [{"name": "Ana"}, {"bot": "expert"}, {"bot": "greedy"},
                                {"bot": "greedy"}])
    ana = api.as_seat(game["seats"][0]["token"])
    view = ana.view(game["id"])
    ana.act(game["id"], view["legal_actions"][0], if_match=view["version"])
    for event in ana.follow(game["id"]):
        ...

Standard library only. Every error is an `ApiError` with the problem's `code`. A write is safe
to retry: `act`, `create` and `join` send an `Idempotency-Key` (one of their own unless given),
and a 503 or 429 is retried after its `Retry-After`, so a move is applied once, never twice.
`follow` reads the live stream and, when the connection drops, resumes with `Last-Event-ID`
from the last event it yielded: no event is lost or repeated.
"""

from __future__ import annotations

import json
import time
import urllib.parse
import uuid
from collections.abc import Iterator
from http.client import HTTPException
from typing import Any, cast

from . import http, sse
from .types import (
    ActionResult,
    Created,
    Event,
    EventsPage,
    GameView,
    Joined,
    Problem,
    Skipped,
)

__all__ = ["ApiError", "Client"]

RETRIED = (429, 503)
HINT_RETRY_S = 1.0  # the Retry-After of a hint being computed (docs/api.md)


class ApiError(Exception):
    """A problem the API answered with (RFC 9457): `status`, `code`, `detail`."""

    def __init__(self, status: int, problem: dict[str, Any]) -> None:
        self.status = status
        self.problem = cast(Problem, problem)
        self.code: str = problem.get("code", "http_error")
        self.detail: str = problem.get("detail", "")
        super().__init__(f"{status} {self.code}: {self.detail}")


class Client:
    """The API at `base_url`, as a spectator or (with `token`) as one seat of one game."""

    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        timeout: float = 30.0,
        retries: int = 3,
    ) -> None:
        http.checked_url(base_url)
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout
        self.retries = retries

    def as_seat(self, token: str) -> Client:
        """The same API, acting as the seat this token belongs to."""
        return Client(self.base_url, token, self.timeout, self.retries)

    # -- the lobby --------------------------------------------------------------------------------

    def rules(self) -> list[dict[str, Any]]:
        return cast("list[dict[str, Any]]", self._call("GET", "/v1/rules")["games"])

    def create(
        self,
        game: str,
        seats: list[dict[str, Any]],
        options: dict[str, Any] | None = None,
        idempotency_key: str | None = None,
        **more: Any,
    ) -> Created:
        """Create a game; `seats`: `{"name", "client_seed"}`, `{"bot"}` or `{"open": True}`."""
        body = {"game": game, "seats": seats, "options": options or {}, **more}
        key = idempotency_key or str(uuid.uuid4())
        return cast(Created, self._call("POST", "/v1/games", body, {"Idempotency-Key": key}))

    def join(
        self, game_id: str, name: str, client_seed: str | None = None, idempotency_key: str = ""
    ) -> Joined:
        body: dict[str, Any] = {"name": name}
        if client_seed is not None:
            body["client_seed"] = client_seed
        key = idempotency_key or str(uuid.uuid4())
        path = f"/v1/games/{game_id}/join"
        return cast(Joined, self._call("POST", path, body, {"Idempotency-Key": key}))

    def games(self, game: str | None = None, status: str | None = None) -> list[dict[str, Any]]:
        query = {k: v for k, v in (("game", game), ("status", status)) if v}
        return cast("list[dict[str, Any]]", self._call("GET", "/v1/games", query=query)["games"])

    # -- a game -----------------------------------------------------------------------------------

    def view(self, game_id: str, at: int | None = None) -> GameView:
        query = {"at": str(at)} if at is not None else None
        return cast(GameView, self._call("GET", f"/v1/games/{game_id}", query=query))

    def act(
        self,
        game_id: str,
        action: dict[str, Any],
        if_match: int | None = None,
        idempotency_key: str | None = None,
    ) -> ActionResult:
        """Post one of the view's `legal_actions` as the seat; `if_match`: only at that version
        (else `ApiError` 412 `version_mismatch`)."""
        headers = {"Idempotency-Key": idempotency_key or str(uuid.uuid4())}
        if if_match is not None:
            headers["If-Match"] = f'"{if_match}"'
        path = f"/v1/games/{game_id}/actions"
        return cast(ActionResult, self._call("POST", path, action, headers))

    def events(self, game_id: str, after: int = 0, limit: int = 100) -> EventsPage:
        query = {"after": str(after), "limit": str(limit)}
        return cast(EventsPage, self._call("GET", f"/v1/games/{game_id}/events", query=query))

    def all_events(self, game_id: str, after: int = 0) -> Iterator[Event]:
        """The log from `after` on, page by page."""
        cursor: int | None = after
        while cursor is not None:
            page = self.events(game_id, cursor, 1000)
            yield from page["events"]
            cursor = page["next_after"]

    def verify(self, game_id: str) -> dict[str, Any]:
        return cast("dict[str, Any]", self._call("GET", f"/v1/games/{game_id}/verify"))

    def signature(self, game_id: str) -> dict[str, Any]:
        """The server's signature over the game's tip (docs/fairness.md); check it with a key
        you trust, not one the answer names."""
        return cast("dict[str, Any]", self._call("GET", f"/v1/games/{game_id}/signature"))

    def keys(self) -> list[dict[str, Any]]:
        """Every public key the server signs or signed logs with, the current one last."""
        return cast("list[dict[str, Any]]", self._call("GET", "/v1/keys")["keys"])

    def skip(self, game_id: str) -> Skipped:
        """Skip to the end: once no human seat plays, the bots play the rest at full speed
        (`ApiError` 409 `cannot_skip` before)."""
        return cast(Skipped, self._call("POST", f"/v1/games/{game_id}/skip"))

    def hint(self, game_id: str, wait_s: float = 10.0) -> dict[str, Any]:
        """Teach me: the strong bot's action for this seat and its reason (a `code` and its
        `params`). While a worker searches the server answers 202 `{"pending": true}`: asked
        again every second (its Retry-After) for at most `wait_s` seconds, then returned as is."""
        end = time.monotonic() + wait_s
        while True:
            answer = cast("dict[str, Any]", self._call("GET", f"/v1/games/{game_id}/hint"))
            if not answer.get("pending") or time.monotonic() >= end:
                return answer
            time.sleep(HINT_RETRY_S)

    def follow(self, game_id: str, after: int = 0) -> Iterator[Event]:
        """Every event after version `after`, live, until the game's last one. A dropped
        connection is resumed from the last event yielded (`Last-Event-ID`)."""
        last = after
        failures = 0
        while True:
            try:
                for message in sse.messages(self._stream(game_id, last)):
                    if message.id is None or not message.id.isdigit():
                        continue
                    version = int(message.id)
                    if message.event == "view" or version <= last:
                        continue  # a view message (?view=1), or one already yielded
                    event = cast(Event, json.loads(message.data))
                    last, failures = version, 0
                    yield event
                    if event["type"] == "ended":
                        return
            except (OSError, HTTPException, ApiError) as exc:  # dropped: resume where it stopped
                if isinstance(exc, ApiError) and exc.status not in RETRIED:
                    raise
                failures += 1
                if failures > self.retries:
                    raise ConnectionError(f"the stream of {game_id} keeps failing") from exc
                time.sleep(min(2.0, 0.1 * 2**failures))
                continue
            # the server closed the stream: at the end of a finished game, that is all
            if (
                self.view(game_id)["status"] == "finished"
                and not self.events(game_id, last)["events"]
            ):
                return
            time.sleep(0.1)

    # -- the transport ----------------------------------------------------------------------------

    def _request(
        self,
        method: str,
        path: str,
        body: Any = None,
        headers: dict[str, str] | None = None,
        query: dict[str, str] | None = None,
    ) -> tuple[str, bytes | None, dict[str, str]]:
        url = self.base_url + path
        if query:
            url += "?" + urllib.parse.urlencode(query)
        sent = {"Accept": "application/json", **(headers or {})}
        if self.token:
            sent["Authorization"] = f"Bearer {self.token}"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            sent["Content-Type"] = "application/json"
        return url, data, sent

    def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        """The JSON answer to `_request(method, *args, **kwargs)`, retried on 429 and 503."""
        url, data, headers = self._request(method, *args, **kwargs)
        for attempt in range(self.retries + 1):
            answer = http.send(method, url, data, headers, self.timeout)
            if answer.status < 400:
                return json.loads(answer.body)
            if answer.status in RETRIED and attempt < self.retries:
                time.sleep(_retry_after(answer))
                continue
            raise ApiError(answer.status, _problem(answer))
        raise AssertionError("unreachable")

    def _stream(self, game_id: str, after: int) -> Iterator[bytes]:
        headers = {"Accept": "text/event-stream", "Last-Event-ID": str(after)}
        url, _, sent = self._request("GET", f"/v1/games/{game_id}/stream", headers=headers)
        refused, lines = http.stream(url, sent, self.timeout)
        if refused is not None:
            raise ApiError(refused.status, _problem(refused))
        yield from lines


def _problem(answer: http.Answer) -> dict[str, Any]:
    try:
        problem = json.loads(answer.body)
    except ValueError:
        problem = None
    if isinstance(problem, dict):
        return problem
    return {"code": "http_error", "detail": f"HTTP {answer.status}"}


def _retry_after(answer: http.Answer) -> float:
    value = answer.headers.get("Retry-After", "1")
    return min(10.0, float(value)) if value.isascii() and value.isdigit() else 1.0
