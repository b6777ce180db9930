"""What each seat of BatailleRoylet may see: the view and redacted events.

Hidden while the game runs: every hand but the viewer's own (an Ally never sees the other Ally's
hand: the Allies get no channel), the 20 cards out of play, the face-down card of the current
battle until it is turned (its owner sees it), and the deal's shuffle ledger.
"""

from __future__ import annotations

from .rules import BATTLES, FACES, KING, royals_in_hand


def _role(seat: int | None) -> str | None:
    if seat is None:
        return None
    return "king" if seat == KING else "ally"


def view(state: dict, seat: int | None) -> dict:
    t = state["table"]
    put = t["put"]
    battle: dict = {}
    for face in FACES:
        entry = put[face]
        shown = entry is not None and (face == "up" or put["revealed"] or entry["seat"] == seat)
        battle[face] = (
            None
            if entry is None
            else {"seat": entry["seat"], "card": entry["card"] if shown else None}
        )
    battle["king"] = put["king"]
    out = {
        "round": t["round"],
        "role": _role(seat),
        "king": KING,
        "allies": [1, 2],
        "counted": t["counted"],
        "rounds": state["options"]["rounds"],
        "battle": t["battle"],
        "battles_left": BATTLES - t["battles_played"],
        "hand_sizes": [len(h) for h in t["hands"]],
        "royals_in_hand": royals_in_hand(t),
        "table": battle,
        "tricks": {side: len(t["tricks"][side]) for side in ("king", "allies")},
        "trick_cards": {side: [list(x) for x in t["tricks"][side]] for side in ("king", "allies")},
        "captured": list(t["captured"]),
        "kings_taken": list(t["kings_taken"]),
        "results": [dict(r) for r in t["results"]],
        "streak": t["streak"],
        "losing_streak": state["options"]["losing_streak"],
        "voids": t["voids"],
        "max_replays": state["options"]["max_replays"],
    }
    if seat is not None:
        out["hand"] = list(t["hands"][seat])
    return out


def redact(event: dict, seat: int | None, options: dict) -> dict:
    """Hide other seats' hands and the cards out of play in a deal, and a face-down card from
    everyone but its owner until `revealed` turns it."""
    d, kind = event["data"], event["type"]
    hidden: dict = {}
    if kind == "dealt":
        hidden["hands"] = [
            list(h) if s == seat else [None] * len(h) for s, h in enumerate(d["hands"])
        ]
        hidden["out"] = [None] * len(d["out"])
        if "rng" in d:
            hidden["rng"] = [{"op": e["op"], "why": e["why"], "hidden": True} for e in d["rng"]]
    elif kind == "played" and d.get("face") == "down" and d["seat"] != seat:
        hidden["card"] = None
    return {**event, "data": {**d, **hidden}} if hidden else event
