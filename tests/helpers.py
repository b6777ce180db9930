"""Small helpers shared by the tests."""

from __future__ import annotations

import json

from service.table import Table

SEED = bytes(range(32))


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
