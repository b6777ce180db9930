"""batayo benchmarks: `python bench/run.py` (add `--quick` for a smoke run of a few seconds, and
`--out` to keep the result in bench/results/, from which docs/performance.md is made).

Prints one table, every figure beside its reference measured in the same run on this machine:

- rules engine: `simulate` games/s for 52-card two-player Bataille against a bare War loop in
  plain Python (`bench/war.py`, the same rules), beside the reducer-only replay bound, on one
  process and on every core, and the mypyc build when mypy is installed (bench/simulate.py);
- replay: events/s rebuilding a game's state from its events (target 300,000);
- length: one action at version 10 and at version 5,000 on a real Redis server, with a cold
  engine (as a new process) and a warm one (its in-memory cache);
- HTTP: actions/s and latency under gunicorn as production runs it (gunicorn.conf.py) on a real Redis server, many
  human-vs-human games at once, driven by a separate load process on loopback
  (`bench/load.py`), against `GET /healthz` under the same server; then the latency at half the
  maximum action rate;
- storage: Redis memory (`MEMORY USAGE`) per event and per finished game of each kind, against
  the bytes of the events' JSON;
- archive: Redis bytes per finished game after archiving (target 0) and archive bytes against
  the JSON `/events` serves (target <= 0.15); `/ties` and `/verify` of a 20,000-event game
  in play and finished, against a full re-audit (bench/archive.py);
- clocks (`--clocks`): how late move clocks fire, and how long `/healthz` takes, while 20
  strong-bot games play on `batayo serve` (bench/clocks.py).

Redis: a redis-server of the bench's own, started on a free loopback port and stopped at the end
(with REDIS_URL set, that server's database instead, which the bench empties: give it one of its
own). Rate limits are turned off for the server under test.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import archive as archive_bench  # noqa: E402 - the archive and long games' audits
import clocks  # noqa: E402 - move clocks while strong bots play
import record  # noqa: E402 - the result file (bench/results/)
import serving  # noqa: E402 - the HTTP phases
import simulate as sim_bench  # noqa: E402 - the bench's simulate phase (bench/simulate.py)
import streams  # noqa: E402 - the live-stream phases

from service.core.state import fold  # noqa: E402
from service.engine import Engine  # noqa: E402
from service.sim.simulate import cores  # noqa: E402
from service.sim.table import Table  # noqa: E402
from service.store import Store  # noqa: E402


def bench_replay(games: int) -> dict:
    """Events/s folding stored Bataille logs, by this process's CPU time (what other processes
    on a shared machine take does not count against it)."""
    logs = []
    for i in range(games):
        t = Table("bataille", {}, seed=bytes([i]) * 32, game_id=f"r{i}")
        t.play_out()
        logs.append(t.events)
    events = sum(len(log) for log in logs)
    started = time.process_time()
    for log in logs:
        fold(log)
    elapsed = time.process_time() - started
    return {"events": events, "events_per_s": events / elapsed}


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
    """One action on a game at version ~10 and at ~5,000: fresh copies of one long log, the
    same kind of action at both lengths (a flip that wins a round), timed alternately so drift
    hits both alike; by a cold engine (as a new process would) and by a warm one (the game in
    its memory)."""
    import redis

    client = redis.Redis.from_url(redis_url)
    client.flushdb()
    t = long_game(5_100)
    store = Store(client)
    copies: dict[tuple[int, str], list[tuple[str, int]]] = {}
    for target in (10, 5_000):
        at = _boundary(t.events, target)
        seat = t.events[at]["data"]["seat"]  # whose flip wins the round
        for kind in ("cold", "warm"):
            copies[target, kind] = []
            for r in range(repeats + 1):
                gid = f"{target:08x}{kind}{r:08x}"
                _store_copy(store, gid, t, at)
                copies[target, kind].append((gid, seat))
    samples: dict[tuple[int, str], list[float]] = {key: [] for key in copies}
    warm = Engine(store, None)
    for target in (10, 5_000):
        for gid, _ in copies[target, "warm"]:
            warm.load(gid)  # now in its memory
    for r in range(repeats + 1):
        for key, games in copies.items():
            gid, seat = games[r]
            engine = warm if key[1] == "warm" else Engine(store, None, cache_size=0)
            started = time.perf_counter()
            events, _ = engine.act(gid, seat, {"type": "flip"})
            elapsed = time.perf_counter() - started
            assert [e["type"] for e in events] == ["flipped", "took"], events
            if r:  # the first round warms the connection and the scripts
                samples[key].append(elapsed)
    client.flushdb()
    cost = {key: statistics.median(v) for key, v in samples.items()}
    return {
        "ms_at_10": cost[10, "cold"] * 1000,
        "ms_at_5000": cost[5_000, "cold"] * 1000,
        "ratio": cost[5_000, "cold"] / cost[10, "cold"],
        "warm_ms_at_10": cost[10, "warm"] * 1000,
        "warm_ms_at_5000": cost[5_000, "warm"] * 1000,
        "warm_ratio": cost[5_000, "warm"] / cost[10, "warm"],
    }


def _store_copy(store: Store, gid: str, table: Table, at: int) -> None:
    """The first `at` events of `table` as game `gid`, stored as the engine leaves a game: a
    snapshot every 64 versions, the rest as events."""
    events = _renamed(table.events[:at], gid)
    store.set_meta(gid, {"seed": table.seed.hex(), "game": "bataille"})
    snap_at = at - at % 64
    store.append(gid, 0, events[:snap_at], snapshot=fold(events[:snap_at]) if snap_at else None)
    store.append(gid, snap_at, events[snap_at:])


def _boundary(events: list[dict], target: int) -> int:
    """The first version at or after `target` where the next action is a flip that wins a
    round: the other seat has just flipped, and this flip is followed by `took`."""
    for v in range(max(target, 1), len(events) - 1):
        if [e["type"] for e in events[v - 1 : v + 2]] == ["flipped", "flipped", "took"]:
            return v
    raise RuntimeError(f"no round won by a flip after version {target}")


def _renamed(events: list[dict], gid: str) -> list[dict]:
    """The same log under another game id (the chain is rebuilt so the store takes it)."""
    from service.core.chain import GENESIS, event_hash

    out, prev = [], GENESIS
    for e in events:
        e = {**e, "prev": prev}
        if e["type"] == "created":
            e["data"] = {**e["data"], "id": gid}
        e["hash"] = event_hash(e)
        prev = e["hash"]
        out.append(e)
    return out


# -- storage ---------------------------------------------------------------------------------

STORAGE_GAMES = {
    "bataille": [{"bot": "random"}] * 2,
    "batayo": [{"bot": "random"}] * 3,
    "batak": [{"bot": "greedy"}] * 4,
    "roylet": [{"bot": "random"}] * 3,
}


def bench_storage(redis_url: str, kinds: list[str], per_kind: int) -> dict:
    """Finished all-bot games of each kind played through the engine on a real Redis:
    `MEMORY USAGE` of the stream, snapshot and meta keys against the events' JSON bytes."""
    import redis

    from service.core.registry import GAMES
    from service.store import key

    client = redis.Redis.from_url(redis_url)
    client.flushdb()
    engine = Engine(Store(client), None)
    out = {}
    for kind in kinds:
        module = GAMES[kind]
        seats = STORAGE_GAMES[kind]
        if kind == "batayo":  # its seat count depends on its options
            seats = [{"bot": "random"}] * module.seat_count(_defaults(module))
        totals = {"events": 0, "json": 0, "stream": 0, "other": 0, "games": 0}
        for _ in range(per_kind):
            gid = engine.create({"game": kind, "seats": seats})["id"]
            state = engine.load(gid)
            while state["status"] == "playing":
                engine.bot_moves(gid, state["version"])
                state = engine.load(gid)
            events = engine.all_events(gid)
            totals["events"] += len(events)
            totals["json"] += sum(len(json.dumps(e, ensure_ascii=False).encode()) for e in events)
            totals["stream"] += client.memory_usage(key(gid, "events"), samples=0) or 0
            for part in ("snap", "meta"):
                totals["other"] += client.memory_usage(key(gid, part), samples=0) or 0
            totals["games"] += 1
        out[kind] = totals
    client.flushdb()
    return out


def _defaults(module) -> dict:
    from service.core.options import resolve_options

    return resolve_options(module, {})


# -- the table -------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a smoke run: tiny sizes")
    parser.add_argument("--no-http", action="store_true", help="skip the HTTP phases")
    parser.add_argument(
        "--streams", action="store_true", help="the live-stream phases (bench/streams.py, ~3 min)"
    )
    parser.add_argument(
        "--servers", action="store_true", help="gthread against gevent per plain request"
    )
    parser.add_argument(
        "--live",
        action="store_true",
        help="the live path at 10, 100 and 500 games, over streams (bench/players.py) and over "
        "sockets (bench/sockets.py), ~2 min: the peer bench's live-path rows",
    )
    parser.add_argument(
        "--clocks",
        action="store_true",
        help="move clocks while 20 strong-bot games play on `batayo serve` (bench/clocks.py, 1 min)",
    )
    record.add_flag(parser)
    args = parser.parse_args()
    own = None
    redis_url = os.environ.get("REDIS_URL")
    if not redis_url:
        import tempfile

        from tests.support.redis_server import RedisServer

        own = RedisServer(Path(tempfile.mkdtemp(prefix="batayo-bench-")))
        redis_url = own.url
    try:
        run(args, redis_url)
    finally:
        if own is not None:
            own.stop()


def run(args: argparse.Namespace, redis_url: str) -> None:
    quick = args.quick
    started = time.perf_counter()
    sim = sim_bench.bench_simulate(2 if quick else 10, 1 if quick else 12)
    jobs = cores()
    par = sim_bench.bench_simulate(4 * jobs if quick else 40 * jobs, 1 if quick else 3, jobs=jobs)
    compiled = None
    if not quick and _has_mypyc():
        compiled = sim_bench.bench_compiled(10, 12)
    replay = bench_replay(2 if quick else 20)
    length = bench_length(redis_url, 3 if quick else 15)
    http = None
    if not args.no_http:
        http = serving.bench_http(
            redis_url, 1.0 if quick else 12.0, 8, 16 if quick else 200, 1 if quick else 3
        )
    storage = bench_storage(
        redis_url, ["bataille"] if quick else list(STORAGE_GAMES), 1 if quick else 3
    )
    archived = archive_bench.bench_archive(
        redis_url, ["bataille"] if quick else list(archive_bench.GAMES), 1 if quick else 3
    )
    audits = archive_bench.bench_audits(redis_url, 2_000 if quick else 20_000)
    live = streams.bench_streams(redis_url, quick) if args.streams or quick else []
    servers = (
        serving.bench_servers(redis_url, 1.0 if quick else 8.0, 2 if quick else 3)
        if args.servers
        else None
    )
    players = serving.bench_live(redis_url, 10.0, (10, 100, 500)) if args.live else []
    timed = clocks.bench_clocks(60.0) if args.clocks else None

    rows = [
        *_simulate_rows(sim, par, compiled),
        (
            "replay: Bataille state from events",
            f"{replay['events_per_s']:,.0f} events/s",
            "target 300,000 events/s",
            f"{replay['events_per_s'] / 300_000:.2f} (target >= 1)",
        ),
        (
            "one action at version 5,000, cold engine",
            f"{length['ms_at_5000']:.2f} ms",
            f"at version 10: {length['ms_at_10']:.2f} ms",
            f"{length['ratio']:.2f} (target <= 1.2)",
        ),
        (
            "one action at version 5,000, warm engine",
            f"{length['warm_ms_at_5000']:.2f} ms",
            f"at version 10: {length['warm_ms_at_10']:.2f} ms",
            f"{length['warm_ratio']:.2f} (target <= 1.2)",
        ),
    ]
    if http:
        h, a, p = http["healthz"], http["actions"], http["paced"]
        rows += [
            (
                f"HTTP actions, flat out ({http['workers']} gunicorn.conf.py workers)",
                f"{a['per_s']:,.0f} actions/s",
                f"GET /healthz {h['per_s']:,.0f} req/s",
                f"{http['ratio']:.2f} (target >= 0.5)",
            ),
            (
                "HTTP action latency, flat out",
                f"p50 {a['p50_ms']:.1f} ms, p99 {a['p99_ms']:.1f} ms",
                f"/healthz p50 {h['p50_ms']:.1f} ms, p99 {h['p99_ms']:.1f} ms",
                f"{a['errors'] + h['errors']} errors",
            ),
            *serving.cpu_row(a, h),
            (
                f"HTTP action latency at {p['rate']:,.0f}/s (half max)",
                f"p50 {p['p50_ms']:.1f} ms, p99 {p['p99_ms']:.1f} ms",
                f"{p['per_s']:,.0f} actions/s done",
                f"p99 {p['p99_ms'] / 20:.2f} of 20 ms (target <= 1)",
            ),
        ]
    for kind, t in storage.items():
        per_event = t["stream"] / t["events"]
        json_per_event = t["json"] / t["events"]
        rows.append(
            (
                f"Redis memory: {kind}",
                f"{per_event:,.0f} B/event, {(t['stream'] + t['other']) / t['games'] / 1024:,.1f}"
                " KiB/game",
                f"JSON {json_per_event:,.0f} B/event, {t['json'] / t['games'] / 1024:,.1f} KiB/game",
                f"{t['stream'] / t['json']:.2f}x JSON; {t['events'] / t['games']:,.0f} events/game",
            )
        )
    rows += archive_bench.rows(archived, audits)
    rows += streams.rows(live)
    if servers:
        rows += serving.server_rows(servers)
    rows += serving.live_rows(players, http)
    rows += clocks.rows(timed)
    _print(rows, time.perf_counter() - started)
    if args.out is not None:
        data = {"simulate": sim, "simulate_jobs": par, "simulate_compiled": compiled}
        data.update(replay=replay, length=length, http=http, storage=storage)
        data.update(archive=archived, audits=audits, streams=live, servers=servers)
        data.update(live=players, clocks=timed, seconds=round(time.perf_counter() - started))
        tables = [record.table("The benchmark run", HEADER, rows)]
        record.record("run", "bench/run.py", quick, tables, data, args.out or None)


def _has_mypyc() -> bool:
    try:
        import mypyc  # noqa: F401
    except ImportError:
        return False
    return True


def _simulate_rows(sim: dict, par: dict, compiled: dict | None) -> list[tuple[str, ...]]:
    """simulate against the bare loop, each beside its floor: the reducer alone replaying the
    same kind of games (nothing decided, no bot asked), from the same run."""

    def pair(label: str, s: dict) -> list[tuple[str, ...]]:
        bare = (
            f"bare War loop {s['bare_per_s']:,.0f} games/s ({s['bare_rounds_per_s']:,.0f} rounds/s)"
        )
        return [
            (
                f"simulate{label}: 52-card 2-player Bataille",
                f"{s['games_per_s']:,.0f} games/s ({s['rounds_per_s']:,.0f} rounds/s)",
                bare,
                f"{s['ratio']:.3f} (target >= 0.25)",
            ),
            (
                f"  its floor{label}: reducer-only replay",
                f"{s['reducer_rounds_per_s']:,.0f} rounds/s "
                f"({s['reducer_events_per_round']:.1f} events a round)",
                bare,
                f"{s['bound']:.3f} (the most simulate can reach)",
            ),
        ]

    rows = pair("", sim)
    rows.append(
        (
            f"simulate --jobs {par['jobs']}",
            f"{par['rounds_per_s']:,.0f} rounds/s a core; "
            f"{par['wall_rounds_per_s']:,.0f} rounds/s from start to end",
            f"bare War loop {par['bare_rounds_per_s']:,.0f} rounds/s (1 process)",
            f"{par['per_core']:.3f} per core",
        )
    )
    if compiled:
        rows += pair(" (mypyc)", compiled)
    return rows


HEADER = ("what", "figure", "reference (same run)", "ratio")


def _print(rows: list[tuple[str, ...]], elapsed: float) -> None:
    header = HEADER
    try:
        from rich.console import Console
        from rich.table import Table as RichTable

        table = RichTable(title=f"batayo bench ({elapsed:.0f} s)")
        for col in header:
            table.add_column(col)
        for row in rows:
            table.add_row(*row)
        Console(width=160).print(table)
    except ImportError:  # pragma: no cover
        for row in [header, *rows]:
            print(" | ".join(row))
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
