"""Server-sent events as bytes: each event of the log, the caller's view, keep-alives. A
`data:` line holds compact JSON (orjson), which never contains a raw newline."""

from __future__ import annotations

import orjson

RETRY = b"retry: 2000\n\n"  # a client that loses the stream reconnects after 2 s
KEEP_ALIVE = b": keep-alive\n\n"


def events(shown: list[dict]) -> bytes:
    """`id:` is the event's version, `event:` its type, `data:` the event as the caller sees it."""
    return b"".join(
        b"id: %d\nevent: %s\ndata: %s\n\n" % (e["version"], e["type"].encode(), orjson.dumps(e))
        for e in shown
    )


def view(game_view: dict) -> bytes:
    """The caller's view (the JSON of GET /v1/games/{id}), `id:` its version."""
    return b"id: %d\nevent: view\ndata: %s\n\n" % (game_view["version"], orjson.dumps(game_view))
