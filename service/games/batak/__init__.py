"""Batak (`batak`): RULES.md, Batak section (seed 002), auction and team.

The declarative header (actions, events and what they hide) in `header.py`, the rules in
`rules.py`, what each seat sees of the table in `view.py`, the bots and the hint in `bots.py`,
the tie audit (tie-break deals) in `audit.py`, the simulator's statistics in `stats.py`.
"""

from __future__ import annotations

from ...core.game import declare
from . import audit, bots, header, rules, stats, texts, view

GAME = declare("batak", "Batak", (4, 4), rules, header, view, bots, audit, texts, stats)
