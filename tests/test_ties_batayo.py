"""The tie audit of BATAYO (`service.games.batayo.ties`, docs/api.md `GET .../ties`).

Scenario games on fixed deals (and the fixed seed of the rules tests, for the random takes):
the audit must follow docs/rules/batayo.md#rule-3 (BATAYO) and #rule-6 (sudden death) step by step,
and show a seat or a spectator only what the events show them while the game runs; every card once
the game is over (the generic layer then hands out every event in full).
"""

from __future__ import annotations

import copy

import pytest

from service.core.cards import value
from service.core.state import awaited
from service.games.batayo.audit import ties
from service.sim.table import Table
from tests.support.batayo import (
    EXPRESS,
    clubs,
    hand,
    hearts,
    make,
    of,
    play,
    spades,
)
from tests.support.helpers import auth
from tests.support.service import Service


def audit(t: Table, seat: int | None) -> list[dict]:
    """The audit as `seat` (None: a spectator) gets it from the API: built on redacted events."""
    return t.ties(seat)


def only(episodes: list[dict], kind: str) -> dict:
    found = [e for e in episodes if e["kind"] == kind]
    assert len(found) == 1, found
    return found[0]


def versions_between(t: Table, first: str, last: str, trick: int) -> list[int]:
    """Versions of the trick's events from its first `first` to its `last`, both included."""
    log = [e for e in t.events if e["data"].get("trick") == trick]
    start = next(e["version"] for e in log if e["type"] == first)
    end = next(e["version"] for e in log if e["type"] == last)
    return list(range(start, end + 1))


def finish(t: Table, seed: int = 7) -> None:
    t.play_out(dict.fromkeys(range(len(t.state["seats"])), "random"))
    assert t.state["status"] == "finished"


def same_shape(a: list[dict], b: list[dict]) -> None:
    """Two audits of one log that differ at most in the cards shown."""
    assert [(e["kind"], e["round"], e["players"], e["versions"]) for e in a] == [
        (e["kind"], e["round"], e["players"], e["versions"]) for e in b
    ]
    assert [[s["versions"] for s in e["steps"]] for e in a] == [
        [s["versions"] for s in e["steps"]] for e in b
    ]


# -- BATAYO (rule 3) ---------------------------------------------------------------------------


def test_a_batayo_step_by_step_and_what_each_seat_sees_of_it():
    """docs/rules/batayo.md#rule-3: AS and AH tie (KC below does not matter); each tied player tops
    up, takes one card at random from the other's hand face down, tops up again, commits a new card;
    the highest takes every card on the table, the first trick's included."""
    t = make([spades(*EXPRESS[:7]), hearts(*EXPRESS[:7]), clubs("K", "7", "8", "9", "10", "J")])
    play(t, (0, "AS"), (1, "AH"), (2, "KC"))

    # under way: the server's own audit (nothing redacted) already has the chain
    (full,) = ties(t.events)
    assert (full["kind"], full["round"], full["trick"], full["players"]) == ("batayo", 1, 1, [0, 1])
    assert full["over"] is False and full["winner"] is None and full["batayos"] == 1
    assert full["trick_players"] == [0, 1, 2]
    zero, one = full["steps"]
    assert zero["step"] == 0 and zero["seats"] == [0, 1, 2]
    assert [(c["seat"], c["card"]) for c in zero["committed"]] == [(0, "AS"), (1, "AH"), (2, "KC")]
    assert zero["reveal"]["cards"] == ["AS", "AH", "KC"] and zero["reveal"]["best"] == "A"
    assert zero["tied"] == [0, 1] and zero["winner"] is None
    assert one["step"] == 1 and one["seats"] == [0, 1] and one["rank"] == "A"
    assert [d["cards"] for d in one["draws"]] == [[["10S"], ["10H"], []], [["9S"], ["9H"], []]]
    takes = one["takes"]
    assert [(k["taker"], k["from"]) for k in takes] == [(0, 1), (1, 0)]
    assert [k["ledger"]["input"] for k in takes] == [
        hearts("K", "Q", "J", "10"),
        spades("K", "Q", "J", "10"),
    ]
    assert [k["ledger"]["why"] for k in takes] == [
        "BATAYO: seat 0 takes from seat 1",
        "BATAYO: seat 1 takes from seat 0",
    ]
    for k in takes:
        assert k["ledger"]["output"] == k["card"] and not k["empty_hand"]
    took0, took1 = takes[0]["card"], takes[1]["card"]
    assert [(f["seat"], f["from"], f["card"]) for f in one["face_down"]] == [
        (0, 1, took0),
        (1, 0, took1),
    ]
    assert one["committed"] == [] and "reveal" not in one
    log = {e["type"]: e["version"] for e in t.events if e["data"].get("trick") == 1}
    assert zero["versions"] == versions_between(t, "committed", "revealed", 1)
    assert one["versions"] == list(range(log["batayo"], t.events[-1]["version"] + 1))

    # what each seat sees while the game runs: only what its events show it
    for seat in (None, 0, 1, 2):
        (tie,) = audit(t, seat)
        same_shape([tie], [full])
        step = tie["steps"][1]
        for i, take in enumerate(step["takes"]):  # the seat taken from sees the card
            seen = take["from"] == seat
            assert take["card"] == (takes[i]["card"] if seen else None)
            hidden = {**takes[i]["ledger"], "input": None, "output": None}  # sealed
            assert take["ledger"] == (takes[i]["ledger"] if seen else hidden)
            assert step["face_down"][i]["card"] == (takes[i]["card"] if seen else None)
        for draw, drawn in zip(step["draws"], one["draws"], strict=True):
            assert draw["cards"] == [  # each seat's draw is sealed from the others
                cs if s == seat else None for s, cs in enumerate(drawn["cards"])
            ]
        # the trick's own cards were revealed together: public, in their commits too
        assert tie["steps"][0]["reveal"] == zero["reveal"]
        assert tie["steps"][0]["committed"] == zero["committed"]

    # a card committed in the BATAYO is hidden from the other seat until the reveal
    high0, low1 = max(hand(t, 0), key=value), min(hand(t, 1), key=value)
    play(t, (1, low1))
    for seat in (None, 0, 2):
        assert [c["card"] for c in audit(t, seat)[0]["steps"][1]["committed"]] == [None]
    assert [c["card"] for c in audit(t, 1)[0]["steps"][1]["committed"]] == [low1]

    # the reveal: committed and face-down cards turned together; the winner takes the table
    play(t, (0, high0))
    (full,) = ties(t.events)
    last = full["steps"][1]
    assert [(c["seat"], c["card"]) for c in last["committed"]] == [(1, low1), (0, high0)]
    assert last["reveal"]["cards"] == [high0, low1, None]
    assert last["reveal"]["down"] == [took0, took1, None]
    assert last["winner"] == 0 and last["tied"] == []
    won = [high0, low1, took0, took1, "AS", "AH", "KC"]
    assert sorted(full["cards"]) == sorted(won) and full["winner"] == 0
    assert full["order"] == ["AS", took0, high0, "AH", took1, low1, "KC"]
    assert last["result"] == {
        "version": log_of(t, "trick_won")["version"],
        "winner": 0,
        "cards": full["cards"],
        "order": full["order"],
    }
    assert full["over"] is True and full["left_play"] is False
    assert full["versions"] == versions_between(t, "committed", "trick_won", 1)
    for seat in (None, 2):  # still running: the face-down cards show once the step revealed
        tie = audit(t, seat)[0]
        same_shape([tie], [full])
        assert [f["card"] for f in tie["steps"][1]["face_down"]] == [took0, took1]
        # the taken cards were turned by the reveal; the hands they were taken from stay sealed
        assert [k["card"] for k in tie["steps"][1]["takes"]] == [took0, took1]
        assert [k["ledger"]["input"] for k in tie["steps"][1]["takes"]] == [None, None]
        assert tie["cards"] == full["cards"] and tie["winner"] == 0

    # after the end every event is shown in full: so is every card of the audit
    finish(t)
    everything = ties(t.events)
    assert everything[0] == full
    for seat in (None, 0, 1, 2):
        assert audit(t, seat) == everything


def log_of(t: Table, kind: str) -> dict:
    return next(e for e in t.events if e["type"] == kind)


def test_a_second_batayo_after_a_batayo_is_one_chain():
    """docs/rules/batayo.md#rule-3: "A new tie for the highest repeats the BATAYO between those
    still tied"; the winner of the second takes every card of the trick."""
    t = make([spades(*EXPRESS), hearts(*EXPRESS)])
    play(t, (0, "AS"), (1, "AH"))
    ranks0 = {c[:-1] for c in hand(t, 0)}
    common = max((c for c in hand(t, 1) if c[:-1] in ranks0), key=value)
    play(t, (0, common[:-1] + "S"), (1, common))
    high0 = max(hand(t, 0), key=value)
    low1 = next(c for c in hand(t, 1) if value(c) < value(high0))
    play(t, (0, high0), (1, low1))
    (tie,) = ties(t.events)
    assert tie["players"] == [0, 1] and tie["batayos"] == 2 and tie["winner"] == 0
    assert [s["step"] for s in tie["steps"]] == [0, 1, 2]
    assert [s["tied"] for s in tie["steps"]] == [[0, 1], [0, 1], []]
    assert [s["reveal"]["cards"] for s in tie["steps"]] == [
        ["AS", "AH"],
        [common[:-1] + "S", common],
        [high0, low1],
    ]
    assert tie["steps"][2]["rank"] == common[:-1]
    reveals = [e["data"] for e in of(t.events, "revealed")]
    takes = [e for e in of(t.events, "taken")]
    for k, step in ((1, tie["steps"][1]), (2, tie["steps"][2])):
        mine = [e for e in takes if e["data"]["step"] == k]
        assert [x["version"] for x in step["takes"]] == [e["version"] for e in mine]
        assert [x["ledger"] for x in step["takes"]] == [e["data"]["rng"][0] for e in mine]
        assert [f["card"] for f in step["face_down"]] == [e["data"]["card"] for e in mine]
        assert step["reveal"]["down"] == reveals[k]["down"]
        assert [e["data"]["card"] for e in mine] == reveals[k]["down"]
    assert len(tie["cards"]) == 10 and tie["cards"] == log_of(t, "trick_won")["data"]["cards"]
    assert tie["versions"] == versions_between(t, "committed", "trick_won", 1)
    # a spectator sees the same chain: every card put down has been revealed since, so it shows
    # in clear (docs/fairness.md: visibility as of the latest version); the hands a card was taken
    # from (each take's ledger input) stay sealed until the end
    seen = audit(t, None)
    same_shape(seen, [tie])
    assert [s["reveal"] for s in seen[0]["steps"]] == [s["reveal"] for s in tie["steps"]]
    assert [k["card"] for s in seen[0]["steps"][1:] for k in s["takes"]] == [
        e["data"]["card"] for e in takes
    ]
    assert [k["ledger"]["input"] for s in seen[0]["steps"][1:] for k in s["takes"]] == [None] * 4


def test_an_empty_hand_gives_nothing_and_a_player_out_stays_in_the_chain():
    """docs/rules/batayo.md#rule-3: "an empty hand gives nothing"; 4: "A player with no card at all
    when a choice is due is out, and the cards they put on the table stay there"."""
    t = make([spades("A", "K", "Q", "J", "10", "9"), hearts("A")])
    play(t, (0, "AS"), (1, "AH"))
    card = hand(t, 0)[0]
    play(t, (0, card))
    (tie,) = ties(t.events)
    step = tie["steps"][1]
    assert step["takes"][0] == {
        "taker": 0,
        "from": 1,
        "card": None,
        "ledger": None,
        "empty_hand": True,
        "version": step["takes"][0]["version"],
    }
    taken = step["takes"][1]["card"]
    assert [(f["seat"], f["card"]) for f in step["face_down"]] == [(1, taken)]
    assert [(o["seat"], o["reason"]) for o in step["out"]] == [(1, "no_cards")]
    assert step["reveal"]["cards"] == [card, None] and step["winner"] == 0
    assert tie["winner"] == 0 and tie["order"] == ["AS", card, "AH", taken]


def test_eliminations_after_the_chain_and_cards_leaving_play():
    """docs/rules/batayo.md#rule-4: a last-chance player who loses the BATAYO is out; when every
    contender is out, the table leaves play (no winner)."""
    t = make([spades(*EXPRESS[:7]), hearts("A", "7", "8", "9")])
    play(t, (0, "AS"), (1, "AH"))
    play(t, (0, max(hand(t, 0), key=value)), (1, hand(t, 1)[0]))
    (tie,) = ties(t.events)
    out = tie["steps"][-1]["out"]
    assert [(o["seat"], o["reason"]) for o in out] == [(1, "lost_last_chance")]
    assert out[0]["version"] in tie["versions"] and tie["winner"] == 0

    t = make([spades("A"), hearts("A")])
    play(t, (0, "AS"), (1, "AH"))
    (tie,) = ties(t.events)
    assert tie["winner"] is None and tie["left_play"] is True and tie["over"] is True
    assert tie["cards"] == ["AS", "AH"] and tie["order"] is None
    step = tie["steps"][1]
    assert [k["empty_hand"] for k in step["takes"]] == [True, True]
    assert [o["seat"] for o in step["out"]] == [0, 1] and "reveal" not in step
    assert step["result"] == {
        "version": log_of(t, "left_play")["version"],
        "winner": None,
        "cards": ["AS", "AH"],
    }


# -- sudden death (rule 6) ---------------------------------------------------------------------


def test_sudden_death_won_on_the_second_card():
    """docs/rules/batayo.md#rule-6: "each commits a card from their hand, all reveal; the highest
    wins the game; those tied for the highest go again with a new card. No BATAYO, no drawing.\""""
    t = make(
        [spades("A", "7", "K", "Q", "10"), hearts("A", "8", "K", "Q", "10")],
        time_limit_s=60,
    )
    t.fire("time_limit", now="2030-01-01T00:01:00.000000Z")
    play(t, (0, "AS"), (1, "AH"))
    play(t, (1, "8H"))
    # under way: seat 1's card is hidden from seat 0 and spectators until the reveal
    (running,) = ties(t.events)
    assert running["kind"] == "sudden_death" and running["over"] is False
    for seat in (None, 0):
        (tie,) = audit(t, seat)
        same_shape([tie], [running])
        assert [c["card"] for c in tie["steps"][1]["committed"]] == [None]
        # the first step's cards have been revealed since: everybody sees them now
        assert [c["card"] for c in tie["steps"][0]["committed"]] == ["AS", "AH"]
        assert tie["steps"][0]["reveal"]["cards"] == ["AS", "AH"]  # the reveal is public
    assert [c["card"] for c in audit(t, 1)[0]["steps"][1]["committed"]] == ["8H"]
    play(t, (0, "7S"))
    (tie,) = ties(t.events)
    assert (tie["round"], tie["players"], tie["card_counts"]) == (None, [0, 1], [5, 5])
    assert [(s["round"], s["seats"], s["card_counts"]) for s in tie["steps"]] == [
        (1, [0, 1], [5, 5]),
        (2, [0, 1], [4, 4]),  # each has put one card down
    ]
    assert [[(c["seat"], c["card"]) for c in s["committed"]] for s in tie["steps"]] == [
        [(0, "AS"), (1, "AH")],
        [(1, "8H"), (0, "7S")],
    ]
    assert [s["reveal"]["cards"] for s in tie["steps"]] == [["AS", "AH"], ["7S", "8H"]]
    assert [s["tied"] for s in tie["steps"]] == [[0, 1], []]
    assert [s["winner"] for s in tie["steps"]] == [None, 1]
    assert (tie["winner"], tie["draw"], tie["reason"], tie["over"]) == (
        1,
        False,
        "sudden_death",
        True,
    )
    ended = log_of(t, "ended")["version"]
    assert tie["steps"][1]["result"] == {"version": ended, "winners": [1], "reason": "sudden_death"}
    first = log_of(t, "sudden_death")["version"]
    assert tie["versions"] == list(range(first, ended + 1))
    # the game is over: everyone sees every card
    for seat in (None, 0, 1):
        assert audit(t, seat) == [tie]
    assert [e["kind"] for e in ties(t.events)] == ["sudden_death"]  # no BATAYO in sudden death


def test_sudden_death_drawn_when_hands_run_out():
    """docs/rules/batayo.md#rule-6: "If the tied players run out of hand cards without a winner, the
    game is a draw"."""
    t = make([spades("A", "K"), hearts("A", "K")], time_limit_s=60)
    t.fire("time_limit", now="2030-01-01T00:01:00.000000Z")
    play(t, (0, "AS"), (1, "AH"))
    play(t, (1, "KH"), (0, "KS"))
    (tie,) = ties(t.events)
    assert [s["tied"] for s in tie["steps"]] == [[0, 1], [0, 1]]
    assert (tie["winner"], tie["draw"], tie["reason"]) == (None, True, "sudden_death_draw")
    assert tie["steps"][-1]["result"]["winners"] == []


# -- whole games -------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_batayo_of_a_game_is_in_the_audit_and_every_seat_sees_its_shape(seed):
    t = Table(
        "batayo",
        {"players": 3, "format": "express"},
        seats=[{"name": f"p{i}"} for i in range(3)],
        seed=bytes([seed]) * 32,
    )
    bots = dict.fromkeys(range(3), "random")
    checked = 0
    while t.state["status"] == "playing":
        seat = awaited(t.state)[0]
        t.bot_move(seat, bots[seat])
        if t.state["table"]["step"] and checked < 30:  # in the middle of a chain
            checked += 1
            full = ties(t.events)
            for viewer in (None, 0, 1, 2):
                same_shape(audit(t, viewer), full)
    before = copy.deepcopy(t.events)
    full = ties(t.events)
    assert t.events == before  # the audit only reads the events
    batayo_tricks = sorted({e["data"]["trick"] for e in of(t.events, "batayo")})
    assert batayo_tricks and checked  # these seeds do have BATAYOs
    assert [e["trick"] for e in full if e["kind"] == "batayo"] == batayo_tricks
    kinds = {"batayo", "taken", "revealed", "committed"}
    chained = {v for e in full for v in e["versions"]}
    for e in t.events:
        if e["type"] in kinds and e["data"].get("trick") in batayo_tricks:
            assert e["version"] in chained
    for episode in full:
        assert episode["versions"] == sorted(set(episode["versions"]))
        assert episode["over"] is True
    assert audit(t, None) == full


# -- through the API ---------------------------------------------------------------------------


def test_the_api_lists_batayos_hidden_while_the_game_runs_and_whole_after():
    svc = Service()
    created = svc.client.post(
        "/v1/games",
        json={
            "game": "batayo",
            "options": {"format": "express"},
            "seats": [{"name": "a"}, {"name": "b"}],
            "seed": "00" * 32,
            "deal": {"packs": [spades("A", "K", "Q"), hearts("A", "7", "8")]},
        },
    ).json
    gid, tokens = created["id"], [s["token"] for s in created["seats"]]

    def post(seat: int, card: str) -> None:
        r = svc.client.post(
            f"/v1/games/{gid}/actions",
            json={"type": "play", "card": card},
            headers=auth(tokens[seat]),
        )
        assert r.status_code == 200, r.json

    def get(headers=None, kind="batayo") -> dict:
        return svc.client.get(f"/v1/games/{gid}/ties?kind={kind}", headers=headers or {}).json

    post(0, "AS")
    post(1, "AH")
    page = get()
    assert page["total"] == 1 and page["next_offset"] is None
    tie = page["ties"][0]
    assert (tie["kind"], tie["round"], tie["players"], tie["over"]) == ("batayo", 1, [0, 1], False)
    assert [k["card"] for k in tie["steps"][1]["takes"]] == [None, None]
    mine = get(auth(tokens[1]))["ties"][0]["steps"][1]["takes"]  # seat 1 sees what 0 took
    assert mine[0]["card"] in hearts("7", "8") and mine[1]["card"] is None
    assert mine[0]["ledger"]["input"] == hearts("7", "8")
    assert get(kind="sudden_death") == {"ties": [], "total": 0, "next_offset": None}
    for seat in (0, 1):
        view = svc.client.get(f"/v1/games/{gid}", headers=auth(tokens[seat])).json
        post(seat, view["table"]["hand"][0])
    assert svc.client.get(f"/v1/games/{gid}").json["status"] == "finished"
    tie = get()["ties"][0]
    assert tie["over"] is True and tie["winner"] == 0 and len(tie["cards"]) == 6
    takes = tie["steps"][1]["takes"]
    assert [k["ledger"]["output"] for k in takes] == [k["card"] for k in takes]
    assert takes[1]["card"] in spades("K", "Q") and takes[0]["card"] in hearts("7", "8")
    assert [o["reason"] for o in tie["steps"][1]["out"]] == ["lost_last_chance"]
    assert get(auth(tokens[0]))["ties"] == [tie]
