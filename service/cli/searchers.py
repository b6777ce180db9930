"""The searching bots' moves of `batayo serve`, made in child processes.

Without `REDIS_URL` the server's worker is a greenlet on the API's event loop; a searching move
(`strong`, Batak's `expert`, a hint) is long CPU work that would hold every request and socket
there, and in a thread would still take the interpreter's lock. So `bots.offload` sends it to a
child: the seat's view and the bot's random source down a pipe, the same action back. A child
that dies is replaced and asked again once; with none answering, the move is made here.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import struct
import sys
from collections.abc import Mapping
from typing import Any, BinaryIO

from ..core.registry import GAMES

log = logging.getLogger("batayo.searchers")
_SIZE = struct.Struct("!I")


class SearchFailed(RuntimeError):
    """The bot raised in the child: the move's job fails, as it would have here."""


class ChildrenDown(RuntimeError):
    """No child process answers: it could not start, or died twice."""


def _send(pipe: BinaryIO, value: Any) -> None:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    pipe.write(_SIZE.pack(len(data)) + data)
    pipe.flush()


def _receive(pipe: BinaryIO) -> Any:
    head = pipe.read(_SIZE.size)
    if len(head) < _SIZE.size:
        raise EOFError("the pipe closed")
    (size,) = _SIZE.unpack(head)
    data = pipe.read(size)
    if len(data) < size:
        raise EOFError("the pipe closed mid-message")
    # the other end is this server itself (its own child, or its parent): nothing else writes here
    return pickle.loads(data)  # noqa: S301


class Child:
    """One child process, asked one move at a time."""

    def __init__(self, cap_s: float | None) -> None:
        from gevent import subprocess

        code = f"from service.cli.searchers import serve; serve({cap_s!r})"
        self.process = subprocess.Popen(
            [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )

    def ask(self, game: str, level: str, view: Mapping, rng: Any) -> dict:
        _send(self.process.stdin, (game, level, view, rng))
        ok, answer = _receive(self.process.stdout)
        if not ok:
            raise SearchFailed(answer)
        return answer

    def close(self) -> None:
        for pipe in (self.process.stdin, self.process.stdout):
            with contextlib.suppress(OSError):
                pipe.close()
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


class Children:
    """`size` children (started as moves need them), each making one move at a time; a move
    waits for a free one. Called as `bots.offload`'s runner."""

    def __init__(self, size: int | None = None, cap_s: float | None = None) -> None:
        from gevent.queue import Queue

        self.size = size or max(1, (os.cpu_count() or 2) - 1)
        self.cap_s = cap_s
        self.started = 0
        self.free: Queue = Queue()

    def __call__(self, game: str, level: str, view: Mapping, rng: Any) -> dict:
        try:
            return self._ask(game, level, view, rng)
        except ChildrenDown as exc:
            # no child answers (they die at once: an import fails, the system refuses processes):
            # the move is made here, on the loop, so that the games go on
            log.warning("no search process answers (%s): a %s move made in the server", exc, level)
            return GAMES[game].bots[level](view, rng)

    def _ask(self, game: str, level: str, view: Mapping, rng: Any) -> dict:
        child: Child | None = self._take()
        try:
            try:
                return child.ask(game, level, view, rng)
            except (EOFError, OSError, pickle.UnpicklingError):
                child.close()  # it died, or its pipe broke: a fresh one, asked once more
                child = None
                child = Child(self.cap_s)
                try:
                    return child.ask(game, level, view, rng)
                except (EOFError, OSError, pickle.UnpicklingError) as exc:
                    raise ChildrenDown(f"a search process died twice: {exc!r}") from exc
        except BaseException as exc:
            # the bot's own error leaves its child ready; anything else (a death, this greenlet
            # killed mid-answer) leaves its pipe in an unknown state: a fresh one next time
            if child is not None and not (
                isinstance(exc, SearchFailed) and child.process.poll() is None
            ):
                child.close()
                child = None
            if isinstance(exc, OSError):  # a fresh child could not start
                raise ChildrenDown(f"a search process could not start: {exc!r}") from exc
            raise
        finally:
            self.free.put(child)

    def _take(self) -> Child:
        if self.free.empty() and self.started < self.size:
            self.started += 1
            child = None
        else:
            child = self.free.get()
        if child is not None:
            return child
        try:
            return Child(self.cap_s)
        except OSError as exc:
            self.free.put(None)  # its place: tried again at the next move
            raise ChildrenDown(f"a search process could not start: {exc!r}") from exc

    def close(self) -> None:
        while not self.free.empty():
            child = self.free.get()
            if child is not None:
                child.close()


def serve(cap_s: float | None) -> None:
    """A child's loop: each move asked on standard input, answered on standard output, until
    the input closes (the server stopped)."""
    from ..core import search

    search.time_cap(cap_s)
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # a stray print must not break the answers' framing
    while True:
        try:
            game, level, view, rng = _receive(stdin)
        except EOFError:
            return
        try:
            answer = (True, GAMES[game].bots[level](view, rng))
        except Exception as exc:  # the bot's own failure: the parent raises it as a job error
            answer = (False, f"{level} bot of {game}: {exc!r}")
        _send(stdout, answer)
