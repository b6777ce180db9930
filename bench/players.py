"""The live path under load: every player follows its own seat's stream and acts on push.

    python bench/players.py --url http://127.0.0.1:8000 --games 100 --seconds 10

A separate process, stdlib only (asyncio). `--games` two-seat Bataille classique games with two
human seats are created before the clock starts, and a game that ends is replaced by a new one
while the clock runs (as the peer bench's clients do: a fast transport's players are never left
idle); each player opens
`GET /v1/games/{id}/stream?view=1` with its seat's token (after each batch of events the
stream sends the seat's new view, `legal_actions` included) and, on its own keep-alive
connection, POSTs the first legal action whenever a view offers one and no move of its is
under way. A move's latency runs from its POST to the first view the stream pushes at or
after the version its answer reached (the push that lets the player act again). Prints one JSON object: moves, moves/s, p50 and p99 (ms),
the streams answered, errors. This is the counterpart of the peer bench's live path.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
import urllib.request
from urllib.parse import urlsplit

RUNNING: set[asyncio.Task] = set()  # the moves under way (kept so none is collected early)
GAME = {"game": "bataille", "seats": [{"name": "a"}, {"name": "b"}]}


def create(url: str) -> dict:
    request = urllib.request.Request(
        f"{url}/v1/games",
        data=json.dumps(GAME).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)


class Stats:
    def __init__(self) -> None:
        self.moves = 0
        self.errors = 0
        self.refused = 0  # 409s: acted on a view a newer move had made stale
        self.streams = 0  # streams (or sockets) answered
        self.seated = 0  # players seated: one stream (or socket) wanted each
        self.latencies: list[float] = []
        self.measuring = False
        self.end = float("inf")


async def _read_answer(reader: asyncio.StreamReader) -> tuple[int, int]:
    """One HTTP/1.1 answer with a Content-Length (the action's): its status and the version
    its ETag names (0 without one)."""
    status = int((await reader.readline()).split()[1])
    length, version = 0, 0
    while (line := await reader.readline()) not in (b"\r\n", b""):
        name, _, value = line.partition(b":")
        name = name.strip().lower()
        if name == b"content-length":
            length = int(value)
        elif name == b"etag":
            version = int(value.strip().strip(b'W/"') or 0)
    await reader.readexactly(length)
    return status, version


async def _chunks(reader: asyncio.StreamReader):
    """The body of a chunked answer, chunk by chunk."""
    while True:
        size = int((await reader.readline()).strip() or b"0", 16)
        if size == 0:
            return
        data = await reader.readexactly(size)
        await reader.readexactly(2)
        yield data


class Player:
    def __init__(self, host: str, port: int, game_id: str, token: str, stats: Stats) -> None:
        self.host, self.port, self.game_id, self.token = host, port, game_id, token
        self.stats = stats
        self.sent_at: float | None = None  # the move under way: when it was posted
        self.reached = 0  # the version this player's last answered move reached
        self.busy = False
        self.latest: dict | None = None  # the last view pushed
        self.acted_on = 0  # the version of the last view a move was posted on
        self.actions: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
        self.over = False  # a view showed the game over
        self.answer: int | None = None  # the status its stream (or socket) was answered with
        self.moving: asyncio.Task | None = None  # the move under way

    async def act(self, action: dict) -> None:
        try:
            sent, (status, version) = await self._post(action)
        except (OSError, asyncio.IncompleteReadError, ValueError, IndexError):
            self.stats.errors += 1  # the connection broke: a new one for the next move
            self.actions = None
            return
        finally:
            self.busy = False
        if status == 409:  # a view pushed before the other seat's move landed: stale, refused
            self.stats.refused += 1
        elif status != 200:
            self.stats.errors += 1
        else:
            self.reached = version
            if self.stats.measuring:
                self.stats.moves += 1
                self.sent_at = sent
        self.consider(self.latest)  # a view that came while the move was under way

    async def _post(self, action: dict) -> tuple[float, tuple[int, int]]:
        if self.actions is None:
            self.actions = await asyncio.open_connection(self.host, self.port)
        reader, writer = self.actions
        body = json.dumps(action).encode()
        writer.write(
            (
                f"POST /v1/games/{self.game_id}/actions HTTP/1.1\r\nHost: {self.host}\r\n"
                f"Authorization: Bearer {self.token}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n"
            ).encode()
            + body
        )
        sent = time.perf_counter()
        return sent, await _read_answer(reader)

    async def follow(self) -> None:
        reader, writer = await asyncio.open_connection(self.host, self.port)
        writer.write(
            (
                f"GET /v1/games/{self.game_id}/stream?view=1 HTTP/1.1\r\nHost: {self.host}\r\n"
                f"Authorization: Bearer {self.token}\r\nAccept: text/event-stream\r\n\r\n"
            ).encode()
        )
        self.answer = int((await reader.readline()).split()[1])
        if self.answer != 200:
            self.stats.errors += 1
            return
        while (await reader.readline()) not in (b"\r\n", b""):
            pass
        self.stats.streams += 1
        pending, kind = b"", b""
        async for chunk in _chunks(reader):
            pending += chunk
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                if line.startswith(b"event: "):
                    kind = line[7:]
                elif line.startswith(b"data: ") and kind == b"view":
                    await self.on_view(json.loads(line[6:]))
            if self.over or time.perf_counter() >= self.stats.end:
                break
        writer.close()
        if self.moving is not None:  # its answer, before its connection goes
            await asyncio.gather(self.moving, return_exceptions=True)
        if self.actions is not None:
            self.actions[1].close()

    async def on_view(self, view: dict) -> None:
        self.latest = view
        self.over = view.get("status") != "playing"
        if self.sent_at is not None and view["version"] >= self.reached:
            self.stats.latencies.append(time.perf_counter() - self.sent_at)
            self.sent_at = None
        self.consider(view)

    def consider(self, view: dict | None) -> None:
        """Act on `view` if it offers a move: at most one move under way, each view acted on
        once, never a view older than this player's own last answer (the push after it comes)."""
        if view is None or self.busy or view["version"] <= self.acted_on:
            return
        legal = view.get("legal_actions") or []
        if not legal or view.get("status") != "playing" or view["version"] < self.reached:
            return
        if time.perf_counter() >= self.stats.end:
            return
        self.busy, self.acted_on = True, view["version"]
        task = self.moving = asyncio.ensure_future(self.act(legal[0]))
        RUNNING.add(task)
        task.add_done_callback(RUNNING.discard)


async def main_async(url: str, games: int, seconds: float) -> dict:
    return await measured(url, Player, "live", games, seconds, warmup=1.0)


async def table(url: str, game: dict, player: type, stats: Stats) -> None:
    """One table's games, one after the other: both seats play `game` to its end, then a new
    game while the clock runs."""
    split = urlsplit(url)
    while True:
        seats = [
            player(split.hostname, split.port, game["id"], s["token"], stats) for s in game["seats"]
        ]
        stats.seated += len(seats)
        try:
            await asyncio.gather(*(seat.follow() for seat in seats))
        except asyncio.CancelledError:  # the clock's end: a seat still connecting wanted nothing
            stats.seated -= sum(seat.answer is None for seat in seats)
            raise
        if time.perf_counter() >= stats.end:
            return
        game = await asyncio.to_thread(create, url)


async def measured(
    url: str, player: type, mode: str, games: int, seconds: float, warmup: float
) -> dict:
    """Creates `games` games, seats a `player` (this module's, or bench/sockets.py's) at each
    seat, lets them warm up (connections open, first moves made), then counts `seconds` of
    moves."""
    stats = Stats()
    made = [create(url) for _ in range(games)]
    tasks = [asyncio.ensure_future(table(url, game, player, stats)) for game in made]
    await asyncio.sleep(warmup)
    stats.measuring, started = True, time.perf_counter()
    stats.end = started + seconds
    await asyncio.sleep(seconds)
    stats.measuring = False
    elapsed = time.perf_counter() - started
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    lat = sorted(stats.latencies)
    return {
        "mode": mode,
        "games": games,
        "moves": stats.moves,
        "per_s": stats.moves / elapsed,
        "p50_ms": 1000 * statistics.median(lat) if lat else None,
        "p99_ms": 1000 * lat[int(0.99 * (len(lat) - 1))] if lat else None,
        "streams": stats.streams,
        "streams_wanted": stats.seated,
        "refused": stats.refused,
        "errors": stats.errors,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=10)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(main_async(args.url, args.games, args.seconds))))


if __name__ == "__main__":
    main()
