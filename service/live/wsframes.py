"""WebSocket frames as bytes: the socket's counterpart of `sse`, so a batch is encoded once per
audience for every socket of that audience too (`Batch.encoded`). Server frames, unmasked and
whole (one JSON object per text frame), made by wsproto's frame encoder; the keep-alive is a
ping."""

from __future__ import annotations

import orjson
from wsproto.frame_protocol import FrameProtocol

# a server's frames carry no state between whole messages (no extension is ever agreed): one
# encoder serves every socket of the process
_SERVER = FrameProtocol(client=False, extensions=[])

RETRY = b""  # a socket has no retry field: its client reconnects on any close but 1000
KEEP_ALIVE_PAYLOAD = b"keep-alive"
KEEP_ALIVE = bytes(_SERVER.ping(KEEP_ALIVE_PAYLOAD))


def text(message: dict) -> bytes:
    """One text frame holding `message` as compact JSON."""
    return bytes(_SERVER.send_data(orjson.dumps(message).decode(), True))


def events(shown: list[dict]) -> bytes:
    """`{"event": E}` for each event, as the caller sees it."""
    return b"".join(text({"event": e}) for e in shown)


def view(game_view: dict) -> bytes:
    """`{"view": V}`: the caller's view (the JSON of GET /v1/games/{id})."""
    return text({"view": game_view})
