"""The archive and the audits of long games.

- archive: finished all-bot games of each kind played through the engine on a real Redis,
  then archived: `MEMORY USAGE` of every key of the game before and after (target 0 after),
  and the archive object's bytes against the JSON that `GET /events` serves for the finished
  game (target <= 0.15);
- zstd levels (`--levels`): the archive of the same games at each level, its size and the
  time to write and to read it, which is how `service.store.archive.LEVEL` was chosen;
- audits: `/ties` and `/verify` of a BATAYO game of 20,000 events (greedy against greedy,
  looping until its round cap), in play and finished, against a full re-audit of the log (what
  each call cost before).

`python bench/archive.py [--quick] [--levels] [--out]`, or a part of `bench/run.py`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import record  # noqa: E402 - the result file (bench/results/)
import redis  # noqa: E402
import zstandard  # noqa: E402

from service.core.state import awaited, game_of  # noqa: E402
from service.core.verify import verify  # noqa: E402
from service.core.views import closed_as_null  # noqa: E402
from service.engine import Engine  # noqa: E402
from service.engine.dispatch import QueueDispatcher  # noqa: E402
from service.games.batayo import bots as batayo_bots  # noqa: E402
from service.store import Store  # noqa: E402
from service.store.archive import Archive  # noqa: E402

GAMES = {
    "bataille": [{"bot": "random"}] * 2,
    "batayo": [{"bot": "random"}] * 2,
    "batak": [{"bot": "greedy"}] * 4,
    "roylet": [{"bot": "random"}] * 3,
}
LONG_ID, LONG_SEED = "0000000000000000", bytes(32)  # a BATAYO game that loops to its cap


def _game_bytes(client: redis.Redis, gid: str) -> int:
    return sum(
        client.memory_usage(k, samples=0) or 0 for k in client.scan_iter(f"game:{{{gid}}}:*")
    )


def _served(engine: Engine, gid: str) -> int:
    """The bytes of `GET /v1/games/{id}/events` for the whole finished game, as served."""
    shown, state = engine.events(gid, None)
    return len(json.dumps({"game": state["game"], "events": shown, "next_after": None}).encode())


def _play(engine: Engine, jobs: QueueDispatcher, body: dict) -> str:
    gid = engine.create(body)["id"]
    jobs.run(lambda job, args: getattr(engine, job)(*args), limit=10**7)
    return gid


def bench_archive(redis_url: str, kinds: list[str], per_kind: int) -> dict:
    client = redis.Redis.from_url(redis_url)
    client.flushdb()
    out = {}
    with tempfile.TemporaryDirectory(prefix="batayo-archive-") as folder:
        jobs = QueueDispatcher()
        engine = Engine(Store(client, Archive(folder)), jobs)
        engine.archiver.after_s = 0
        for kind in kinds:
            t = {"games": 0, "events": 0, "before": 0, "after": 0, "archive": 0, "served": 0}
            t["write_s"] = t["read_s"] = 0.0
            for _ in range(per_kind):
                gid = _play(engine, jobs, {"game": kind, "seats": GAMES[kind]})
                engine.verify(gid, None)  # its audits are cached with it, and archived
                t["served"] += _served(engine, gid)
                t["before"] += _game_bytes(client, gid)
                started = time.perf_counter()
                assert engine.archiver.archive(gid) == "archived"
                t["write_s"] += time.perf_counter() - started
                t["after"] += _game_bytes(client, gid)
                t["archive"] += len(engine.store.archive.read(gid))
                t["events"] += engine.store.version(gid)
                started = time.perf_counter()
                Engine(Store(client, Archive(folder))).events(gid, None)  # a cold process
                t["read_s"] += time.perf_counter() - started
                t["games"] += 1
            out[kind] = t
    client.flushdb()
    return out


def bench_levels(redis_url: str, per_kind: int) -> list[dict]:
    """Each zstd level over the same archives (the document before compression)."""
    import service.store.archive as archive_module

    client = redis.Redis.from_url(redis_url)
    client.flushdb()
    docs, served = [], 0
    with tempfile.TemporaryDirectory(prefix="batayo-archive-") as folder:
        jobs = QueueDispatcher()
        engine = Engine(Store(client, Archive(folder)), jobs)
        for kind in GAMES:
            for _ in range(per_kind):
                gid = _play(engine, jobs, {"game": kind, "seats": GAMES[kind]})
                served += _served(engine, gid)
                meta, events = engine.store.dump(gid)
                audits = engine.audits.of_finished(gid, engine.load(gid), events)
                blob = archive_module.encode(gid, meta, engine.load(gid), events, audits)
                docs.append(zstandard.ZstdDecompressor().decompress(blob))
    client.flushdb()
    rows = []
    for level in (1, 3, 6, 9, 12, 15, 19):
        compressor = zstandard.ZstdCompressor(level=level)
        started = time.process_time()
        blobs = [compressor.compress(d) for d in docs]
        write = time.process_time() - started
        started = time.process_time()
        for b in blobs:
            zstandard.ZstdDecompressor().decompress(b)
        read = time.process_time() - started
        size = sum(len(b) for b in blobs)
        rows.append(
            {
                "level": level,
                "ratio": size / served,
                "write_ms": write * 1000,
                "read_ms": read * 1000,
            }
        )
    return rows


def _ms(call, times: int = 3) -> float:
    took = []
    for _ in range(times):
        started = time.perf_counter()
        json.dumps(call())  # what the route would then encode
        took.append(time.perf_counter() - started)
    return statistics.median(took) * 1000


def _full(engine: Engine, gid: str, seat: int | None) -> tuple:
    """A full re-audit, as every call made it before: the whole log read and shown anew."""
    state = engine.load(gid)
    shown = engine.shown(engine.store.events(gid), seat, state)
    audit = game_of(state).ties
    return audit([closed_as_null(e) for e in shown]) if audit else [], verify(shown)


def _cycle(engine: Engine, gid: str, until: int) -> None:
    """Both seats play greedy's rule without its way out of a cycle (always the lowest card
    but an ace, the highest in a tie): with ordered gathering this game cycles until its
    round limit, so it reaches any length asked for."""
    state = engine.load(gid)
    while state["status"] == "playing" and state["version"] < until:
        seat = awaited(state)[0]
        _, state = engine.act(gid, seat, batayo_bots.greedy_rule(engine.view(gid, seat)))


def bench_audits(redis_url: str, events: int) -> dict:
    client = redis.Redis.from_url(redis_url)
    client.flushdb()
    engine = Engine(Store(client), QueueDispatcher(), test_games=True)
    body = {
        "game": "batayo",
        "options": {"max_rounds": events // 5 + 40},  # ~5 events a round: it ends just past
        "seats": [{"name": "a"}, {"name": "b"}],
        "seed": LONG_SEED.hex(),
        "id": LONG_ID,
    }
    gid = engine.create(body)["id"]
    _cycle(engine, gid, events)
    out = {"version": engine.load(gid)["version"]}
    out["full_ms"] = _ms(lambda: _full(engine, gid, None), 1)
    fresh = Engine(Store(client), test_games=True)  # a new process: nothing in memory
    out["ties_first_ms"] = _ms(lambda: fresh.ties(gid, None), 1)
    out["verify_first_ms"] = _ms(lambda: fresh.verify(gid, None), 1)
    _cycle(engine, gid, out["version"] + 5)  # the game moves on a few events
    out["ties_next_ms"] = _ms(lambda: fresh.ties(gid, None))
    out["verify_next_ms"] = _ms(lambda: fresh.verify(gid, None))
    out["ties_seat_ms"] = _ms(lambda: fresh.ties(gid, 0))
    # the kept audit equals a full one (the engine's verify adds the signature's verdict)
    assert (fresh.ties(gid, 0), fresh.audits.verify(gid, 0)) == _full(fresh, gid, 0)
    _cycle(engine, gid, 10**9)  # to its end
    out["finished_version"] = engine.load(gid)["version"]
    out["finished_full_ms"] = _ms(lambda: _full(engine, gid, None), 1)
    other = Engine(Store(client), test_games=True)
    out["finished_first_ms"] = _ms(lambda: other.verify(gid, None), 1)  # made and kept
    out["finished_kept_ms"] = _ms(lambda: Engine(Store(client)).verify(gid, None))  # read back
    out["finished_warm_ms"] = _ms(lambda: other.verify(gid, 0))
    client.flushdb()
    return out


COLUMNS = ("what", "figure", "reference (same run)", "ratio")


def rows(archived: dict, audits: dict | None) -> list[tuple[str, ...]]:
    out = []
    for kind, t in archived.items():
        out.append(
            (
                f"archive: {kind}",
                f"Redis {t['before'] / t['games'] / 1024:,.1f} KiB/game before, "
                f"{t['after'] / t['games']:,.0f} B after",
                f"/events JSON {t['served'] / t['events']:,.0f} B/event; archive "
                f"{t['archive'] / t['events']:,.1f} B/event",
                f"{t['archive'] / t['served']:.3f} of JSON (target <= 0.15); "
                f"{t['after']} B left (target 0)",
            )
        )
        out.append(
            (
                f"  archive {kind}: write / cold read",
                f"{t['write_s'] / t['games'] * 1000:,.0f} ms / "
                f"{t['read_s'] / t['games'] * 1000:,.0f} ms a game",
                f"{t['events'] / t['games']:,.0f} events/game",
                "write: read, encode, check, delete",
            )
        )
    if audits:
        a = audits
        full = f"full re-audit {a['full_ms']:,.0f} ms"
        out += [
            (
                f"/ties, game in play at {a['version']:,} events",
                f"{a['ties_next_ms']:,.0f} ms (first in a process {a['ties_first_ms']:,.0f} ms)",
                full,
                f"{a['ties_next_ms'] / a['full_ms']:.2f}; a seat {a['ties_seat_ms']:,.0f} ms",
            ),
            (
                f"/verify, game in play at {a['version']:,} events",
                f"{a['verify_next_ms']:,.0f} ms (first {a['verify_first_ms']:,.0f} ms)",
                full,
                f"{a['verify_next_ms'] / a['full_ms']:.2f}",
            ),
            (
                f"/verify, finished at {a['finished_version']:,} events",
                f"{a['finished_kept_ms']:,.1f} ms kept (made once: "
                f"{a['finished_first_ms']:,.0f} ms)",
                f"full re-audit {a['finished_full_ms']:,.0f} ms",
                f"{a['finished_kept_ms'] / a['finished_full_ms']:.3f}",
            ),
        ]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--levels", action="store_true", help="zstd levels compared")
    record.add_flag(parser)
    args = parser.parse_args()
    from tests.support.redis_server import RedisServer

    server = RedisServer(Path(tempfile.mkdtemp(prefix="batayo-bench-")))
    try:
        if args.levels:
            for r in bench_levels(server.url, 1 if args.quick else 3):
                print(
                    f"zstd {r['level']:>2}: {r['ratio']:.4f} of JSON, "
                    f"write {r['write_ms']:.1f} ms, read {r['read_ms']:.1f} ms (all games)"
                )
        archived = bench_archive(server.url, list(GAMES), 1 if args.quick else 3)
        audits = bench_audits(server.url, 2_000 if args.quick else 20_000)
        for row in rows(archived, audits):
            print(" | ".join(row))
        if args.out is not None:
            tables = [
                record.table("Archive", COLUMNS, rows(archived, None)),
                record.table("Audits of long games", COLUMNS, rows({}, audits)),
            ]
            data = {"archive": archived, "audits": audits}
            record.record("archive", "bench/archive.py", args.quick, tables, data, args.out or None)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
