"""The tie audit of Batak (docs/rules/batak.md#rule-6: "a tie at the top plays one more deal, again
until the tie breaks"): one episode per extra deal, from the events as the caller may see them."""

from __future__ import annotations

from .rules import teams


def _leaders(totals: list[int], units: list[list[int]]) -> list[int]:
    top = max(totals[u[0]] for u in units)
    return [s for u in units if totals[u[0]] == top for s in u]


def ties(events: list[dict]) -> list[dict]:
    options = events[0]["data"]["options"]
    units = teams(options)
    episodes: list[dict] = []
    totals: list[int] | None = None
    current: dict | None = None
    for e in events:
        kind, d = e["type"], e["data"]
        if kind == "dealt" and d["deal"] > options["deals"] and totals is not None:
            leaders = _leaders(totals, units)
            current = {
                "kind": "extra_deal",
                "round": d["deal"],
                "players": leaders,
                "totals_before": list(totals),
                "steps": [],
                "versions": [],
                "winner": None,
            }
        if current is not None:
            current["versions"].append(e["version"])
        if kind == "deal_scored":
            totals = d["totals"]
            if current is not None:
                after = _leaders(totals, units)
                broken = len(after) == len(units[0])
                current["steps"].append(
                    {
                        "versions": list(current["versions"]),
                        "declarer": d["declarer"],
                        "bid": d["bid"],
                        "trump": d["trump"],
                        "made": d["made"],
                        "tricks": d["tricks"],
                        "points": d["points"],
                        "totals": d["totals"],
                        "leaders_after": after,
                    }
                )
                current.update(
                    totals_after=list(totals),
                    tie_broken=broken,
                    winner=after[0] if broken and len(after) == 1 else None,
                    winning_team=after if broken and len(after) > 1 else None,
                )
                episodes.append(current)
                current = None
    return episodes
