"""What each seat of BatailleRoylet (or a spectator) sees of the table; what each event hides
from whom is declared in `header.py`."""

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
