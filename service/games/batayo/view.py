"""What each seat (or a spectator, seat None) sees of a BATAYO table; what each event hides
from whom is declared in `header.py`."""

from __future__ import annotations

from .rules import SEAT_SUITS, deadline, under_way


def _entry(entry: dict, seat: int | None, owner: int) -> dict:
    known = entry["shown"] or (
        seat is not None
        and (seat == owner if entry["how"] == "played" else seat == entry.get("from"))
    )
    out = {
        "card": entry["card"] if known else None,
        "how": entry["how"],
        "step": entry["step"],
        "face": "up" if entry["shown"] else "down",
    }
    if entry["how"] == "taken":
        out["from"] = entry["from"]
    return out


def knowledge(state: dict) -> list[dict] | None:
    """The view's `known`, seat by seat (None for a snapshot older than the public knowledge)."""
    t = state["table"]
    if "blind" not in t:
        return None
    ordered = state["options"]["gather"] == "ordered"
    return [_known(t, s, ordered) for s in range(len(t["hands"]))]


def _known(t: dict, s: int, ordered: bool) -> dict:
    """What every seat knows of seat `s`'s cards from the public log (docs/rules/batayo.md#rule-2):
    its pack starts as its own suit; every card played is revealed; the table's cards go
    under the winner's pack, in a public order with `gather: ordered`; a hand draws from the
    top of its pack. So `blind` (the cards of its deal nobody has seen yet: in its hand, face
    down on the table, or among the `fresh` cards still on top of its pack) and `seen` (its
    other cards) are public, and with ordered gathering so is the pack under the fresh cards."""
    if t["out"][s]:  # its cards left play unseen: where its face-down ones came from is moot
        return {"fresh": 0, "blind": [], "seen": [], "under": [] if ordered else None}
    blind = t["blind"][s]
    down = [
        e["card"]
        for owner, put in enumerate(t["put"])
        for e in put
        if not e["shown"] and (e["from"] if e["how"] == "taken" else owner) == s
    ]
    held = set(t["hands"][s]) | set(t["packs"][s]) | set(down)
    return {
        "fresh": t["fresh"][s],
        "blind": list(blind),
        "seen": sorted(held.difference(blind)),
        "under": t["packs"][s][t["fresh"][s] :] if ordered else None,
    }


def view(state: dict, seat: int | None) -> dict:
    t = state["table"]
    players = []
    for s in range(len(t["hands"])):
        players.append(
            {
                "seat": s,
                "suit": SEAT_SUITS[s],
                "pack": len(t["packs"][s]),
                "hand": len(t["hands"][s]),
                "cards": len(t["packs"][s]) + len(t["hands"][s]),
                "out": t["out"][s],
                "contender": s in t["contenders"] and not t["out"][s],
                "committed": t["committed"][s] is not None,
                "last_chance": (
                    t["last_chance"][s]
                    if t["committed"][s] is not None or t["step"] > 0
                    else (t["phase"] == "trick" and not t["packs"][s] and not t["out"][s])
                ),
                "table": [_entry(e, seat, s) for e in t["put"][s]],
            }
        )
    out = {
        "phase": t["phase"] if state["status"] == "playing" else "over",
        "trick": t["trick"],
        "tricks": t["tricks"],
        "batayo": t["step"] if t["phase"] == "trick" else 0,
        "sudden_death": t["step"] if t["phase"] == "sudden_death" else 0,
        "contenders": [s for s in t["contenders"] if not t["out"][s]],
        "players": players,
        "last_reveal": t["last"],
        "batayos": t["batayos"],
        "aside": list(t["aside"]),
        "gone": len(t["gone"]),
        "deadline": deadline(state),
        "time_up": t["time_up"],
        "under_way": under_way(t),
    }
    if seat is not None:
        out["hand"] = list(t["hands"][seat])
        out["your_card"] = t["committed"][seat]
    return out
