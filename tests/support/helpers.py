"""Small helpers shared by the tests."""

from __future__ import annotations

import json
import os
from pathlib import Path

from hypothesis import settings

from service.core.chain import seal
from service.sim.table import Table

# What the reliability tests checked (cases, games, actions); conftest prints it after the run.
# One file per pytest-xdist worker ("main" without xdist), merged by conftest.
COUNTS_DIR = Path(__file__).resolve().parents[1] / "artifacts"
COUNTS = COUNTS_DIR / f"counts-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}.json"

SEED = bytes(range(32))


def examples(ci: int) -> int:
    """A property's example count: `ci` under the bounded CI profile, the profile's own when it
    asks for more (`HYPOTHESIS_PROFILE=deep`, tests/conftest.py)."""
    return max(ci, settings().max_examples)


def humans(n: int) -> list[dict]:
    return [{"name": f"p{i}"} for i in range(n)]


def table(game: str, options: dict | None = None, packs=None, n: int | None = None, **kw) -> Table:
    """A game of human seats on a fixed deal (packs top card first) and a fixed seed."""
    options = options or {}
    seats = n or len(packs or []) or options.get("players", 2)
    deal = {"packs": packs} if packs is not None else kw.pop("deal", None)
    return Table(game, options, humans(seats), seed=SEED, deal=deal, **kw)


def types(events: list[dict]) -> list[str]:
    return [e["type"] for e in events]


def last(t: Table, kind: str) -> dict:
    return next(e for e in reversed(t.events) if e["type"] == kind)


def text(obj) -> str:
    return json.dumps(obj)


def auth(token: str | None) -> dict:
    """The header that acts as a seat (none for a spectator)."""
    return {"Authorization": f"Bearer {token}"} if token else {}


def record_counts(values: dict) -> None:
    """Merge `values` into the run's counts (other tests' keys are kept)."""
    COUNTS.parent.mkdir(parents=True, exist_ok=True)
    try:
        counts = json.loads(COUNTS.read_text())
    except (OSError, ValueError):
        counts = {}
    counts.update(values)
    COUNTS.write_text(json.dumps(counts, indent=2, sort_keys=True) + "\n")


def own(event: dict) -> dict:
    """An event's data as its game wrote it: without the cause the framework records."""
    return {k: v for k, v in event["data"].items() if k != "cause"}


def is_sealed(value) -> bool:
    """A value served sealed (docs/fairness.md: `{"sealed": digest}`), not in clear."""
    return isinstance(value, dict) and set(value) == {"sealed"} and len(value["sealed"]) == 64


def without_decks(blob):
    """`blob` (an event, its data, any JSON) without the input of each `"deck": true` draw: the
    canonical deck, which only says which cards exist (docs/fairness.md), never where they are."""
    if isinstance(blob, dict):
        return {
            k: without_decks(v)
            for k, v in blob.items()
            if not (k == "input" and blob.get("deck") is True)
        }
    if isinstance(blob, list):
        return [without_decks(v) for v in blob]
    return blob


def events_of(n: int, start: int = 1) -> list[dict]:
    """`n` chained events of a toy kind from version `start` (for the store's own tests)."""
    out, prev = [], "0" * 64
    for v in range(start, start + n):
        out.append(seal(v, "x", "t", "server", {"i": v}, prev))
        prev = out[-1]["hash"]
    return out


def stored_v1_batak(engine, game_id: str, at: str = "2026-01-01T00:00:00.000000Z") -> dict:
    """A Batak game of fairness version 1 stored as a service before version 2 wrote it (three
    deals, four humans), just created: its state."""
    from service.core import command
    from service.core.options import resolve_options
    from service.core.registry import GAMES

    seed = b"1" * 32
    options = resolve_options(GAMES["batak"], {"deals": 3})
    seats = [{"seat": i, "name": f"p{i}"} for i in range(4)]
    cmd = command.create(game_id, "batak", options, seats, seed, at, test=False, fairness_version=1)
    engine.store.set_meta(game_id, {"seed": seed.hex(), "game": "batak"})
    engine.store.append(game_id, 0, cmd.events)
    return engine.load(game_id)
