"""The tie audit of BatailleRoylet (`service.games.roylet.ties`, docs/api.md `GET .../ties`).

A battle never ties (docs/rules/roylet.md#rule-3); the game's ties are its void rounds (rule 8):
"else, if they captured a forbidden combination, the round is void and replayed (it does not
count)". The scenarios are the rules tests' own deals and plays.
"""

from __future__ import annotations

from service.games.roylet.audit import ties
from service.sim.table import Table
from tests.support.helpers import auth
from tests.support.roylet import (
    A1,
    A2,
    DEAL,
    DEAL_Q,
    KING,
    PENALTY_PLAY,
    PENALTY_THEN_VOID,
    VOID_PLAY,
    battle,
)
from tests.support.roylet import table as make
from tests.support.service import Service


def audit(t: Table, seat: int | None) -> list[dict]:
    """The audit as `seat` (None: a spectator) gets it from the API: built on redacted events."""
    return t.ties(seat)


def events_of(t: Table, kind: str, round_: int = 1) -> list[dict]:
    return [e for e in t.events if e["type"] == kind and e["data"].get("round") == round_]


def test_a_void_round_battle_by_battle_and_its_replay():
    """Rule 5: "three jacks" is forbidden; rule 8: the King holds 7 tricks to 3, so the round
    is void and replayed: round 2 is its replay."""
    t = make(DEAL_Q, rounds=1)
    for play in VOID_PLAY:
        battle(t, *play)
    (tie,) = ties(t.events)
    assert (tie["kind"], tie["round"], tie["players"], tie["winner"]) == (
        "void_round",
        1,
        [0, 1, 2],
        None,
    )
    assert tie["reason"] == "forbidden_capture" and tie["captured"] == ["JS", "JH", "JD"]
    assert tie["tricks"] == {"king": 7, "allies": 3} and tie["battles_played"] == 10
    assert tie["voids"] == 1 and tie["penalty"] is None and tie["replayed_by_round"] == 2
    assert tie["kings_taken"] == ["KD"]
    steps = tie["steps"]
    assert [s["battle"] for s in steps] == list(range(1, 11))
    shown = [{f: s["cards"][f]["card"] for f in ("king", "down", "up")} for s in steps]
    assert shown == [{"king": k, "down": a1, "up": a2} for k, a1, a2 in VOID_PLAY]
    assert all(s["cards"]["down"]["seat"] == A1 and s["cards"]["up"]["seat"] == A2 for s in steps)
    assert [s["taker"] for s in steps] == ["allies"] * 3 + ["king"] * 7
    assert [c for s in steps for c in s["captured"]] == ["JS", "JH", "JD"]
    for s, (king, a1, a2) in zip(steps, VOID_PLAY, strict=True):
        assert [(p["seat"], p["face"], p["card"]) for p in s["played"]] == [
            (A1, "down", a1),
            (A2, "up", a2),
            (KING, "up", king),
        ]
        assert (s["revealed"]["seat"], s["revealed"]["card"]) == (A1, a1)
        assert len(s["versions"]) == 5 and s["versions"] == sorted(s["versions"])
    # every event of the round: its deal, 10 battles of 5 events, the end of the round
    dealt = events_of(t, "dealt")[0]["version"]
    ended = events_of(t, "round_ended")[0]["version"]
    assert tie["dealt"] == dealt and tie["versions"] == list(range(dealt, ended + 1))

    # while the game runs: each face-down card was turned at the end of its battle, so it shows
    # in `played` in clear to everybody now (visibility as of the latest version)
    for seat in (None, KING, A1, A2):
        (seen,) = audit(t, seat)
        assert {k: v for k, v in seen.items() if k != "steps"} == {
            k: v for k, v in tie.items() if k != "steps"
        }
        for mine, full in zip(seen["steps"], steps, strict=True):
            assert mine["cards"] == full["cards"] and mine["revealed"] == full["revealed"]
            down = mine["played"][0]
            assert down["card"] == full["played"][0]["card"]
            assert mine["played"][1:] == full["played"][1:]
            assert mine["versions"] == full["versions"]

    # the replay is played out; once the game is over every event shows in full
    t.play_out({KING: "random", A1: "random", A2: "random"})
    assert t.state["status"] == "finished"
    episodes = ties(t.events)
    assert episodes[0] == tie
    ends = [e["data"] for e in t.events if e["type"] == "round_ended"]
    voids = [d["round"] for d in ends if d["result"] == "void"]
    assert [e["round"] for e in episodes] == voids
    for seat in (None, KING, A1):
        assert audit(t, seat) == episodes


def test_a_void_round_after_the_king_of_hearts_penalty():
    """Rules 5, 6, 8: the king of hearts with a jack is forbidden; the King hands his last trick
    first (7-3 becomes 6-4): still no majority, void."""
    t = make(DEAL_Q)
    for play in PENALTY_THEN_VOID:
        battle(t, *play)
    (tie,) = ties(t.events)
    penalty = events_of(t, "king_penalty")[0]
    assert tie["penalty"] == {
        "version": penalty["version"],
        "index": penalty["data"]["index"],
        "trick": penalty["data"]["trick"],
    }
    assert penalty["version"] in tie["versions"]
    assert tie["captured"] == ["JS", "KH"] and tie["tricks"] == {"king": 6, "allies": 4}


def test_rounds_that_count_are_not_ties_and_a_last_void_round_is_not_replayed():
    """Rule 8: a round won by either side is no tie; rule 9: "More than `max_replays` void
    rounds in a row end the game as a draw": nothing replays it."""
    t = make(DEAL)
    for play in PENALTY_PLAY:  # the Allies' round
        battle(t, *play)
    assert ties(t.events) == []
    t = make(DEAL_Q, max_replays=0)
    for play in VOID_PLAY:
        battle(t, *play)
    assert t.state["status"] == "finished"
    (tie,) = ties(t.events)
    assert tie["replayed_by_round"] is None and tie["winner"] is None


def void_game(svc: Service, **options) -> tuple[str, list[str]]:
    """A game on DEAL_Q whose first round is played void through the API."""
    created = svc.client.post(
        "/v1/games",
        json={
            "game": "roylet",
            "options": options,
            "seats": [{"name": "king"}, {"name": "ally1"}, {"name": "ally2"}],
            "seed": "00" * 32,
            "deal": DEAL_Q,
        },
    ).json
    gid, tokens = created["id"], [s["token"] for s in created["seats"]]
    for king, a1, a2 in VOID_PLAY:
        for seat, body in (
            (A1, {"type": "play", "card": a1, "face": "down"}),
            (A2, {"type": "play", "card": a2, "face": "up"}),
            (KING, {"type": "play", "card": king}),
        ):
            r = svc.client.post(f"/v1/games/{gid}/actions", json=body, headers=auth(tokens[seat]))
            assert r.status_code == 200, r.json
    return gid, tokens


def test_the_api_lists_void_rounds_as_each_caller_may_see_them():
    svc = Service()
    gid, tokens = void_game(svc, rounds=1)
    page = svc.client.get(f"/v1/games/{gid}/ties?kind=void_round").json
    assert page["total"] == 1 and page["next_offset"] is None
    tie = page["ties"][0]
    assert (tie["round"], tie["players"], tie["winner"], tie["replayed_by_round"]) == (
        1,
        [0, 1, 2],
        None,
        2,
    )
    assert [s["cards"]["down"]["card"] for s in tie["steps"]] == [a1 for _, a1, _ in VOID_PLAY]
    # a spectator's view: every face-down card has been turned since
    assert [s["played"][0]["card"] for s in tie["steps"]] == [a1 for _, a1, _ in VOID_PLAY]
    ally = svc.client.get(f"/v1/games/{gid}/ties", headers=auth(tokens[A1])).json["ties"][0]
    assert [s["played"][0]["card"] for s in ally["steps"]] == [a1 for _, a1, _ in VOID_PLAY]
    other = svc.client.get(f"/v1/games/{gid}/ties", headers=auth(tokens[A2])).json["ties"][0]
    assert [s["played"][0]["card"] for s in other["steps"]] == [a1 for _, a1, _ in VOID_PLAY]
    assert svc.client.get(f"/v1/games/{gid}/ties?kind=batayo").json["total"] == 0
    # a game over (more void rounds than `max_replays`): every card to everyone
    gid, tokens = void_game(svc, max_replays=0)
    assert svc.client.get(f"/v1/games/{gid}").json["status"] == "finished"
    (tie,) = svc.client.get(f"/v1/games/{gid}/ties?kind=void_round").json["ties"]
    assert [s["played"][0]["card"] for s in tie["steps"]] == [a1 for _, a1, _ in VOID_PLAY]
    assert tie["replayed_by_round"] is None
