"""La Bataille (`bataille`): RULES.md, Bataille section (seed 004), with its variants.

The rules in `rules.py`, what each seat sees in `view.py`, the bots in `bots.py`, the tie
audit in `audit.py`.

Table state: each seat's `packs` (top first) and `won` pile, who is `out`, the `pot` on the table
(cards in the order they reached it), what each contender has `put` in the current step (the
round's turn is step 0, each bataille one more), and the cards set `aside` out of play.
"""

from __future__ import annotations

from .audit import ties
from .bots import BOTS
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
    "legal_actions",
    "redact",
    "rounds",
    "seat_count",
    "setup",
    "start",
    "ties",
    "to_move",
    "view",
    "waiting_reason",
]
