"""A player's socket served by the worker that owns its game, so that a game's players share a
process: one follower of the game, one fan-out, no wait on another process's append.

`Handoff.peek` looks at a new connection without reading it; `Handoff.pass_on` sends a player's
socket whose game another worker owns to that worker, unread (SCM_RIGHTS over a Unix datagram
socket). Anything else, and any failure on the way, is served where it was accepted.
Why: docs/architecture.md, "The game's WebSocket" and "Measured shortcuts".
"""

from __future__ import annotations

import array
import os
import re
import socket
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gevent
from gevent import socket as gsocket

_FOLDER: Path | None = None  # the workers' addresses: set in gunicorn's master, inherited
PEEK = 4096  # enough for a socket's request line and its usual header fields
SEND_TIMEOUT_S = 1.0  # an owner that takes no connection for this long: served here instead
PLAYER_SOCKET = re.compile(rb"GET /v1/games/([^/?# ]{1,128})/socket[ ?]")
IDENTIFIED = re.compile(rb"\r\n(?:authorization:|sec-websocket-protocol:[^\r\n]*batayo\.v1)", re.I)
_FD = array.array("i", [0]).itemsize


def share(folder: Path | None) -> None:
    """Where the workers forked from here leave their addresses (None: no handoff)."""
    global _FOLDER
    _FOLDER = folder


def shared() -> Path | None:
    return _FOLDER


def address(folder: Path, worker: int) -> Path:
    return folder / f"{worker}.sock"


def forget(folder: Path | None, worker: int) -> None:
    """A stopped worker's address goes, so that no game is owned by it any more."""
    if folder is not None:
        address(folder, worker).unlink(missing_ok=True)


def player_game(head: bytes) -> str | None:
    """The game of a player's socket request whose start is `head`; None for anything else
    (a spectator's socket stays where it lands, so that a crowd spreads over the workers)."""
    found = PLAYER_SOCKET.match(head)
    if found is None or IDENTIFIED.search(head) is None:
        return None
    return found.group(1).decode("latin-1")


def owner(game_id: str, workers: list[int]) -> int:
    """The worker that serves `game_id`'s players: every worker computes the same one."""
    return sorted(workers)[zlib.crc32(game_id.encode()) % len(workers)]


class Handoff:
    """One worker's end: `listen` takes the connections other workers pass to it and serves
    them with `serve`; `pass_on` passes one on when another worker owns it."""

    def __init__(
        self, folder: Path, me: int | None = None, wait_s: float = 0.0, counted: Any = None
    ) -> None:
        self.folder, self.me = folder, me if me is not None else os.getpid()
        self.wait_s = wait_s  # the longest wait for a request's first bytes (0: no limit)
        self.counted = counted  # the app's count of connections passed on, if it keeps one
        self.inbox: Any = None

    def listen(self, serve: Callable[[Any, Any, float], Any]) -> None:
        inbox = gsocket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        inbox.bind(str(address(self.folder, self.me)))
        self.inbox = inbox
        gevent.spawn(self._receive, inbox, serve)

    def close(self) -> None:
        """No more connections for this worker: its address goes first, then its inbox."""
        forget(self.folder, self.me)
        if self.inbox is not None:
            self.inbox.close()

    def workers(self) -> list[int]:
        return [int(p.stem) for p in self.folder.glob("*.sock") if p.stem.isdigit()]

    def peek(self, conn: Any) -> bytes | None:
        """The start of `conn`'s request, left unread; None when no byte came within the header
        timeout (the caller closes it, as the handler would)."""
        due = gevent.Timeout(self.wait_s or None)
        due.start()
        try:
            return conn.recv(PEEK, socket.MSG_PEEK)
        except gevent.Timeout as timeout:
            if timeout is not due:
                raise
            return None
        except OSError:
            return b""  # the handler meets the same error and ends the connection
        finally:
            due.cancel()

    def pass_on(self, conn: Any, head: bytes, waited_s: float) -> bool:
        """Whether `conn`, whose request starts with `head`, went to the worker that owns its
        game, with the `waited_s` its request took so far (the caller closes its own copy)."""
        game = player_game(head)
        if game is None:
            return False
        to = owner(game, self.workers() or [self.me])
        if to == self.me or not self._send(conn, to, waited_s):
            return False
        if self.counted is not None:
            self.counted.inc()
        return True

    def _send(self, conn: Any, to: int, waited_s: float) -> bool:
        fds = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [conn.fileno()]))]
        # a socket of its own for each: greenlets may not share one, and a connected datagram
        # socket waits until the owner's queue has room (an unconnected one fails at once)
        due = time.monotonic() + SEND_TIMEOUT_S
        with gsocket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as out:
            out.settimeout(SEND_TIMEOUT_S)
            try:
                out.connect(str(address(self.folder, to)))
                # gevent's sendmsg waits for room once, then gives 0 if the queue is full again
                while not out.sendmsg([b"%.6f" % waited_s], fds):
                    if time.monotonic() > due:
                        return False
            except OSError:  # gone, stopping, or too busy to take it: served here
                return False
        return True

    def _receive(self, inbox: Any, serve: Callable[[Any, Any, float], Any]) -> None:
        while True:
            try:
                data, ancillary, _, _ = inbox.recvmsg(32, socket.CMSG_SPACE(_FD))
            except OSError:  # closed: the worker is stopping
                return
            try:
                waited_s = float(data)
            except ValueError:
                waited_s = 0.0
            for level, kind, passed in ancillary:
                if level != socket.SOL_SOCKET or kind != socket.SCM_RIGHTS:
                    continue
                fds = array.array("i")
                fds.frombytes(passed[: len(passed) - len(passed) % _FD])
                for fd in fds:
                    _serve_one(fd, serve, waited_s)


def _serve_one(fd: int, serve: Callable[[Any, Any, float], Any], waited_s: float) -> None:
    conn = gsocket.socket(fileno=fd)
    try:
        peer = conn.getpeername()
    except OSError:  # the client left while it was passed on
        conn.close()
        return
    serve(conn, peer, waited_s)
