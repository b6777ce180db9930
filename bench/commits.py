"""Before/after: what the same work costs at several commits, in paired turns of one sitting.

    python bench/commits.py before=BEFORE AFTER [--measure engine,http,fanout,simulate] [--turns 5]

Each commit is checked out (`git worktree`, in a temporary folder) and, in alternating turns
(so that a burst of load from elsewhere on a shared machine hits every commit alike), measured
from its own checkout on one Redis server started for the run:

- `engine`: a fresh process plays `--actions` two-human Bataille actions through the engine's
  public calls (`Engine(Store(client))`, `create`, `load`, `view`, `act`): a seat's view, then
  its first legal action. The CPU the process and Redis spent per action.
- `http`: gunicorn with that checkout's `gunicorn.conf.py` (one worker), actions flat out from
  bench/load.py for `--seconds`: the CPU gunicorn and Redis spent per action, and actions/s.
- `fanout`: the same server with `--followers` spectators of one Bataille game, one action a
  second for `--seconds` (bench/streams.py's phase): the server's CPU per action delivered.
- `simulate`: the simulation of each game (all greedy, a fixed seed, one process), as `batayo
  simulate` plays it: its CPU, and apart from it the CPU of the imports before the first game.

A figure's ratio to the first commit is taken turn by turn; the median of those paired ratios
is printed for each commit (below 1: cheaper than the first), with each commit's best turn.
For `http` and `fanout` the ratio is of the server's CPU over its clients' CPU in that turn.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

# Run in the checkout under test (its `service` package first on the path).
PLAY = r"""
import json, sys, time
import redis
from service.engine import Engine
from service.store import Store

client = redis.Redis.from_url(sys.argv[1])
client.flushdb()
engine = Engine(Store(client))
wanted = int(sys.argv[2])


def new():
    return engine.create({"game": "bataille", "seats": [{"name": "A"}, {"name": "B"}]})["id"]


def redis_cpu():
    info = client.info("cpu")
    return info["used_cpu_user"] + info["used_cpu_sys"]


games = [new() for _ in range(50)]
done, turn = 0, 0
redis0, cpu0 = redis_cpu(), time.process_time()
while done < wanted:
    slot = turn % len(games)
    turn += 1
    if engine.load(games[slot])["status"] == "finished":
        games[slot] = new()
        continue
    for seat in (0, 1):
        legal = engine.view(games[slot], seat).get("legal_actions")
        if legal:
            engine.act(games[slot], seat, legal[0])
            done += 1
            break
cpu = time.process_time() - cpu0
print(json.dumps({"engine_us": 1e6 * cpu / done, "redis_us": 1e6 * (redis_cpu() - redis0) / done}))
"""

# `batayo simulate` runs, all seats greedy: each game and its games a turn (a few seconds each)
SIMULATIONS = {"bataille": 300, "batayo": 300, "batak": 60, "roylet": 100}


def checkout(commit: str, into: Path) -> Path:
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(into), commit],
        check=True,
    )
    return into


def _git(*args: str) -> str:
    out = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)
    return out.stdout.strip()


def _env(tree: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(tree)}


def engine(tree: Path, redis_url: str, args: argparse.Namespace) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", PLAY, redis_url, str(args.actions)],
        cwd=tree,
        env=_env(tree),
        capture_output=True,
        text=True,
        check=True,
    )
    got = json.loads(out.stdout)
    return {"cpu_us": got["engine_us"] + got["redis_us"], **got}


def http(tree: Path, redis_url: str, args: argparse.Namespace) -> dict[str, float]:
    import redis
    import serving

    client = redis.Redis.from_url(redis_url)
    client.flushdb()
    server, url, _ = serving._gunicorn(redis_url, root=tree, workers=1)
    try:
        serving._load(url, "actions", 1.0, args.conns, args.conns)  # warm the worker
        got = serving._measured(server.pid, client, url, "actions", args.seconds, args.conns, 200)
    finally:
        server.terminate()
        server.wait(timeout=30)
    cpu = got["cpu_us"]
    spent = cpu["server"] + cpu["redis"]
    return {"cpu_us": spent, "per_load": spent / cpu["load"], "per_s": got["per_s"], **cpu}


def fanout(tree: Path, redis_url: str, args: argparse.Namespace) -> dict[str, float]:
    import streams

    got = streams.phase("production", args.followers, args.seconds, redis_url, root=tree)
    return {
        "cpu_us": got["server_cpu_ms_per_action"] * 1000,
        "per_load": got["server_cpu_s"] / got["followers_cpu_s"],
        "delivery_p99_ms": got["delivery_p99_ms"],
        "actions": got["actions"],
    }


# Run in the checkout under test: the command's start (its imports, until the first game can
# be played), then each game's simulation in the same process, CPU seconds each.
SIMULATE = r"""
import json, sys, time
start = time.process_time()
from service.sim.simulate import simulate
from service.core.registry import GAMES
len(GAMES)  # the registry loads the games (and reads the settings) on first use
out = {"start": time.process_time()}
for game, games in json.loads(sys.argv[1]).items():
    t = time.process_time()
    simulate(game, games, {}, ["greedy"], bytes.fromhex("0b"), jobs=1)
    out[game] = time.process_time() - t
print(json.dumps(out))
"""


def simulate(tree: Path, redis_url: str, args: argparse.Namespace) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", SIMULATE, json.dumps(SIMULATIONS)],
        cwd=tree,
        env=_env(tree),
        capture_output=True,
        text=True,
        check=True,
    )
    got = json.loads(out.stdout)
    got["cpu_us"] = 1e6 * sum(got[game] for game in SIMULATIONS)
    return got


MEASURES: dict[str, Callable[[Path, str, argparse.Namespace], dict[str, float]]] = {
    "engine": engine,
    "http": http,
    "fanout": fanout,
    "simulate": simulate,
}
WHAT = {
    "engine": "CPU per action (engine + Redis)",
    "http": "CPU per HTTP action (gunicorn + Redis)",
    "fanout": "server CPU per action fanned out to the spectators",
    "simulate": "CPU of the simulations (" + ", ".join(SIMULATIONS) + "), start apart",
}


# The HTTP and fan-out figures are taken over the CPU their clients spent (the load's requests,
# the followers' reading) in the same turn: the clients do the same work at every commit, so
# the quotient stands still when the shared machine's speed moves from one minute to the next
BY_LOAD = ("http", "fanout")


def rows(measure: str, runs: dict[str, list[dict]]) -> list[tuple[str, ...]]:
    """One row a commit (and, for simulate, a game): its best turn and the median of its
    turn-by-turn ratios to the first commit's."""
    first = next(iter(runs))
    parts = [("", "per_load" if measure in BY_LOAD else "cpu_us")]
    if measure == "simulate":
        parts += [(f" ({game})", game) for game in [*SIMULATIONS, "start"]]
    out = []
    for label, key in parts:
        for commit, turns in runs.items():
            ratios = [t[key] / b[key] for t, b in zip(turns, runs[first], strict=True)]
            unit = 1e6 if key in SIMULATIONS or key == "start" else 1
            best = min(t["cpu_us" if key == "per_load" else key] for t in turns) * unit
            extra = ""
            if measure == "http":
                extra = f"; best actions/s {max(t['per_s'] for t in turns):,.0f}"
            median = statistics.median(ratios)
            spread = f"{min(ratios):.3f} to {max(ratios):.3f}"
            out.append(
                (measure + label, commit, f"{best:,.0f} µs{extra}", f"{median:.3f} ({spread})")
            )
    return out


def main() -> None:
    import record

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("commits", nargs="+", help="each a commit, or NAME=COMMIT to name it")
    parser.add_argument(
        "--measure", default="engine", help="comma-separated: " + ", ".join(MEASURES)
    )
    parser.add_argument("--turns", type=int, default=4)
    parser.add_argument("--actions", type=int, default=3000, help="engine: actions a turn")
    parser.add_argument("--seconds", type=float, default=10, help="http, fanout: a turn's length")
    parser.add_argument("--conns", type=int, default=8, help="http: the load's connections")
    parser.add_argument("--followers", type=int, default=2000, help="fanout: its spectators")
    parser.add_argument(
        "--name", default="commits", help="the result file's bench name (bench/results/NAME-...)"
    )
    record.add_flag(parser)
    args = parser.parse_args()
    measures = args.measure.split(",")
    unknown = set(measures) - set(MEASURES)
    if unknown:
        parser.error(f"unknown measure {sorted(unknown)}: one of {', '.join(MEASURES)}")

    from tests.support.redis_server import RedisServer

    named = dict(c.split("=", 1) if "=" in c else (c, c) for c in args.commits)
    names = list(named)
    folder = Path(tempfile.mkdtemp(prefix="batayo-commits-"))
    server = RedisServer(folder / "redis")
    trees = {}
    try:
        # each commit as it is now: a branch may move while the turns run
        resolved = {n: _git("rev-parse", f"{c}^{{commit}}") for n, c in named.items()}
        for i, (name, commit) in enumerate(resolved.items()):
            trees[name] = checkout(commit, folder / str(i))
        runs = {m: {c: [] for c in names} for m in measures}
        for turn in range(args.turns):
            for measure in measures:
                # each turn in its own order of commits, so neither always goes first
                order = list(trees.items())
                for commit, tree in order if turn % 2 == 0 else order[::-1]:
                    runs[measure][commit].append(MEASURES[measure](tree, server.url, args))
        table = [r for m in measures for r in rows(m, runs[m])]
        columns = ("measure", "commit", "best turn", f"ratio to {names[0]}: median (range)")
        print("| " + " | ".join(columns) + " |")
        print("|---" * len(columns) + "|")
        for row in table:
            print("| " + " | ".join(row) + " |")
        print(f"{args.turns} alternating turns; " + "; ".join(f"{m}: {WHAT[m]}" for m in measures))
        if args.out is not None:
            title = "The same work at each commit, paired turns"
            data = {"commits": resolved, "runs": runs, "what": WHAT}
            record.record(
                args.name,
                "bench/commits.py",
                False,
                [record.table(title, columns, table)],
                data,
                args.out or None,
            )
    finally:
        server.stop()
        for tree in trees.values():
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False
            )
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
