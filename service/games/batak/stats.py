"""Statistics of finished Batak games for `batayo simulate batak`."""

from __future__ import annotations

# -- statistics for the simulator -----------------------------------------------------------------


def summarize(final_states: list[dict]) -> dict:
    """Contracts made and failed by bid level, and the average score per deal by bot name."""
    by_bid: dict[int, dict[str, int]] = {}
    points: dict[str, list[int]] = {}
    declaring: dict[str, dict[str, int]] = {}
    deals = 0
    for state in final_states:
        names = [s.get("bot") or s.get("name") or f"seat {s['seat']}" for s in state["seats"]]
        for record in state["table"]["scores"]:
            deals += 1
            level = by_bid.setdefault(record["bid"], {"made": 0, "failed": 0})
            level["made" if record["made"] else "failed"] += 1
            who = declaring.setdefault(names[record["declarer"]], {"made": 0, "failed": 0})
            who["made" if record["made"] else "failed"] += 1
            for s, p in enumerate(record["points"]):
                total, count = points.get(names[s], [0, 0])
                points[names[s]] = [total + p, count + 1]
    return {
        "deals": deals,
        "contracts_by_bid": {str(b): by_bid[b] for b in sorted(by_bid)},
        "contracts_by_declarer": declaring,
        "average_score_per_deal": {
            name: round(total / count, 3) for name, (total, count) in sorted(points.items())
        },
    }
