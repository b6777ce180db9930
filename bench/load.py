"""The HTTP load generator of the bench: a separate process, stdlib only, keep-alive connections.

    python bench/load.py --url http://127.0.0.1:8000 --mode healthz --seconds 10 --conns 8
    python bench/load.py --url ... --mode actions --games 200 --seconds 10 --conns 8 --rate 500

`actions` creates `--games` two-seat Bataille classique games with two human seats (no bots, so
no worker is involved) before the clock starts, then every connection flips in its share of the
games in turn, for the seat the last answer said is awaited. Without `--rate` each connection
sends its next request as soon as the answer arrives (the maximum throughput); with it, requests
are paced to that many per second in all, and a latency counts from when the request was due
(so a server that falls behind is not flattered). Prints one JSON object.

The load shares the machine with the server, so its own CPU is kept small: each connection is a
plain socket with a minimal HTTP/1.1 client (`Connection`: keep-alive, answers framed by
Content-Length, as the service sends them). http.client read every answer's headers through
the email package: about 170 µs of the load's CPU a request, against 60 µs now (`bench/run.py`'s
CPU row), CPU the server under test did not get.
"""

from __future__ import annotations

import argparse
import json
import socket
import threading
import time
from urllib.parse import urlsplit


class Connection:
    """One keep-alive HTTP/1.1 connection; `request` returns the status and the body's bytes."""

    def __init__(self, host: str, port: int, timeout: float = 30) -> None:
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.host = f"{host}:{port}".encode()
        self.buffer = b""

    def request(
        self, method: str, path: str, body: bytes = b"", headers: bytes = b""
    ) -> tuple[int, bytes]:
        head = b"%s %s HTTP/1.1\r\nHost: %s\r\n%s" % (
            method.encode(),
            path.encode(),
            self.host,
            headers,
        )
        if body:
            head += b"Content-Type: application/json\r\nContent-Length: %d\r\n" % len(body)
        self.sock.sendall(head + b"\r\n" + body)
        while (end := self.buffer.find(b"\r\n\r\n")) < 0:
            self._more()
        lines = self.buffer[:end].split(b"\r\n")
        status = int(lines[0].split(b" ", 2)[1])
        length = next(
            (int(line[15:]) for line in lines[1:] if line[:15].lower() == b"content-length:"), None
        )
        if length is None:
            raise ConnectionError(f"an answer without Content-Length: {lines[0]!r}")
        start = end + 4
        while len(self.buffer) < start + length:
            self._more()
        answer, self.buffer = self.buffer[start : start + length], self.buffer[start + length :]
        return status, answer

    def _more(self) -> None:
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("the server closed the connection")
        self.buffer += chunk

    def close(self) -> None:
        self.sock.close()


class Game:
    def __init__(self, conn: Connection) -> None:
        body = json.dumps({"game": "bataille", "seats": [{"name": "a"}, {"name": "b"}]})
        status, answer = request(conn, "POST", "/v1/games", body)
        if status != 201:
            raise RuntimeError(f"create: {status} {answer!r}")
        self.id = answer["id"]
        self.tokens = {s["seat"]: s["token"] for s in answer["seats"]}
        self.to_move = [0, 1]
        self.path = f"/v1/games/{self.id}/actions"


def request(
    conn: Connection, method: str, path: str, body: str | None = None, token: str | None = None
):
    headers = b"Authorization: Bearer %s\r\n" % token.encode() if token else b""
    status, raw = conn.request(method, path, body.encode() if body else b"", headers)
    return status, (json.loads(raw) if raw else None)


FLIP = json.dumps({"type": "flip"})


def run(args, games_of_conn: list[list[Game]], results: list, start: float, index: int) -> None:
    url = urlsplit(args.url)
    conn = Connection(url.hostname, url.port)
    games = games_of_conn[index]
    latencies: list[float] = []
    errors = 0
    interval = args.conns / args.rate if args.rate else 0.0
    due = start + index * interval / args.conns  # spread the connections' first requests
    end = start + args.seconds
    turn = 0
    while True:
        if interval:
            now = time.perf_counter()
            if due > now:
                time.sleep(due - now)
        sent = time.perf_counter()
        if sent >= end:
            break
        since = due if interval else sent
        try:
            if args.mode == "healthz":
                status, _ = request(conn, "GET", "/healthz")
            else:
                game = games[turn % len(games)]
                turn += 1
                seat = game.to_move[0]
                status, answer = request(conn, "POST", game.path, FLIP, game.tokens[seat])
                if status == 200:
                    view = answer["game"]
                    if view["status"] != "playing":
                        games[games.index(game)] = Game(conn)  # a fresh game in its place
                    else:
                        game.to_move = view["to_move"]
        except (OSError, ValueError, IndexError) as exc:
            if args.debug:
                print(repr(exc))
            conn.close()
            conn = Connection(url.hostname, url.port)
            status = 0
        done = time.perf_counter()
        if status == 200:
            latencies.append(done - since)
        else:
            errors += 1
            if args.debug:
                print(status, answer)
        due += interval
    conn.close()
    results[index] = (latencies, errors)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--url", required=True)
    parser.add_argument("--mode", choices=("healthz", "actions"), required=True)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--conns", type=int, default=8)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--rate", type=float, default=0, help="requests/s in all (0: flat out)")
    parser.add_argument("--debug", action="store_true")
    args = parser.parse_args()
    url = urlsplit(args.url)
    games_of_conn: list[list[Game]] = [[] for _ in range(args.conns)]
    if args.mode == "actions":
        setup = Connection(url.hostname, url.port)
        for i in range(max(args.games, args.conns)):
            games_of_conn[i % args.conns].append(Game(setup))
        setup.close()
    results: list = [None] * args.conns
    start = time.perf_counter() + 0.05
    threads = [
        threading.Thread(target=run, args=(args, games_of_conn, results, start, i))
        for i in range(args.conns)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = args.seconds
    latencies = sorted(x for lat, _ in results for x in lat)
    errors = sum(e for _, e in results)

    def pct(p: float) -> float:
        return (
            latencies[min(len(latencies) - 1, int(p * len(latencies)))] * 1000 if latencies else 0
        )

    print(
        json.dumps(
            {
                "mode": args.mode,
                "requests": len(latencies),
                "errors": errors,
                "per_s": len(latencies) / elapsed,
                "p50_ms": pct(0.50),
                "p99_ms": pct(0.99),
                "rate": args.rate,
            }
        )
    )


if __name__ == "__main__":
    main()
