"""The live-stream bench: many spectators of one Bataille game on one API process,
one action a second, /healthz probed ten times a second.

    python bench/streams.py --server production --followers 5000 --seconds 60
    python bench/streams.py --server serve --followers 400 --seconds 60

`production` is the Docker image's command run directly (`gunicorn -c gunicorn.conf.py
service.wsgi:app`, one worker) on a Redis server of the bench's own on a free port (or
REDIS_URL's database, which it empties); `serve` is `batayo serve` with its embedded store in a
temporary folder. Caps and rate limits are off. The followers are a separate process
(`followers`, below: one epoll loop, stdlib only) that records when each event's `id:` arrives
on each stream; a move's delivery runs from the action's answer to that arrival (both clocks
are the machine's CLOCK_MONOTONIC). Memory per stream: the server's resident memory with every
stream open, less before they opened, over their number. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import array
import http.client
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import arrivals  # the readers' process (bench/arrivals.py)

ROOT = Path(__file__).resolve().parent.parent
NO_CAPS = {
    "BATAYO_RATE_LIMIT": "0",
    "BATAYO_GAMES_PER_CLIENT": "0",
    "BATAYO_RATE_LIMIT_TOKEN": "0",
    "BATAYO_STREAMS_PER_CLIENT": "0",
}


# -- the followers' process ------------------------------------------------------------------


def followers(
    host: str, port: int, path: str, n: int, seconds: float, out: Path, busy: bool = False
) -> None:
    """Open `n` streams of `path` (in waves, so the listen queue never overflows), print `ready`
    once every one is answered, then record each `id:` arrival for `seconds`; write them to
    `out` as (version, arrival) pairs of doubles; `busy`: readers that never sleep."""
    request = f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n\r\n".encode()
    held = arrivals.opened(host, port, n, request, b"HTTP/1.1 200")
    print("ready", len(held), flush=True)
    arrivals.record(held, seconds, out, b"\nid: ", b"\n", busy)


# -- the driver --------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tree(pid: int) -> list[int]:
    """A process and its children (gunicorn's workers)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [pid, *map(int, f.read().split())]
    except OSError:
        return []


def _proc(pid: int, name: str) -> list[str]:
    try:
        with open(f"/proc/{pid}/{name}") as f:
            return f.read().rsplit(")", 1)[-1].split()
    except OSError:
        return []


def _rss(pid: int) -> int:
    """Resident bytes of a process and its children."""
    page = os.sysconf("SC_PAGE_SIZE")
    return sum(int(f[1]) * page for p in _tree(pid) if (f := _proc(p, "statm")))


def _cpu(pid: int) -> float:
    """CPU seconds (user + system) of a process and its children."""
    tick = os.sysconf("SC_CLK_TCK")
    return sum((int(f[11]) + int(f[12])) / tick for p in _tree(pid) if (f := _proc(p, "stat")))


def start_server(
    kind: str, redis_url: str, folder: Path, root: Path = ROOT
) -> tuple[subprocess.Popen, int]:
    """The server `kind` from the checkout `root`, once it answers /healthz."""
    port = _free_port()
    env = {**os.environ, **NO_CAPS, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(root)}
    bindir = Path(sys.executable).parent
    if kind == "production":
        env.update({"REDIS_URL": redis_url, "WEB_CONCURRENCY": "1"})
        env["BATAYO_BIND"] = f"127.0.0.1:{port}"
        cmd = [str(bindir / "gunicorn"), "-c", "gunicorn.conf.py", "service.wsgi:app"]
    else:
        env.pop("REDIS_URL", None)
        env["BATAYO_DATA_DIR"] = str(folder / "data")
        cmd = [str(bindir / "batayo"), "serve", "--port", str(port)]
    log = (folder / f"{kind}.log").open("ab")
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    for _ in range(600):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1):
                return proc, port
        except OSError:
            if proc.poll() is not None:
                break
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError(f"{kind} did not start: {(folder / f'{kind}.log').read_text()[-2000:]}")


def _request(conn, method: str, path: str, body: str | None = None, token: str | None = None):
    headers = {"Content-Type": "application/json"} if body else {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    try:
        conn.request(method, path, body=body, headers=headers)
        answer = conn.getresponse()
    except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
        # a keep-alive connection the server closed (its header timeout on a machine that
        # stalled): once more on a new one, as a client would
        conn.close()
        conn.request(method, path, body=body, headers=headers)
        answer = conn.getresponse()
    return answer.status, json.loads(answer.read() or b"null")


def _pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(p * len(values)))]


def phase(
    kind: str,
    n: int,
    seconds: float,
    redis_url: str,
    transport: str = "stream",
    root: Path = ROOT,
    busy: bool = False,
) -> dict:
    """One run: the server (from the checkout `root`), `n` followers of one game (spectators
    on its SSE stream, or on its WebSocket with `transport` "socket": bench/sockets.py's), the
    actions and the probes."""
    if kind == "production":
        import redis

        redis.Redis.from_url(redis_url).flushdb()
    folder = Path(tempfile.mkdtemp(prefix=f"batayo-bench-{kind}-"))
    server, port = start_server(kind, redis_url, folder, root)
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        body = json.dumps({"game": "bataille", "seats": [{"name": "a"}, {"name": "b"}]})
        status, game = _request(conn, "POST", "/v1/games", body)
        assert status == 201, game
        gid, tokens = game["id"], {s["seat"]: s["token"] for s in game["seats"]}
        settle = min(1.0, seconds / 10)  # let the server's memory settle before reading it
        time.sleep(settle)
        rss_before = _rss(server.pid)
        out = folder / "arrivals.bin"
        entry = (
            (str(ROOT / "bench" / "sockets.py"), "spectators")
            if transport == "socket"
            else (__file__, "followers")
        )
        # the children reaped so far (an earlier phase's server and followers): not this one's
        reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
        follow = subprocess.Popen(
            [
                *(sys.executable, *entry, "--port", str(port)),
                *("--path", f"/v1/games/{gid}/{transport}", "--n", str(n)),
                *("--seconds", str(seconds + 1.0), "--out", str(out)),
                *([arrivals.BUSY] if busy else []),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        ready = follow.stdout.readline()
        if not ready.startswith("ready"):
            raise RuntimeError(f"the followers did not connect: {ready!r}")
        time.sleep(settle)
        rss_after = _rss(server.pid)
        answered: dict[int, float] = {}
        action_ms: list[float] = []
        health_ms: list[float] = []
        errors = {"actions": 0, "healthz": 0}
        stop = time.monotonic() + seconds
        cpu0 = _cpu(server.pid)

        def probe() -> None:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            due = time.monotonic()
            while due < stop:
                time.sleep(max(0.0, due - time.monotonic()))
                t = time.monotonic()
                try:
                    c.request("GET", "/healthz")
                    r = c.getresponse()
                    r.read()
                    ok = r.status == 200
                except OSError:
                    c.close()
                    ok = False
                health_ms.append((time.monotonic() - due) * 1000)  # from when it was due
                errors["healthz"] += not ok
                due = t + 0.1 if t - due > 0.1 else due + 0.1

        prober = threading.Thread(target=probe)
        prober.start()
        view = {"to_move": [0, 1], "status": "playing"}
        conn.close()  # idle while the followers connected: the server may have closed it
        due = time.monotonic() + 0.5
        while due < stop and view["status"] == "playing":
            time.sleep(max(0.0, due - time.monotonic()))
            t = time.monotonic()
            path = f"/v1/games/{gid}/actions"
            status, answer = _request(
                conn, "POST", path, '{"type": "flip"}', tokens[view["to_move"][0]]
            )
            done = time.monotonic()
            if status != 200:
                errors["actions"] += 1
            else:
                view = answer["game"]
                answered[view["version"]] = done
                action_ms.append((done - t) * 1000)
            due += 1.0
        prober.join()
        cpu = _cpu(server.pid) - cpu0
        follow.wait(timeout=seconds + 60)
        done = resource.getrusage(resource.RUSAGE_CHILDREN)  # and now the followers' process
        followers_cpu = done.ru_utime + done.ru_stime - reaped.ru_utime - reaped.ru_stime
        noted = array.array("d")
        with out.open("rb") as f:
            noted.frombytes(f.read())
        delivery: list[float] = []
        got: dict[int, int] = {}
        worst: dict[int, float] = {}
        for i in range(0, len(noted), 2):
            version = int(noted[i])
            if version in answered:
                lag = (noted[i + 1] - answered[version]) * 1000
                delivery.append(lag)
                got[version] = got.get(version, 0) + 1
                worst[version] = max(worst.get(version, 0.0), lag)
        complete = sum(1 for v in answered if got.get(v, 0) == n)
    finally:
        server.send_signal(signal.SIGINT)  # a quick stop: what it measured is in
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    return {
        "server": kind,
        "transport": transport,
        "followers": n,
        "busy": busy,
        "seconds": seconds,
        "actions": len(answered),
        "actions_delivered_to_all": complete,
        "deliveries": len(delivery),
        "delivery_p50_ms": _pct(delivery, 0.5),
        "delivery_p99_ms": _pct(delivery, 0.99),
        "delivery_max_ms": max(delivery) if delivery else float("nan"),
        "action_p50_ms": _pct(action_ms, 0.5),
        "action_p99_ms": _pct(action_ms, 0.99),
        "healthz_p50_ms": _pct(health_ms, 0.5),
        "healthz_p99_ms": _pct(health_ms, 0.99),
        "healthz_probes": len(health_ms),
        "errors": errors,
        "kib_per_stream": (rss_after - rss_before) / n / 1024,
        "server_cpu_s": cpu,
        "server_cpu_ms_per_action": cpu * 1000 / max(1, len(answered)),
        "followers_cpu_s": followers_cpu,
        "slowest_action_deliveries_ms": sorted(worst.values())[-5:],
        "action_ms_worst": sorted(action_ms)[-5:],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="command")
    f = sub.add_parser("followers")
    f.add_argument("--port", type=int, required=True)
    f.add_argument("--path", required=True)
    f.add_argument("--n", type=int, required=True)
    f.add_argument("--seconds", type=float, required=True)
    f.add_argument("--out", type=Path, required=True)
    f.add_argument(arrivals.BUSY, action="store_true")
    parser.add_argument("--server", choices=("production", "serve"), default="production")
    parser.add_argument("--followers", type=int, default=5000)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--transport", choices=("stream", "socket"), default="stream")
    parser.add_argument(
        arrivals.BUSY, action="store_true", help="followers that never sleep (bench/arrivals.py)"
    )
    args = parser.parse_args()
    if args.command == "followers":
        followers("127.0.0.1", args.port, args.path, args.n, args.seconds, args.out, args.busy)
        return
    redis_url, own = os.environ.get("REDIS_URL"), None
    if not redis_url and args.server == "production":
        sys.path.insert(0, str(ROOT))
        from tests.support.redis_server import RedisServer

        own = RedisServer(Path(tempfile.mkdtemp(prefix="batayo-bench-redis-")))
        redis_url = own.url
    try:
        result = phase(
            args.server,
            args.followers,
            args.seconds,
            redis_url or "",
            args.transport,
            busy=args.busy,
        )
        print(json.dumps(result))
    finally:
        if own is not None:
            own.stop()


if __name__ == "__main__":
    main()


# -- for bench/run.py --------------------------------------------------------------------------

TARGET_MS = {"healthz": 50, "action": 50, "delivery": 250}


def bench_streams(redis_url: str, quick: bool) -> list[dict]:
    """The 5,000 spectators on streams, then on sockets, on the production server, and 400 on
    `batayo serve` (or a smoke run of a few seconds with `quick`)."""
    if quick:
        return [phase("production", 50, 3, redis_url)]
    return [
        phase("production", 5000, 60, redis_url),
        phase("production", 5000, 60, redis_url, "socket"),
        phase("serve", 400, 60, redis_url),
    ]


def rows(results: list[dict]) -> list[tuple[str, str, str, str]]:
    out = []
    on_streams = {
        (r["server"], r["followers"]): r for r in results if r.get("transport") != "socket"
    }
    for r in results:
        where = "gunicorn gevent, 1 worker" if r["server"] == "production" else "batayo serve"
        if r.get("transport") == "socket":
            out.append(_socket_row(r, on_streams.get((r["server"], r["followers"]))))
            continue
        worst = max(
            r["healthz_p99_ms"] / TARGET_MS["healthz"],
            r["action_p99_ms"] / TARGET_MS["action"],
            r["delivery_p99_ms"] / TARGET_MS["delivery"],
        )
        out.append(
            (
                f"live: {r['followers']:,} followers, {where}",
                f"delivery p50 {r['delivery_p50_ms']:.0f} ms, p99 {r['delivery_p99_ms']:.0f} ms; "
                f"{r['actions_delivered_to_all']}/{r['actions']} actions reached all",
                f"/healthz p99 {r['healthz_p99_ms']:.1f} ms, action p99 {r['action_p99_ms']:.1f} ms; "
                f"{r['kib_per_stream']:.1f} KiB/stream",
                f"{worst:.2f} of its targets (<= 1: 50/50/250 ms); "
                f"{r['errors']['actions'] + r['errors']['healthz']} errors",
            )
        )
    return out


def _socket_row(r: dict, streams: dict | None) -> tuple[str, str, str, str]:
    """The spectators on sockets beside the same number on streams in the same run: each figure
    as socket / stream (lower is better)."""

    def ratio(key: str) -> str:
        if streams is None or not streams[key]:
            return "-"
        return f"{r[key] / streams[key]:.2f}"

    cpu = r["server_cpu_ms_per_action"]
    return (
        f"live: {r['followers']:,} spectators on sockets, gunicorn gevent, 1 worker",
        f"delivery p50 {r['delivery_p50_ms']:.0f} ms, p99 {r['delivery_p99_ms']:.0f} ms; "
        f"{r['actions_delivered_to_all']}/{r['actions']} actions reached all",
        f"/healthz p99 {r['healthz_p99_ms']:.1f} ms, action p99 {r['action_p99_ms']:.1f} ms; "
        f"{r['kib_per_stream']:.1f} KiB/socket; server CPU {cpu:,.0f} ms an action",
        f"socket/stream: delivery p99 {ratio('delivery_p99_ms')}, /healthz p99 "
        f"{ratio('healthz_p99_ms')}, action p99 {ratio('action_p99_ms')}, memory "
        f"{ratio('kib_per_stream')}, CPU {ratio('server_cpu_ms_per_action')}; "
        f"{r['errors']['actions'] + r['errors']['healthz']} errors",
    )
