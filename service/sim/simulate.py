"""All-bot games played in memory with the very same rules code: no HTTP, no Redis."""

from __future__ import annotations

import hashlib
import statistics
import time
from collections import Counter
from collections.abc import Callable

from ..core.clock import utc_now
from ..core.options import resolve_options
from ..core.registry import GAMES
from .table import Table


def seats_for(game: str, options: dict, bots: list[str]) -> list[dict]:
    """One bot a seat, the list repeated as needed (`random,greedy` over four seats: r g r g)."""
    module = GAMES[game]
    count = module.seat_count(resolve_options(module, options))
    for bot in bots:
        if bot not in module.bots:
            raise ValueError(f"no bot {bot!r} for {game}; bots: {', '.join(module.bots)}")
    return [{"bot": bots[i % len(bots)]} for i in range(count)]


def play(game: str, options: dict, seats: list[dict], seed: bytes, index: int) -> dict:
    """One game to its end; its final state."""
    game_seed = hashlib.sha256(seed + index.to_bytes(8, "big")).digest()
    now = utc_now()  # a simulated game happens at one instant: reading a clock per event costs
    table = Table(
        game,
        options,
        seats,
        seed=game_seed,
        game_id=f"{index:016x}",
        clock=lambda: now,
        simulation=True,
    )
    table.play_out()
    return table.state


def simulate(
    game: str,
    games: int,
    options: dict,
    bots: list[str],
    seed: bytes,
    progress: Callable[[], None] | None = None,
) -> tuple[dict, list[dict]]:
    """Play `games` games; the summary of the issue's fields and the final states."""
    seats = seats_for(game, options, bots)
    started = time.perf_counter()
    finals = []
    for i in range(games):
        finals.append(play(game, options, seats, seed, i))
        if progress:
            progress()
    elapsed = time.perf_counter() - started
    rounds = [s["result"]["rounds"] for s in finals]
    wins: Counter = Counter()
    for s in finals:
        for w in s["result"]["winners"]:
            wins[str(w)] += 1
    summary = {
        "games": games,
        "rounds": {
            "mean": statistics.fmean(rounds) if rounds else 0,
            "median": statistics.median(rounds) if rounds else 0,
            "min": min(rounds, default=0),
            "max": max(rounds, default=0),
        },
        "wins": {str(s): wins.get(str(s), 0) for s in range(len(seats))},
        "draws": sum(1 for s in finals if s["result"]["draw"]),
        "reasons": dict(Counter(s["result"]["reason"] for s in finals)),
        "games_per_s": games / elapsed if elapsed > 0 else 0.0,
    }
    return summary, finals
