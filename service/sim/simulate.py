"""All-bot games played in memory with the very same rules code: no HTTP, no Redis.

Game `i` of a run is played from its own seed (the run's seed and `i`), so games are
independent: `jobs` processes each play a share of them and the results are put back in game
order, identical to a serial run of the same seed.
"""

from __future__ import annotations

import gc
import hashlib
import multiprocessing
import os
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor

from ..core.options import resolve_options
from ..core.registry import GAMES
from ..core.times import utc_now
from .table import Table


def seats_for(game: str, options: dict, bots: list[str]) -> list[dict]:
    """One bot a seat, the list repeated as needed (`random,greedy` over four seats: r g r g)."""
    module = GAMES[game]
    count = module.seat_count(resolve_options(module, options))
    for bot in bots:
        if bot not in module.bots:
            raise ValueError(f"no bot {bot!r} for {game}; bots: {', '.join(module.bots)}")
    return [{"bot": bots[i % len(bots)]} for i in range(count)]


def play(
    game: str, options: dict, seats: list[dict], seed: bytes, index: int, now: str | None = None
) -> dict:
    """One game to its end, at one instant (`now`, by default the clock's); its final state
    (its events are not kept)."""
    return played(game, options, seats, seed, index, now).state


def played(
    game: str,
    options: dict,
    seats: list[dict],
    seed: bytes,
    index: int,
    now: str | None = None,
    kept: bool = False,
) -> Table:
    """Game `index` of a run on `seed`, played to its end; its table (with its events if
    `kept`: the same course, only slower)."""
    game_seed = hashlib.sha256(seed + index.to_bytes(8, "big")).digest()
    now = now or utc_now()  # one instant: reading a clock per event costs
    table = Table(
        game,
        options,
        seats,
        seed=game_seed,
        game_id=f"{index:016x}",
        clock=lambda: now,
        simulation=True,
        kept=kept,
    )
    collecting = gc.isenabled()
    gc.disable()  # a game's data holds no cycle: it is all freed as it goes, and the collector
    try:  # would only walk it over and over (docs/performance.md#simulation-shortcuts)
        table.play_out()
    finally:
        if collecting:
            gc.enable()
    return table


def cores() -> int:
    """The processors this process may run on (the default of `--jobs`)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


Player = Callable[[str, dict, list[dict], bytes, int, str], dict]


def _play_range(
    game: str, options: dict, seats: list[dict], seed: bytes, now: str, span: range, player: Player
) -> list[dict]:
    return [player(game, options, seats, seed, i, now) for i in span]


def _spans(games: int, jobs: int) -> list[range]:
    """Games in consecutive spans: a few per process so the shares even out, small enough for a
    progress bar to move, large enough that handing them out costs little."""
    size = max(1, min(200, games // (jobs * 8)))
    return [range(i, min(i + size, games)) for i in range(0, games, size)]


def finals(
    game: str,
    games: int,
    options: dict,
    seats: list[dict],
    seed: bytes,
    now: str,
    jobs: int,
    player: Player = play,
) -> Iterator[list[dict]]:
    """What `player` makes of each game (by default its final state), in game order, a span at
    a time. Game `i` depends only on the seed and `i`, so the number of processes changes
    nothing but the time it takes."""
    if jobs <= 1 or games <= 1:
        for i in range(games):
            yield [player(game, options, seats, seed, i, now)]
        return
    # fork where there is one: the children inherit the registry (a test's toy game too)
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    spans = _spans(games, jobs)
    with ProcessPoolExecutor(min(jobs, len(spans)), mp_context=context) as pool:
        futures = [
            pool.submit(_play_range, game, options, seats, seed, now, s, player) for s in spans
        ]
        for future in futures:  # in order; the others run meanwhile
            yield future.result()


def simulate(
    game: str,
    games: int,
    options: dict,
    bots: list[str],
    seed: bytes,
    progress: Callable[[int], None] | None = None,
    jobs: int = 1,
    now: str | None = None,
) -> tuple[dict, list[dict]]:
    """Play `games` games on `jobs` processes, all at the instant `now` (by default the
    clock's); the summary of the issue's fields and the final states, in game order.
    `progress(n)` is told each time `n` more games are done."""
    seats = seats_for(game, options, bots)
    now = now or utc_now()
    started = time.perf_counter()
    states: list[dict] = []
    for done in finals(game, games, options, seats, seed, now, jobs):
        states += done
        if progress:
            progress(len(done))
    elapsed = time.perf_counter() - started
    return summary_of(states, len(seats), elapsed), states


def summary_of(finals: list[dict], seats: int, elapsed: float) -> dict:
    """Rounds, wins by seat, draws and end reasons of finished games; games/s over `elapsed`."""
    rounds = [s["result"]["rounds"] for s in finals]
    wins: Counter = Counter()
    for s in finals:
        for w in s["result"]["winners"]:
            wins[str(w)] += 1
    return {
        "games": len(finals),
        "rounds": {
            "mean": statistics.fmean(rounds) if rounds else 0,
            "median": statistics.median(rounds) if rounds else 0,
            "min": min(rounds, default=0),
            "max": max(rounds, default=0),
        },
        "wins": {str(s): wins.get(str(s), 0) for s in range(seats)},
        "draws": sum(1 for s in finals if s["result"]["draw"]),
        "reasons": dict(Counter(s["result"]["reason"] for s in finals)),
        "games_per_s": len(finals) / elapsed if elapsed > 0 else 0.0,
    }
