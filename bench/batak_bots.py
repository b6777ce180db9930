"""Batak bot strength, measured with the in-memory Table (the very same rules code).

For each pairing A vs B, games are played with two seats of each bot, alternating seats
(A B A B, then B A B A on the same seed), and every deal gives one sample per bot: the average
score of its two seats in that deal. Prints the average score per deal of each bot with a 95%
confidence interval, the per-deal margin A - B with its interval, the time per bot move, and
the game's own `summarize` statistics.

    /work/venv/bin/python bench/batak_bots.py --deals 2000
    /work/venv/bin/python bench/batak_bots.py --deals 400 --pairs expert:greedy --jobs 2
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.core.registry import GAMES
from service.sim.table import Table

GAME = GAMES["batak"]


def play_game(args: tuple) -> dict:
    """One game; returns the per-deal samples, move timings and the final state."""
    a, b, index, mode, deals = args
    seats = [a, b, a, b] if index % 2 == 0 else [b, a, b, a]
    seed = hashlib.sha256(f"batak-bench|{a}|{b}|{mode}|{index // 2}".encode()).digest()
    table = Table(
        "batak",
        {"mode": mode, "deals": deals},
        seats=[{"bot": s} for s in seats],
        seed=seed,
        game_id=f"bench-{index}",
    )
    rng = random.Random(index)
    spent: dict[str, list[float]] = {a: [0.0, 0], b: [0.0, 0]}
    while table.state["status"] == "playing":
        seat = GAME.to_move(table.state)[0]
        view = table.view(seat)
        started = time.perf_counter()
        action = GAME.bots[seats[seat]](view, rng)
        spent[seats[seat]][0] += time.perf_counter() - started
        spent[seats[seat]][1] += 1
        table.act(seat, action, actor="bot")
    samples = []
    for record in table.state["table"]["scores"]:
        pts = record["points"]
        score_a = sum(pts[s] for s in range(4) if seats[s] == a) / 2
        score_b = sum(pts[s] for s in range(4) if seats[s] == b) / 2
        samples.append((score_a, score_b))
    return {"samples": samples, "spent": spent, "state": table.state}


def interval(xs: list[float]) -> tuple[float, float]:
    n = len(xs)
    mean = sum(xs) / n
    var = sum((x - mean) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0
    return mean, 1.96 * math.sqrt(var / n)


def measure(a: str, b: str, deals: int, mode: str, game_deals: int, jobs: int) -> dict:
    games = math.ceil(deals / game_deals)
    games += games % 2  # whole seat-swapped pairs
    work = [(a, b, i, mode, game_deals) for i in range(games)]
    started = time.perf_counter()
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            results = list(pool.map(play_game, work, chunksize=4))
    else:
        results = [play_game(w) for w in work]
    elapsed = time.perf_counter() - started
    samples = [s for r in results for s in r["samples"]]
    spent = {a: [0.0, 0], b: [0.0, 0]}
    for r in results:
        for name, (secs, moves) in r["spent"].items():
            spent[name][0] += secs
            spent[name][1] += moves
    mean_a, ci_a = interval([s[0] for s in samples])
    mean_b, ci_b = interval([s[1] for s in samples])
    mean_d, ci_d = interval([s[0] - s[1] for s in samples])
    return {
        "pairing": f"{a} vs {b}",
        "mode": mode,
        "games": games,
        "deals": len(samples),
        "seconds": round(elapsed, 1),
        "average_score_per_deal": {
            a: f"{mean_a:.3f} ± {ci_a:.3f}",
            b: f"{mean_b:.3f} ± {ci_b:.3f}",
        },
        "margin_per_deal": f"{a} - {b} = {mean_d:+.3f} ± {ci_d:.3f}",
        "ms_per_move": {
            name: round(1000 * secs / max(moves, 1), 2) for name, (secs, moves) in spent.items()
        },
        "summary": GAME.summarize([r["state"] for r in results]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=2000, help="deals per pairing (at least)")
    parser.add_argument("--pairs", default="greedy:random,expert:greedy")
    parser.add_argument("--mode", default="ihaleli", choices=("ihaleli", "esli"))
    parser.add_argument("--game-deals", type=int, default=10, choices=(3, 5, 10))
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument(
        "--set", action="append", default=[], help="KNOB=VALUE: override an expert knob"
    )
    args = parser.parse_args()
    from service.games.batak import bots

    for item in args.set:
        knob, value = item.split("=")
        setattr(bots, knob, type(getattr(bots, knob))(value))
    for pair in args.pairs.split(","):
        a, b = pair.split(":")
        report = measure(a, b, args.deals, args.mode, args.game_deals, args.jobs)
        summary = report.pop("summary")
        print(json.dumps(report, indent=1, ensure_ascii=False), flush=True)
        print(json.dumps(summary, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
