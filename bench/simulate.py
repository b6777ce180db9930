"""The simulate phase of the bench: `simulate` on 52-card two-player Bataille against the bare War
loop (`bench/war.py`, the same rules), and the reducer-only replay bound, from one run.

`python bench/simulate.py [--games N] [--turns T] [--jobs J] [--compiled]`: prints the three in
rounds/s and each as a ratio of the bare loop. `--compiled` measures a mypyc build of the same
source (the modules pyproject.toml lists; needs mypy), made under build/mypyc/ and remade when
the source changes. Game lengths vary from tens to thousands of rounds, so speeds are
compared in rounds/s. The three run in many short turns, so a busy machine slows them alike,
timed by the CPU they take, and the totals count.

The reducer-only bound: the same kind of games' logs folded into their states by the reducer alone,
nothing decided and no bot asked. A simulation does that work and more (the decisions, the
bots, the events themselves), so it cannot beat the bound.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# the code under test: this tree, or a compiled build of it (`--compiled` runs this file so)
sys.path.insert(0, os.environ.get("BATAYO_BENCH_SOURCE") or str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import war  # noqa: E402 - the bench's own reference loop

from service.core.state import fold  # noqa: E402
from service.sim.simulate import simulate  # noqa: E402
from service.sim.table import Table  # noqa: E402


def _logs(games: int, seed: bytes) -> tuple[list[list[dict]], int]:
    """Bataille logs to fold (simulated with their events kept), and their rounds in all."""
    logs, rounds = [], 0
    for i in range(games):
        t = Table(
            "bataille", {}, seed=seed + bytes([i % 256]) * 8, game_id=f"{i:016x}", simulation=True
        )
        t.play_out()
        logs.append(t.events)
        rounds += t.state["result"]["rounds"]
    return logs, rounds


def bench_simulate(games: int, turns: int, jobs: int = 1) -> dict:
    """Rounds/s of `simulate` (on `jobs` processes), of the reducer replaying logs, and of the
    bare loop, `games` of each a turn, in `turns` turns, the totals over every turn; ratios
    against the bare loop (per core when `jobs` > 1).

    Time is CPU time (on a shared machine, what other processes take does not count): this
    process's, and with `jobs` > 1 its workers' as well, so that `per_core` is rounds per
    second of one core's work; `wall_rounds_per_s` is what the run took from start to end."""
    totals = {"engine": [0, 0.0], "reducer": [0, 0.0], "bare": [0, 0.0]}
    lengths: list[int] = []
    events = 0

    def count(phase: str, rounds: int, seconds: float) -> None:
        totals[phase][0] += rounds
        totals[phase][1] += seconds

    wall = 0.0
    for turn in range(turns):
        started, cpu = time.perf_counter(), _cpu()
        _, finals = simulate("bataille", games, {}, ["random"], b"bench%d" % turn, jobs=jobs)
        played = [s["result"]["rounds"] for s in finals]
        count("engine", sum(played), _cpu() - cpu)
        wall += time.perf_counter() - started
        logs, rounds = _logs(games, b"replay%d" % turn)
        events += sum(len(log) for log in logs)
        started = time.process_time()
        for log in logs:
            fold(log)
        count("reducer", rounds, time.process_time() - started)
        started = time.process_time()
        results = war.play(games * 4, seed=turn)
        bare_played = [r for _, r in results]
        count("bare", sum(bare_played), time.process_time() - started)
        lengths += played + bare_played
    speed = {phase: rounds / seconds for phase, (rounds, seconds) in totals.items()}
    mean = statistics.fmean(lengths)
    return {
        "games": games * turns,
        "jobs": jobs,
        "rounds_per_s": speed["engine"],
        "wall_rounds_per_s": totals["engine"][0] / wall,
        "reducer_rounds_per_s": speed["reducer"],
        "reducer_events_per_round": events / totals["reducer"][0],
        "bare_rounds_per_s": speed["bare"],
        "games_per_s": speed["engine"] / mean,
        "bare_per_s": speed["bare"] / mean,
        "ratio": speed["engine"] / speed["bare"],
        "per_core": speed["engine"] / speed["bare"],
        "bound": speed["reducer"] / speed["bare"],
    }


def _cpu() -> float:
    """CPU seconds of this process and of its finished children (a pool's workers)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def compiled_tree() -> Path:
    """A copy of `service/` with the modules of `[tool.batayo] compiled` built by mypyc, kept
    under build/mypyc/ by a digest of the source (never beside the source it was built from)."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        modules = tomllib.load(f)["tool"]["batayo"]["compiled"]
    digest = hashlib.sha256()
    for path in sorted((ROOT / "service").rglob("*.py")):
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    out = ROOT / "build" / "mypyc" / digest.hexdigest()[:16]
    if not (out / "built").exists():
        shutil.rmtree(out, ignore_errors=True)
        shutil.copytree(ROOT / "service", out / "service", ignore=shutil.ignore_patterns("__py*"))
        cmd = [sys.executable, "-m", "mypyc", "--follow-imports=silent", *modules]
        subprocess.run(cmd, cwd=out, check=True, stdout=subprocess.DEVNULL)
        (out / "built").touch()
    return out


def bench_compiled(games: int, turns: int, jobs: int = 1) -> dict:
    """`bench_simulate` on the compiled build, in a process of its own."""
    env = {**os.environ, "BATAYO_BENCH_SOURCE": str(compiled_tree())}
    cmd = [sys.executable, __file__, "--json", "--games", str(games), "--turns", str(turns)]
    cmd += ["--jobs", str(jobs)]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=10, help="games of each a turn")
    parser.add_argument("--turns", type=int, default=12)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--compiled", action="store_true", help="the mypyc build")
    args = parser.parse_args()
    bench = bench_compiled if args.compiled else bench_simulate
    out = bench(args.games, args.turns, args.jobs)
    if args.json:
        print(json.dumps(out))
        return
    print(
        f"simulate{' (compiled)' if args.compiled else ''} "
        f"{out['rounds_per_s']:,.0f} rounds/s a core ({out['jobs']} jobs, "
        f"{out['wall_rounds_per_s']:,.0f} rounds/s from start to end), "
        f"{out['per_core']:.3f} of the bare loop per core | reducer-only bound "
        f"{out['reducer_rounds_per_s']:,.0f} rounds/s, {out['bound']:.3f} | bare loop "
        f"{out['bare_rounds_per_s']:,.0f} rounds/s"
    )


if __name__ == "__main__":
    main()
