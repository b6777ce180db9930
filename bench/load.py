"""The HTTP load generator of the bench: a separate process, stdlib only, keep-alive connections.

    python bench/load.py --url http://127.0.0.1:8000 --mode healthz --seconds 10 --conns 8
    python bench/load.py --url ... --mode actions --games 200 --seconds 10 --conns 8 --rate 500

`actions` creates `--games` two-seat Bataille classique games with two human seats (no bots, so
no worker is involved) before the clock starts, then every connection flips in its share of the
games in turn, for the seat the last answer said is awaited. Without `--rate` each connection
sends its next request as soon as the answer arrives (the maximum throughput); with it, requests
are paced to that many per second in all, and a latency counts from when the request was due
(so a server that falls behind is not flattered). Prints one JSON object.
"""

from __future__ import annotations

import argparse
import http.client
import json
import threading
import time
from urllib.parse import urlsplit


class Game:
    def __init__(self, conn: http.client.HTTPConnection) -> None:
        body = json.dumps({"game": "bataille", "seats": [{"name": "a"}, {"name": "b"}]})
        status, answer = request(conn, "POST", "/v1/games", body)
        if status != 201:
            raise RuntimeError(f"create: {status} {answer!r}")
        self.id = answer["id"]
        self.tokens = {s["seat"]: s["token"] for s in answer["seats"]}
        self.to_move = [0, 1]
        self.path = f"/v1/games/{self.id}/actions"


def request(conn, method: str, path: str, body: str | None = None, token: str | None = None):
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    conn.request(method, path, body=body, headers=headers)
    answer = conn.getresponse()
    raw = answer.read()
    return answer.status, (json.loads(raw) if raw else None)


FLIP = json.dumps({"type": "flip"})


def run(args, games_of_conn: list[list[Game]], results: list, start: float, index: int) -> None:
    url = urlsplit(args.url)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
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
        except (OSError, http.client.HTTPException) as exc:
            if args.debug:
                print(repr(exc))
            conn.close()
            conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
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
        setup = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
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
