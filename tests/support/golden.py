"""Golden logs: one finished all-bot game per game and variant, made by the service and kept in
`tests/golden/`. Each is the game's export as the server serves it, so every later change of the
rules code must still refold it event for event (tests/test_golden_logs.py).

Run `python -m tests.support.golden` to write them again, only when a rules change is meant to
change what the server writes, and say so in the commit.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.helpers import auth
from tests.support.service import Service

FOLDER = Path(__file__).resolve().parent.parent / "golden"

# name: (game, options, one bot per seat, or "human": a named seat with a client seed that plays
# its first legal action); small decks and round limits keep each log short
CATALOGUE: dict[str, tuple[str, dict, list[str]]] = {
    "bataille-classique-32": ("bataille", {"deck": 32}, ["greedy", "random"]),
    "bataille-classique-52-3p": (
        "bataille",
        {"players": 3, "max_rounds": 400},
        ["random", "random", "greedy"],
    ),
    "bataille-sans-inconnue-ordered": (
        "bataille",
        {"deck": 32, "variant": "sans_inconnue", "gather": "ordered", "max_rounds": 400},
        ["greedy", "greedy"],
    ),
    "bataille-ouverte": (
        "bataille",
        {"deck": 32, "variant": "ouverte", "max_rounds": 400},
        ["greedy", "random"],
    ),
    "bataille-play-out-ordered-3p": (
        "bataille",
        {"players": 3, "deck": 32, "shortfall": "play_out", "gather": "ordered", "max_rounds": 400},
        ["greedy", "random", "greedy"],
    ),
    "batak-ihaleli": ("batak", {"deals": 5}, ["greedy", "expert", "random", "greedy"]),
    "batak-esli": (
        "batak",
        {"mode": "esli", "deals": 3, "first_dealer": 2, "must_overtake_when_trumped": False},
        ["expert", "greedy", "random", "greedy"],
    ),
    "batayo-express-2p": ("batayo", {"format": "express"}, ["greedy", "random"]),
    "batayo-classique-3p-random": (
        "batayo",
        {"players": 3, "gather": "random", "max_rounds": 300},
        ["greedy", "greedy", "random"],
    ),
    "batayo-longue-4p": (
        "batayo",
        {"players": 4, "format": "longue", "max_rounds": 300},
        ["greedy", "random", "greedy", "random"],
    ),
    "roylet": ("roylet", {}, ["greedy", "greedy", "random"]),
    "roylet-short": (
        "roylet",
        {"rounds": 4, "losing_streak": 2, "max_replays": 3},
        ["random", "greedy", "human"],
    ),
    "bataille-humans-seeded": ("bataille", {"deck": 32, "max_rounds": 200}, ["human", "human"]),
    "batak-human-seeded": ("batak", {"deals": 10}, ["human", "greedy", "greedy", "random"]),
}


def play(game: str, options: dict, bots: list[str]) -> dict:
    """One game through the service to its end: its export."""
    svc = Service()
    seats = [
        {"name": f"p{i}", "client_seed": f"seed {i}"} if bot == "human" else {"bot": bot}
        for i, bot in enumerate(bots)
    ]
    created = svc.client.post("/v1/games", json={"game": game, "options": options, "seats": seats})
    assert created.status_code == 201, created.json
    gid, tokens = created.json["id"], [s.get("token") for s in created.json["seats"]]
    while True:
        while svc.run_jobs():
            pass
        view = svc.client.get(f"/v1/games/{gid}").json
        if view["status"] != "playing":
            break
        seat = next(s for s in view["to_move"] if tokens[s])
        mine = svc.client.get(f"/v1/games/{gid}", headers=auth(tokens[seat])).json
        played = svc.client.post(
            f"/v1/games/{gid}/actions", json=mine["legal_actions"][0], headers=auth(tokens[seat])
        )
        assert played.status_code == 200, played.json
    export = svc.client.get(f"/v1/games/{gid}/export")
    assert export.status_code == 200, export.json
    return export.json


def path(name: str) -> Path:
    return FOLDER / f"{name}.json"


def write_all() -> None:
    FOLDER.mkdir(exist_ok=True)
    for name, (game, options, bots) in CATALOGUE.items():
        export = play(game, options, bots)
        path(name).write_text(json.dumps(export, separators=(",", ":"), sort_keys=True) + "\n")
        print(f"{name}: {len(export['events'])} events")


if __name__ == "__main__":
    write_all()
