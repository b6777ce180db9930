"""batayo benchmarks: `python bench/run.py` (add `--quick` for a smoke run).

Prints, from one run on this machine: events/s for rebuilding state from events, games/s for
`simulate`, and the cost of one action at version 10 and at version 5,000 on a real Redis
server (REDIS_URL, default redis://127.0.0.1:6379/14; that database is emptied).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.engine import Engine
from service.simulate import simulate
from service.state import fold
from service.store import Store
from service.table import Table


def bench_replay(games: int) -> dict:
    logs = []
    for i in range(games):
        t = Table("bataille", {}, seed=bytes([i]) * 32, game_id=f"r{i}")
        t.play_out(random.Random(i))
        logs.append(t.events)
    events = sum(len(log) for log in logs)
    started = time.perf_counter()
    for log in logs:
        fold(log)
    elapsed = time.perf_counter() - started
    return {"events": events, "events_per_s": events / elapsed}


def bench_simulate(games: int) -> dict:
    summary, _ = simulate("bataille", games, {}, ["random"], b"bench")
    return {"games": games, "games_per_s": summary["games_per_s"]}


def long_game(min_events: int) -> Table:
    """A two-player game whose forced flips run past `min_events` (ordered gathering makes
    long games; a few seeds are tried)."""
    for i in range(200):
        t = Table(
            "bataille",
            {"gather": "ordered"},
            [{"name": "a"}, {"name": "b"}],
            seed=bytes([i]) * 32,
            game_id=f"{i:016x}",
        )
        while t.state["status"] == "playing" and len(t.events) < min_events:
            t.act(t.game.to_move(t.state)[0], {"type": "flip"})
        if len(t.events) >= min_events:
            return t
    raise RuntimeError("no long game found")


def bench_length(redis_url: str, repeats: int) -> dict:
    """One action on a game at version ~10 and at ~5,000: fresh copies of one long log, loaded
    by a cold engine (as a new process would), timed alternately so drift hits both alike."""
    import redis

    client = redis.Redis.from_url(redis_url)
    client.flushdb()
    t = long_game(5_100)
    store = Store(client)
    copies: dict[int, list[tuple[str, int]]] = {10: [], 5_000: []}
    for target in copies:
        at = _boundary(t.events, target)
        seat = t.game.to_move(fold(t.events[:at]))[0]
        for r in range(repeats + 1):
            gid = f"{target:08x}{r:08x}"
            events = _renamed(t.events[:at], gid)
            store.set_meta(gid, {"seed": t.seed.hex(), "game": "bataille"})
            # as the engine leaves it: a snapshot every 64 versions, the rest as events
            snap_at = at - at % 64
            store.append(
                gid, 0, events[:snap_at], snapshot=fold(events[:snap_at]) if snap_at else None
            )
            store.append(gid, snap_at, events[snap_at:])
            copies[target].append((gid, seat))
    samples: dict[int, list[float]] = {10: [], 5_000: []}
    for r in range(repeats + 1):
        for target, games in copies.items():
            gid, seat = games[r]
            engine = Engine(store, None, cache_size=0)
            started = time.perf_counter()
            engine.act(gid, seat, {"type": "flip"})
            if r:  # the first round warms the connection and the scripts
                samples[target].append(time.perf_counter() - started)
    client.flushdb()
    cost = {k: statistics.median(v) for k, v in samples.items()}
    return {
        "ms_at_10": cost[10] * 1000,
        "ms_at_5000": cost[5_000] * 1000,
        "ratio": cost[5_000] / cost[10],
    }


def _boundary(events: list[dict], target: int) -> int:
    """The first version at or after `target` where a seat is awaited (between two actions)."""
    state = fold(events[:target])
    version = target
    while not state["table"]["contenders"] or not _awaited(state):
        state = fold(events[version : version + 1], state)
        version += 1
    return version


def _awaited(state: dict) -> bool:
    from service.state import game_of

    return bool(game_of(state).to_move(state))


def _renamed(events: list[dict], gid: str) -> list[dict]:
    """The same log under another game id (the chain is rebuilt so the store takes it)."""
    from service.chain import GENESIS, event_hash

    out, prev = [], GENESIS
    for e in events:
        e = {**e, "prev": prev}
        if e["type"] == "created":
            e["data"] = {**e["data"], "id": gid}
        e["hash"] = event_hash(e)
        prev = e["hash"]
        out.append(e)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a smoke run: tiny sizes")
    args = parser.parse_args()
    scale = 1 if args.quick else 10
    redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/14")
    replay = bench_replay(2 * scale)
    sim = bench_simulate(5 * scale)
    length = bench_length(redis_url, 3 if args.quick else 15)
    rows = [
        (
            "replay (Bataille)",
            f"{replay['events_per_s']:,.0f} events/s",
            f"{replay['events']} events",
        ),
        (
            "simulate (52 cards, 2 players)",
            f"{sim['games_per_s']:,.1f} games/s",
            f"{sim['games']} games",
        ),
        ("one action at version 10", f"{length['ms_at_10']:.2f} ms", "real Redis, cold engine"),
        (
            "one action at version 5,000",
            f"{length['ms_at_5000']:.2f} ms",
            f"ratio {length['ratio']:.2f}x (target <= 1.2x)",
        ),
    ]
    try:
        from rich.console import Console
        from rich.table import Table as RichTable

        table = RichTable(title="batayo bench")
        for col in ("what", "figure", "note"):
            table.add_column(col)
        for row in rows:
            table.add_row(*row)
        Console().print(table)
    except ImportError:  # pragma: no cover
        for row in rows:
            print(" | ".join(row))


if __name__ == "__main__":
    main()
