"""BATAYO test deals and moves, shared by its rule, property and tie tests."""

from __future__ import annotations

import pytest

from service.core import fairness
from service.core.game import RuleError
from service.sim.table import Table

T0 = "2030-01-01T00:00:00.000000Z"
SEED = bytes(32)


def make(packs, fmt="express", seed=SEED, **options) -> Table:
    return Table(
        "batayo",
        {"players": len(packs), "format": fmt, **options},
        seats=[{"name": f"p{i}"} for i in range(len(packs))],
        seed=seed,
        deal={"packs": packs},
        clock=lambda: T0,
    )


def play(t: Table, *moves: tuple[int, str]) -> list[dict]:
    out = []
    for seat, card in moves:
        out += t.act(seat, {"type": "play", "card": card})
    return out


def of(events: list[dict], kind: str) -> list[dict]:
    return [e for e in events if e["type"] == kind]


def refused(t: Table, seat: int, action: dict, code: str, status: int) -> None:
    """The action is refused with this stable code and nothing is appended."""
    before, version = list(t.events), t.state["version"]
    with pytest.raises(RuleError) as err:
        t.act(seat, action)
    assert (err.value.code, err.value.status) == (code, status)
    assert t.events == before
    assert t.state["version"] == version


def hand(t: Table, seat: int) -> list[str]:
    return t.state["table"]["hands"][seat]


def pack(t: Table, seat: int) -> list[str]:
    return t.state["table"]["packs"][seat]


def counts(t: Table) -> list[int]:
    return [
        len(h) + len(p)
        for h, p in zip(t.state["table"]["hands"], t.state["table"]["packs"], strict=True)
    ]


def check_ledgers(t: Table) -> None:
    """Every draw in the log replays from the seed (docs/fairness.md)."""
    for e in t.events:
        if "rng" in e["data"]:
            problem = fairness.replay_ledger(
                t.seed, t.state["id"], t.state["salt"], e["version"], e["data"]["rng"]
            )
            assert problem is None, problem


def spades(*ranks):
    return [r + "S" for r in ranks]


def hearts(*ranks):
    return [r + "H" for r in ranks]


def clubs(*ranks):
    return [r + "C" for r in ranks]


def diamonds(*ranks):
    return [r + "D" for r in ranks]


EXPRESS = ("A", "K", "Q", "J", "10", "9", "8", "7")
