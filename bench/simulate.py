"""The simulate phase of the bench: `simulate` on 52-card two-player Bataille against the bare War
loop (`bench/war.py`, the same rules), and the reducer-only replay bound, from one run.

`python bench/simulate.py [--games N] [--turns T] [--jobs J] [--compiled]`: prints the three in
rounds/s and each as a ratio of the bare loop. `--compiled` measures a mypyc build of the same
source (the modules pyproject.toml lists; needs mypy), made under build/mypyc/ and remade when
the source changes. Game lengths vary from tens to thousands of rounds, so speeds
are compared in rounds/s. The three run in turns (so a busy machine slows them alike) and the
best turn of each counts.

The reducer-only bound: the same games' logs folded into their states by the reducer alone,
nothing decided and no bot asked. A simulation does that work and more (the decisions, the
bots, the events themselves), so it cannot beat the bound.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
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
    bare loop, the best turn of each; ratios against the bare loop (per core when `jobs` > 1)."""
    engine, reducer, bare, lengths = [], [], [], []
    events = 0
    for turn in range(turns):
        started = time.perf_counter()
        _, finals = simulate("bataille", games, {}, ["random"], b"bench%d" % turn, jobs=jobs)
        elapsed = time.perf_counter() - started
        played = [s["result"]["rounds"] for s in finals]
        engine.append(sum(played) / elapsed)
        logs, rounds = _logs(games, b"replay%d" % turn)
        events = sum(len(log) for log in logs)
        started = time.perf_counter()
        for log in logs:
            fold(log)
        reducer.append(rounds / (time.perf_counter() - started))
        started = time.perf_counter()
        results = war.play(games * 4, seed=turn)
        elapsed = time.perf_counter() - started
        bare_played = [r for _, r in results]
        bare.append(sum(bare_played) / elapsed)
        lengths += played + bare_played
    best, bound, ref = max(engine), max(reducer), max(bare)
    mean = statistics.fmean(lengths)
    return {
        "games": games * turns,
        "jobs": jobs,
        "rounds_per_s": best,
        "reducer_rounds_per_s": bound,
        "reducer_events_per_round": events / rounds if rounds else 0.0,
        "bare_rounds_per_s": ref,
        "games_per_s": best / mean,
        "bare_per_s": ref / mean,
        "ratio": best / ref,
        "per_core": best / ref / jobs,
        "bound": bound / ref,
    }


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
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--turns", type=int, default=3)
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
        f"{out['rounds_per_s']:,.0f} rounds/s ({out['jobs']} jobs), "
        f"{out['per_core']:.3f} of the bare loop per core | reducer-only bound "
        f"{out['reducer_rounds_per_s']:,.0f} rounds/s, {out['bound']:.3f} | bare loop "
        f"{out['bare_rounds_per_s']:,.0f} rounds/s"
    )


if __name__ == "__main__":
    main()
