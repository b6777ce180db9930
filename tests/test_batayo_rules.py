"""BATAYO scenario tests on fixed deals: one or more for every rule of docs/rules/batayo.md
(rules 5 and 6, time and sudden death, and the round limit: test_batayo_time_rules.py).

Deals are `{"packs": [[top card first, ...], ...]}`; the seed is fixed (bytes(32)) so the random
takes of a BATAYO are reproducible, but the tests read what was taken from the events (and check
it against the ledger) rather than hard-coding the outcome of the stream.
"""

from __future__ import annotations

import pytest

from service.core.cards import value
from service.core.game import RuleError
from service.core.state import awaited, fold, legal_actions
from service.games.batayo.rules import deck
from service.sim.table import Table
from tests.support.batayo import (
    EXPRESS,
    SEED,
    T0,
    check_ledgers,
    clubs,
    counts,
    diamonds,
    hand,
    hearts,
    make,
    of,
    pack,
    play,
    refused,
    spades,
)
from tests.support.helpers import is_sealed

# -- the deal and the options ------------------------------------------------------------------


@pytest.mark.parametrize(("players", "fmt", "size"), [(2, "express", 8), (3, "classique", 10)])
def test_each_seat_gets_its_suit_shuffled_and_recorded(players, fmt, size):
    """docs/rules/batayo.md: "seat 0 gets spades, 1 hearts, 2 clubs, 3 diamonds. Cards outside the
    format are out of play. Each pack is shuffled (drawn and recorded)"; rule 1: hands of 4."""
    t = Table("batayo", {"players": players, "format": fmt}, seed=SEED, clock=lambda: T0)
    dealt = of(t.events, "dealt")[0]["data"]
    ledger = dealt["rng"]
    assert [e["why"] for e in ledger] == [f"pack of seat {s}" for s in range(players)]
    low = {"express": 7, "classique": 5}[fmt]
    for s in range(players):
        suit = "SHCD"[s]
        assert ledger[s]["output"] == dealt["packs"][s]
        assert sorted(dealt["packs"][s], key=value) == ledger[s]["input"]
        assert len(dealt["packs"][s]) == size
        assert all(c.endswith(suit) and value(c) >= low for c in dealt["packs"][s])
        assert hand(t, s) == dealt["packs"][s][:4]
        assert pack(t, s) == dealt["packs"][s][4:]
    assert sorted(deck(t.options)) == sorted(c for p in dealt["packs"] for c in p)
    check_ledgers(t)


def test_formats_and_seat_count():
    """docs/rules/batayo.md: express 7..A (8 cards each), classique 5..A (10), longue 2..A (13)."""
    assert len(deck({"players": 4, "format": "express"})) == 32
    assert len(deck({"players": 3, "format": "classique"})) == 30
    assert len(deck({"players": 2, "format": "longue"})) == 26
    with pytest.raises(ValueError):
        Table("batayo", {"players": 5})
    with pytest.raises(ValueError):
        Table("batayo", {"players": 1})


@pytest.mark.parametrize(
    "deal",
    [
        {"packs": [spades("A"), spades("K")]},  # seat 1 must hold hearts
        {"packs": [["6S"], hearts("A")]},  # 6 is not in the express format
        {"packs": [spades("A", "A"), hearts("A")]},  # a card twice
        {"packs": [spades("A")]},  # one pack a seat
        {"packs": [spades("A"), []]},  # an empty pack
        {"packs": [spades("A"), hearts("A")], "hands": []},  # unknown key
        {"packs": [spades("A"), ["XX"]]},  # not a card
        {"hands": [spades("A"), hearts("A")]},
    ],
)
def test_bad_test_deal_is_400(deal):
    with pytest.raises(RuleError) as err:
        Table(
            "batayo",
            {"players": 2, "format": "express"},
            seats=[{"name": "a"}, {"name": "b"}],
            deal=deal,
        )
    assert (err.value.code, err.value.status) == ("invalid_request", 400)


# -- rule 1: hands ----------------------------------------------------------------------------


def test_rule_1_hands_topped_up_to_four_while_the_pack_lasts():
    """docs/rules/batayo.md#rule-1: "At the start, and at the end of every trick, each player in the
    game tops their hand up to 4 from their pack, while the pack lasts"."""
    t = make([spades("A", "K", "Q", "J", "10", "9"), hearts("7", "8", "9", "10")])
    assert hand(t, 0) == spades("A", "K", "Q", "J") and pack(t, 0) == spades("10", "9")
    assert hand(t, 1) == hearts("7", "8", "9", "10") and pack(t, 1) == []
    # after a trick: both top up, the loser's pack runs out before reaching 4
    t = make([spades("A", "K", "Q", "J", "10", "9"), hearts("K", "8", "9", "10", "J")])
    events = play(t, (0, "AS"), (1, "8H"))
    drew = of(events, "drew")[0]["data"]
    assert drew["cards"] == [["10S"], ["JH"]]
    assert hand(t, 0) == spades("K", "Q", "J", "10")  # entry order kept
    assert hand(t, 1) == hearts("K", "9", "10", "J")
    # the winner's pack: 9S, then the won cards under it
    assert pack(t, 0) == ["9S", "AS", "8H"]
    assert pack(t, 1) == []


# -- rule 2: a trick ---------------------------------------------------------------------------


def test_rule_2_commits_in_any_order_hidden_until_revealed_together():
    """docs/rules/batayo.md#rule-2: "Every player in the game commits one card from hand face down;
    when all have, they are revealed together." docs/rules/common.md#simultaneous-choices: "nobody
    sees another's committed card until every required player has committed; then all are revealed
    in one event"."""
    t = make([spades(*EXPRESS), hearts(*EXPRESS), clubs(*EXPRESS)])
    known = {v: t.view(v)["known"] for v in (0, 1, None)}
    first = play(t, (2, "QC"))  # seat 2 first: no commit waits for another seat
    assert [e["type"] for e in first] == ["committed"]
    assert t.view(2)["table"]["your_card"] == "QC"
    for viewer in (0, 1, None):
        seen = t.view(viewer)["table"]["players"][2]
        assert seen["committed"] and seen["table"] == [
            {"card": None, "how": "played", "step": 0, "face": "down"}
        ]
        view = t.view(viewer)
        # which cards seat 2 was dealt is public (its `known` cards); a commit changes none of it
        assert view.pop("known") == known[viewer]
        assert "QC" not in str(view)
        shown = t.shown(first[0], viewer)
        assert is_sealed(shown["data"]["card"])
        assert is_sealed(shown["data"]["cause"]["action"]["body"]["card"])  # the body too
    assert t.shown(first[0], 2)["data"]["card"] == "QC"
    assert sorted(awaited(t.state)) == [0, 1]
    play(t, (0, "KS"))
    assert of(t.events, "revealed") == []
    events = play(t, (1, "JH"))
    revealed = of(events, "revealed")[0]["data"]
    assert revealed["cards"] == ["KS", "JH", "QC"]
    assert revealed["winner"] == 0 and revealed["tied"] == []
    assert [e["type"] for e in events] == ["committed", "revealed", "trick_won", "drew"]


def test_rule_2_single_highest_wins_and_ordered_gather():
    """docs/rules/batayo.md#rule-2: "The single highest card wins everything on the table; the
    winner puts those cards under their pack: `ordered` = the winner's own cards first, then the
    others clockwise from the winner"."""
    t = make([spades(*EXPRESS), hearts(*EXPRESS), clubs(*EXPRESS)])
    events = play(t, (0, "QS"), (1, "AH"), (2, "JC"))
    won = of(events, "trick_won")[0]["data"]
    assert won["seat"] == 1
    assert won["order"] == ["AH", "JC", "QS"]  # seat 1, then 2, then 0 (clockwise from 1)
    assert pack(t, 1) == [*hearts("10", "9", "8", "7")[1:], "AH", "JC", "QS"]
    assert counts(t) == [7, 10, 7]


def test_rule_2_ties_below_the_highest_do_not_matter():
    """docs/rules/batayo.md#rule-2 and #rule-3: only "a tie for the highest card starts a
    BATAYO"."""
    t = make([spades(*EXPRESS), hearts(*EXPRESS), clubs(*EXPRESS)])
    events = play(t, (0, "AS"), (1, "KH"), (2, "KC"))
    assert of(events, "batayo") == []
    assert of(events, "trick_won")[0]["data"]["seat"] == 0


def test_gather_random_is_drawn_recorded_and_hidden():
    """docs/rules/batayo.md#options: `gather` `random`: the won cards go under the pack in an order
    drawn and recorded (docs/fairness.md ledger); that pack order is hidden while the game runs."""
    t = make([spades(*EXPRESS), hearts(*EXPRESS), clubs(*EXPRESS)], gather="random")
    events = play(t, (0, "QS"), (1, "AH"), (2, "JC"))
    won = of(events, "trick_won")[0]
    entry = won["data"]["rng"][0]
    assert entry["op"] == "shuffle" and entry["why"] == "gather: trick 1 won by seat 1"
    assert entry["input"] == ["AH", "JC", "QS"] and entry["output"] == won["data"]["order"]
    assert pack(t, 1)[-3:] == won["data"]["order"]
    for viewer in (0, 1, 2, None):
        shown = t.shown(won, viewer)["data"]
        assert is_sealed(shown["order"]) and is_sealed(shown["rng"][0]["output"])
        assert shown["rng"][0]["input"] == entry["input"]  # the table's cards: all revealed
    check_ledgers(t)


# -- rule 3: BATAYO ----------------------------------------------------------------------------


def test_rule_3_batayo_between_two_of_three_players():
    """docs/rules/batayo.md#rule-3: "A tie for the highest card starts a BATAYO between the tied
    players only. Each tied player tops their hand up to 4; then each takes one card at random from
    the hand of the next tied player clockwise (with two, from each other) and puts it face down on
    the table (draws in the order of the taking seat, lowest first) ...; then each tops up to 4
    again and commits a new card face down; all tied players reveal together. The highest wins
    every card on the table, the first trick's included." """
    t = make([spades(*EXPRESS[:7]), hearts(*EXPRESS[:7]), clubs("K", "7", "8", "9", "10", "J")])
    events = play(t, (0, "AS"), (1, "AH"), (2, "KC"))
    assert [e["type"] for e in events] == [
        *["committed"] * 3,
        *["revealed", "batayo", "drew", "taken", "taken", "drew"],
    ]
    revealed = of(events, "revealed")[0]["data"]
    assert revealed["tied"] == [0, 1] and revealed["winner"] is None
    batayo = of(events, "batayo")[0]["data"]
    assert batayo == {"trick": 1, "step": 1, "seats": [0, 1], "rank": "A"}
    drew = of(events, "drew")
    assert drew[0]["data"]["cards"] == [["10S"], ["10H"], []]  # top up to 4 first
    taken = [e["data"] for e in of(events, "taken")]
    assert [(d["seat"], d["from"]) for d in taken] == [(0, 1), (1, 0)]
    inputs = [e["data"]["rng"][0]["input"] for e in of(events, "taken")]
    assert inputs == [hearts("K", "Q", "J", "10"), spades("K", "Q", "J", "10")]
    assert [e["data"]["rng"][0]["why"] for e in of(events, "taken")] == [
        "BATAYO: seat 0 takes from seat 1",
        "BATAYO: seat 1 takes from seat 0",
    ]
    assert drew[1]["data"]["cards"] == [["9S"], ["9H"], []]  # then top up again
    took_by_0, took_by_1 = taken[0]["card"], taken[1]["card"]
    assert took_by_0 not in hand(t, 1) and took_by_1 not in hand(t, 0)
    assert len(hand(t, 0)) == len(hand(t, 1)) == 4
    # face down: only the player it was taken from knows it; taker, others, spectators do not
    for viewer, known in ((0, False), (1, True), (2, False), (None, False)):
        entry = t.view(viewer)["table"]["players"][0]["table"][1]
        assert entry["how"] == "taken" and entry["face"] == "down" and entry["from"] == 1
        assert (entry["card"] == took_by_0) is known and (entry["card"] is None) is not known
        shown = t.shown(of(events, "taken")[0], viewer)["data"]
        assert (shown["card"] == took_by_0) is known and is_sealed(shown["card"]) is not known
        assert is_sealed(shown["rng"][0]["input"]) is not known
    # only the tied players play on
    assert awaited(t.state) == [0, 1]
    refused(t, 2, {"type": "play", "card": "7C"}, "not_in_batayo", 409)
    high0 = max(hand(t, 0), key=value)
    low1 = min(hand(t, 1), key=value)
    assert value(high0) > value(low1)
    events = play(t, (1, low1), (0, high0))
    revealed = of(events, "revealed")[0]["data"]
    assert revealed["step"] == 1 and revealed["cards"] == [high0, low1, None]
    assert revealed["down"] == [took_by_0, took_by_1, None]  # face-down cards turned with the step
    assert revealed["winner"] == 0
    won = of(events, "trick_won")[0]["data"]
    assert won["seat"] == 0 and won["batayos"] == 1
    assert won["order"] == ["AS", took_by_0, high0, "AH", took_by_1, low1, "KC"]
    assert counts(t) == [7 - 3 + 7, 7 - 3, 6 - 1]
    check_ledgers(t)


def test_rule_3_three_tied_take_from_the_next_tied_player_clockwise():
    """docs/rules/batayo.md#rule-3: "each takes one card at random from the hand of the next tied
    player clockwise ... (draws in the order of the taking seat, lowest first)"; the seed: "celui
    situé à sa gauche parmi les joueurs concernés". Seats 0, 2, 3 tie; seat 1 is left out."""
    t = make(
        [
            spades("A", "7", "8", "9", "10"),
            hearts("K", "7", "8", "9", "10"),
            clubs("A", "7", "8", "9", "10"),
            diamonds("A", "7", "8", "9", "10"),
        ]
    )
    events = play(t, (3, "AD"), (1, "KH"), (0, "AS"), (2, "AC"))
    assert of(events, "batayo")[0]["data"]["seats"] == [0, 2, 3]
    taken = [(e["data"]["seat"], e["data"]["from"]) for e in of(events, "taken")]
    assert taken == [(0, 2), (2, 3), (3, 0)]
    assert sorted(awaited(t.state)) == [0, 2, 3]
    refused(t, 1, {"type": "play", "card": "7H"}, "not_in_batayo", 409)
    check_ledgers(t)


def test_rule_3_a_second_batayo_after_a_batayo():
    """docs/rules/batayo.md#rule-3: "A new tie for the highest repeats the BATAYO between those
    still tied." The second BATAYO's winner takes every card of the trick, both BATAYOs included."""
    t = make([spades(*EXPRESS), hearts(*EXPRESS)])
    play(t, (0, "AS"), (1, "AH"))
    assert t.state["table"]["step"] == 1
    ranks0 = {c[:-1] for c in hand(t, 0)}
    common = max((c for c in hand(t, 1) if c[:-1] in ranks0), key=value)
    events = play(t, (0, common[:-1] + "S"), (1, common))
    assert of(events, "revealed")[0]["data"]["tied"] == [0, 1]
    second = of(events, "batayo")[0]["data"]
    assert second["step"] == 2 and second["seats"] == [0, 1]
    assert len(of(events, "taken")) == 2
    high0 = max(hand(t, 0), key=value)
    lower = [c for c in hand(t, 1) if value(c) < value(high0)]
    assert lower
    events = play(t, (0, high0), (1, lower[0]))
    won = of(events, "trick_won")[0]["data"]
    assert won["seat"] == 0 and won["batayos"] == 2
    assert len(won["order"]) == 2 + 4 + 4
    assert t.state["table"]["batayos"] == 2 and t.state["table"]["deepest"] == 2
    steps = [e["data"]["step"] for e in of(t.events, "revealed")]
    assert steps == [0, 1, 2]
    # seat 1 put 3 cards down and lost 2 to takes; seat 0 the same, then won all 10
    assert counts(t) == [8 - 5 + 10, 8 - 5]
    check_ledgers(t)


def test_rule_3_batayo_with_an_empty_hand():
    """docs/rules/batayo.md#rule-3: "an empty hand gives nothing"; rule 4: "A player with no card at
    all when a choice is due is out, and the cards they put on the table stay there"."""
    t = make([spades("A", "K", "Q", "J", "10", "9"), hearts("A")])
    events = play(t, (0, "AS"), (1, "AH"))
    taken = [e["data"] for e in of(events, "taken")]
    assert taken[0] == {"trick": 1, "step": 1, "seat": 0, "from": 1, "card": None}
    assert "rng" not in of(events, "taken")[0]["data"]  # nothing drawn from an empty hand
    assert taken[1]["seat"] == 1 and taken[1]["card"] in spades("K", "Q", "J", "10")
    out = of(events, "out")[0]["data"]
    assert out == {"seat": 1, "reason": "no_cards", "trick": 1, "cards": []}
    assert awaited(t.state) == [0]
    refused(t, 1, {"type": "play", "card": "AH"}, "eliminated", 409)
    card = hand(t, 0)[0]
    events = play(t, (0, card))
    won = of(events, "trick_won")[0]["data"]
    # seat 1's AH and the card it put face down stay on the table and go to the winner
    assert won["order"] == ["AS", card, "AH", taken[1]["card"]]
    ended = of(events, "ended")[0]["data"]["result"]
    assert ended["winners"] == [0] and ended["reason"] == "last_player"


# -- rule 4: elimination -----------------------------------------------------------------------


def test_rule_4_losing_the_last_chance_trick_eliminates():
    """docs/rules/batayo.md#rule-4: "A player who plays a trick with an empty pack and does not win
    it (BATAYOs included) is out; the cards left in their hand leave play"; the seed: "S'il perd,
    il est éliminé et ses 3 cartes restantes sont retirées du jeu"."""
    t = make([spades(*EXPRESS), hearts(*EXPRESS), clubs("7", "8", "9", "10")])
    assert t.view(2)["table"]["players"][2]["last_chance"]
    events = play(t, (0, "AS"), (1, "KH"), (2, "7C"))
    out = of(events, "out")[0]["data"]
    assert out == {
        "seat": 2,
        "reason": "lost_last_chance",
        "trick": 1,
        "cards": clubs("8", "9", "10"),
    }
    assert t.state["table"]["gone"] == clubs("8", "9", "10")
    for viewer in (0, 1, None):  # the cards leave play face down
        assert is_sealed(t.shown(of(events, "out")[0], viewer)["data"]["cards"])
    assert t.state["status"] == "playing" and sorted(awaited(t.state)) == [0, 1]
    refused(t, 2, {"type": "play", "card": "8C"}, "eliminated", 409)
    assert legal_actions(t.state, 2) == []


def test_rule_4_winning_the_last_chance_trick_survives():
    """docs/rules/batayo.md#rule-4, the seed: "S'il gagne le pli, il récupère les cartes et reste en
    jeu"."""
    t = make([spades(*EXPRESS), hearts(*EXPRESS), clubs("A", "7", "8", "9")])
    events = play(t, (0, "KS"), (1, "KH"), (2, "AC"))
    assert of(events, "out") == []
    assert of(events, "trick_won")[0]["data"]["order"] == ["AC", "KS", "KH"]
    assert hand(t, 2) == clubs("7", "8", "9", "A") and pack(t, 2) == ["KS", "KH"]
    assert not t.state["table"]["out"][2]


def test_rule_4_last_chance_lost_in_a_batayo():
    """docs/rules/batayo.md#rule-4: "does not win it (BATAYOs included) is out"; "The last player in
    the game wins"."""
    t = make([spades(*EXPRESS[:7]), hearts("A", "7", "8", "9")])
    play(t, (0, "AS"), (1, "AH"))
    high0 = max(hand(t, 0), key=value)
    low1 = hand(t, 1)[0]
    assert value(high0) > value(low1)
    events = play(t, (0, high0), (1, low1))
    out = of(events, "out")[0]["data"]
    assert out["seat"] == 1 and out["reason"] == "lost_last_chance"
    result = of(events, "ended")[0]["data"]["result"]
    assert result["winners"] == [0] and result["reason"] == "last_player"
    assert result["draw"] is False


def test_rule_4_last_chance_player_outside_the_batayo_loses_to_it():
    """docs/rules/batayo.md#rule-4: the trick is lost to the BATAYO's winner, so a last-chance
    player who was not tied is out once the BATAYO ends."""
    t = make([spades(*EXPRESS[:6]), hearts(*EXPRESS[:6]), clubs("7", "8", "9", "10")])
    events = play(t, (0, "AS"), (1, "AH"), (2, "7C"))
    assert of(events, "out") == []  # not yet: the trick is still under way
    high0 = max(hand(t, 0), key=value)
    low1 = min(hand(t, 1), key=value)
    assert value(high0) > value(low1)
    events = play(t, (0, high0), (1, low1))
    out = of(events, "out")[0]["data"]
    assert out["seat"] == 2 and out["reason"] == "lost_last_chance" and out["trick"] == 1


def test_rule_4_last_players_out_at_once_is_a_draw():
    """docs/rules/batayo.md#rule-4: "if the last players are out at once, the game is a draw"."""
    t = make([spades("A"), hearts("A")])
    events = play(t, (0, "AS"), (1, "AH"))
    assert [e["data"]["seat"] for e in of(events, "out")] == [0, 1]
    assert of(events, "left_play")[0]["data"]["cards"] == ["AS", "AH"]
    result = of(events, "ended")[0]["data"]["result"]
    assert result["winners"] == [] and result["draw"] is True and result["reason"] == "all_out"
    assert sorted(t.game.cards(t.state)) == sorted(deck(t.options))


# -- bad input ---------------------------------------------------------------------------------


def test_card_not_in_hand():
    t = make([spades(*EXPRESS), hearts(*EXPRESS)])
    refused(t, 0, {"type": "play", "card": "7S"}, "card_not_in_hand", 422)  # in the pack
    refused(t, 0, {"type": "play", "card": "AH"}, "card_not_in_hand", 422)  # another's card


def test_second_commit_is_refused_and_cannot_change():
    t = make([spades(*EXPRESS), hearts(*EXPRESS)])
    play(t, (0, "AS"))
    refused(t, 0, {"type": "play", "card": "KS"}, "already_committed", 409)
    refused(t, 0, {"type": "play", "card": "AS"}, "already_committed", 409)
    assert t.state["table"]["committed"][0] == "AS"


@pytest.mark.parametrize(
    "action",
    [
        {"type": "flip"},
        {"type": "play"},
        {"type": "play", "card": "AS", "down": "KS"},
        {"type": "bid", "tricks": 4},
    ],
)
def test_wrong_body_is_400(action):
    t = make([spades(*EXPRESS), hearts(*EXPRESS)])
    refused(t, 0, action, "invalid_request", 400)


def test_legal_actions_are_the_hand_of_the_awaited_seats():
    t = make([spades(*EXPRESS), hearts(*EXPRESS), clubs(*EXPRESS)])
    assert legal_actions(t.state, 0) == [
        {"type": "play", "card": c} for c in spades("A", "K", "Q", "J")
    ]
    play(t, (0, "AS"))
    assert legal_actions(t.state, 0) == []
    assert t.view(0)["legal_actions"] == []
    assert legal_actions(t.state, None) == []


# -- the audit of ties -------------------------------------------------------------------------


def test_events_alone_audit_a_batayo():
    """docs/api.md `/ties`: every tie, who was involved, every card put down, every random pick with
    its ledger entry, each step's reveal and who won: all from the events."""
    t = make([spades(*EXPRESS[:7]), hearts(*EXPRESS[:7]), clubs("K", "7", "8", "9", "10", "J")])
    play(t, (0, "AS"), (1, "AH"), (2, "KC"))
    play(t, (0, max(hand(t, 0), key=value)), (1, min(hand(t, 1), key=value)))
    log = [e for e in t.events if e["data"].get("trick") == 1]
    tie = of(log, "batayo")[0]
    reveals = of(log, "revealed")
    assert [r["data"]["step"] for r in reveals] == [0, 1]
    assert reveals[0]["data"]["tied"] == tie["data"]["seats"] == [0, 1]
    for take in of(log, "taken"):
        entry = take["data"]["rng"][0]
        assert entry["output"] == take["data"]["card"]
        assert take["data"]["card"] == reveals[1]["data"]["down"][take["data"]["seat"]]
    put_down = [c for r in reveals for c in r["data"]["cards"] + r["data"]["down"] if c]
    won = of(log, "trick_won")[0]["data"]
    assert sorted(put_down) == sorted(won["cards"]) and won["seat"] == reveals[1]["data"]["winner"]
    check_ledgers(t)
    assert fold(t.events) == t.state


# -- bots and views --------------------------------------------------------------------------


def test_greedy_plays_high_in_a_batayo_and_low_otherwise():
    t = make([spades("K", "Q", "8", "7", "9", "10"), hearts("K", "J", "8", "7", "9", "10")])
    greedy = t.game.bots["greedy"]
    assert greedy(t.view(0), None) == {"type": "play", "card": "7S"}  # no ace: dump the lowest
    play(t, (0, "KS"), (1, "KH"))  # a tie: BATAYO
    action = greedy(t.view(0), None)
    assert action == {"type": "play", "card": max(hand(t, 0), key=value)}
    assert action in t.view(0)["legal_actions"]


def test_greedy_beats_random():
    """Measured: greedy wins about 95% of 2-player classique games against random."""

    wins = 0
    for i in range(40):
        bots = ["greedy", "random"] if i % 2 == 0 else ["random", "greedy"]
        t = Table("batayo", {"players": 2}, seats=[{"bot": b} for b in bots], game_id=f"g{i}")
        t.play_out()
        wins += [bots[w] for w in t.state["result"]["winners"]] == ["greedy"]
    assert wins >= 32


def test_views_show_own_hand_only():
    t = make([spades(*EXPRESS), hearts(*EXPRESS)])
    assert t.view(0)["table"]["hand"] == spades("A", "K", "Q", "J")
    assert t.view(1)["table"]["hand"] == hearts("A", "K", "Q", "J")
    spectator = t.view(None)["table"]
    assert "hand" not in spectator
    assert [p["hand"] for p in spectator["players"]] == [4, 4]
    assert [p["pack"] for p in spectator["players"]] == [4, 4]
    dealt = of(t.events, "dealt")[0]
    for viewer in (0, 1, None):
        assert is_sealed(t.shown(dealt, viewer)["data"]["packs"])


def test_the_view_shows_what_the_public_log_tells_of_each_seats_cards():
    """docs/rules/batayo.md#rule-2: the single highest card wins the table, whose cards go under
    the winner's pack, with `gather: ordered` the winner's own first; docs/rules/batayo.md#rule-1:
    hands draw from the top of the pack. So every seat knows which cards of a deal nobody has
    seen (`blind`), how many of them still top the pack (`fresh`), and the pack under them."""
    t = make([spades("A", "K", "Q", "J", "10", "9"), hearts("K", "8", "9", "10", "J")])
    play(t, (0, "AS"), (1, "8H"))
    for viewer in (0, 1, None):
        me, other = t.view(viewer)["known"]
        assert me == {
            "fresh": 1,  # 9S: the hand drew 10S after the trick
            "blind": sorted(spades("K", "Q", "J", "10", "9")),
            "seen": ["8H", "AS"],
            "under": ["AS", "8H"],
        }
        assert other == {
            "fresh": 0,
            "blind": sorted(hearts("K", "9", "10", "J")),
            "seen": [],
            "under": [],
        }
    gathered = make([spades(*EXPRESS), hearts(*EXPRESS)], gather="random")
    play(gathered, (0, "AS"), (1, "KH"))
    known = gathered.view(1)["known"][0]
    assert known["under"] is None and known["seen"] == ["AS", "KH"]  # the order is drawn, hidden
