"""La Bataille (`bataille`): RULES.md, Bataille section (seed 004), with its variants.

The declarative header (actions, events and what they hide) in `header.py`, the rules in
`rules.py`, what each seat sees of the table in `view.py`, the bots in `bots.py`, the tie
audit in `audit.py`.
"""

from __future__ import annotations

from ...core.game import declare
from . import audit, bots, header, rules, texts, view

GAME = declare("bataille", "La Bataille", (2, 6), rules, header, view, bots, audit, texts)
