"""The live-stream bench's readers: many connections of one game opened in waves, then each
event's arrival noted on each, in one epoll loop (stdlib only). bench/streams.py's SSE followers
and bench/sockets.py's spectator sockets differ only in the request they send, the answer they
expect and how an event's version is spelled in what arrives.

On loopback the sender's `send` also runs the receiver's side of TCP, and wakes the receiver if
it sleeps: readers that drain their sockets quickly and sleep cost the server's CPU more than
readers still busy. `busy` readers never sleep, so the server's CPU is its own, as it is with
spectators on other machines (docs/performance.md#live-streams).
"""

from __future__ import annotations

import array
import selectors
import socket
import time
from collections.abc import Callable
from pathlib import Path

BUSY = "--busy"  # the readers' option for never sleeping (both transports' entry points)
WAVE = 250  # connections opened before their answers are read: the listen queue never overflows
TAIL = 64  # bytes of what arrived kept for the next read: a version split across two reads


def opened(
    host: str, port: int, n: int, request: bytes, answer: bytes
) -> dict[socket.socket, bytes]:
    """`n` connections that sent `request` and got an answer starting with `answer`, each with
    what arrived past the answer's head (non-blocking from then on); SystemExit if refused."""
    held: dict[socket.socket, bytes] = {}
    while len(held) < n:
        wave = []
        for _ in range(min(WAVE, n - len(held))):
            sock = socket.create_connection((host, port))
            sock.sendall(request)
            wave.append(sock)
        for sock in wave:  # each answers its head (and the catch-up) before the next wave
            head = b""
            while b"\r\n\r\n" not in head:
                head += sock.recv(65536)
            if not head.startswith(answer):
                raise SystemExit(f"refused: {head[:200]!r}")
            sock.setblocking(False)
            held[sock] = head.split(b"\r\n\r\n", 1)[1]
    return held


def record(
    held: dict[socket.socket, bytes],
    seconds: float,
    out: Path,
    marker: bytes,
    ends: bytes,
    busy: bool = False,
    received: Callable[[socket.socket, bytes], bytes] | None = None,
) -> None:
    """For `seconds`, note each version that arrives (the digits between `marker` and `ends`)
    with its arrival time; write them to `out` as (version, arrival) pairs of doubles.
    `received` sees what arrived on a connection first (to answer a ping) and gives what to
    scan."""
    sel = selectors.DefaultSelector()
    tails: dict[int, bytes] = {}
    for sock, tail in held.items():
        tails[sock.fileno()] = tail
        sel.register(sock, selectors.EVENT_READ)
    seen = array.array("d")
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for key, _ in sel.select(timeout=0 if busy else 0.5):
            sock = key.fileobj
            try:
                data = sock.recv(262144)  # type: ignore[union-attr]
            except BlockingIOError:
                continue
            now = time.monotonic()
            if not data:
                sel.unregister(sock)
                continue
            fd = sock.fileno()  # type: ignore[union-attr]
            text = tails[fd] + data
            if received is not None:
                text = received(sock, text)  # type: ignore[arg-type]
            start = 0
            while True:
                i = text.find(marker, start)
                if i < 0:
                    break
                j = text.find(ends, i + len(marker))
                if j < 0:  # the version's end is still to come: keep it from its marker
                    start = i
                    break
                seen.append(float(text[i + len(marker) : j]))
                seen.append(now)
                start = j
            tails[fd] = text[max(start, len(text) - TAIL) :]
    with out.open("wb") as f:
        seen.tofile(f)
