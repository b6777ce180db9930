"""BatailleRoylet (`roylet`): RULES.md, BatailleRoylet section (seed 003).

Three seats: seat 0 the King, seats 1 and 2 the Allies. The declarative header (the action,
the events and what each hides from whom) in `header.py`, the rules and the reducer in
`rules.py` (its docstring lists every interpretation), what each seat sees of the table in
`view.py`, the bots in `bots.py`, the tie audit (void rounds) in `audit.py`, the simulator's
statistics in `stats.py`.
"""

from __future__ import annotations

from ...core.game import declare
from . import audit, bots, header, rules, stats, texts, view

GAME = declare("roylet", "BatailleRoylet", (3, 3), rules, header, view, bots, audit, texts, stats)
