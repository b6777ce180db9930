"""BATAYO statistics for the simulator: BATAYOs per game, how games end, wins by bot."""

from __future__ import annotations

from collections import Counter

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
