"""Batak (`batak`): docs/rules/batak.md (seed 002), auction and team.

The declarative header (actions, events and what they hide) in `header.py`, the rules in
`rules.py`, what each seat sees of the table in `view.py`, the bots in `bots.py` (their fast
play-out in `playout.py`, the exact end of an eşli deal in `endgame.py`), the tie audit
(tie-break deals) in `audit.py`, the simulator's statistics in `stats.py`.
"""

from __future__ import annotations

from ...core.game import Game, Traits
from . import audit, bots, header, rules, stats, texts, view

GAME = Game(
    name="batak",
    title="Batak",
    seat_range=(4, 4),
    options=rules.OPTIONS,
    seat_count=rules.seat_count,
    actions=header.ACTIONS,
    events=header.EVENTS,
    deck=rules.deck,
    setup=rules.setup,
    start=rules.start,
    decide=rules.decide,
    apply=rules.apply,
    turns=rules.TURNS,
    legal_actions=rules.legal_actions,
    view=view.view,
    cards=rules.cards,
    rounds=rules.rounds,
    bots=bots.BOTS,
    traits=Traits(simultaneous=False, hidden_information=True, teams=True, chance=True),
    check_deal=rules.check_deal,
    deal_shape=header.DEAL,
    waiting_reason=rules.waiting_reason,
    ties=audit.ties,
    summarize=stats.summarize,
    over_budget=rules.over_budget,
    table_shape=header.TABLE,
    result_shape=header.RESULT,
    problems=header.PROBLEMS,
    texts=texts.TEXTS,
)
