"""The leak proof's machinery (tests/test_leaks.py has the games it plays): what each viewer may
know, from the rules, and a search of everything the service serves to that viewer, as an
attacker would look at it."""

from __future__ import annotations

import hashlib
import json
import os
import random
import re

import fakeredis

from service.api import create_app
from service.core.registry import GAMES
from service.engine import Engine
from service.engine.dispatch import QueueDispatcher
from service.games.bataille import rules as bataille_rules
from service.store import Store
from tests.support import page
from tests.support.helpers import auth, without_decks

CARD = re.compile(r"(?<![0-9A-Za-z])(?:10|[2-9JQKA])[SHDC](?![0-9A-Za-z])")
ROYALS = {"JS", "JH", "JD", "JC", "KH"}  # docs/rules/roylet.md#rule-1: the King always holds them
TOTALS = {"leak_games": 0, "leak_versions": 0, "leak_documents": 0, "leak_attacks": 0}
ALL_CARDS = [
    r + s
    for s in "SHDC"
    for r in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
]

MAX_ACTIONS = 200
BLIND = re.compile(r"\.known\[(\d+)\]\.blind\[\d+\]$")


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
        elif game == "duel":  # the toy game of the tests (tests/support/toy.py)
            if kind == "dealt" and seat is not None:
                known.update(d["hands"][seat])
            elif kind == "committed" and own:
                known.add(d["card"])
            elif kind == "revealed":
                known.update(d["cards"])


def knowledge(events: list[dict], seat: int | None) -> Knowledge:
    return Knowledge(seat).update(events)


def known_now(k: Knowledge, version: int, upto: int) -> frozenset:
    """What the viewer knows, as of version `upto`, of the epoch event `version` belongs to."""
    epoch = k[version - 1][0]
    last = max(v for v in range(version, upto + 1) if k[v - 1][0] == epoch)
    return k[last - 1][1]


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
    def __init__(self, gid: str, game: str, full: list[dict] | None = None) -> None:
        self.gid, self.game = gid, game
        self.full = full  # the server's own log, to play the attacker's best guesses from
        self.leaks: dict[tuple, str] = {}

    def check(self, doc, allowed: frozenset, viewer, where: str, version: int, kind: str = ""):
        TOTALS["leak_documents"] += 1
        for card, path in cards_in(without_decks(doc)):
            if card not in allowed and not self._public_blind(card, path):
                field = re.sub(r"\[\d+\]", "[]", path)
                key = (self.game, where, kind, field)
                self.leaks.setdefault(
                    key,
                    f"{self.game} {self.gid}: {where} {kind} field {path} shows {card} to "
                    f"{'spectator' if viewer is None else f'seat {viewer}'} at version {version}",
                )

    def _public_blind(self, card: str, path: str) -> bool:
        """BATAYO: which cards a seat's pack was dealt is public (its suit in the format:
        docs/rules/batayo.md#cards), so its `known.blind` may name them; only their places are
        secret (tests/test_strong_bots.py deals them again and checks the view is the same)."""
        from service.games.batayo.rules import SEAT_SUITS

        found = BLIND.search(path) if self.game == "batayo" else None
        return found is not None and card[-1] == SEAT_SUITS[int(found.group(1))]

    def attack(self, served: list[dict], viewer, where: str, version: int) -> None:
        """What hashes, `prev`, digests and sizes give away of a viewer's log `served`."""
        prev = "0" * 64
        for e in served:
            TOTALS["leak_attacks"] += 1
            who = "spectator" if viewer is None else f"seat {viewer}"
            problem = None
            if e["hash"] != page.event_hash(e) or e["prev"] != prev:
                problem = "the hash commits to more than what is served"
            for p in e["sealed"]:
                if p in e["openings"]:
                    continue
                value = page.at(e, p)
                if len(json.dumps(value)) != SEALED_SIZE:
                    problem = f"{p} has a size that depends on what it hides"
                if self.full is not None:
                    truth = page.at(self.full[e["version"] - 1], p)
                    guessed = json.loads(json.dumps(e))
                    page.put(guessed, p, truth)
                    plain = hashlib.sha256(page.canonical(truth)).hexdigest()
                    body = {k: v for k, v in guessed.items() if k not in ("hash", "openings")}
                    if value["sealed"] == plain or e["hash"] in (
                        hashlib.sha256(page.canonical(body)).hexdigest(),
                        page.event_hash({**guessed, "openings": {}}),
                    ):
                        problem = f"{p} can be checked against a guess without its nonce"
            if problem:
                self.leaks.setdefault(
                    (self.game, where, e["type"], problem),
                    f"{self.game} {self.gid}: {where} event {e['version']} ({e['type']}) to "
                    f"{who} at version {version}: {problem}",
                )
            prev = e["hash"]
        status, bad = page.check(served)
        if status == "failed":
            self.leaks.setdefault(
                (self.game, where, "verify"),
                f"{self.game} {self.gid}: the log {where} gives seat {viewer} at version "
                f"{version} fails docs/fairness.md at version {bad}",
            )


SEALED_SIZE = len(json.dumps({"sealed": "0" * 64}))
# CI samples versions (the counts are printed); HYPOTHESIS_PROFILE=deep sweeps every version,
# caller and route
DEEP = os.environ.get("HYPOTHESIS_PROFILE") == "deep"
DENSE, STREAM = (1, 1) if DEEP else (5, 20)


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


def asked_hint(engine: Engine, client, gid: str, token: str) -> dict:
    """A seat's hint, its worker job run if it needed a search (the other jobs left queued);
    a game without a strong bot (the toy game) answers 404 `no_hint`, checked all the same."""
    answer = client.get(f"/v1/games/{gid}/hint", headers=auth(token))
    if answer.status_code == 202:
        queue = engine.dispatcher.jobs
        for job in [j for j in queue if j[1] == "compute_hint"]:
            queue.remove(job)
            engine.compute_hint(*job[2])
        answer = client.get(f"/v1/games/{gid}/hint", headers=auth(token))
    assert answer.status_code == 200 or answer.json["code"] == "no_hint", answer.json
    return answer.json


def play_and_look(kind: str, options: dict, seed: int) -> list[str]:
    engine = Engine(Store(fakeredis.FakeRedis()), QueueDispatcher(), test_games=True)
    app = create_app(engine)
    app.config["RATE_LIMIT"] = app.config["RATE_LIMIT_TOKEN"] = 0
    client = app.test_client()
    game = GAMES[kind]
    n = game.seat_count({**{o.name: o.default for o in game.options}, **options})
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
    checker = Checker(gid, kind, engine.all_events(gid))
    TOTALS["leak_games"] += 1

    trackers = {v: Knowledge(v) for v in viewers}

    def k_now(viewer) -> frozenset:
        events = engine.all_events(gid)
        return trackers[viewer].update(events)[len(events) - 1][1]

    def look(version: int, dense: bool, stream: bool) -> None:
        events = engine.all_events(gid)
        checker.full = events
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
                allowed = known_now(k[viewer], e["version"], version)
                checker.check(e, allowed, viewer, "events", version, e["type"])
            checker.attack(shown["events"], viewer, "/events", version)
            report = client.get(f"/v1/games/{gid}/verify", headers=auth(token)).json
            assert report["status"] == "incomplete", report  # the caller's own log holds
            checker.check(report, frozenset(), viewer, "verify", version)
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
                streamed = read_stream(client, gid, token, version)
                for e in streamed:
                    allowed = known_now(k[viewer], e["version"], version)
                    checker.check(e, allowed, viewer, "stream", version, e["type"])
                checker.attack(streamed, viewer, "/stream", version)
            if viewer is not None and stream:  # a strong search each: now and then
                hint = asked_hint(engine, client, gid, token)
                checker.check(hint, k[viewer][version - 1][1], viewer, "hint", version)

    for step in range(MAX_ACTIONS):
        state = engine.load(gid)
        if state["status"] != "playing":
            break
        version = state["version"]
        TOTALS["leak_versions"] += 1
        look(version, dense=step % DENSE == 0, stream=step % STREAM == 0)
        movers = client.get(f"/v1/games/{gid}").json["to_move"]
        seat = rng.choice(movers)
        legal = client.get(f"/v1/games/{gid}", headers=auth(tokens[seat])).json["legal_actions"]
        action = rng.choice(legal)
        if step % 7 == 3:  # a refusal says nothing more: a card not in hand, by a probing seat
            probe = {**action, "card": rng.choice(ALL_CARDS)} if "card" in action else action
            other = rng.choice([s for s in range(n) if s != seat] or [seat])
            refused = client.post(
                f"/v1/games/{gid}/actions", json=probe, headers=auth(tokens[other])
            )
            if refused.status_code != 200:
                allowed = k_now(other) | {probe.get("card")}
                checker.check(refused.json, allowed, other, "error", version)
            if engine.load(gid)["version"] != version:
                continue  # the probe was a legal move of that seat after all
        r = client.post(f"/v1/games/{gid}/actions", json=action, headers=auth(tokens[seat]))
        assert r.status_code == 200, (action, r.json)
        # the action's answer is shown to its actor: check it too
        events = engine.all_events(gid)
        mine = trackers[seat].update(events)
        if engine.load(gid)["status"] == "playing":
            for e in r.json["events"]:
                allowed = known_now(mine, e["version"], len(events))
                checker.check(e, allowed, seat, "action", version, e["type"])
            checker.check(
                r.json["game"], mine[len(events) - 1][1], seat, "action.game", len(events)
            )
    # replay: every version (a dense sample of long games) as every viewer, once the game is over
    events = engine.all_events(gid)
    last = len(events) - 1 if engine.load(gid)["status"] == "finished" else len(events)
    ats = range(2, last + 1, 1 if DEEP else max(1, last // 150))
    playing = [at for at in ats if engine.load(gid, at)["status"] == "playing"]
    for viewer in viewers:
        k = trackers[viewer].update(events)
        token = tokens.get(viewer) if viewer is not None else None
        for at in playing:
            past = client.get(f"/v1/games/{gid}?at={at}", headers=auth(token))
            assert past.status_code == 200
            checker.check(past.json, k[at - 1][1], viewer, "view?at", at)
    return sorted(checker.leaks.values())
