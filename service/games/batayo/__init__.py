"""BATAYO (`batayo`): RULES.md, BATAYO section, from seed 000 (official rules V1.4.43).

The declarative header (the action, the events and what each hides from whom) in `header.py`,
the rules in `rules.py`, what each seat sees of the table in `view.py`, the bots in `bots.py`,
the tie audit (BATAYO chains and sudden deaths) in `audit.py`, the simulator's statistics in
`stats.py`.
"""

from __future__ import annotations

from ...core.game import declare
from . import audit, bots, header, rules, stats, texts, view

GAME = declare("batayo", "BATAYO", (2, 4), rules, header, view, bots, audit, texts, stats)
