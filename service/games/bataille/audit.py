"""The Bataille tie audit of `GET /v1/games/{id}/ties`."""

from __future__ import annotations


def ties(events: list[dict]) -> list[dict]:
    """Every bataille chain: its round, players, each step's cards and who won what.

    Built from events as the caller may see them, so a face-down card shows once it may."""
    episodes: list[dict] = []
    episode: dict | None = None
    step: dict = {"cards": [], "versions": []}
    for e in events:
        kind, d = e["type"], e["data"]
        if kind in ("flipped", "committed", "short"):
            up = d.get("up", d.get("card"))
            step["cards"].append({"seat": d["seat"], "up": up, "down": d["down"], "how": kind})
            step["versions"].append(e["version"])
        elif kind == "revealed":
            step["reveal"] = {"version": e["version"], "up": d["up"]}
            step["versions"].append(e["version"])
        elif kind == "bataille":
            if episode is None:
                episode = {
                    "kind": "bataille",
                    "round": d["round"],
                    "players": d["seats"],
                    "steps": [],
                    "versions": [],
                }
            step.update(tied=d["seats"], versions=[*step["versions"], e["version"]])
            episode["steps"].append(step)
            step = {"cards": [], "versions": []}
        elif kind in ("took", "left_play"):
            if episode is not None:
                step.update(winner=d.get("seat"), versions=[*step["versions"], e["version"]])
                episode["steps"].append(step)
                episode.update(
                    winner=d.get("seat"), cards=d["count"], left_play=kind == "left_play"
                )
                episode["versions"] = [v for s in episode["steps"] for v in s["versions"]]
                episodes.append(episode)
                episode = None
            step = {"cards": [], "versions": []}
        elif kind == "out" and episode is not None:
            step.setdefault("out", []).append(d["seat"])
    return episodes
