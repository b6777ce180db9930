"""Whether a move clock fires on time while strong bots play.

`--games` games whose every seat is a searching bot (`strong`, Batak's `expert`) play at once,
each replaced by a new one when it ends, so the workers always have searches to make. Beside
them, `--probes` Bataille games whose two human seats never move, with `move_timeout_s` 1: each
round, the clock plays for both, one second after the event that made them awaited. A clock's
lateness is its event's `at` less that event's `at` less one second, as the server's own log
says.

    python bench/clocks.py                      # starts `batayo serve` (embedded) on a free port
    python bench/clocks.py --url http://127.0.0.1:8000 --games 20 --seconds 60

With no `--url`, the embedded server is this checkout's, with its in-process worker and its
search children (docs/bots.md#how-strong-works): what `batayo serve` ships. Prints one JSON
object: the clocks measured, their lateness (p50, p99, max, in ms), the time `/healthz` took
meanwhile (asked every 50 ms: a search on the server's event loop would hold it), and the
strong games' events.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
from datetime import datetime
from pathlib import Path

import streams  # the embedded server it starts

STRONG = [  # (game, options, seat count): searching bots on every seat
    ("batak", {"mode": "ihaleli"}, 4),
    ("roylet", {}, 3),
    ("batayo", {"players": 2}, 2),
    ("bataille", {"variant": "ouverte"}, 2),
]
LIMIT = 1.0  # a clock later than this (seconds) misses


def _call(url: str, method: str = "GET", body: dict | None = None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.loads(answer.read())
    except urllib.error.HTTPError as exc:  # the problem's detail says why
        raise RuntimeError(f"{method} {url}: {exc.code} {exc.read().decode()[:300]}") from None


def _create(url: str, game: str, options: dict, seats: list[dict]) -> str:
    body = {"game": game, "options": options, "seats": seats}
    return _call(f"{url}/v1/games", "POST", body)["id"]


def _strong_seats(game: str, n: int, k: int) -> list[dict]:
    level = "expert" if game == "batak" and k % 2 else "strong"
    return [{"bot": level} for _ in range(n)]


def _events(url: str, game_id: str) -> list[dict]:
    out: list[dict] = []
    after: int | None = 0
    while after is not None:
        page = _call(f"{url}/v1/games/{game_id}/events?after={after}")
        out += page["events"]
        after = page["next_after"]
    return out


def _at(event: dict) -> float:
    return datetime.fromisoformat(event["at"].replace("Z", "+00:00")).timestamp()


def lateness(events: list[dict], timeout_s: float = 1.0) -> list[float]:
    """Each clock's lateness (seconds): the first event the clock appended after another kind
    of event, less that event's time and the timeout."""
    out = []
    for before, event in itertools.pairwise(events):
        if event.get("actor") == "clock" and before.get("actor") != "clock":
            out.append(_at(event) - _at(before) - timeout_s)
    return out


def _health(url: str, end: float, out: list[float]) -> None:
    """`/healthz` every 50 ms until `end`: how long the server's loop keeps a request waiting."""
    while time.monotonic() < end:
        started = time.perf_counter()
        _call(f"{url}/healthz")
        out.append(time.perf_counter() - started)
        time.sleep(0.05)


def run(url: str, games: int, probes: int, seconds: float) -> dict:
    k = 0
    playing: list[str] = []
    for _ in range(games):
        game, options, n = STRONG[k % len(STRONG)]
        playing.append(_create(url, game, options, _strong_seats(game, n, k)))
        k += 1
    humans = [{"name": "away-0"}, {"name": "away-1"}]
    probing = [_create(url, "bataille", {"move_timeout_s": 1}, humans) for _ in range(probes)]
    finished, searched = [], 0
    end = time.monotonic() + seconds
    probe = threading.Thread(target=_health, args=(url, end, health := []), daemon=True)
    probe.start()
    while time.monotonic() < end:
        time.sleep(1.0)
        for i, game_id in enumerate(playing):
            state = _call(f"{url}/v1/games/{game_id}")
            if state["status"] != "playing":
                finished.append(game_id)
                searched += state["version"]
                game, options, n = STRONG[k % len(STRONG)]
                playing[i] = _create(url, game, options, _strong_seats(game, n, k))
                k += 1
    searched += sum(_call(f"{url}/v1/games/{g}")["version"] for g in playing)
    probe.join()
    late = sorted(x for g in probing for x in lateness(_events(url, g)))
    health.sort()

    def pct(xs: list[float], p: float) -> float:
        return round(xs[min(len(xs) - 1, int(p * len(xs)))] * 1000, 1) if xs else 0.0

    return {
        "strong_games": games,
        "seconds": seconds,
        "clocks": len(late),
        "late_p50_ms": pct(late, 0.5),
        "late_p99_ms": pct(late, 0.99),
        "late_max_ms": pct(late, 1.0),
        "missed": sum(1 for x in late if x > LIMIT),
        "healthz": len(health),
        "healthz_p50_ms": pct(health, 0.5),
        "healthz_p99_ms": pct(health, 0.99),
        "healthz_max_ms": pct(health, 1.0),
        "strong_games_finished": len(finished),
        "events_of_strong_games": searched,
    }


@contextlib.contextmanager
def embedded_server():
    """`batayo serve` of this checkout, embedded, in a folder of its own (bench/streams.py's)."""
    folder = Path(tempfile.mkdtemp(prefix="batayo-clocks-"))
    server, port = streams.start_server("serve", "", folder)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(folder, ignore_errors=True)


def bench_clocks(seconds: float, games: int = 20) -> dict:
    """bench/run.py's phase: the embedded server of this checkout, `games` strong games."""
    with embedded_server() as url:
        return run(url, games, 3, seconds)


def rows(r: dict | None) -> list[tuple[str, str, str, str]]:
    if not r:
        return []
    return [
        (
            f"move clocks while {r['strong_games']} strong-bot games play (batayo serve)",
            f"late p50 {r['late_p50_ms']:.0f} ms, p99 {r['late_p99_ms']:.0f} ms",
            f"max {r['late_max_ms']:.0f} ms over {r['clocks']} clocks",
            f"{r['missed']} later than {LIMIT:g} s (target 0)",
        ),
        (
            "GET /healthz meanwhile (every 50 ms)",
            f"p50 {r['healthz_p50_ms']:.1f} ms, p99 {r['healthz_p99_ms']:.1f} ms",
            f"max {r['healthz_max_ms']:.1f} ms",
            f"{r['events_of_strong_games']:,} events of strong games",
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="a running server (its own workers); default: start one")
    parser.add_argument("--games", type=int, default=20, help="strong-bot games at once")
    parser.add_argument("--probes", type=int, default=3, help="games whose clocks are timed")
    parser.add_argument("--seconds", type=float, default=60)
    args = parser.parse_args()
    if args.url:
        result = run(args.url.rstrip("/"), args.games, args.probes, args.seconds)
    else:
        with embedded_server() as url:
            result = run(url, args.games, args.probes, args.seconds)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
