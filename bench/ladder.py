"""The strong bots' ladder: each target measured with a 95% interval, n fixed in advance.

For each target the bot under test holds the seats of the role measured, the others are greedy
(strong in the one measurement reported without a goal: the strong Allies against a strong King);
games come in sets that rotate the seats over the same seeds, so no seat's luck favours one
side. Win rates get a Wilson interval; a target is met when the interval's LOWER end reaches
it. The seed is the ladder's own (never used while tuning). Writes
`bench/results/ladder-<date>.json` naming the commit measured.

    python bench/ladder.py --jobs 2     # the full ladder (n fixed: 400 games a target)
    python bench/ladder.py --quick      # a small n, for a quick look

With `--journal FILE` each finished game is appended to FILE, and a run cut short resumes from
it, provided the rules and bots (the `service` tree) are those that wrote it.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import hashlib
import json
import math
import subprocess
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.sim.simulate import play

SEED = b"ladder-2026-12: a seed never used while tuning"
# name, game, options, seat count, the seats the strong bot holds in rotation 0, target, games
TARGETS = [
    ("roylet_king", "roylet", {}, 3, [0], 0.60, 400),
    ("batak_ihaleli", "batak", {"mode": "ihaleli"}, 4, [0], 0.40, 400),
    ("batak_esli_pair", "batak", {"mode": "esli"}, 4, [0, 2], 0.65, 400),
    ("batayo_2p", "batayo", {"players": 2}, 2, [0], 0.60, 400),
    ("batayo_3p", "batayo", {"players": 3}, 3, [0], 0.45, 400),
    ("bataille_ouverte", "bataille", {"variant": "ouverte"}, 2, [0], 0.75, 400),
]
# measured and reported, no goal: (name, game, options, seat count, the strong side's seats, games),
# every seat strong (the strong Allies against a strong King)
REPORTED = [("roylet_allies_vs_strong_king", "roylet", {}, 3, [1, 2], 400)]
ROTATE = {"roylet_king": False, "roylet_allies_vs_strong_king": False}  # roles keep their seats
AGAINST = {"roylet_allies_vs_strong_king": "strong"}  # the other seats' level (default greedy)


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def rotation(
    count: int, side: Sequence[int], index: int, rotate: bool = True
) -> tuple[set[int], int]:
    """Game `index` of a set that replays one deal with `side`'s seats rotated (a pair by one
    seat, a lone seat around the table; `rotate` False: a role keeps its seats): the seats the
    side holds, and the deal played."""
    turns = 1 if not rotate else (2 if len(side) > 1 else count)
    return {(s + index % turns) % count for s in side}, index // turns


def _one(args: tuple) -> dict:
    name, game, options, count, strong, index, base = args
    mine, deal = rotation(count, strong, index, ROTATE.get(name) is not False)
    other = AGAINST.get(name, "greedy")
    seats = [{"bot": "strong" if s in mine else other} for s in range(count)]
    seed = hashlib.sha256(base + name.encode()).digest()
    started = time.perf_counter()
    final = play(game, options, seats, seed, deal, "2026-12-02T00:00:00.000000Z")
    result = final["result"]
    winners = set(result["winners"])
    return {
        "index": index,
        "win": bool(winners) and winners <= mine,
        "draw": result["draw"],
        "reason": result["reason"],
        "seconds": time.perf_counter() - started,
    }


def _service_tree() -> str:
    """The git tree of `service/` (the rules and the bots); "unknown" outside a checkout or
    with changes not committed there."""
    return (
        "unknown" if _git("status", "--porcelain", "service") else _git("rev-parse", "HEAD:service")
    )


def _journaled(journal: Path, name: str, base: bytes, games: int, tree: str) -> dict[int, dict]:
    """The games of target `name` a journal holds already, refused unless the `service/` tree
    `tree` played them."""
    done: dict[int, dict] = {}
    if not journal.exists():
        return done
    for line in journal.read_text().splitlines():
        row = json.loads(line)
        if row["target"] != name or row["seed"] != base.decode() or row["index"] >= games:
            continue
        if row["service_tree"] != tree or tree == "unknown":
            raise SystemExit(
                f"{journal}: game {row['index']} was played by other code (or `service/` has "
                "changes not committed)"
            )
        done[row["index"]] = row
    return done


def measure(
    target: tuple, games: int, jobs: int, base: bytes = SEED, journal: Path | None = None
) -> dict:
    name, game, options, count, strong, goal, _ = target
    tree = _service_tree() if journal else ""  # git asked once, and only for a journal
    done = _journaled(journal, name, base, games, tree) if journal else {}
    work = [(name, game, options, count, strong, i, base) for i in range(games) if i not in done]
    started = time.perf_counter()
    tag = {"target": name, "seed": base.decode(), "service_tree": tree}
    rows = list(done.values())
    pool = ProcessPoolExecutor(jobs) if jobs > 1 else None
    with pool or contextlib.nullcontext():
        for row in pool.map(_one, work, chunksize=2) if pool else map(_one, work):
            rows.append(row)
            if journal:
                with journal.open("a") as out:
                    out.write(json.dumps({**tag, **row}) + "\n")
    wins = sum(r["win"] for r in rows)
    low, high = wilson(wins, games)
    reasons: dict[str, int] = {}
    for r in rows:
        reasons[r["reason"]] = reasons.get(r["reason"], 0) + 1
    return {
        "target": name,
        "level": "strong",
        "against": AGAINST.get(name, "greedy"),
        "game": game,
        "options": options,
        "strong_seats": strong,
        "games": games,
        "wins": wins,
        "win_rate": wins / games,
        "interval95": [round(low, 4), round(high, 4)],
        "goal": goal,
        "met": None if goal is None else low >= goal,
        "draws": sum(r["draw"] for r in rows),
        "reasons": reasons,
        "round_limit_share": reasons.get("round_limit", 0) / games,
        "seconds": round(time.perf_counter() - started, 1),  # this run's, not the journal's
        "from_journal": len(done),
    }


def _git(*args: str) -> str:
    try:
        out = subprocess.run(
            ["git", *args], capture_output=True, text=True, check=True, cwd=Path(__file__).parent
        )
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _commit() -> str:
    return _git("rev-parse", "HEAD")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small n (not a measurement)")
    parser.add_argument("--games", type=int, help="games for each target (default: its own)")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--only", help="comma-separated target names")
    parser.add_argument("--out", help="where to write the JSON (default bench/results/...)")
    parser.add_argument("--journal", help="a JSON-lines file of finished games, to resume from")
    parser.add_argument(
        "--tune", help="a tuning seed instead of the ladder's own (keeps it unseen)"
    )
    args = parser.parse_args()
    base = args.tune.encode() if args.tune else SEED
    chosen = [t for t in TARGETS if not args.only or t[0] in args.only.split(",")]
    report = {
        "commit": _commit(),
        "date": datetime.date.today().isoformat(),
        "seed": base.decode(),
        "quick": args.quick,
        "targets": [],
    }
    default = (
        Path(__file__).parent
        / "results"
        / (f"ladder-{report['date']}{'-quick' if args.quick else ''}.json")
    )
    path = Path(args.out) if args.out else default
    for target in chosen:
        games = args.games or (24 if args.quick else target[6])
        journal = Path(args.journal) if args.journal else None
        row = measure(target, games, args.jobs, base, journal)
        report["targets"].append(row)
        lo, hi = row["interval95"]
        print(
            f"{row['target']:18} {row['wins']:4}/{games:<4} {row['win_rate']:.3f} "
            f"[{lo:.3f}, {hi:.3f}] goal {row['goal']:.2f} {'MET' if row['met'] else 'not met'} "
            f"round_limit {row['round_limit_share']:.3f} {row['seconds']}s",
            flush=True,
        )
        # every target of the ladder, not only those chosen with --only
        report["complete"] = len(report["targets"]) == len(TARGETS)
        path.write_text(json.dumps(report, indent=2) + "\n")  # after each: a cut run keeps its part
    for name, game, options, count, side, n in REPORTED:
        if args.only and name not in args.only.split(","):
            continue
        games = args.games or (24 if args.quick else n)
        row = measure((name, game, options, count, side, None, n), games, args.jobs, base)
        report["reported"] = [*report.get("reported", []), row]
        lo, hi = row["interval95"]
        print(
            f"{name:18} {row['wins']:4}/{row['games']:<4} {row['win_rate']:.3f} "
            f"[{lo:.3f}, {hi:.3f}] reported {row['seconds']}s",
            flush=True,
        )
        path.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
