"""The bots' rating table: every level of a game against every other, on one Bradley-Terry scale.

A cell is one level in a side's seats and another in the others, each deal replayed with the
seats rotated (bench/ladder.py's `rotation`); `strong` also meets `strong`, on a seed of its
own. A side wins a game when every winner is in its seats (a draw, or winners on both sides,
counts half). The model: side A's level beats the field with probability g_A / (g_A + m g_B),
m the opponents that could each win alone (three in Batak ihaleli, one team in eşli);
BatailleRoylet's King also has a role factor. Ratings are Elo points (400 log10 g, greedy at 0)
with 95% bootstrap intervals; a level that lost (or won) every game gets no estimate, only the
bound its games allow.

    python bench/ratings.py --games 100 --jobs 2      # n games a cell (the docs' table: >= 100)
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import math
import random
import sys
from concurrent.futures import ProcessPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.ladder import rotation
from bench.record import commit
from service.core.registry import GAMES
from service.sim.simulate import play
from service.sim.stats import percentile

SEED = b"ratings-2026-12: a seed never used while tuning"
STRONG_PAIR_SEED = b"ratings-2026-12: strong against strong"


@dataclass(frozen=True)
class Case:
    """A game as a table: `side` the seats of the side rated (before rotation), `field` how
    many opponents could each win alone, `roles` whether the sides differ (no rotation then,
    and the side's role gets a factor of its own)."""

    name: str
    game: str
    options: dict
    seats: int
    side: tuple[int, ...]
    field: int
    roles: bool = False


CASES = [
    Case("roylet", "roylet", {}, 3, (0,), 1, roles=True),
    Case("batak_ihaleli", "batak", {"mode": "ihaleli"}, 4, (0,), 3),
    Case("batak_esli", "batak", {"mode": "esli"}, 4, (0, 2), 1),
    Case("batayo_2p", "batayo", {"players": 2}, 2, (0,), 1),
    Case("batayo_3p", "batayo", {"players": 3}, 3, (0,), 2),
    Case("bataille_ouverte", "bataille", {"variant": "ouverte"}, 2, (0,), 1),
]


def levels(case: Case, only: list[str] | None = None) -> list[str]:
    return [b for b in GAMES[case.game].bots if not only or b in only]


def cells(case: Case, names: list[str]) -> list[tuple[str, str]]:
    """Every ordered pair of levels and strong against strong; with roles, each level against
    itself too (those games measure the role)."""
    return [(a, b) for a in names for b in names if a != b or case.roles or a == "strong"]


def _one(args: tuple) -> float:
    """Side A's score in one game: 1 a win, 0 a loss, half a draw or a shared win."""
    case, a, b, index = args
    mine, deal = rotation(case.seats, case.side, index, rotate=not case.roles)
    seats = [{"bot": a if s in mine else b} for s in range(case.seats)]
    seed = STRONG_PAIR_SEED if a == b == "strong" else SEED
    cell_seed = hashlib.sha256(seed + f"{case.name}/{a}/{b}".encode()).digest()
    final = play(case.game, case.options, seats, cell_seed, deal, "2026-12-02T00:00:00.000000Z")
    winners = set(final["result"]["winners"])
    if winners and winners <= mine:
        return 1.0
    if winners and not winners & mine:
        return 0.0
    return 0.5


PRIOR = 0.05  # a weak prior on log-strengths: a level that never lost stays finite


def _p(log_a: float, log_b: float, field: int, role: float) -> float:
    """The model's chance that side A wins."""
    a = math.exp(log_a + role)
    return a / (a + field * math.exp(log_b))


def fit(
    scores: dict[tuple[str, str], tuple[int, float]],
    names: list[str],
    field: int,
    roles: bool,
    steps: int = 200,
) -> tuple[dict[str, float], float]:
    """Log-strengths (greedy at 0) and the rated side's role factor that best explain each
    cell's (games, score): the maximum of the likelihood times the prior, by damped Newton
    steps on each parameter."""
    strength = dict.fromkeys(names, 0.0)
    role = 0.0
    for _ in range(steps):
        grad = {n: -PRIOR * strength[n] for n in names}
        curve = dict.fromkeys(names, PRIOR)
        grad_role = curve_role = 0.0
        for (a, b), (n, score) in scores.items():
            if a == b and not roles:
                continue  # a level against itself says nothing of the levels
            p = _p(strength[a], strength[b], field, role)
            miss, weight = score - n * p, n * p * (1 - p)
            grad[a] += miss
            grad[b] -= miss
            curve[a] += weight
            curve[b] += weight
            grad_role += miss
            curve_role += weight
        for name in names:
            strength[name] += 0.5 * grad[name] / curve[name]
        if roles and curve_role:
            role += 0.5 * grad_role / curve_role
        anchor = strength.get("greedy", 0.0)
        strength = {n: v - anchor for n, v in strength.items()}
    return strength, role


def elo(log_strength: float) -> float:
    return 400 * log_strength / math.log(10)


def _interval(xs: list[float]) -> list[int]:
    return [round(percentile(xs, 2.5)), round(percentile(xs, 97.5))]


def table(
    case: Case, names: list[str], games: dict[tuple[str, str], list[float]], boots: int, seed: int
) -> dict:
    """Each level's rating with its 95% interval (bootstrap over each cell's games)."""

    def fitted(cells_: dict[tuple[str, str], list[float]]) -> tuple[dict[str, float], float]:
        summed = {k: (len(v), sum(v)) for k, v in cells_.items() if v}
        return fit(summed, names, case.field, case.roles)

    strength, role = fitted(games)
    rng = random.Random(seed)
    samples: dict[str, list[float]] = {n: [] for n in names}
    roles: list[float] = []
    for _ in range(boots):
        s, r = fitted({k: [rng.choice(v) for _ in v] for k, v in games.items() if v})
        for n in names:
            samples[n].append(elo(s[n]))
        roles.append(elo(r))
    nevers = {n: _never(games, n) for n in names}
    ratings: dict = {}
    for n in names:
        never = nevers[n]
        if never is None:
            ratings[n] = {"elo": round(elo(strength[n])), "interval95": _interval(samples[n])}
        else:  # no finite estimate: only the side its games bound it on
            bound = _bound(games, n, nevers, strength, role, case.field)
            ends = [None, bound] if never == "won" else [bound, None]
            ratings[n] = {"elo": None, "never": never, "interval95": ends}
    result: dict = {"ratings": ratings}
    if case.roles:
        result["role_elo"] = {"elo": round(elo(role)), "interval95": _interval(roles)}
    return result


def _never(games: dict[tuple[str, str], list[float]], name: str) -> str | None:
    """ "won" when a level lost every game it played against another level, "lost" when it won
    every one: then no strength fits its games (the prior alone keeps its estimate finite).
    Greedy, the scale's zero, is at 0 whatever its games."""
    if name == "greedy":
        return None
    mine = [s for (a, b), v in games.items() if a == name != b for s in v]
    mine += [1 - s for (a, b), v in games.items() if b == name != a for s in v]
    if mine and not any(mine):
        return "won"
    if mine and all(s == 1 for s in mine):
        return "lost"
    return None


def _bound(
    games: dict[tuple[str, str], list[float]],
    name: str,
    nevers: dict[str, str | None],
    strength: dict[str, float],
    role: float,
    field: int,
) -> int | None:
    """The Elo bound of a level that never won (an upper bound) or never lost (a lower one):
    in each cell against a level with a finite estimate, the one-sided 95% Clopper-Pearson
    bound of its chance (1 - 0.05^(1/n) with no game won, or lost), turned into a strength by
    the model; the tightest of the cells. `nevers`: each level's `_never`."""
    never = nevers[name]
    bounds = []
    for (a, b), v in games.items():
        if name not in (a, b) or a == b or nevers[b if a == name else a]:
            continue
        p = 1 - 0.05 ** (1 / len(v))  # the bound of its chance to win (never won) or to lose
        odds = p / (1 - p) if never == "won" else (1 - p) / p
        if a == name:  # its chance as side A: g e^role / (g e^role + field g_b)
            bounds.append(math.log(odds * field) + strength[b] - role)
        else:  # as side B, the field of side A's level: field g / (g_a e^role)
            bounds.append(math.log(odds / field) + strength[a] + role)
    if not bounds:
        return None
    return round(elo(min(bounds) if never == "won" else max(bounds)))


def measure(case: Case, names: list[str], n: int, jobs: int) -> dict[tuple[str, str], list[float]]:
    work = [(case, a, b, i) for a, b in cells(case, names) for i in range(n)]
    games: dict[tuple[str, str], list[float]] = {}
    with ProcessPoolExecutor(jobs) if jobs > 1 else nullcontext() as pool:
        scores = pool.map(_one, work, chunksize=2) if pool is not None else map(_one, work)
        for (_, a, b, _), score in zip(work, scores, strict=True):
            cell = games.setdefault((a, b), [])
            cell.append(score)
            if len(cell) == n:  # a long run says how far it has got, a cell at a time
                print(f"{case.name:18} {a} against {b}: {sum(cell):g} of {n}", flush=True)
    return games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games a cell")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--only", help="comma-separated case names")
    parser.add_argument("--boots", type=int, default=200, help="bootstrap resamples")
    parser.add_argument("--levels", help="comma-separated levels (default: every one)")
    parser.add_argument("--out", help="where to write the JSON (default bench/results/...)")
    args = parser.parse_args()
    chosen = [c for c in CASES if not args.only or c.name in args.only.split(",")]
    date = datetime.date.today().isoformat()
    report: dict = {"commit": commit(), "date": date, "games_a_cell": args.games, "cases": []}
    path = (
        Path(args.out) if args.out else Path(__file__).parent / "results" / f"ratings-{date}.json"
    )
    for case in chosen:
        names = levels(case, args.levels.split(",") if args.levels else None)
        games = measure(case, names, args.games, args.jobs)
        rated = table(case, names, games, args.boots, seed=len(report["cases"]))
        report["cases"].append(
            {
                "case": case.name,
                "game": case.game,
                "options": case.options,
                "cells": [
                    {"level": a, "against": b, "games": len(s), "score": sum(s)}
                    for (a, b), s in games.items()
                ],
                **rated,
            }
        )
        for level, r in rated["ratings"].items():
            lo, hi = r["interval95"]
            if r["elo"] is None:
                side = f"below {hi}" if r["never"] == "won" else f"above {lo}"
                print(f"{case.name:18} {level:8} never {r['never']}: {side}", flush=True)
            else:
                print(f"{case.name:18} {level:8} {r['elo']:6} [{lo}, {hi}]", flush=True)
        path.write_text(json.dumps(report, indent=2) + "\n")  # after each: a cut run keeps its part
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
