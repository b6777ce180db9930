"""A game's WebSocket once upgraded: a reader called by gevent's loop, a writer of the
subscription's shared frames, `act` frames through `POST …/actions`' checks, and the close
each end calls for (docs/architecture.md#the-games-websocket).
"""

from __future__ import annotations

import contextlib
import logging
import socket
from typing import Any, NamedTuple

import gevent
import gevent.event
import gevent.lock
import orjson
from flask import Flask
from wsproto.connection import Connection, ConnectionState, ConnectionType
from wsproto.events import (
    BytesMessage,
    CloseConnection,
    Event,
    Ping,
    Pong,
    TextMessage,
)
from wsproto.utilities import RemoteProtocolError

from ..core import bounds
from ..live import Subscription, wsframes
from .http import REFUSALS, _unicode, checked_key, refusal, seat_for
from .play import applied
from .problems import STORE_DOWN, Problem, problem_body

log = logging.getLogger("batayo.socket")
MAX_MESSAGE = 64 * 1024
AUTH_TIMEOUT_S = 5.0
CLOSE_WAIT_S = 2.0  # after the server's close frame: the client's own, or the connection is cut
SEND_BUFFER = 64 * 1024  # the kernel's send buffer of a socket (SO_SNDBUF): a bounded backlog
READ_SIZE = 65536
INBOX = 16  # client events waiting for an answer before the socket is read no more
FIELDS = {"act", "id", "if_match", "key"}

NORMAL, GOING_AWAY, PROTOCOL_ERROR, POLICY, TOO_BIG, TRY_AGAIN = 1000, 1001, 1002, 1008, 1009, 1013
LIFETIME, BEHIND, NO_PONG = 4000, 4001, 4002
UNANSWERED_PINGS = 2  # keep-alive pings with no pong (nor any frame) before closing 4002
ENDINGS = {
    "finished": (NORMAL, "the game is over"),
    "closing": (GOING_AWAY, "the server is stopping"),
    "lifetime": (LIFETIME, "the socket's lifetime passed: reconnect with after"),
    "lagged": (BEHIND, "the reader fell behind: reconnect with after"),
    "store": (TRY_AGAIN, "the store does not answer: reconnect with after"),
}


class SlowReader(Exception):
    """A write waited `send_deadline_s` for the client to take anything."""


class Gone(gevent.GreenletExit):
    """Thrown into the connection's greenlet when the client went away or the connection was
    cut, wherever it waits (for a batch, for the socket to take a write, for the close)."""


class Broken(NamedTuple):
    """What the client sent is not RFC 6455: the close to send (1002, or 1007 for bad UTF-8)."""

    code: int
    reason: str


class Session:
    """One upgraded connection: the reader is the connection's greenlet, the writer its own."""

    # a spectator's socket is mostly this object while it waits: no dict of its own
    __slots__ = (
        "acted_early",
        "acting",
        "actions_path",
        "app",
        "authed",
        "authorization",
        "binary",
        "client",
        "cut",
        "engine",
        "game_id",
        "greenlet",
        "handler",
        "inbox",
        "limits",
        "lock",
        "over",
        "parts",
        "pending",
        "pings_out",
        "ready",
        "rfile",
        "seat",
        "send_deadline_s",
        "sent_upto",
        "size",
        "sock",
        "spend",
        "subscription",
        "timers",
        "wake",
        "watcher",
        "ws",
    )

    def __init__(
        self,
        app: Flask,
        subscription: Subscription,
        seat: int | None,
        authorization: str | None,
        browser: bool,
        sock: Any,
        rfile: Any,
        spend: Any,
    ) -> None:
        self.app, self.subscription = app, subscription
        self.engine = app.extensions["batayo.engine"]
        self.limits = app.extensions["batayo.limits"]
        self.game_id = subscription.channel.game_id
        self.actions_path = f"/v1/games/{self.game_id}/actions"
        self.client = subscription.client
        self.seat, self.authorization, self.authed = seat, authorization, not browser
        self.sock, self.rfile = sock, rfile
        self.spend = spend  # the server's way to let the reader go (a weak method)
        keepalive = subscription.hub.settings.keepalive_s
        self.send_deadline_s = max(5.0, 2 * keepalive)
        self.ws = Connection(ConnectionType.SERVER)
        self.lock = gevent.lock.Semaphore()
        self.sent_upto = subscription.after  # the last event version written to the socket
        self.pending: list[tuple[int, bytes]] = []  # `acted` frames waiting for their events
        # the `act` under way, once decided: its version, the hash of its last event and its id;
        # its `acted` frame goes out with its events if they come before its answer does
        self.acting: tuple[int, str, str | int] | None = None
        self.acted_early = -1  # the version whose `acted` frame went out that way
        self.parts: list[str] = []  # the text message being received
        self.size = 0
        self.binary = False
        self.pings_out = 0  # keep-alive pings sent since the client last sent anything
        self.cut = False
        self.timers: list[gevent.Greenlet] = []
        self.greenlet: Any = None  # the connection's: it writes the batches
        self.watcher: Any = None  # the loop's watch on the socket: what arrives is read then
        self.inbox: list[Event | Broken] = []  # what the client sent that needs an answer
        self.handler: gevent.Greenlet | None = None  # answering the inbox, while it has any
        self.wake = gevent.event.Event()  # something for the handler
        self.ready = gevent.event.Event()  # authenticated (or over): the batches may start
        self.over = False  # the connection ended: the client went, or it was cut

    # the session

    def run(self) -> None:
        """The connection's greenlet writes the batches; what the client sends is read by a
        callback of the loop when it arrives (no greenlet waits on it: a waiting greenlet keeps
        its stack, a large part of an idle spectator's memory), and answered by a greenlet made
        only while something needs an answer (an `act`, a ping, the close)."""
        self.greenlet = gevent.getcurrent()
        try:
            self._tune()
            if not self.authed:
                self.timers.append(gevent.spawn_later(AUTH_TIMEOUT_S, self._auth_late))
            self.watcher = gevent.get_hub().loop.io(self.sock.fileno(), 1)  # 1: readable
            self.watcher.start(self._readable)
            early = self._buffered()
            self._spend_reader()
            if early:
                self._received(early)
            if not self.authed:
                self.ready.wait()
            if self.authed and not self.over:
                self._pump()
            while not self.over:  # the close handshake, or the cut that ends it
                self.ready.wait()
                self.ready.clear()
        except Gone:
            pass
        except Exception:  # a bug: logged once, the connection closed, never a 500
            log.exception("the socket of game %s failed", self.game_id)
        finally:  # nothing here waits (an answer under way ends on its own: `over`)
            self.over = True
            if self.watcher is not None:
                self.watcher.stop()
                self.watcher.close()
            for timer in self.timers:
                timer.kill(block=False)
            self.subscription.close()

    def _tune(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
            # an `acted` frame right after its events, not held back by Nagle
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def _buffered(self) -> bytes:
        """What the server read past the upgrade request (a client may send at once), without
        waiting for more."""
        timeout = self.sock.gettimeout()
        self.sock.settimeout(0.0)
        try:
            return self.rfile.read1(READ_SIZE) or b""
        except (OSError, ValueError):
            return b""
        finally:
            self.sock.settimeout(timeout)

    def _spend_reader(self) -> None:
        """The socket is read directly from now on: the server's buffered reader can go."""
        self.rfile = None
        spend, self.spend = self.spend(), None
        if spend is not None:  # the handler is there as long as its connection
            spend()

    def _readable(self) -> None:
        """The loop's callback when the socket has something: read it (never waiting), hand
        what needs an answer to the handler; nothing, or an error, is the client gone."""
        if self.over:
            return
        raw = getattr(self.sock, "_sock", self.sock)
        try:
            data = raw.recv(READ_SIZE)
        except BlockingIOError:
            return
        except OSError:  # reset by the peer, or cut by us
            return self._end()
        if not data:  # gone, with or without a close frame: normal
            return self._end()
        self._received(data)

    def _received(self, data: bytes) -> None:
        self.pings_out = 0  # a pong, or anything: the client is there
        self.ws.receive_data(data)
        try:
            for event in self.ws.events():
                if not isinstance(event, Pong):
                    self.inbox.append(event)
        except RemoteProtocolError as exc:  # not RFC 6455: 1002 (1007 for bad UTF-8)
            hint = exc.event_hint
            code = hint.code if isinstance(hint, CloseConnection) else PROTOCOL_ERROR
            self.inbox.append(Broken(code, str(exc)[:100]))
        if not self.inbox:
            return
        if len(self.inbox) >= INBOX:  # the answers lag: read no more until they are made
            self.watcher.stop()
        if self.handler is None:
            self.handler = gevent.spawn(self._answer)
        else:
            self.wake.set()

    def _answer(self) -> None:
        """Answer what the client sent, in order. A seat's handler stays for its next `act`
        (a player sends one a move); a spectator's ends once it has answered."""
        try:
            while not self.over:
                if not self.inbox:
                    if self.seat is None:
                        return
                    self.wake.wait()
                    self.wake.clear()
                    continue
                event = self.inbox.pop(0)
                if isinstance(event, Broken):
                    self._close(event.code, event.reason)
                    return self._end()
                if not self._on(event):
                    return self._end()
                if not self.watcher.active and len(self.inbox) < INBOX and not self.over:
                    self.watcher.start(self._readable)  # read again: the answers caught up
        except Exception:  # a bug: logged once, the connection closed, never a 500
            log.exception("the socket of game %s failed", self.game_id)
            self._end()
        finally:
            self.handler = None

    def _end(self) -> None:
        """The connection is over: the batches stop (the connection's greenlet is told, which
        ends the session)."""
        if self.over:
            return
        self.over = True
        self.watcher.stop()
        self.wake.set()  # a waiting handler ends
        # told before the event is set, the greenlet wakes to Gone; should it have left the
        # session by then, Gone (a GreenletExit) only ends a connection that is ending anyway
        gevent.kill(self.greenlet, Gone)
        self.ready.set()

    def _on(self, event: Event) -> bool:
        """Handle one event; False ends the session."""
        if isinstance(event, TextMessage | BytesMessage):
            if self.ws.state is not ConnectionState.OPEN:
                return True  # closing: what still comes is not acted on
            self.binary = self.binary or isinstance(event, BytesMessage)
            data = event.data
            self.size += (
                len(data)
                if isinstance(data, bytes | bytearray) or data.isascii()
                else len(data.encode())
            )
            if self.size > MAX_MESSAGE:
                self._close(TOO_BIG, f"a message is at most {MAX_MESSAGE} bytes")
                self.parts, self.size = [], 0
                return True
            if not self.binary:
                self.parts.append(data)  # type: ignore[arg-type]
            if event.message_finished:
                text, binary = "".join(self.parts), self.binary
                self.parts, self.size, self.binary = [], 0, False
                if binary:
                    self._refuse(None, _bad("send text frames: one JSON object each"))
                else:
                    self._message(text)
            return True
        if isinstance(event, Ping):
            if self.ws.state is ConnectionState.OPEN:
                self._send(self.ws.send(event.response()))
            return True
        if isinstance(event, Pong):
            return True
        if isinstance(event, CloseConnection):
            with self.lock:
                if self.ws.state is ConnectionState.REMOTE_CLOSING:  # the client's: answered
                    self._write(self.ws.send(event.response()))
                elif self.ws.state is ConnectionState.OPEN:  # wsproto's for a bad frame
                    self._write(self.ws.send(CloseConnection(event.code, event.reason[:100])))
            return False
        return True  # pragma: no cover - wsproto's server events are all above

    # client to server

    def _message(self, text: str) -> None:
        try:
            msg = orjson.loads(text)
        except orjson.JSONDecodeError:
            if not self.authed:
                return self._close(POLICY, 'the first message is {"auth": TOKEN}')
            return self._refuse(None, _bad("a frame is one JSON object"))
        if not self.authed:
            return self._authenticate(msg)
        if not isinstance(msg, dict):
            return self._refuse(None, _bad("a frame is one JSON object"))
        ident = msg.get("id")
        if (
            "act" not in msg
            or isinstance(ident, bool)
            or not isinstance(ident, str | int)
            or (
                isinstance(ident, str)
                and (len(ident) > bounds.SOCKET_ID_MAX or not _unicode(ident))
            )
        ):
            return self._refuse(
                None, _bad('an act frame is {"act": BODY, "id": ID}: ID a string or an integer')
            )
        self._refuse_or_act(ident, msg)

    def _refuse_or_act(self, ident: str | int, msg: dict) -> None:
        self.acted_early = -1  # one act at a time: none of this one's has gone out yet
        try:
            version = self._act(ident, msg)
        except Problem as exc:
            return self._refused(ident, problem_body(exc.status, exc.code, exc.detail, **exc.extra))
        except REFUSALS as exc:
            p = refusal(exc)
            return self._refused(ident, problem_body(p.status, p.code, p.detail, **p.extra))
        except STORE_DOWN as exc:
            log.warning("the store does not answer: %s", exc)
            body = problem_body(503, "unavailable", "the store does not answer; retry shortly")
            return self._refused(ident, {**body, "retry_after": 1})
        except Exception:  # a bug: logged, answered as the POST's 500
            log.exception("an action on the socket of game %s failed", self.game_id)
            body = problem_body(500, "internal_error", "an unexpected error; it has been logged")
            return self._refused(ident, body)
        finally:
            self.acting = None
        with self.lock:
            if self.acted_early == version:  # out already, with its events
                return
            if self.ws.state is not ConnectionState.OPEN:
                return  # the close frame is out: no data frame may follow it (RFC 6455 5.5.1)
            frame = _acted(ident, version)
            if self.sent_upto >= version:  # its events are out already (or it was a replay)
                self._write(frame)
            else:
                self.pending.append((version, frame))

    def _act(self, ident: str | int, msg: dict) -> int:
        """What `POST …/actions` does, in its order: the rate limits, the seat, the body."""
        unknown = set(msg) - FIELDS
        if unknown:
            raise _bad(f"unknown field: {sorted(unknown)[0]}")
        refused, _ = self.limits.check(self.actions_path, self.client, self.authorization)
        if refused is not None:
            body = orjson.loads(refused.get_data())
            if "retry_after" not in body and refused.headers.get("Retry-After"):
                body["retry_after"] = int(refused.headers["Retry-After"])
            raise Problem(**_as_problem(body))
        seat = self.seat
        if seat is None:  # a spectator: the POST's 401
            seat = seat_for(self.engine, self.game_id, None, required=True)
        action = msg.get("act")
        if not isinstance(action, dict):
            raise _bad("act must be a JSON object: the body of POST /v1/games/{id}/actions")
        if not _unicode(action):
            raise _bad("text must be Unicode: no lone surrogate (\\ud800)")
        if_match = msg.get("if_match")
        if if_match is not None and (
            isinstance(if_match, bool) or not isinstance(if_match, int) or if_match < 0
        ):
            raise _bad("if_match must be a version: an integer of at least 0")
        key = msg.get("key")
        if key is not None and not isinstance(key, str):
            raise _bad("key must be a string")
        key = checked_key(key)
        header = None if if_match is None else f'"{if_match}"'

        def decided(state: dict) -> None:
            self.acting = (state["version"], state["hash"], ident)

        _, state = applied(self.engine, self.game_id, seat, action, header, key, decided)
        return state["version"]

    def _refused(self, ident: str | int, problem: dict) -> None:
        """An act's refusal, unless its `acted` went out with its events (the store lost the
        answer of an append that landed): that act is applied, whatever came after."""
        if self.acted_early < 0:
            self._refuse(ident, problem)

    def _authenticate(self, msg: Any) -> None:
        token = msg.get("auth") if isinstance(msg, dict) and set(msg) == {"auth"} else None
        if not isinstance(token, str) or not token.strip() or not _unicode(token):
            return self._close(POLICY, 'the first message is {"auth": TOKEN}')
        header = f"Bearer {token.strip()}"
        try:
            seat = seat_for(self.engine, self.game_id, header)
        except Problem as exc:
            return self._close(POLICY, exc.detail)
        except STORE_DOWN:
            return self._close(TRY_AGAIN, "the store does not answer")
        self.seat = self.subscription.seat = seat
        self.authorization, self.authed = header, True
        self.ready.set()

    def _auth_late(self) -> None:
        if not self.authed:
            self._close(POLICY, f"no auth message within {AUTH_TIMEOUT_S:g} s")

    def _refuse(self, ident: str | int | None, problem: dict | Problem) -> None:
        if isinstance(problem, Problem):
            problem = problem_body(problem.status, problem.code, problem.detail, **problem.extra)
        with self.lock:
            if self.ws.state is ConnectionState.OPEN:  # never a data frame after the close
                self._write(wsframes.text({"refused": {"id": ident, "problem": problem}}))

    # server to client

    def _pump(self) -> None:
        """The subscription's frames, then the close its end calls for."""
        sub = self.subscription
        for chunk in sub.frames():
            if chunk is wsframes.KEEP_ALIVE:
                if self.pings_out >= UNANSWERED_PINGS:  # silent for as many keep-alive periods
                    self._close(NO_PONG, "no pong to the last pings")
                    return
                self.pings_out += 1
            upto = sub.after  # what the chunk holds (no switch since the generator set it)
            with self.lock:
                if self.ws.state is not ConnectionState.OPEN:  # closed by the client meanwhile
                    return
                if self.pending:
                    chunk += self._due(upto)
                acting = self.acting
                if acting is not None and sub.handed(acting[0], acting[1]):
                    # the act's events came before its answer: its `acted` goes with them,
                    # in the same write rather than a send of its own
                    chunk += _acted(acting[2], acting[0])
                    self.acting, self.acted_early = None, acting[0]
                if not self._write(chunk):
                    return
                self.sent_upto = upto
        code, reason = ENDINGS.get(sub.ended or "", (TRY_AGAIN, "the stream ended"))
        self._close(code, reason)

    def _due(self, upto: int) -> bytes:
        """The `acted` frames whose events are in what is being written (lock held)."""
        due = [frame for version, frame in self.pending if version <= upto]
        if due:
            self.pending = [(v, f) for v, f in self.pending if v > upto]
        return b"".join(due)

    def _close(self, code: int, reason: str) -> None:
        """Send the close frame (once) and give the client `CLOSE_WAIT_S` to answer it."""
        with self.lock:
            if self.ws.state is not ConnectionState.OPEN:
                return
            self._write(self.ws.send(CloseConnection(code, reason)))
        self.timers.append(gevent.spawn_later(CLOSE_WAIT_S, self._cut))

    def _send(self, data: bytes) -> bool:
        with self.lock:
            return self._write(data)

    def _write(self, data: bytes) -> bool:
        """Write whole frames (lock held): one plain send when it fits, as service/wsgi_io's
        handler does; else gevent's, within `send_deadline_s`. False: the connection is gone."""
        if self.cut:
            return False
        raw = getattr(self.sock, "_sock", None)
        sent = 0
        if raw is not None:
            try:
                sent = raw.send(data)
            except OSError:  # would block, or gone: gevent's path says which
                sent = 0
        if sent == len(data):
            return True
        try:
            with gevent.Timeout(self.send_deadline_s, SlowReader):
                self.sock.sendall(memoryview(data)[sent:])
            return True
        except SlowReader:
            log.info(
                "a socket of game %s took nothing for %g s: cut", self.game_id, self.send_deadline_s
            )
        except OSError:  # the client went away: normal
            pass
        self._cut()
        return False

    def _cut(self) -> None:
        """End the connection now: the reader wakes with nothing to read."""
        self.cut = True
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)


def _acted(ident: str | int, version: int) -> bytes:
    """The `acted` frame of the act `ident`, applied at `version`."""
    return wsframes.text({"acted": {"id": ident, "version": version}})


def _bad(detail: str) -> Problem:
    return Problem(400, "invalid_request", detail)


def _as_problem(body: dict) -> dict:
    """A problem body back as `Problem`'s arguments."""
    extra = {
        k: v for k, v in body.items() if k not in ("type", "title", "status", "detail", "code")
    }
    return {"status": body["status"], "code": body["code"], "detail": body["detail"], **extra}
