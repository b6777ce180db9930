"""What each Batak seat sees: its own hand only; bids, trump, tricks and scores for everyone
(docs/rules/batak.md, views)."""

from __future__ import annotations

from typing import Any

from ...core.cards import SUITS, suit, value
from .rules import SEATS, min_bid, teams

# -- what each seat sees --------------------------------------------------------------------------


def shown_voids(t: dict) -> list[list[str]]:
    """Suits each seat has shown it lacks, from the cards played this deal (public knowledge):
    not following the led suit shows a void in it; not trumping either shows a void in trump."""
    voids: list[set[str]] = [set() for _ in range(SEATS)]
    trump = t["trump"]
    for trick in [*(tr["cards"] for tr in t["tricks"]), t["trick"]]:
        if not trick:
            continue
        led = suit(trick[0]["card"])
        for p in trick[1:]:
            played = suit(p["card"])
            if played != led:
                voids[p["seat"]].add(led)
                if played != trump:
                    voids[p["seat"]].add(trump)
    return [[s for s in SUITS if s in v] for v in voids]


def _sort_key(card: str) -> tuple[int, int]:
    return SUITS.index(suit(card)), value(card)


def view(state: dict, seat: int | None) -> dict:
    t, options = state["table"], state["options"]
    tricks = [
        {
            "number": tr["number"],
            "leader": tr["leader"],
            "cards": [dict(p) for p in tr["cards"]],
            "winner": tr["winner"],
        }
        for tr in t["tricks"]
    ]
    out: dict[str, Any] = {
        "mode": options["mode"],
        "deal": t["deal"],
        "deals": options["deals"],
        "deals_played": t["deals_played"],
        "dealer": t["dealer"],
        "phase": t["phase"],
        "turn": t["turn"],
        "min_bid": min_bid(options),
        "auction": [dict(a) for a in t["auction"]],
        "high_bid": t["high_bid"],
        "high_bidder": t["high_bidder"],
        "passed": list(t["passed"]),
        "declarer": t["declarer"],
        "bid": t["bid"],
        "trump": t["trump"],
        "trump_broken": t["trump_broken"],
        "leader": t["leader"],
        "trick": [dict(p) for p in t["trick"]],
        "last_trick": tricks[-1] if tricks else None,
        "tricks": tricks,
        "played": [p["card"] for tr in t["tricks"] for p in tr["cards"]]
        + [p["card"] for p in t["trick"]],
        "voids": shown_voids(t),
        "hand_counts": [len(h) for h in t["hands"]],
        "tricks_taken": list(t["tricks_taken"]),
        "scores": [dict(s) for s in t["scores"]],
        "totals": list(t["totals"]),
        "hand": sorted(t["hands"][seat], key=_sort_key) if seat is not None else None,
    }
    if options["mode"] == "esli":
        units = teams(options)
        out["teams"] = units
        out["team_tricks"] = [sum(t["tricks_taken"][s] for s in u) for u in units]
        out["team_totals"] = [t["totals"][u[0]] for u in units]
    return out
