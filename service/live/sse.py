"""Server-sent events as bytes: each event of the log, the caller's view, keep-alives."""

from __future__ import annotations

import json

RETRY = b"retry: 2000\n\n"  # a client that loses the stream reconnects after 2 s
KEEP_ALIVE = b": keep-alive\n\n"


def events(shown: list[dict]) -> bytes:
    """`id:` is the event's version, `event:` its type, `data:` the event as the caller sees it."""
    return "".join(
        f"id: {e['version']}\nevent: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in shown
    ).encode()


def view(game_view: dict) -> bytes:
    """The caller's view (the JSON of GET /v1/games/{id}), `id:` its version."""
    return f"id: {game_view['version']}\nevent: view\ndata: {json.dumps(game_view)}\n\n".encode()
