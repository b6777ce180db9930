"""The live path over the game's WebSocket: every player holds one socket that carries its
moves in and what it may see out (`GET /v1/games/{id}/socket?view=1`, docs/api.md).

    python bench/sockets.py --url http://127.0.0.1:8000 --games 100 --seconds 10

The counterpart of bench/players.py, which plays the same games over a stream and a POST per
move: `--games` two-seat Bataille classique games with two human seats, each replaced by a new
one when it ends; each player opens its seat's socket (the token on the upgrade) and sends an
`act` frame with the first legal action whenever a pushed view offers one and no move of its
is under way. A move's latency runs from its `act` frame to its `acted` frame, which the server
sends once the move's events (and the view after them) are out on that socket. A separate
process, stdlib only (asyncio, a small RFC 6455 client: no extension asked for, frames masked
as a client's must be). Prints one JSON object, the fields of bench/players.py.

`spectators` (a second entry point) holds many spectators' sockets of one game for
bench/streams.py, recording when each event arrives on each.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import socket
import struct
import time
from pathlib import Path

import arrivals
from players import GAME, RUNNING, Stats, measured  # noqa: F401 - RUNNING: the moves under way

TEXT, CLOSE, PING, PONG = 0x1, 0x8, 0x9, 0xA
_VERSION_FIRST = b'{"event":{"version":'  # how the server starts an event frame's JSON
KEEP_ALIVE_PING = b"\x89\x0akeep-alive"  # the server's keep-alive (service/live/wsframes.py)


def frame(opcode: int, payload: bytes) -> bytes:
    """One client frame, whole and masked (RFC 6455 5.2, 5.3)."""
    mask = os.urandom(4)
    n = len(payload)
    if n < 126:
        head = struct.pack("!BB", 0x80 | opcode, 0x80 | n)
    elif n < 65536:
        head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
    whole = int.from_bytes(mask * (n // 4 + 1), "big") >> (8 * (4 - n % 4))
    masked = (int.from_bytes(payload, "big") ^ whole).to_bytes(n, "big") if n else b""
    return head + mask + masked


def upgrade(host: str, port: int, path: str, token: str | None = None) -> bytes:
    """The upgrade request of `path` (the seat's token in its header, none for a spectator)."""
    key = base64.b64encode(os.urandom(16)).decode()
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    return (
        f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
        f"{auth}\r\n"
    ).encode()


def messages(buffer: bytearray) -> list[tuple[int, bytes]]:
    """The whole server frames at the start of `buffer` (taken out of it): (opcode, payload).
    The server sends each message in one frame, unmasked."""
    out = []
    while len(buffer) >= 2:
        n, at = buffer[1] & 0x7F, 2
        if n == 126:
            if len(buffer) < 4:
                break
            n, at = struct.unpack_from("!H", buffer, 2)[0], 4
        elif n == 127:
            if len(buffer) < 10:
                break
            n, at = struct.unpack_from("!Q", buffer, 2)[0], 10
        if len(buffer) < at + n:
            break
        out.append((buffer[0] & 0x0F, bytes(buffer[at : at + n])))
        del buffer[: at + n]
    return out


class Player:
    def __init__(self, host: str, port: int, game_id: str, token: str, stats: Stats) -> None:
        self.host, self.port, self.game_id, self.token = host, port, game_id, token
        self.stats = stats
        self.writer: asyncio.StreamWriter | None = None
        self.sent_at: float | None = None  # the move under way: when its frame was sent
        self.acted_on = 0  # the version of the last view a move was sent on
        self.latest: dict | None = None  # the last view pushed
        self.ids = 0
        self.over = False  # a view showed the game over
        self.answer: int | None = None  # the status its stream (or socket) was answered with

    async def follow(self) -> None:
        path = f"/v1/games/{self.game_id}/socket?view=1"
        reader, self.writer = await asyncio.open_connection(self.host, self.port)
        self.writer.write(upgrade(self.host, self.port, path, self.token))
        self.answer = int((await reader.readline()).split()[1])
        if self.answer != 101:
            self.stats.errors += 1
            return
        while (await reader.readline()) not in (b"\r\n", b""):
            pass
        self.stats.streams += 1
        buffer = bytearray()
        while data := await reader.read(65536):
            buffer += data
            for opcode, payload in messages(buffer):
                if opcode == PING:
                    self.writer.write(frame(PONG, payload))
                elif opcode == CLOSE:
                    self.writer.close()
                    return
                elif opcode == TEXT and not payload.startswith(b'{"event":'):
                    # a player acts on views and answers; events pass by undecoded, as
                    # bench/players.py decodes only the stream's views
                    self.on_message(json.loads(payload))
            if self.over or time.perf_counter() >= self.stats.end:
                break
        self.writer.close()

    def on_message(self, message: dict) -> None:
        if "view" in message:
            self.latest = message["view"]
            self.over = self.latest.get("status") != "playing"
            self.consider(self.latest)
        elif "acted" in message or "refused" in message:
            if "refused" in message:
                status = message["refused"]["problem"].get("status")
                if status == 409:  # acted on a view a newer move made stale
                    self.stats.refused += 1
                else:
                    self.stats.errors += 1
            elif self.stats.measuring and self.sent_at is not None:
                self.stats.moves += 1
                self.stats.latencies.append(time.perf_counter() - self.sent_at)
            self.sent_at = None
            self.consider(self.latest)  # the view that came with the move's own events

    def consider(self, view: dict | None) -> None:
        """Act on `view` if it offers a move and none of this player's is under way."""
        if view is None or self.sent_at is not None or view["version"] <= self.acted_on:
            return
        legal = view.get("legal_actions") or []
        if not legal:
            return
        if view.get("status") != "playing" or time.perf_counter() >= self.stats.end:
            return
        self.acted_on, self.ids = view["version"], self.ids + 1
        body = json.dumps({"act": legal[0], "id": self.ids}).encode()
        self.sent_at = time.perf_counter()
        self.writer.write(frame(TEXT, body))


async def main_async(url: str, games: int, seconds: float, warmup: float = 1.0) -> dict:
    return await measured(url, Player, "socket", games, seconds, warmup)


def spectators(
    host: str, port: int, path: str, n: int, seconds: float, out: Path, busy: bool = False
) -> None:
    """Open `n` spectator sockets of `path` (in waves), print `ready` once every one is
    upgraded, then record each event's arrival for `seconds`; write them to `out` as
    (version, arrival) pairs of doubles, as bench/streams.py's SSE followers do.

    Like those followers, which look for each `id:` line, it scans what arrives for the start
    of each event frame's JSON (`{"event":{"version":N`, which nothing inside a JSON text can
    spell) instead of parsing every frame, so both processes cost the server's two cores
    about alike; the server's keep-alive ping is answered the same way. `busy`: readers that
    never sleep (bench/arrivals.py)."""
    held = arrivals.opened(host, port, n, upgrade(host, port, path), b"HTTP/1.1 101")
    print("ready", len(held), flush=True)
    pong = frame(PONG, KEEP_ALIVE_PING[2:])

    def received(sock: socket.socket, text: bytes) -> bytes:
        if KEEP_ALIVE_PING in text:
            sock.sendall(pong)
            text = text.replace(KEEP_ALIVE_PING, b"")
        return text

    arrivals.record(held, seconds, out, _VERSION_FIRST, b",", busy, received)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command")
    s = sub.add_parser("spectators")
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--path", required=True)
    s.add_argument("--n", type=int, required=True)
    s.add_argument("--seconds", type=float, required=True)
    s.add_argument("--out", type=Path, required=True)
    s.add_argument(arrivals.BUSY, action="store_true")
    parser.add_argument("--url")
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=10)
    args = parser.parse_args()
    if args.command == "spectators":
        spectators("127.0.0.1", args.port, args.path, args.n, args.seconds, args.out, args.busy)
        return
    if not args.url:
        parser.error("--url is needed")
    print(json.dumps(asyncio.run(main_async(args.url, args.games, args.seconds))))


if __name__ == "__main__":
    main()
