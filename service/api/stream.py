"""The live stream of a game: server-sent events, fanned out by the process's `live.Hub`."""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType

from flask import Blueprint, Response, current_app, request

from ..live import Full, Hub, Subscription, TooManyForClient, sse
from . import schemas
from .http import caller, load, query
from .problems import Problem

bp = Blueprint("stream", __name__, url_prefix="/v1")
STREAM_QUERY_SCHEMA = schemas.StreamQuery()
FULL_RETRY_AFTER_S = 10

# What a client gets, for the contract (openapi.yaml's description of the operation).
DESCRIPTION = """\
The game's events live, as server-sent events, each as the caller may see it.

- Each event of the log: `id:` = its version, `event:` = its type, `data:` = the event as JSON
  (the same as in `GET /v1/games/{game_id}/events`).
- With `?view=1`, the caller's game view (the JSON of `GET /v1/games/{game_id}` for the same
  caller, with `legal_actions`) as `event: view`, `id:` = the view's version, `data:` = the
  view: once on connecting, after the events the stream starts with, and again after each
  batch of events. A seat can play from its stream alone.
- `Last-Event-ID` (or `?after=N`) resumes after that version with no gap and no repeat.
- A comment line (`: keep-alive`) when nothing happened for a while (15 s by default).
- The stream closes cleanly after the game's final event, when its lifetime passes (an hour
  by default), when the server stops, or when the reader falls too far behind; the client
  reconnects with `Last-Event-ID` (`retry:` asks for 2 s).
- At most `BATAYO_STREAMS_PER_CLIENT` streams per client address (429 `too_many_streams`) and
  `BATAYO_STREAMS_MAX` per server process (503 `streams_full`, with `Retry-After`).
"""


def hub() -> Hub:
    return current_app.extensions["batayo.live"]


@bp.get("/games/<game_id>/stream")
def stream(game_id: str) -> Response:
    state = load(game_id)
    seat = caller(game_id)
    q = query(STREAM_QUERY_SCHEMA)
    after = q.get("after")
    last_id = request.headers.get("Last-Event-ID")
    if last_id is not None:
        after = schemas.whole_number(last_id)
        if after is None:
            raise Problem(400, "invalid_request", "Last-Event-ID must be an event version")
    subscription = subscribe(state["id"], seat, after or 0, bool(q["view"]))
    response = Response(Frames(subscription), mimetype="text/event-stream")
    # the server reads the frames as they are (a werkzeug wrapper around each frame was a
    # measurable share of the fan-out's CPU) and calls `Frames.close` at the end
    response.direct_passthrough = True
    response.headers.update({"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
    return response


def subscribe(
    game_id: str, seat: int | None, after: int, view: bool, codec: ModuleType = sse
) -> Subscription:
    """A stream (or a socket: `codec`) admitted under the caps, or the problem refusing it."""
    try:
        return hub().open(game_id, seat, after, view, request.remote_addr or "", codec)
    except TooManyForClient as exc:
        raise Problem(
            429,
            "too_many_streams",
            f"this client has {exc.limit} streams open, the most allowed; close one first",
            retry_after=FULL_RETRY_AFTER_S,
        ) from None
    except Full:
        raise Problem(
            503,
            "streams_full",
            f"this server holds all the streams it can; retry in {FULL_RETRY_AFTER_S} s",
            retry_after=FULL_RETRY_AFTER_S,
        ) from None


class Frames:
    """A stream's body as the WSGI server takes it: the subscription's frames, and `close`
    (called by the server once the answer is over, whether its body was read or not), which
    ends the subscription."""

    __slots__ = ("_frames", "_subscription")

    def __init__(self, subscription: Subscription) -> None:
        self._subscription = subscription
        self._frames = subscription.frames()

    def __iter__(self) -> Iterator[bytes]:
        return self._frames

    def close(self) -> None:
        self._frames.close()
        self._subscription.close()
