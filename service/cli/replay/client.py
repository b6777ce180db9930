"""The public HTTP API, over the project's HTTP client or an injected fetch; a replay session."""

from __future__ import annotations

import json
import urllib.parse
from typing import Any

from rich.console import RenderableType

from batayo_client import http

from ...core import bounds
from ...core.plain import stripped_all
from ...core.state import BadLog, fold
from ...core.views import game_view
from .frame import render, tie_starts
from .style import DEFAULT_URL, Fetch

# -- the HTTP client ---------------------------------------------------------------------------


class ApiError(Exception):
    """Anything that went wrong talking to the service, in words."""


def http_fetch(base_url: str, timeout: float = 10.0) -> Fetch:
    base = base_url.rstrip("/")
    try:
        http.checked_url(base)
    except ValueError:
        raise ApiError(f"{base_url!r} is not an http(s) URL") from None

    def fetch(path: str, headers: dict) -> tuple[int, bytes]:
        try:
            answer = http.send("GET", base + path, headers=headers, timeout=timeout)
        except http.Unreachable as exc:
            raise ApiError(str(exc)) from None
        return answer.status, answer.body

    return fetch


class Client:
    """The three read-only calls replay needs, as the bearer of `token` (or a spectator)."""

    def __init__(
        self,
        game_id: str,
        url: str = DEFAULT_URL,
        token: str | None = None,
        fetch: Fetch | None = None,
    ) -> None:
        self.game_id = game_id
        self.url = url
        self.headers = {"Accept": "application/json"}
        if token:
            self.headers["Authorization"] = f"Bearer {token}"
        self.fetch = fetch or http_fetch(url)

    def get(self, path: str, **query: Any) -> dict:
        gid = urllib.parse.quote(self.game_id, safe="")
        q = {k: v for k, v in query.items() if v is not None}
        full = f"/v1/games/{gid}{path}" + (f"?{urllib.parse.urlencode(q)}" if q else "")
        status, body = self.fetch(full, dict(self.headers))
        try:
            # every text the service answers, as a terminal may show it: a name in a log older
            # than the API's refusal of control characters keeps them (service/core/plain.py)
            doc = stripped_all(json.loads(body)) if body else None
        except ValueError:
            doc = None
        if status >= 400:
            raise ApiError(problem_message(status, doc, self.game_id))
        if not isinstance(doc, dict):
            raise ApiError(f"{self.url} answered {full} with something that is not batayo JSON")
        return doc

    def view(self, at: int | None = None) -> dict:
        return self.get("", at=at)

    def events(self, page: int = bounds.EVENTS_PAGE_MAX) -> list[dict]:
        out: list[dict] = []
        after: int | None = 0
        while after is not None:
            doc = self.get("/events", after=after, limit=page)
            out += doc.get("events") or []
            following = doc.get("next_after")
            after = following if isinstance(following, int) and following > after else None
        return out

    def ties(self, page: int = bounds.TIES_PAGE_MAX) -> list[dict]:
        out: list[dict] = []
        offset: int | None = 0
        while offset is not None:
            doc = self.get("/ties", offset=offset, limit=page)
            out += doc.get("ties") or []
            following = doc.get("next_offset")
            offset = following if isinstance(following, int) and following > offset else None
        return out


def problem_message(status: int, doc: Any, game_id: str) -> str:
    """An RFC 9457 problem in one line."""
    if isinstance(doc, dict) and (doc.get("detail") or doc.get("title")):
        code = f" {doc['code']}" if doc.get("code") else ""
        detail = doc.get("detail") or doc.get("title")
        return f"game {game_id}: {status}{code}: {detail}"
    return f"game {game_id}: HTTP {status}"


# -- a replay session --------------------------------------------------------------------------


class Replay:
    """One game fetched once (latest view, whole log, ties); views by version on demand."""

    def __init__(self, client: Client, seat: int | None = None, count: int = 8) -> None:
        self.client = client
        latest = client.view()
        self.last = int(latest["version"])
        self.finished = latest.get("status") == "finished"
        self.you = latest.get("you")
        self.seat = self.you if self.you is not None else seat
        self.count = count
        self.events = client.events()
        self.ties = client.ties()
        self.marks = tie_starts(self.ties)
        self._views: dict[int, dict] = {self.last: latest}
        self._hands: dict[int, dict[int, dict] | None] = {}

    def view(self, version: int) -> dict:
        if version not in self._views:
            self._views[version] = self.client.view(at=version)
        return self._views[version]

    def hands(self, version: int) -> dict[int, dict] | None:
        """After the end the whole log is public, so every seat's view can be rebuilt from it
        with the game's own reducers: the chosen seat's (or every seat's) hidden cards."""
        if self.you is not None or not self.finished:
            return None
        if version not in self._hands:
            self._hands[version] = seat_tables(self.events, version, self.seat)
        return self._hands[version]

    def frame(
        self,
        version: int,
        table_last: bool = False,
        count: int | None = None,
        max_rows: int = 15,
    ) -> RenderableType:
        return render(
            self.view(version),
            self.events,
            self.ties,
            last=self.last,
            seat=self.seat,
            hands=self.hands(version),
            count=self.count if count is None else count,
            table_last=table_last,
            max_rows=max_rows,
        )


def seat_tables(events: list[dict], version: int, seat: int | None) -> dict[int, dict] | None:
    """Each seat's `table` view at `version`, folded from the public log (None if it cannot)."""
    try:
        state = fold(events[:version])
    except (BadLog, KeyError, TypeError, ValueError):  # a log this client cannot fold
        return None
    seats = [s["seat"] for s in state.get("seats", [])]
    wanted = [seat] if seat is not None else seats
    return {s: game_view(state, s)["table"] for s in wanted if s in seats}
