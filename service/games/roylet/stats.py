"""BatailleRoylet statistics for the simulator, per pairing of bots."""

from __future__ import annotations

from collections import Counter, defaultdict


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
