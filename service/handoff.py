"""A player's socket served by the worker that owns its game, so that a game's players share a
process: one follower of the game, one fan-out, no wait on another process's append.

`Handoff.peek` looks at a new connection without reading it; `Handoff.pass_on` sends a player's
socket whose game another worker owns to that worker, unread (SCM_RIGHTS over a Unix datagram
socket). Anything else, and any failure on the way, is served where it was accepted. A new
game's id is drawn so that the worker with the fewest games owns it (`Handoff.game_id`).
Why: docs/architecture.md, "The game's WebSocket" and "Measured shortcuts".
"""

from __future__ import annotations

import array
import contextlib
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
DRAWS = 32  # ids drawn at most for one that the least busy worker owns
RECENT_S = 1.0  # a worker's games count those given it this long ago, not yet in its report
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


def load_file(folder: Path, worker: int) -> Path:
    return folder / f"{worker}.load"


def forget(folder: Path | None, worker: int) -> None:
    """A stopped worker's address goes, so that no game is owned by it any more."""
    if folder is not None:
        address(folder, worker).unlink(missing_ok=True)
        load_file(folder, worker).unlink(missing_ok=True)


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
        self.reported = -1  # the count of games this worker last wrote to its load file
        self.given: list[tuple[float, int]] = []  # (when, worker) of the ids drawn here lately
        self.turn = 0  # among equally busy workers, whose turn it is

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

    def report(self, games: int) -> None:
        """This worker follows `games` games now: what the others read when they draw an id."""
        if games != self.reported:
            path = load_file(self.folder, self.me)
            draft = path.with_suffix(".draft")
            with contextlib.suppress(OSError):  # the folder is going: the server is stopping
                draft.write_bytes(b"%d" % games)
                draft.replace(path)  # whole: a reader never sees it half written
                self.reported = games

    def loads(self, workers: list[int]) -> dict[int, int]:
        """Each worker's count of games: its last report, and the ids drawn for it here since
        that report (for `RECENT_S` at most), which it may not count yet."""
        now = time.time()
        self.given = [(at, w) for at, w in self.given if now - at < RECENT_S]
        loads, reported = dict.fromkeys(workers, 0), dict.fromkeys(workers, 0.0)
        for worker in workers:
            path = load_file(self.folder, worker)
            with contextlib.suppress(OSError, ValueError):  # not reported yet: none
                reported[worker] = path.stat().st_mtime
                loads[worker] = int(path.read_bytes() or 0)
        for at, worker in self.given:
            if worker in loads and at >= reported[worker]:
                loads[worker] += 1
        return loads

    def game_id(self, draw: Callable[[], str]) -> str:
        """A new game's id, drawn (with `draw`) until the worker with the fewest games owns it,
        so that games spread evenly over the workers (equally busy ones take turns). An even
        spread matters: a game's moves wait in its worker's queue."""
        workers = self.workers()
        game = draw()
        if len(workers) < 2:
            return game
        loads = self.loads(workers)
        fewest = min(loads.values())
        least = sorted(w for w in workers if loads[w] == fewest)
        wanted = least[self.turn % len(least)]
        self.turn += 1
        for _ in range(DRAWS):
            if owner(game, workers) == wanted:
                break
            game = draw()
        else:
            wanted = owner(game, workers)
        self.given.append((time.time(), wanted))
        return game

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
