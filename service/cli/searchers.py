"""The searching bots' moves of `batayo serve`, made in child processes.

Without `REDIS_URL` the server's worker is a greenlet on the API's event loop, and a searching
move (a `strong` or Batak `expert` move, a hint) is long CPU work: on the loop it would hold
every request and socket; in a thread it would still take the interpreter's lock from them. So
`bots.offload` sends it to a child: the seat's view and the bot's random source go down a pipe,
the action comes back, the same move as made in place. Children start at the first such move
and end with the server (their input closes); one that dies is replaced and asked again, once.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import struct
import sys
from collections.abc import Mapping
from typing import Any, BinaryIO

_SIZE = struct.Struct("!I")


class SearchFailed(RuntimeError):
    """The child could not make the move (the bot raised, or the child died twice)."""


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
        child: Child | None = self._take()
        try:
            try:
                return child.ask(game, level, view, rng)
            except (EOFError, OSError, pickle.UnpicklingError):
                child.close()  # it died, or its pipe broke: a fresh one, asked once more
                child = Child(self.cap_s)
                try:
                    return child.ask(game, level, view, rng)
                except (EOFError, OSError, pickle.UnpicklingError) as exc:
                    raise SearchFailed(f"the search process died twice: {exc!r}") from exc
        except BaseException as exc:
            # the bot's own error leaves its child ready; anything else (a death, this greenlet
            # killed mid-answer) leaves its pipe in an unknown state: a fresh one next time
            if not (isinstance(exc, SearchFailed) and child.process.poll() is None):
                child.close()
                child = None
            raise
        finally:
            self.free.put(child)

    def _take(self) -> Child:
        if self.free.empty() and self.started < self.size:
            self.started += 1
            return Child(self.cap_s)
        child = self.free.get()
        return child if child is not None else Child(self.cap_s)

    def close(self) -> None:
        while not self.free.empty():
            child = self.free.get()
            if child is not None:
                child.close()


def serve(cap_s: float | None) -> None:
    """A child's loop: each move asked on standard input, answered on standard output, until
    the input closes (the server stopped)."""
    from ..core import search
    from ..core.registry import GAMES

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
