"""`GET /v1/games/{id}/socket`: one WebSocket (RFC 6455) per player, a seat's actions in and
everything it may see out, on wsproto.

The route makes the stream's checks plus the upgrade's own and the page's `Origin`, answers
101 and runs the session (service/api/socket_session.py) in the connection's greenlet
(docs/architecture.md#the-games-websocket, docs/api.md#play-over-a-websocket).
"""

from __future__ import annotations

import binascii
from base64 import b64decode

from flask import Blueprint, Response, current_app, request
from wsproto.utilities import generate_accept_token

from ..live import wsframes
from . import schemas
from .http import caller, load, query
from .problems import Problem, problem_response
from .socket_session import Session
from .stream import subscribe

bp = Blueprint("websocket", __name__, url_prefix="/v1")
SOCKET_QUERY_SCHEMA = schemas.StreamQuery()
TAKEOVER = "batayo.takeover"  # service/wsgi_io.py puts the connection there
UPGRADED = "batayo.upgraded"  # what service/wsgi_io.py runs once the 101 is sent
SUBPROTOCOL = "batayo.v1"  # a browser's: its first message is {"auth": TOKEN}

# What a client gets, for the contract (openapi.yaml's description of the operation).
DESCRIPTION = """\
One WebSocket (RFC 6455) per player: a seat's actions in, everything it may see out.

- **Identity**: `Authorization: Bearer <token>` on the upgrade; none (and no subprotocol) is a
  spectator. A browser offers the subprotocol `batayo.v1` and sends `{"auth": TOKEN}` as its
  first message within 5 s (the server sends nothing before it; a bad token closes 1008). A
  token never goes in the URL. A present `Origin` must be one of `BATAYO_CORS_ORIGINS` when set.
- **Frames**: text, one JSON object each. Server to client: `SocketEvent` (each event as in
  `/events` for the caller, from version 1 or right after `after`, in order, no gap, no
  repeat), `SocketView` (with `view=1`, as the stream's `event: view`), `SocketActed` (after
  that action's own events) and `SocketRefused` (the problem `POST …/actions` would answer).
  Client to server: `SocketAct` (`act` is the body of `POST …/actions`; `if_match` and `key`
  as `If-Match` and `Idempotency-Key`; `id` echoed unchanged). A frame that is not such an
  object is refused with `id` null; one over 64 KiB closes the socket (1009).
- **Closing**: 1000 after a finished game's last event (and only then); 1001 when the server
  stops; 4000 at the socket's lifetime (`BATAYO_STREAM_LIFETIME_S`), 4001 when the reader fell
  behind, 4002 when two pings went unanswered, 1013 when the store does not answer. Reconnect on
  any code but 1000 with `after` = the last version received. The server pings an idle socket.
- Sockets count with the streams under the same caps (429 `too_many_streams`, 503
  `streams_full`); a GET without the upgrade is answered 426.
"""


@bp.get("/games/<game_id>/socket")
def game_socket(game_id: str) -> Response:
    state = load(game_id)
    seat = caller(game_id)
    q = query(SOCKET_QUERY_SCHEMA)
    headers = request.headers
    asked = "websocket" in _tokens(headers.get("Upgrade")) and "upgrade" in _tokens(
        headers.get("Connection")
    )
    if not asked or request.environ.get("SERVER_PROTOCOL") != "HTTP/1.1":
        return _upgrade_required("open this route as a WebSocket (RFC 6455) over HTTP/1.1")
    if headers.get("Sec-WebSocket-Version", "").strip() != "13":
        return _upgrade_required("this server speaks WebSocket version 13")
    key = headers.get("Sec-WebSocket-Key", "").strip()
    if not _valid_key(key):
        raise Problem(400, "invalid_request", "Sec-WebSocket-Key must be 16 bytes in base64")
    origin = headers.get("Origin")
    allowed = current_app.config.get("CORS_ORIGINS")
    if allowed and origin and "*" not in allowed and origin not in allowed:
        raise Problem(403, "forbidden", "pages of this origin may not open a socket here")
    takeover = request.environ.get(TAKEOVER)
    if takeover is None:  # a server that cannot hand its connection over (a test client)
        return _upgrade_required("this server cannot take WebSocket upgrades")
    browser = SUBPROTOCOL in _tokens(headers.get("Sec-WebSocket-Protocol"), lower=False)
    subscription = subscribe(state["id"], seat, q.get("after") or 0, bool(q["view"]), wsframes)
    session = Session(
        current_app._get_current_object(),  # type: ignore[attr-defined]
        subscription,
        seat,
        headers.get("Authorization") if not browser else None,
        browser,
        *takeover,
    )
    response = Response(status=101)
    del response.headers["Content-Type"]
    response.headers["Upgrade"] = "websocket"
    response.headers["Connection"] = "Upgrade"
    response.headers["Sec-WebSocket-Accept"] = generate_accept_token(key.encode()).decode()
    if browser:
        response.headers["Sec-WebSocket-Protocol"] = SUBPROTOCOL
    # no extension is ever agreed (no permessage-deflate): every frame is sent as it is
    response.direct_passthrough = True
    # the server writes the 101 and closes the answer, then runs the session in the connection's
    # greenlet (service/wsgi_io.py), whose waits then hold none of the app's frames; the
    # connection ends with it
    request.environ[UPGRADED] = session.run
    return response


# werkzeug routes an upgrade request only to a rule that says it takes one: the same view
# answers both, the plain GET with its 426
bp.add_url_rule(
    "/games/<game_id>/socket", "game_socket_upgrade", game_socket, methods=["GET"], websocket=True
)


def _tokens(value: str | None, lower: bool = True) -> set[str]:
    items = {t.strip() for t in (value or "").split(",")}
    return {t.lower() for t in items} if lower else items


def _valid_key(key: str) -> bool:
    try:
        return len(b64decode(key, validate=True)) == 16
    except (binascii.Error, ValueError):
        return False


def _upgrade_required(detail: str) -> Response:
    response = problem_response(426, "upgrade_required", detail)
    response.headers.update(
        {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13"}
    )
    return response
