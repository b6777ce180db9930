"""The bench's HTTP phases, against gunicorn as production runs it on a real Redis: actions
and /healthz flat out and paced (bench/load.py), the worker classes side by side, and the live
path at several scales (bench/players.py); the CPU each process spends per request, from /proc
and Redis's INFO. Run by bench/run.py.
"""

from __future__ import annotations

import json
import os
import resource
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _load(url: str, mode: str, seconds: float, conns: int, games: int, rate: float = 0) -> dict:
    """One phase of the load process (a separate Python process: bench/load.py)."""
    cmd = [sys.executable, str(ROOT / "bench" / "load.py"), "--url", url, "--mode", mode]
    cmd += ["--seconds", str(seconds), "--conns", str(conns), "--games", str(games)]
    cmd += ["--rate", str(rate)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 120, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _cpu_seconds(server_pid: int, client) -> dict[str, float] | None:
    """CPU time used so far by gunicorn (master and workers), Redis, and the finished load
    processes; None where /proc is missing (not Linux)."""
    try:
        with open(f"/proc/{server_pid}/task/{server_pid}/children") as f:
            pids = [server_pid, *map(int, f.read().split())]
        server = 0.0
        for pid in pids:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            server += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return None
    info = client.info("cpu")
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "server": server,
        "redis": info["used_cpu_user"] + info["used_cpu_sys"],
        "load": children.ru_utime + children.ru_stime,
    }


def _measured(server_pid: int, client, url: str, mode: str, *args) -> dict:
    """A load phase, with the CPU each process spent per request (microseconds)."""
    before = _cpu_seconds(server_pid, client)
    phase = _load(url, mode, *args)
    after = _cpu_seconds(server_pid, client)
    if before and after and phase["requests"]:
        phase["cpu_us"] = {
            k: (after[k] - before[k]) * 1e6 / phase["requests"] for k in ("server", "redis", "load")
        }
    return phase


def _gunicorn(
    redis_url: str, worker_class: str | None = None, root: Path = ROOT, workers: int = 0
) -> tuple[subprocess.Popen, str, str]:
    """gunicorn as production runs it (gunicorn.conf.py, one worker a core unless `workers`;
    `worker_class` overrides its class) from the checkout `root` on `redis_url`, rate limits
    off; once it answers /healthz."""
    port = _free_port()
    env = {
        **os.environ,
        "PYTHONPATH": str(root),  # that checkout's `service` before the installed one
        "REDIS_URL": redis_url,
        "BATAYO_RATE_LIMIT": "0",  # the bench measures the service, not the limiter
        "BATAYO_RATE_LIMIT_TOKEN": "0",
    }
    workers = str(workers or os.cpu_count() or 1)
    kind = ("--worker-class", worker_class, "--threads", "16") if worker_class else ()
    server = subprocess.Popen(
        [
            *(sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", *kind),
            *("--workers", workers, "--bind", f"127.0.0.1:{port}"),
            *("--log-level", "warning", "service.wsgi:app"),
        ],
        cwd=root,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=1):
                return server, url, workers
        except OSError:
            time.sleep(0.05)
    server.terminate()
    raise RuntimeError("gunicorn did not start")


def bench_http(
    redis_url: str,
    seconds: float,
    conns: int,
    games: int,
    turns: int = 1,
    worker_class: str | None = None,
) -> dict:
    """gunicorn as production runs it (gunicorn.conf.py: gevent's WSGI server, one worker a
    core; `worker_class` overrides it) on a real Redis; /healthz flat out and actions flat out
    (`seconds` each, in `turns`), then actions paced at half the maximum."""
    import redis

    redis.Redis.from_url(redis_url).flushdb()
    server, url, workers = _gunicorn(redis_url, worker_class)
    try:
        _load(url, "actions", min(1.0, seconds), conns, conns)  # warm both workers
        # /healthz and actions in turns, so a burst of load from elsewhere on a shared machine
        # hits both alike; the best turn of each
        healthz, actions = [], []
        client = redis.Redis.from_url(redis_url)
        for _ in range(turns):
            healthz.append(_measured(server.pid, client, url, "healthz", seconds / turns, conns, 0))
            actions.append(
                _measured(server.pid, client, url, "actions", seconds / turns, conns, games)
            )
        healthz = max(healthz, key=lambda phase: phase["per_s"])
        actions = max(actions, key=lambda phase: phase["per_s"])
        paced = _load(url, "actions", seconds, conns, games, rate=actions["per_s"] / 2)
    finally:
        server.terminate()
        server.wait(timeout=30)
        redis.Redis.from_url(redis_url).flushdb()
    return {
        "workers": workers,
        "healthz": healthz,
        "actions": actions,
        "paced": paced,
        "ratio": actions["per_s"] / healthz["per_s"],
    }


def cpu_row(actions: dict, healthz: dict) -> list[tuple[str, str, str, str]]:
    """Where the CPU goes, per request: what bounds the throughput ratio on a busy machine."""
    if "cpu_us" not in actions or "cpu_us" not in healthz:
        return []
    a, h = actions["cpu_us"], healthz["cpu_us"]
    return [
        (
            "CPU per request, flat out (µs)",
            f"action: server {a['server']:,.0f}, Redis {a['redis']:,.0f}, load {a['load']:,.0f}",
            f"/healthz: server {h['server']:,.0f}, Redis {h['redis']:,.0f}, load {h['load']:,.0f}",
            f"{sum(h.values()) / sum(a.values()):.2f} (healthz/action, all processes)",
        )
    ]


LIVE_CLIENTS = {"stream": "players.py", "socket": "sockets.py"}


def bench_live(
    redis_url: str, seconds: float, scales: tuple[int, ...], transports=("stream", "socket")
) -> list[dict]:
    """The live path at each number of games, each transport on a fresh production server (as
    the peer bench runs its live path): players on a stream and a POST per move
    (bench/players.py), then on one WebSocket each (bench/sockets.py); both act on the view
    each batch pushes. CPU per move counts the server and Redis over the whole phase, over the
    moves of the measured window: the games' creation and the first second's moves are in the
    CPU, not in the moves, so it is an upper bound."""
    import redis

    out = []
    for games in scales:
        for transport in transports:
            redis.Redis.from_url(redis_url).flushdb()
            server, url, _ = _gunicorn(redis_url)
            client = redis.Redis.from_url(redis_url)
            try:
                before = _cpu_seconds(server.pid, client)
                cmd = [sys.executable, str(ROOT / "bench" / LIVE_CLIENTS[transport])]
                cmd += ["--url", url, "--games", str(games), "--seconds", str(seconds)]
                done = subprocess.run(
                    cmd, capture_output=True, text=True, timeout=seconds + 300, check=True
                )
                phase = json.loads(done.stdout.strip().splitlines()[-1])
                after = _cpu_seconds(server.pid, client)
                if before and after and phase["moves"]:
                    used = sum(after[k] - before[k] for k in ("server", "redis"))
                    phase["cpu_us"] = used * 1e6 / phase["moves"]
                phase["transport"] = transport
                out.append(phase)
            finally:
                server.terminate()
                server.wait(timeout=30)
    redis.Redis.from_url(redis_url).flushdb()
    return out


def live_rows(live: list[dict], http: dict | None = None) -> list[tuple[str, str, str, str]]:
    """A row per phase; a socket row says its moves/s and p99 against the stream's at the same
    number of games, and its CPU a move beside a plain HTTP action's (`http`: bench_http's)."""

    def ms(value: float | None) -> str:
        return f"{value:,.0f}" if value is not None else "-"

    action = http["actions"].get("cpu_us") if http else None
    action_us = f"; an HTTP action {action['server'] + action['redis']:,.0f} µs" if action else ""
    streams = {p["games"]: p for p in live if p.get("transport", "stream") == "stream"}
    rows = []
    for p in live:
        socket = p.get("transport") == "socket"
        what = "one WebSocket each" if socket else "stream + POST"
        against = ""
        s = streams.get(p["games"])
        if socket and s and s["per_s"] and s["p99_ms"] and p["p99_ms"]:
            against = (
                f"; socket/stream: moves/s {p['per_s'] / s['per_s']:.2f}, "
                f"p99 {p['p99_ms'] / s['p99_ms']:.2f}"
            )
        rows.append(
            (
                f"live path: {p['games']} games, players act on push ({what})",
                f"{p['per_s']:,.0f} moves/s, p50 {ms(p['p50_ms'])} ms, p99 {ms(p['p99_ms'])} ms",
                f"{'sockets' if socket else 'streams'} answered {p['streams']}/"
                f"{p['streams_wanted']}; server + Redis {p.get('cpu_us', 0):,.0f} µs a move"
                + (action_us if socket else ""),
                f"{p['refused']} stale refused, {p['errors']} errors{against}",
            )
        )
    return rows


def bench_servers(redis_url: str, seconds: float, turns: int) -> dict[str, list[dict]]:
    """gthread workers and production's (gevent's WSGI server) in alternating turns (a fresh
    server each), the same load: what a worker class costs per plain request."""
    out: dict[str, list[dict]] = {"gthread": [], "gevent": []}
    for _ in range(turns):
        for kind in out:
            chosen = "gthread" if kind == "gthread" else None
            out[kind].append(bench_http(redis_url, seconds, 8, 200, 1, worker_class=chosen))
    return out


def server_rows(servers: dict[str, list[dict]]) -> list[tuple[str, str, str, str]]:
    def best(kind: str, mode: str, key: str) -> float:
        runs = [r[mode] for r in servers[kind] if "cpu_us" in r[mode]]
        if key == "per_s":
            return max(r["per_s"] for r in runs)
        return min(r["cpu_us"]["server"] for r in runs)

    out = []
    for mode, name in (("healthz", "GET /healthz"), ("actions", "an action")):
        ev, th = best("gevent", mode, "cpu"), best("gthread", mode, "cpu")
        out.append(
            (
                f"server CPU per request, {name}: gevent",
                f"{ev:,.0f} µs ({best('gevent', mode, 'per_s'):,.0f}/s)",
                f"gthread {th:,.0f} µs ({best('gthread', mode, 'per_s'):,.0f}/s)",
                f"{ev / th:.2f} (gevent/gthread, best of {len(servers['gevent'])} paired turns)",
            )
        )
    return out
