"""Leak proof: nobody sees a card they may not know.

Random games of every kind (all seats human, random legal moves) are played through the API
(fakeredis). From the full event log and each game's rules (RULES.md, not the redaction code)
this module computes, for every viewer (each seat and the spectator) and every version, the
cards that viewer may know, by "epoch" (the whole game for Bataille and BATAYO; one deal of
Batak; one round of BatailleRoylet: everything is dealt again). Then, while the game runs:

- the view (`GET /v1/games/{id}`) of every viewer at every version,
- the events (`/events`), the tie audit (`/ties`) and the stream (`/stream`) at a dense sample
  of versions,
- and once the game is over, the replayed view (`?at=N`) of every viewer at every version,

are searched for every text that looks like a card; each must be one the viewer may know at
that point (for an event: as of the event's own version, in its epoch). Counts go to
tests/artifacts/counts.json."""

from __future__ import annotations

import json
import random
import re

import fakeredis
import pytest

from service.api import create_app
from service.engine import Engine
from service.engine.dispatch import QueueDispatcher
from service.games import GAMES
from service.games.bataille import rules as bataille_rules
from service.store import Store
from tests.helpers import auth, record_counts

CARD = re.compile(r"(?<![0-9A-Za-z])(?:10|[2-9JQKA])[SHDC](?![0-9A-Za-z])")
ROYALS = {"JS", "JH", "JD", "JC", "KH"}  # RULES.md BatailleRoylet 1: the King always holds them
TOTALS = {"leak_games": 0, "leak_versions": 0, "leak_documents": 0}

CONFIGS = [
    ("bataille", {"deck": 32, "max_rounds": 25}, 2),
    ("bataille", {"deck": 32, "max_rounds": 15, "players": 3, "variant": "ouverte"}, 2),
    (
        "bataille",
        {"deck": 32, "max_rounds": 15, "variant": "sans_inconnue", "gather": "ordered"},
        1,
    ),
    ("bataille", {"deck": 32, "max_rounds": 15, "shortfall": "play_out", "players": 3}, 1),
    ("batayo", {"format": "express"}, 2),
    ("batayo", {"format": "express", "players": 3, "gather": "random"}, 2),
    ("batak", {"deals": 3, "max_rounds": 2}, 1),
    ("batak", {"deals": 3, "max_rounds": 2, "mode": "esli"}, 1),
    ("roylet", {"rounds": 2, "losing_streak": 2}, 2),
]
MAX_ACTIONS = 200


# -- what each viewer may know, from the rules -------------------------------------------------


class Knowledge:
    """For each version v (index v-1): (epoch, the cards `seat` may know in that epoch), grown
    as the log grows (`update` reads only the events it has not seen)."""

    def __init__(self, seat: int | None) -> None:
        from service.core.state import initial

        self.seat = seat
        self.state = initial()
        self.epoch, self.known = 0, set()
        self.by_version: list[tuple[int, frozenset]] = []

    def __getitem__(self, index: int) -> tuple[int, frozenset]:
        return self.by_version[index]

    def update(self, events: list[dict]) -> Knowledge:
        from service.core.state import apply

        for e in events[len(self.by_version) :]:
            apply(self.state, e)
            self._learn(e)
            self.by_version.append((self.epoch, frozenset(self.known)))
        return self

    def _learn(self, e: dict) -> None:
        seat, known, state = self.seat, self.known, self.state
        game, options = state["game"], state["options"]
        kind, d = e["type"], e["data"]
        own = seat is not None and d.get("seat") == seat
        if game == "bataille":
            ouverte = options["variant"] == "ouverte"
            if kind == "flipped":
                known.add(d["up"])  # turned face up; the face-down ones are seen by nobody
            elif kind == "short":
                if d["up"]:
                    known.add(d["up"])
                if own and ouverte:
                    known.update(d["down"])
            elif kind == "committed" and own:
                known.update([d["card"], *d["down"]])
            elif kind == "revealed":
                known.update(d["up"].values())
            if ouverte and seat is not None and state["status"] == "playing":
                t = state["table"]
                known.update(t["packs"][seat])  # ouverte: a seat holds its pack face up
                if len(t["packs"][seat]) < bataille_rules._need(state):
                    known.update(t["won"][seat])  # a short pack: the won pile is playable too
                if t["put"][seat]:
                    known.update([*t["put"][seat]["down"], t["put"][seat]["up"] or "--"])
        elif game == "batayo":
            if kind == "dealt":
                known.update(d["aside"])
            elif kind == "drew" and seat is not None:
                known.update(d["cards"][seat])
            elif kind == "committed" and own:
                known.add(d["card"])
            elif kind == "taken" and seat is not None and d.get("from") == seat and d["card"]:
                known.add(d["card"])  # it left the victim's hand under their eyes
            elif kind == "revealed":
                known.update(c for c in [*d["cards"], *d["down"]] if c)
            elif kind in ("trick_won", "left_play") or (kind == "out" and own):
                known.update(d["cards"])  # the table's cards; an out seat's own hand
        elif game == "batak":
            if kind == "dealt":
                self.epoch, known = self.epoch + 1, set()
                self.known = known
                if seat is not None:
                    known.update(d["hands"][seat])
            elif kind == "played":
                known.add(d["card"])
            elif kind == "trick":
                known.update(p["card"] for p in d["cards"])
        elif game == "roylet":
            if kind == "dealt":
                self.epoch, known = self.epoch + 1, set(ROYALS)
                self.known = known
                if seat is not None:
                    known.update(d["hands"][seat])
            elif (kind == "played" and (d.get("face") != "down" or own)) or kind == "revealed":
                known.add(d["card"])
            elif kind == "trick":
                known.update(d["cards"])
            elif kind == "king_penalty":
                known.update(d["trick"])


def knowledge(events: list[dict], seat: int | None) -> Knowledge:
    return Knowledge(seat).update(events)


# -- searching the JSON ----------------------------------------------------------------------


def cards_in(doc, path: str = "") -> list[tuple[str, str]]:
    """Every (card text, JSON path) in `doc`, keys included."""
    found = []
    if isinstance(doc, dict):
        for k, v in doc.items():
            found += [(c, f"{path}.{k}(key)") for c in CARD.findall(str(k))]
            found += cards_in(v, f"{path}.{k}")
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            found += cards_in(v, f"{path}[{i}]")
    elif isinstance(doc, str):
        found += [(c, path) for c in CARD.findall(doc)]
    return found


class Checker:
    def __init__(self, gid: str, game: str) -> None:
        self.gid, self.game = gid, game
        self.leaks: dict[tuple, str] = {}

    def check(self, doc, allowed: frozenset, viewer, where: str, version: int, kind: str = ""):
        TOTALS["leak_documents"] += 1
        for card, path in cards_in(doc):
            if card not in allowed:
                field = re.sub(r"\[\d+\]", "[]", path)
                key = (self.game, where, kind, field)
                self.leaks.setdefault(
                    key,
                    f"{self.game} {self.gid}: {where} {kind} field {path} shows {card} to "
                    f"{'spectator' if viewer is None else f'seat {viewer}'} at version {version}",
                )


# -- playing and looking -----------------------------------------------------------------------


def read_stream(client, gid: str, token: str | None, upto: int) -> list[dict]:
    """The events of the stream up to version `upto` (then the connection is dropped)."""
    response = client.get(f"/v1/games/{gid}/stream", headers=auth(token), buffered=False)
    assert response.status_code == 200
    events, buffer = [], ""
    try:
        for chunk in response.response:
            buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
            while "\n\n" in buffer:
                message, buffer = buffer.split("\n\n", 1)
                data = [ln[6:] for ln in message.split("\n") if ln.startswith("data: ")]
                if data:
                    events.append(json.loads(data[0]))
            if events and events[-1]["version"] >= upto:
                break
    finally:
        response.close()
    return events


def play_and_look(kind: str, options: dict, seed: int) -> list[str]:
    engine = Engine(Store(fakeredis.FakeRedis()), QueueDispatcher(), test_games=True)
    app = create_app(engine)
    app.config["RATE_LIMIT"] = app.config["RATE_LIMIT_TOKEN"] = 0
    client = app.test_client()
    game = GAMES[kind]
    n = game.seat_count({**{o.name: o.default for o in game.OPTIONS}, **options})
    names = ["Ana", "Bob", "Céline", "Dmitri"]
    body = {
        "game": kind,
        "options": options,
        "seats": [{"name": names[i], "client_seed": f"c{i}"} for i in range(n)],
        "seed": f"{seed:064x}",
    }
    r = client.post("/v1/games", json=body)
    assert r.status_code == 201, r.json
    gid = r.json["id"]
    tokens = {s["seat"]: s["token"] for s in r.json["seats"]}
    viewers = [None, *range(n)]
    rng = random.Random(seed)
    checker = Checker(gid, kind)
    TOTALS["leak_games"] += 1

    trackers = {v: Knowledge(v) for v in viewers}

    def look(version: int, dense: bool, stream: bool) -> None:
        events = engine.all_events(gid)
        k = {v: trackers[v].update(events) for v in viewers}
        for viewer in viewers:
            token = tokens.get(viewer) if viewer is not None else None
            view = client.get(f"/v1/games/{gid}", headers=auth(token))
            assert view.json["version"] == version
            checker.check(view.json, k[viewer][version - 1][1], viewer, "view", version)
            if not dense:
                continue
            shown = client.get(f"/v1/games/{gid}/events?limit=1000", headers=auth(token)).json
            for e in shown["events"]:
                allowed = k[viewer][e["version"] - 1][1]
                checker.check(e, allowed, viewer, "events", version, e["type"])
            ties = client.get(f"/v1/games/{gid}/ties?limit=500", headers=auth(token)).json
            for tie in ties["ties"]:
                epochs = {k[viewer][v - 1][0] for v in tie["versions"]}
                allowed = frozenset().union(
                    *(
                        k[viewer][v - 1][1]
                        for v in range(1, version + 1)
                        if k[viewer][v - 1][0] in epochs
                    )
                )
                checker.check(tie, allowed, viewer, "ties", version, tie["kind"])
            if stream:
                for e in read_stream(client, gid, token, version):
                    allowed = k[viewer][e["version"] - 1][1]
                    checker.check(e, allowed, viewer, "stream", version, e["type"])

    for step in range(MAX_ACTIONS):
        state = engine.load(gid)
        if state["status"] != "playing":
            break
        version = state["version"]
        TOTALS["leak_versions"] += 1
        look(version, dense=step % 5 == 0, stream=step % 20 == 0)
        movers = client.get(f"/v1/games/{gid}").json["to_move"]
        seat = rng.choice(movers)
        legal = client.get(f"/v1/games/{gid}", headers=auth(tokens[seat])).json["legal_actions"]
        action = rng.choice(legal)
        r = client.post(f"/v1/games/{gid}/actions", json=action, headers=auth(tokens[seat]))
        assert r.status_code == 200, (action, r.json)
        # the action's answer is shown to its actor: check it too
        events = engine.all_events(gid)
        mine = trackers[seat].update(events)
        if engine.load(gid)["status"] == "playing":
            for e in r.json["events"]:
                checker.check(e, mine[e["version"] - 1][1], seat, "action", version, e["type"])
            checker.check(
                r.json["game"], mine[len(events) - 1][1], seat, "action.game", len(events)
            )
    # replay: every version (a dense sample of long games) as every viewer, once the game is over
    events = engine.all_events(gid)
    last = len(events) - 1 if engine.load(gid)["status"] == "finished" else len(events)
    ats = range(2, last + 1, max(1, last // 150))
    playing = [at for at in ats if engine.load(gid, at)["status"] == "playing"]
    for viewer in viewers:
        k = trackers[viewer].update(events)
        token = tokens.get(viewer) if viewer is not None else None
        for at in playing:
            past = client.get(f"/v1/games/{gid}?at={at}", headers=auth(token))
            assert past.status_code == 200
            checker.check(past.json, k[at - 1][1], viewer, "view?at", at)
    return sorted(checker.leaks.values())


@pytest.mark.parametrize(
    ("kind", "options", "seed"),
    [(k, o, s) for k, o, count in CONFIGS for s in range(1, count + 1)],
    ids=lambda x: x if isinstance(x, str) else None,
)
def test_nobody_sees_a_card_they_may_not_know(kind, options, seed):
    leaks = play_and_look(kind, options, seed)
    record_counts(TOTALS)
    assert not leaks, "cards shown that the viewer may not know:\n" + "\n".join(leaks)


def test_the_checker_finds_a_planted_leak():
    """The search is not vacuous: an unredacted deal is caught."""
    from service.sim.table import Table

    t = Table("batak", {"deals": 3}, [{"name": "a"}] * 4, seed=bytes(32))
    k = knowledge(t.events, 0)
    checker = Checker("local", "batak")
    dealt = t.events[1]
    checker.check(dealt, k[1][1], 0, "events", 2, "dealt")
    assert any(".data.hands" in leak for leak in checker.leaks.values()), checker.leaks
    redacted = GAMES["batak"].redact(dealt, 0, t.state["options"])
    checker.leaks.clear()
    checker.check(redacted, k[1][1], 0, "events", 2, "dealt")
    assert not checker.leaks
