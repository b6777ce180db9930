"""Batak (`batak`): RULES.md, Batak section (seed 002). The rules live in `rules`, the bots and
the hint in `bots`; this package exposes the game-module interface of `service.games.base`."""

from __future__ import annotations

from .audit import ties
from .bots import BOTS, hint
from .rules import (
    NAME,
    OPTIONS,
    TITLE,
    apply,
    cards,
    check_deal,
    decide,
    deck,
    legal_actions,
    rounds,
    seat_count,
    setup,
    start,
    to_move,
    waiting_reason,
)
from .stats import summarize
from .view import redact, view

__all__ = [
    "BOTS",
    "NAME",
    "OPTIONS",
    "TITLE",
    "apply",
    "cards",
    "check_deal",
    "decide",
    "deck",
    "hint",
    "legal_actions",
    "redact",
    "rounds",
    "seat_count",
    "setup",
    "start",
    "summarize",
    "ties",
    "to_move",
    "view",
    "waiting_reason",
]
