"""BATAYO (`batayo`): docs/rules/batayo.md, from seed 000 (official rules V1.4.43).

The declarative header (the action, the events and what each hides from whom) in `header.py`,
the rules in `rules.py`, what each seat sees of the table in `view.py`, the bots in `bots.py`,
the tie audit (BATAYO chains and sudden deaths) in `audit.py`, the simulator's statistics in
`stats.py`.
"""

from __future__ import annotations

from ...core.game import Game, Traits
from . import audit, bots, header, rules, stats, texts, view

GAME = Game(
    name="batayo",
    title="BATAYO",
    seat_range=(2, 4),
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
    seats_out=rules.seats_out,
    legal_actions=rules.legal_actions,
    view=view.view,
    knowledge=view.knowledge,
    knowledge_shape=header.KNOWN,
    cards=rules.cards,
    rounds=rules.rounds,
    bots=bots.BOTS,
    traits=Traits(simultaneous=True, hidden_information=True, teams=False, chance=True),
    check_deal=rules.check_deal,
    deal_shape=header.DEAL,
    waiting_reason=rules.waiting_reason,
    timers=rules.timers,
    on_timer=rules.on_timer,
    ties=audit.ties,
    summarize=stats.summarize,
    over_budget=rules.over_budget,
    table_shape=header.TABLE,
    result_shape=header.RESULT,
    problems=header.PROBLEMS,
    texts=texts.TEXTS,
)
