"""The client's socket mode: one WebSocket per seat (`GET /v1/games/{id}/socket`), its actions
in and everything it may see out, on the websockets library's sync client (the extra
`pip install batayo[socket]`).

    from batayo_client.socket import GameSocket

    with GameSocket("http://127.0.0.1:8000", game_id, token, view=True) as sock:
        for message in sock:  # {"event": E}, {"view": V}, {"acted": A} or {"refused": R}
            if "view" in message and message["view"]["legal_actions"]:
                sock.act(message["view"]["legal_actions"][0])

Iterating yields every frame the server sends, in order. When the socket closes with any code
but 1000 (its lifetime, a slow reader, a server stopping) it reconnects with `after` = the last
event version yielded: no event is lost or repeated; it ends after a finished game's last event
(1000). An `act` whose `acted` did not arrive before a reconnection may have been applied: send
it again with the same `key` (`act` makes one unless given) and the answer is the first one's.
"""

from __future__ import annotations

import json
import time
import urllib.parse
import uuid
from collections.abc import Iterator
from typing import Any

from . import ApiError, http

NORMAL = 1000
POLICY = 1008


class SocketClosed(ConnectionError):
    """The server closed the socket for good: `code` (1008: the token was refused)."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(f"the socket closed: {code} {reason}")
        self.code, self.reason = code, reason


class GameSocket:
    """One game's socket, as the seat of `token` (None: a spectator)."""

    def __init__(
        self,
        base_url: str,
        game_id: str,
        token: str | None = None,
        view: bool = False,
        after: int = 0,
        timeout: float = 30.0,
        retries: int = 5,
    ) -> None:
        try:
            from websockets.sync import client
        except ImportError as exc:  # pragma: no cover - the extra is not installed
            raise ImportError("the socket mode needs `pip install batayo[socket]`") from exc
        self._client = client
        url = http.checked_url(base_url.rstrip("/"))
        parts = urllib.parse.urlsplit(url)
        scheme = "wss" if parts.scheme == "https" else "ws"
        self._base = f"{scheme}://{parts.netloc}{parts.path}/v1/games/{game_id}/socket"
        self.token, self.view, self.after = token, view, after
        self.timeout, self.retries = timeout, retries
        self._ws: Any = None
        self.finished = False

    def __enter__(self) -> GameSocket:
        self._connect()
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _url(self) -> str:
        query = {k: v for k, v in (("after", self.after), ("view", int(self.view))) if v}
        return self._base + ("?" + urllib.parse.urlencode(query) if query else "")

    def _connect(self) -> None:
        """Open the socket; a refusal is the `ApiError` of its problem (429 and 503 are
        retried after their Retry-After)."""
        from websockets.exceptions import InvalidStatus

        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        for attempt in range(self.retries + 1):
            try:
                self._ws = self._client.connect(
                    self._url(),
                    additional_headers=headers,
                    open_timeout=self.timeout,
                    compression=None,  # the server never agrees to an extension
                    max_size=None,  # the server bounds its frames; a view can be large
                ).__enter__()  # held open across calls: closed by `close` or the server
                return
            except InvalidStatus as exc:
                answer = exc.response
                try:
                    problem = json.loads(answer.body or b"")
                except ValueError:
                    problem = None
                if not isinstance(problem, dict):
                    problem = {"code": "http_error", "detail": f"HTTP {answer.status_code}"}
                if answer.status_code in (429, 503) and attempt < self.retries:
                    wait = answer.headers.get("Retry-After", "1")
                    time.sleep(min(10.0, float(wait)) if wait.isdigit() else 1.0)
                    continue
                raise ApiError(answer.status_code, problem) from None

    def act(
        self,
        action: dict[str, Any],
        id: str | int | None = None,
        if_match: int | None = None,
        key: str | None = None,
    ) -> str | int:
        """Send an action (a body of `POST …/actions`); its answer comes as an `acted` or a
        `refused` message with this `id` (one is made unless given)."""
        ident: str | int = id if id is not None else uuid.uuid4().hex
        frame: dict[str, Any] = {"act": action, "id": ident, "key": key or uuid.uuid4().hex}
        if if_match is not None:
            frame["if_match"] = if_match
        if self._ws is None:
            self._connect()
        self._ws.send(json.dumps(frame))
        return ident

    def __iter__(self) -> Iterator[dict[str, Any]]:
        from websockets.exceptions import ConnectionClosed

        failures = 0
        while not self.finished:
            if self._ws is None:
                try:
                    self._connect()
                except (OSError, TimeoutError) as exc:
                    failures += 1
                    if failures > self.retries:
                        raise ConnectionError("the socket keeps failing") from exc
                    time.sleep(min(2.0, 0.1 * 2**failures))
                    continue
            try:
                for raw in self._ws:
                    message = json.loads(raw)
                    if "event" in message:
                        version = message["event"]["version"]
                        if version <= self.after:
                            continue  # already yielded before a reconnection
                        self.after = version
                    failures = 0
                    yield message
            except ConnectionClosed:
                pass
            received = self._ws.protocol.close_rcvd  # None: lost without a close frame
            self._ws.close()
            self._ws = None
            code = received.code if received is not None else 1006
            if code == NORMAL:
                self.finished = True
            elif code == POLICY:
                raise SocketClosed(code, received.reason if received is not None else "")
            else:  # its lifetime, a slow reader, a server stopping, a lost connection
                time.sleep(0.05)

    def close(self) -> None:
        if self._ws is not None:
            self._ws.close()
            self._ws = None
