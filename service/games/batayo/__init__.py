"""BATAYO (`batayo`): RULES.md, BATAYO section, from seed 000 (official rules V1.4.43).

The module interface of `service/games/base.py`: the rules in `rules.py`, what each seat sees
in `view.py`, the bots in `bots.py`, and `summarize` for the simulator here.

Events (all but `committed` are the server's; `time_up` is the clock's):
- `dealt` {packs, aside} (+ ledger "pack of seat N"): packs hidden from everyone.
- `drew` {trick, step, cards: per seat the cards drawn}: only the owner sees its cards.
- `committed` {seat, card, trick, step, phase}: the card hidden from all but the seat.
- `revealed` {phase, trick, step, cards, down, best, tied, winner}: every card of the step,
  the BATAYO face-down cards (`down`, per taking seat) included; public.
- `batayo` {trick, step, seats, rank}: a tie for the highest card, between `seats`.
- `taken` {trick, step, seat, from, card} (+ ledger "BATAYO: seat X takes from seat Y"): the
  card (and the ledger, which shows the hand) hidden from all but the seat taken from.
- `trick_won` {trick, seat, batayos, cards, order} (+ ledger with `gather: random`): `cards` in
  table order (all revealed), `order` as put under the pack (hidden with `gather: random`).
- `left_play` {trick, cards}: nobody could win the table (every contender out of cards).
- `out` {seat, reason: lost_last_chance|no_cards, trick, cards}: the hand leaving play,
  hidden from the others.
- `time_up` {trick, under_way}; `sudden_death` {round, seats, cards}.

`ties` (in `audit.py`) is the tie audit of `GET /v1/games/{id}/ties`: BATAYO chains and sudden
deaths, from the events as the caller sees them.
"""

from __future__ import annotations

from collections import Counter

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
    on_timer,
    rounds,
    seat_count,
    setup,
    start,
    timers,
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
    "on_timer",
    "redact",
    "rounds",
    "seat_count",
    "setup",
    "start",
    "summarize",
    "ties",
    "timers",
    "to_move",
    "view",
    "waiting_reason",
]

_ENDINGS = {
    "last_player": "elimination",
    "all_out": "elimination",
    "time": "time",
    "sudden_death": "sudden_death",
    "sudden_death_draw": "sudden_death",
    "round_limit": "round_limit",
}


def summarize(final_states: list[dict]) -> dict:
    """Simulator statistics: BATAYOs per game, how games end, and wins by bot."""
    games = [s for s in final_states if s.get("result")]
    if not games:
        return {"games": 0}
    n = len(games)
    batayos = [s["table"]["batayos"] for s in games]
    endings = Counter(_ENDINGS.get(s["result"]["reason"], s["result"]["reason"]) for s in games)
    wins: Counter = Counter()
    for s in games:
        for w in s["result"]["winners"]:
            seat = s["seats"][w]
            wins[seat.get("bot") or seat.get("name") or f"seat {w}"] += 1
    return {
        "games": n,
        "mean_tricks": round(sum(s["table"]["tricks"] for s in games) / n, 2),
        "mean_batayos": round(sum(batayos) / n, 3),
        "games_with_batayo": round(sum(1 for b in batayos if b) / n, 3),
        "longest_batayo_chain": max(s["table"]["deepest"] for s in games),
        "draws": round(sum(1 for s in games if not s["result"]["winners"]) / n, 3),
        "endings": {k: round(v / n, 3) for k, v in sorted(endings.items())},
        "wins": dict(sorted(wins.items())),
    }
