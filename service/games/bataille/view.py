"""What each seat (or a spectator, seat None) may see of a Bataille game."""

from __future__ import annotations

from .variants import variant


def view(state: dict, seat: int | None) -> dict:
    t = state["table"]
    chooses = variant(state["options"]).chooses
    players = []
    for s, put in enumerate(t["put"]):
        shown = put is not None and (not chooses or t["revealed"] or s == seat)
        players.append(
            {
                "seat": s,
                "pack": len(t["packs"][s]),
                "won": len(t["won"][s]),
                "out": t["out"][s],
                "contender": s in t["contenders"],
                "has_put": put is not None,
                "up": put["up"] if shown else None,
                "down": len(put["down"]) if put else 0,
            }
        )
        if "public_pack" in t:  # a snapshot older than the public knowledge has none
            players[-1]["known_pack"] = sorted(t["public_pack"][s])
            players[-1]["known_won"] = sorted(t["public_won"][s])
    down = list(t["pot_down"])
    out = {
        # the round under way; once the game is over, the last one played
        "round": t["round"] + (0 if state["status"] == "finished" else 1),
        "bataille": t["step"],
        "players": players,
        "pot": len(t["pot"]),
        "face_up": [c for c in t["pot"] if c not in down],
        "aside": len(t["aside"]),
    }
    if chooses and seat is not None:
        out["pack"] = list(t["packs"][seat])
        if t["put"][seat]:
            out["your_down"] = list(t["put"][seat]["down"])
    return out
