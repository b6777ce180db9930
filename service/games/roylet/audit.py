"""The tie audit of BatailleRoylet (docs/api.md#ties): every void round.

A battle never ties (docs/rules/roylet.md#rule-3), so the game's ties are its void rounds
(rule 8). Built only from the events as the caller may see them (`service.views.redact_event`),
never from state. The episode's fields are in docs/api.md#ties.
"""

from __future__ import annotations


def _battle(number: int) -> dict:
    return {"battle": number, "played": [], "revealed": None, "versions": []}


def ties(events: list[dict]) -> list[dict]:
    """Every void round, in order (see the module doc)."""
    episodes: list[dict] = []
    dealt: int | None = None
    battles: list[dict] = []
    current: dict | None = None
    penalty: dict | None = None
    pending: dict | None = None  # the last void round, until the next deal or the end
    for e in events:
        kind, d, version = e["type"], e["data"], e["version"]
        if kind == "dealt":
            if pending is not None and d.get("round") == pending["round"] + 1:
                pending["replayed_by_round"] = d["round"]
            pending = None
            dealt, battles, current, penalty = version, [], None, None
        elif kind == "played":
            if current is None or current["battle"] != d["battle"]:
                current = _battle(d["battle"])
                battles.append(current)
            current["played"].append(
                {"seat": d["seat"], "face": d["face"], "card": d["card"], "version": version}
            )
            current["versions"].append(version)
        elif kind == "revealed" and current is not None:
            current["revealed"] = {"seat": d["seat"], "card": d["card"], "version": version}
            current["versions"].append(version)
        elif kind == "trick" and current is not None:
            (down, up, king), (down_seat, up_seat, king_seat) = d["cards"], d["seats"]
            current.update(
                cards={
                    "down": {"seat": down_seat, "card": down},
                    "up": {"seat": up_seat, "card": up},
                    "king": {"seat": king_seat, "card": king},
                },
                taker=d["taker"],
                captured=list(d["captured"]),
                kings_taken=list(d["kings_taken"]),
            )
            current["versions"].append(version)
            current = None
        elif kind == "king_penalty":
            penalty = {"version": version, "index": d["index"], "trick": d["trick"]}
        elif kind == "round_ended" and d["result"] == "void":
            around = [v for v in (dealt, penalty and penalty["version"], version) if v is not None]
            pending = {
                "kind": "void_round",
                "round": d["round"],
                "players": [0, 1, 2],
                "winner": None,
                "reason": d["reason"],
                "tricks": dict(d["tricks"]),
                "captured": list(d["captured"]),
                "kings_taken": list(d["kings_taken"]),
                "battles_played": d["battles"],
                "voids": d["voids"],
                "penalty": penalty,
                "dealt": dealt,
                "replayed_by_round": None,
                "steps": battles,
                "versions": sorted({*around, *(v for b in battles for v in b["versions"])}),
            }
            episodes.append(pending)
    return episodes
