"""The tie audit of BATAYO (docs/api.md#ties): every BATAYO chain and every sudden death.

Built only from the events as the caller may see them (`service.views.redact_event`), never
from state, so a card shows exactly where the event carrying it shows it. The episodes' fields
(`batayo`: one per trick with a BATAYO, its steps, reveal and result; `sudden_death`: one per
tie for the win) are in docs/api.md#ties.
"""

from __future__ import annotations


def _take(e: dict) -> dict:
    d = e["data"]
    ledger = d.get("rng") or []
    return {
        "taker": d["seat"],
        "from": d["from"],
        "card": d["card"],
        "ledger": ledger[0] if ledger else None,
        "empty_hand": not ledger and d["card"] is None,
        "version": e["version"],
    }


def _reveal(e: dict) -> dict:
    d = e["data"]
    return {
        "version": e["version"],
        "cards": d["cards"],
        "down": d["down"],
        "best": d["best"],
        "tied": d["tied"],
        "winner": d["winner"],
    }


def _step(number: int, seats: list[int]) -> dict:
    return {"step": number, "seats": list(seats), "committed": [], "versions": []}


def _add(step: dict, e: dict) -> None:
    step["versions"].append(e["version"])


def _close_reveal(step: dict, e: dict) -> None:
    step["reveal"] = _reveal(e)
    step["tied"] = e["data"]["tied"]
    step["winner"] = e["data"]["winner"]
    for item in step.get("face_down", []):
        if item["card"] is None:
            item["card"] = e["data"]["down"][item["seat"]]
    _add(step, e)


def _finish(episode: dict) -> dict:
    versions = {v for s in episode["steps"] for v in s["versions"]}
    episode["versions"] = sorted(versions)
    return episode


def _new_batayo(first: dict, e: dict) -> dict:
    d = e["data"]
    return {
        "kind": "batayo",
        "round": d["trick"],
        "trick": d["trick"],
        "players": list(d["seats"]),
        "trick_players": sorted(first["seats"]),
        "steps": [first],
        "versions": [],
        "winner": None,
        "cards": None,
        "order": None,
        "left_play": False,
        "batayos": 0,
        "over": False,
    }


def _new_sudden_death(seats: list[int], counts: list[int] | None) -> dict:
    return {
        "kind": "sudden_death",
        "round": None,
        "players": list(seats),
        "card_counts": list(counts) if counts else None,
        "steps": [],
        "versions": [],
        "winner": None,
        "draw": False,
        "reason": None,
        "over": False,
    }


def ties(events: list[dict]) -> list[dict]:
    """Every BATAYO chain and sudden death, in the order they began (see the module doc)."""
    episodes: list[dict] = []
    first = _step(0, [])  # the current trick's own cards, until it turns out to be a tie
    batayo: dict | None = None  # the chain under way
    closed: dict | None = None  # the chain just won, for the eliminations that follow it
    sudden: dict | None = None
    for e in events:
        kind, d = e["type"], e["data"]
        if kind != "out":
            closed = None
        step = batayo["steps"][-1] if batayo else first
        if kind == "committed" and d.get("phase") == "sudden_death":
            if sudden is not None and sudden["steps"]:
                sd = sudden["steps"][-1]
                sd["committed"].append(
                    {"seat": d["seat"], "card": d["card"], "version": e["version"]}
                )
                _add(sd, e)
        elif kind == "committed":
            step["committed"].append(
                {"seat": d["seat"], "card": d["card"], "version": e["version"]}
            )
            if batayo is None:
                step["seats"].append(d["seat"])
            _add(step, e)
        elif kind == "revealed" and d.get("phase") == "sudden_death":
            if sudden is not None and sudden["steps"]:
                _close_reveal(sudden["steps"][-1], e)
        elif kind == "revealed":
            _close_reveal(step, e)
            if batayo is None and not d["tied"]:
                first = _step(0, [])  # a plain trick: no tie
        elif kind == "batayo":
            if batayo is None:
                first["seats"].sort()
                batayo = _new_batayo(first, e)
                episodes.append(batayo)
                first = _step(0, [])
            new = _step(d["step"], d["seats"])
            new.update(rank=d["rank"], draws=[], takes=[], face_down=[])
            _add(new, e)
            batayo["steps"].append(new)
            batayo["batayos"] = d["step"]
        elif kind == "drew" and batayo is not None and "takes" in step and not step["committed"]:
            step["draws"].append({"version": e["version"], "cards": d["cards"]})
            _add(step, e)
        elif kind == "taken" and batayo is not None:
            take = _take(e)
            step["takes"].append(take)
            if not take["empty_hand"]:
                step["face_down"].append({"seat": d["seat"], "from": d["from"], "card": d["card"]})
            _add(step, e)
        elif kind in ("trick_won", "left_play"):
            if batayo is not None:
                won = kind == "trick_won"
                step["result"] = {
                    "version": e["version"],
                    "winner": d["seat"] if won else None,
                    "cards": d["cards"],
                    **({"order": d["order"]} if won else {}),
                }
                _add(step, e)
                batayo.update(
                    winner=d["seat"] if won else None,
                    cards=d["cards"],
                    order=d["order"] if won else None,
                    left_play=not won,
                    over=True,
                )
                closed, batayo = batayo, None
            first = _step(0, [])
        elif kind == "out":
            target = None
            if batayo is not None:
                target = batayo["steps"][-1]
            elif closed is not None and d.get("trick") == closed["trick"]:
                target = closed["steps"][-1]
            if target is not None:
                target.setdefault("out", []).append(
                    {
                        "seat": d["seat"],
                        "reason": d["reason"],
                        "cards": d["cards"],
                        "version": e["version"],
                    }
                )
                _add(target, e)
        elif kind == "time_up" and batayo is not None:
            step["time_up"] = e["version"]
            _add(step, e)
        elif kind == "sudden_death":
            if sudden is None:
                sudden = _new_sudden_death(d["seats"], d.get("cards"))
                episodes.append(sudden)
            sd = {
                "round": d["round"],
                "seats": list(d["seats"]),
                "card_counts": list(d["cards"]),
                "committed": [],
                "versions": [e["version"]],
            }
            sudden["steps"].append(sd)
        elif kind == "ended":
            res = d.get("result") or {}
            if res.get("reason") in ("sudden_death", "sudden_death_draw"):
                if sudden is None:  # ended before any sudden-death round could be played
                    seats = res.get("sudden_death") or res.get("winners") or []
                    sudden = _new_sudden_death(seats, None)
                    sudden["steps"].append({"round": None, "seats": seats, "versions": []})
                    episodes.append(sudden)
                last = sudden["steps"][-1]
                last["result"] = {
                    "version": e["version"],
                    "winners": res.get("winners", []),
                    "reason": res["reason"],
                }
                last["versions"].append(e["version"])
                winners = res.get("winners") or []
                sudden.update(
                    winner=winners[0] if len(winners) == 1 else None,
                    draw=not winners,
                    reason=res["reason"],
                    over=True,
                )
    return [_finish(ep) for ep in episodes]
