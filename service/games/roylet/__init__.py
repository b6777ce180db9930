"""BatailleRoylet (`roylet`): RULES.md, BatailleRoylet section (seed 003).

Three seats: seat 0 the King, seats 1 and 2 the Allies. The rules and the reducer are in
`rules.py` (its docstring lists every interpretation), what each seat sees in `view.py`, the
bots in `bots.py`.

Events (all but `played` come from the server):

- `dealt` {round, hands: [King's 12, Ally 1's 10, Ally 2's 10], out: [20], rng}: hands other than
  the viewer's own, `out` and the shuffle ledger are hidden while the game runs;
- `played` {round, battle, seat, card, face}: `card` hidden from all but its owner when face down;
- `revealed` {round, battle, seat, card}: the face-down card turned;
- `trick` {round, battle, taker: king|allies, cards: [down, up, King's], seats, captured,
  kings_taken};
- `king_penalty` {round, index, trick}: rule 6, the King's trick handed to the Allies;
- `round_ended` {round, result: king|allies|void, reason, tricks, captured, kings_taken, battles,
  counted, streak, voids}; then `dealt` for the next round, or the generic `ended`.

`ties` (in `audit.py`) is the tie audit of `GET /v1/games/{id}/ties`: every void round.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from ...core.game import Option
from .audit import ties
from .bots import BOTS
from .rules import (
    apply,
    cards,
    check_deal,
    decide,
    deck,
    legal_actions,
    rounds,
    setup,
    start,
    to_move,
    waiting_reason,
)
from .view import redact, view

NAME = "roylet"
TITLE = "BatailleRoylet"
OPTIONS = [
    Option("rounds", 12, min=1, max=1000, doc="counted rounds the King must survive"),
    Option("losing_streak", 3, min=1, max=1000, doc="rounds lost in a row that end the game"),
    Option(
        "max_replays", 12, min=0, max=1000, doc="void rounds in a row allowed; one more: a draw"
    ),
]


def seat_count(options: dict) -> int:
    return 3


def summarize(final_states: list[dict]) -> dict:
    """Per pairing (King's bot vs the Allies' bots): how often the King wins the game, draws,
    mean game length in rounds (played, void ones included), and how often rounds are void."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for state in final_states:
        names = [s.get("bot") or s.get("name") or "?" for s in state["seats"]]
        groups[f"king {names[0]} vs allies {names[1]}+{names[2]}"].append(state)
    out = {}
    for key, states in sorted(groups.items()):
        results = [s["result"] for s in states if s.get("result")]
        n = len(results) or 1
        played = sum(r["rounds"] for r in results)
        voids = sum(r["void_rounds"] for r in results)
        rounds_by = Counter(x for r in results for x in r["round_results"])
        out[key] = {
            "games": len(results),
            "king_wins": round(sum(r["winners"] == [0] for r in results) / n, 4),
            "allies_wins": round(sum(r["winners"] == [1, 2] for r in results) / n, 4),
            "draws": round(sum(r["draw"] for r in results) / n, 4),
            "mean_rounds": round(played / n, 3),
            "void_round_rate": round(voids / played, 4) if played else 0.0,
            "rounds_won": dict(sorted(rounds_by.items())),
            "reasons": dict(sorted(Counter(r["reason"] for r in results).items())),
        }
    return out


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
    "summarize",
    "ties",
    "to_move",
    "view",
    "waiting_reason",
]
