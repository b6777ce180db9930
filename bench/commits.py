"""Before/after: the CPU an action costs through the engine, at several commits, in one sitting.

    python bench/commits.py f1bdec8 e2b5f34 HEAD [--actions 3000] [--turns 4]

Each commit is checked out (`git worktree`, in a temporary folder) and, in alternating turns
(so that a burst of load from elsewhere on a shared machine hits every commit alike), a fresh
process of that checkout plays `--actions` actions of two-human Bataille games through its own
engine on one Redis server started for the run: each action is a seat's view, then its first
legal action, as a client of the API would do. The figure is the CPU the process and Redis
spent per action (process time and Redis's `INFO cpu`), best turn of each commit, so it holds
up on a busy machine. Only the engine's public calls are used (`Engine(Store(client))`,
`create`, `load`, `view`, `act`), which every commit since the layout move (f1bdec8) has.

It answers what a change costs an action: FAIRNESS v2's sealing is f1bdec8 -> e2b5f34.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

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


def checkout(commit: str, into: Path) -> Path:
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(into), commit],
        check=True,
    )
    return into


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("commits", nargs="+")
    parser.add_argument("--actions", type=int, default=3000)
    parser.add_argument("--turns", type=int, default=4)
    args = parser.parse_args()

    from tests.support.redis_server import RedisServer

    folder = Path(tempfile.mkdtemp(prefix="batayo-commits-"))
    server = RedisServer(folder / "redis")
    trees = {}
    try:
        for commit in args.commits:
            trees[commit] = checkout(commit, folder / commit.replace("/", "_"))
        runs: dict[str, list[dict]] = {c: [] for c in args.commits}
        for _ in range(args.turns):
            for commit, tree in trees.items():
                out = subprocess.run(
                    [sys.executable, "-c", PLAY, server.url, str(args.actions)],
                    cwd=tree,
                    capture_output=True,
                    text=True,
                    check=True,
                )
                runs[commit].append(json.loads(out.stdout))
        best = {c: min(r, key=lambda x: x["engine_us"] + x["redis_us"]) for c, r in runs.items()}
        first = args.commits[0]
        base = best[first]["engine_us"] + best[first]["redis_us"]
        print(f"| commit | CPU per action (engine + Redis) | ratio to {first} |")
        print("|---|---|---|")
        for commit, b in best.items():
            total = b["engine_us"] + b["redis_us"]
            print(
                f"| {commit} | {total:,.0f} µs ({b['engine_us']:,.0f} + {b['redis_us']:,.0f}) "
                f"| {total / base:.2f} (throughput {base / total:.2f}) |"
            )
        print(f"best of {args.turns} alternating turns of {args.actions} actions each")
    finally:
        server.stop()
        for tree in trees.values():
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False
            )


if __name__ == "__main__":
    main()
