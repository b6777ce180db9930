"""BatailleRoylet (`roylet`): docs/rules/roylet.md (seed 003).

Three seats: seat 0 the King, seats 1 and 2 the Allies. The declarative header (the action,
the events and what each hides from whom) in `header.py`, the rules and the reducer in
`rules.py` (its docstring lists every interpretation), what each seat sees of the table in
`view.py`, the bots in `bots.py`, the tie audit (void rounds) in `audit.py`, the simulator's
statistics in `stats.py`.
"""

from __future__ import annotations

from ...core.game import Game, Traits
from . import audit, bots, header, rules, stats, texts, view

GAME = Game(
    name="roylet",
    title="BatailleRoylet",
    seat_range=(3, 3),
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
    traits=Traits(simultaneous=True, hidden_information=True, teams=True, chance=True),
    check_deal=rules.check_deal,
    deal_shape=header.DEAL,
    waiting_reason=rules.waiting_reason,
    ties=audit.ties,
    summarize=stats.summarize,
    bot_patience=rules.bot_patience,
    over_budget=rules.over_budget,
    table_shape=header.TABLE,
    result_shape=header.RESULT,
    problems=header.PROBLEMS,
    texts=texts.TEXTS,
)
