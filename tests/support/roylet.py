"""BatailleRoylet test deals and moves, shared by its rule, property and tie tests."""

from __future__ import annotations

import pytest

from service.core.game import RuleError
from service.sim.table import Table

KING, A1, A2 = 0, 1, 2

# King: the royals and 7 more; the Allies' hands. Used by most scenarios.
DEAL = {
    "hands": [
        ["JS", "JH", "JD", "JC", "KH", "AS", "9H", "10S", "2S", "3S", "4S", "5S"],
        ["AH", "AD", "10H", "10D", "KS", "QS", "2H", "3H", "4H", "5H"],
        ["AC", "10C", "KC", "QH", "QD", "QC", "2D", "3D", "4D", "5D"],
    ]
}
# The Allies hold the queens and aces, the King two aces and strong tens.
DEAL_Q = {
    "hands": [
        ["JS", "JH", "JD", "JC", "KH", "AS", "AC", "9H", "10S", "10D", "2S", "3S"],
        ["AH", "AD", "QS", "QH", "KS", "2H", "3H", "4H", "5H", "6H"],
        ["QD", "QC", "KD", "2D", "3D", "4D", "5D", "6D", "7D", "8D"],
    ]
}
# The 9 of hearts with an Ally; queens with the King.
DEAL_9H = {
    "hands": [
        ["JS", "JH", "JD", "JC", "KH", "QS", "QH", "10S", "2S", "3S", "4S", "5S"],
        ["9H", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "2C", "3C"],
        ["2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "4C", "5C"],
    ]
}


def table(deal=DEAL, seed=bytes(32), **options) -> Table:
    seats = [{"name": "king"}, {"name": "ally1"}, {"name": "ally2"}]
    return Table("roylet", options, seats=seats, seed=seed, deal=deal)


def battle(t: Table, king: str, a1: str, a2: str, down: int = A1) -> dict:
    """One battle: the Ally `down` commits face down, the other plays face up, then the King.
    Returns the battle's `trick` event."""
    cards = {A1: a1, A2: a2}
    up = A2 if down == A1 else A1
    t.act(down, {"type": "play", "card": cards[down], "face": "down"})
    t.act(up, {"type": "play", "card": cards[up], "face": "up"})
    events = t.act(KING, {"type": "play", "card": king})
    return next(e for e in events if e["type"] == "trick")


def ended(t: Table) -> dict:
    return next(e for e in reversed(t.events) if e["type"] == "round_ended")["data"]


def error(t: Table, seat: int, action: dict) -> RuleError:
    before = len(t.events)
    with pytest.raises(RuleError) as info:
        t.act(seat, action)
    assert len(t.events) == before  # a refused action appends nothing
    return info.value


PENALTY_PLAY = [
    ("JS", "2H", "2D"),
    ("JH", "3H", "3D"),
    ("JD", "4H", "4D"),
    ("JC", "5H", "5D"),
    ("KH", "10H", "QH"),
    ("2S", "AH", "QD"),
    ("3S", "AD", "QC"),
    ("4S", "10D", "KC"),
    ("5S", "KS", "AC"),
    ("AS", "QS", "10C"),
]

VOID_PLAY = [  # three jacks captured, the King holds 7 tricks
    ("JS", "AH", "2D"),
    ("JH", "AD", "3D"),
    ("JD", "KS", "QD"),
    ("JC", "2H", "4D"),
    ("KH", "3H", "5D"),
    ("AS", "QS", "QC"),
    ("AC", "QH", "KD"),
    ("9H", "4H", "6D"),
    ("10S", "5H", "7D"),
    ("10D", "6H", "8D"),
]

PENALTY_THEN_VOID = [
    ("JS", "KS", "2D"),
    ("KH", "AH", "KD"),
    ("2S", "AD", "3D"),
    ("JH", "2H", "4D"),
    ("JD", "3H", "5D"),
    ("JC", "4H", "6D"),
    ("AS", "QS", "QC"),
    ("AC", "QH", "QD"),
    ("9H", "5H", "7D"),
    ("10S", "6H", "8D"),
]
