"""A balance report for rule designers: who wins (by seat and by role) with intervals, whether a
seat is favoured, how long games last, how often they hit a limit, how often ties happen, and
Batak's points per deal; side by side for several values of one option (`sweep`).

Each game is played by `simulate`'s path (`finals`), on every core if asked: game `i` depends
only on the seed and `i`, so the report is the same whatever the number of processes. A worker
sends back one small record per game, never its events.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Sequence

from ..core.options import resolve_options
from ..core.registry import GAMES
from ..core.times import utc_now
from ..games.batak.rules import teams
from ..games.roylet.rules import ALLIES, KING
from . import stats
from .simulate import finals, played, seats_for

LIMIT_REASONS = ("round_limit", "event_limit")
LENGTH_PERCENTILES = (10, 50, 90, 99)


def sides(game: str, options: dict, count: int) -> list[tuple[str, list[int]]]:
    """The roles that win together: Roylet's King and Allies (docs/rules/roylet.md), Batak
    eşli's pairs (docs/rules/batak.md), else every seat for itself."""
    if game == "roylet":
        return [("King", [KING]), ("Allies", list(ALLIES))]
    if game == "batak" and options["mode"] == "esli":
        return [(f"seats {a}+{b}", [a, b]) for a, b in teams(options)]
    return [(f"seat {s}", [s]) for s in range(count)]


def record(game: str, options: dict, seats: list[dict], seed: bytes, index: int, now: str) -> dict:
    """Game `index` played, reduced to what the report counts (run in a worker process)."""
    table = played(game, options, seats, seed, index, now, kept=True)
    state, audit = table.state, GAMES[game].ties
    result = state["result"]
    out = {
        "winners": result["winners"],
        "reason": result["reason"],
        "rounds": result["rounds"],
        "events": state["version"],
        "ties": dict(Counter(e["kind"] for e in audit(table.events))) if audit else {},
    }
    if game == "batak":
        scores = state["table"]["scores"]
        out["deals"] = len(scores)
        out["points"] = [sum(r["points"][s] for r in scores) for s in range(len(seats))]
    return out


def _rate(count: int, n: int) -> dict:
    low, high = stats.wilson(count, n)
    return {"count": count, "rate": count / n if n else 0.0, "interval": [low, high]}


def _spread(values: Sequence[float]) -> dict:
    out: dict[str, object] = {f"p{q}": stats.percentile(values, q) for q in LENGTH_PERCENTILES}
    out["max"] = max(values, default=0)
    out["mean"] = statistics.fmean(values) if values else 0.0
    out["histogram"] = _histogram(values)
    return out


def _histogram(values: Sequence[float], bins: int = 20) -> dict:
    """Counts in `bins` equal bins from the least value to the greatest (their edges)."""
    if not values:
        return {"edges": [], "counts": []}
    low, high = min(values), max(values)
    step = (high - low) / bins or 1
    counts = [0] * bins
    for v in values:
        counts[min(bins - 1, int((v - low) / step))] += 1
    return {"edges": [low + i * step for i in range(bins + 1)], "counts": counts}


def seat_advantage(wins: Sequence[int]) -> dict:
    """Whether the sides' wins (draws left out) are an even share: the exact binomial test for
    two sides, Pearson's chi-square for more."""
    decided = sum(wins)
    if len(wins) == 2:
        return {
            "test": "exact binomial",
            "decided": decided,
            "p_value": stats.binomial_two_sided(wins[0], decided),
        }
    statistic, df, p = stats.chi_square_even(wins)
    return {
        "test": "chi-square",
        "decided": decided,
        "statistic": statistic,
        "df": df,
        "expected": decided / len(wins) if wins else 0.0,
        "p_value": p,
    }


def report_of(game: str, options: dict, seats: list[dict], records: list[dict]) -> dict:
    """The report of `records` (one per game, from `record`)."""
    n, count = len(records), len(seats)
    bots = [s["bot"] for s in seats]
    roles = sides(game, options, count)
    seat_wins = [sum(s in r["winners"] for r in records) for s in range(count)]
    side_wins = [
        sum(any(s in r["winners"] for s in members) for r in records) for _, members in roles
    ]
    draws = sum(not r["winners"] for r in records)
    kinds = sorted({k for r in records for k in r["ties"]})
    report = {
        "game": game,
        "options": options,
        "bots": bots,
        "games": n,
        "seats": [{"seat": s, "bot": bots[s], **_rate(seat_wins[s], n)} for s in range(count)],
        "sides": [
            {"side": name, "seats": members, "bots": [bots[s] for s in members], **_rate(w, n)}
            for (name, members), w in zip(roles, side_wins, strict=True)
        ],
        "draws": _rate(draws, n),
        "seat_advantage": {**seat_advantage(side_wins), "same_bots": len(set(bots)) == 1},
        "length": {
            "events": _spread([r["events"] for r in records]),
            "rounds": _spread([r["rounds"] for r in records]),
        },
        "limits": {
            reason: _rate(sum(r["reason"] == reason for r in records), n)
            for reason in LIMIT_REASONS
        },
        "reasons": dict(sorted(Counter(r["reason"] for r in records).items())),
        "ties": {
            kind: {
                **_rate(sum(bool(r["ties"].get(kind)) for r in records), n),
                "per_game": sum(r["ties"].get(kind, 0) for r in records) / n if n else 0.0,
            }
            for kind in kinds
        },
    }
    if game == "batak":
        report["points_per_deal"] = _points(records, roles)
    return report


def _points(records: list[dict], roles: list[tuple[str, list[int]]]) -> dict:
    """Mean points a deal, by seat and by side (a side's is its seats' mean)."""
    deals = sum(r["deals"] for r in records)
    per_seat = [sum(r["points"][s] for r in records) / deals if deals else 0.0 for s in range(4)]
    return {
        "deals": deals,
        "seats": per_seat,
        "sides": {name: statistics.fmean(per_seat[s] for s in members) for name, members in roles},
    }


def balance(
    game: str,
    games: int,
    options: dict,
    bots: list[str],
    seed: bytes,
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
    now: str | None = None,
) -> dict:
    """Play `games` games of `game` with these options and bots (`simulate`'s seats: the list
    repeated over the seats) on `jobs` processes, and report on them."""
    resolved = resolve_options(GAMES[game], options)
    seats = seats_for(game, options, bots)
    now = now or utc_now()
    records: list[dict] = []
    for done in finals(game, games, options, seats, seed, now, jobs, player=record):
        records += done
        if progress:
            progress(len(done))
    return {**report_of(game, resolved, seats, records), "seed": seed.hex()}


def sweep(
    game: str,
    games: int,
    options: dict,
    bots: list[str],
    seed: bytes,
    option: str,
    values: Sequence[object],
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
) -> dict:
    """One report per value of `option`, on the same seed (so the same deals where the option
    does not change them), side by side."""
    now = utc_now()
    reports = [
        balance(game, games, {**options, option: v}, bots, seed, jobs, progress, now)
        for v in values
    ]
    return {"sweep": {"option": option, "values": list(values)}, "reports": reports}
