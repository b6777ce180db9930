"""La Bataille, rule by rule (docs/rules/bataille.md), on fixed deals."""

from __future__ import annotations

import pytest

from service.core.fairness import replay_ledger
from service.core.game import RuleError
from service.core.state import awaited
from service.sim.table import Table
from tests.support.helpers import SEED, humans, is_sealed, last, own, table, types


def flip_all(t: Table, seats=None) -> None:
    for seat in seats if seats is not None else list(awaited(t.state)):
        t.act(seat, {"type": "flip"})


def test_rule_1_deal_shuffles_sets_aside_and_deals_one_at_a_time():
    """Rule 1: "Deal: shuffle, then deal one at a time clockwise from seat 0. If the deck does not
    divide evenly, the last `deck mod players` cards of the shuffled deck are set aside"."""
    t = Table("bataille", {"players": 3, "deck": 52}, humans(3), seed=SEED, game_id="g1")
    dealt = last(t, "dealt")["data"]
    shuffle = dealt["rng"][0]
    assert shuffle["op"] == "shuffle" and shuffle["why"] == "deck"
    order = shuffle["output"]
    assert dealt["aside"] == order[51:]  # 52 mod 3 = 1 card, the last of the shuffled deck
    for seat in range(3):
        # one at a time clockwise: seat s gets cards s, s+3, s+6 ...; the last dealt is on top
        assert dealt["packs"][seat] == list(reversed(order[seat:51:3]))
        assert len(dealt["packs"][seat]) == 17
    salt = dealt["salt"]
    assert replay_ledger(SEED, "g1", salt, last(t, "dealt")["version"], dealt["rng"]) is None


def test_rule_2_every_player_turns_the_top_card_face_up():
    """Rule 2: "every player still in the game turns the top card of their pack face up"."""
    t = table("bataille", packs=[["9S", "2S"], ["4H", "3H"]])
    assert awaited(t.state) == [0, 1]
    t.act(1, {"type": "flip"})  # any order
    assert own(last(t, "flipped")) == {"seat": 1, "up": "4H", "down": []}
    assert t.view(0)["table"]["players"][1]["up"] == "4H"  # face up: everyone sees it


def test_rule_2_ouverte_choices_are_hidden_until_all_are_revealed_together():
    """Rule 2: "(`ouverte`: each chooses any card of their pack, committed face down, revealed
    together)"."""
    t = table("bataille", {"variant": "ouverte"}, packs=[["9S", "2S"], ["4H", "3H"]])
    t.act(0, {"type": "play", "card": "2S"})
    committed = last(t, "committed")
    assert is_sealed(t.shown(committed, 1)["data"]["card"])
    assert t.shown(committed, 0)["data"]["card"] == "2S"
    assert t.view(1)["table"]["players"][0]["up"] is None
    assert "2S" not in str(t.view(None))
    with pytest.raises(RuleError) as err:
        t.act(1, {"type": "play", "card": "9S"})
    assert err.value.code == "card_not_in_hand"
    t.act(1, {"type": "play", "card": "3H"})
    assert types(t.events)[-2:] == ["revealed", "took"]
    assert last(t, "revealed")["data"]["up"] == {"0": "2S", "1": "3H"}
    assert last(t, "took")["data"]["seat"] == 1


def test_rule_3_the_single_highest_card_takes_all_and_lower_ties_do_not_matter():
    """Rule 3: "The single highest card takes every card on the table. Ties that are not for the
    highest card do not matter"."""
    t = table("bataille", {"players": 3}, packs=[["5S", "2S"], ["5H", "2H"], ["KD", "3D"]])
    flip_all(t)
    took = last(t, "took")["data"]
    assert took == {"seat": 2, "count": 3, "round": 1}
    assert "bataille" not in types(t.events)
    assert t.state["table"]["won"][2] == ["5S", "5H", "KD"]


def test_rule_4_a_tie_for_the_highest_is_a_bataille_between_the_tied_players_only():
    """Rule 4: "A tie for the highest card is a bataille between the tied players only: each puts
    one card face down ..., then one face up; the highest face-up card among them takes
    everything on the table. A new tie for the highest repeats the step"."""
    packs = [
        ["QS", "2S", "7S", "4S", "AS", "8S"],
        ["QH", "3H", "7H", "5H", "KH", "8H"],
        ["3D", "4D"],
    ]
    t = table("bataille", {"players": 3}, packs=packs)
    flip_all(t)
    assert last(t, "bataille")["data"] == {"seats": [0, 1], "round": 1, "step": 1}
    assert awaited(t.state) == [0, 1]  # seat 2 is not in it
    flip_all(t)
    flipped = [e["data"] for e in t.events if e["type"] == "flipped"][-2:]
    assert [(f["down"], f["up"]) for f in flipped] == [(["2S"], "7S"), (["3H"], "7H")]
    assert last(t, "bataille")["data"]["step"] == 2  # 7 against 7: again
    flip_all(t)
    took = last(t, "took")["data"]
    assert took["seat"] == 0 and took["count"] == 11  # AS beats KH; all 11 cards on the table
    # the face-down cards stay hidden from every seat while the game runs
    for seat in (0, 1, 2, None):
        assert "2S" not in str(t.shown(t.events[-5], seat))


def test_rule_4_sans_inconnue_puts_no_face_down_card():
    """Rule 4: "each puts one card face down (not in `sans_inconnue`), then one face up"."""
    t = table("bataille", {"variant": "sans_inconnue"}, packs=[["QS", "2S"], ["QH", "AH"]])
    flip_all(t)
    flip_all(t)
    assert [e["data"]["down"] for e in t.events if e["type"] == "flipped"][-2:] == [[], []]
    assert last(t, "took")["data"] == {"seat": 1, "count": 4, "round": 1}


def test_rule_4_ouverte_bataille_cards_are_chosen_and_committed_together():
    """Rule 4: "(`ouverte`: both chosen from the pack, committed together and revealed with the
    others')"."""
    t = table("bataille", {"variant": "ouverte"}, packs=[["QS", "2S", "AS"], ["QH", "3H", "KH"]])
    t.act(0, {"type": "play", "card": "QS"})
    t.act(1, {"type": "play", "card": "QH"})
    legal = t.view(0)["legal_actions"]
    assert {"type": "play", "card": "AS", "down": "2S"} in legal
    with pytest.raises(RuleError) as err:
        t.act(0, {"type": "play", "card": "AS"})
    assert err.value.code == "down_card_required"
    t.act(0, {"type": "play", "card": "AS", "down": "2S"})
    t.act(1, {"type": "play", "card": "3H", "down": "KH"})
    assert last(t, "revealed")["data"]["up"] == {"0": "AS", "1": "3H"}
    assert last(t, "took")["data"]["seat"] == 0


def test_rule_5_ordered_gathering_keeps_the_order_won():
    """Rule 5: "When a pack is empty, its owner turns the won pile into the new pack ... `ordered`
    keeps the order in which the cards were won, and within one win the order in which they
    reached the table (round by round, seat order within a round)"."""
    t3 = table("bataille", {"gather": "ordered"}, packs=[["KS", "2S"], ["QH", "AH", "3H"]])
    flip_all(t3)  # KS takes QH: won pile of seat 0 is KS (seat 0) then QH (seat 1)
    assert t3.state["table"]["won"][0] == ["KS", "QH"]
    flip_all(t3)  # 2S against AH: seat 1 takes
    t3.act(0, {"type": "flip"})  # seat 0's pack is empty: the won pile becomes its pack, in order
    turned = [e for e in t3.events if e["type"] == "pack_turned"]
    assert own(turned[-1]) == {"seat": 0, "count": 2} and "rng" not in turned[-1]["data"]
    assert last(t3, "flipped")["data"]["up"] == "KS"
    assert t3.state["table"]["packs"][0] == ["QH"]


def test_rule_5_random_gathering_is_drawn_and_recorded():
    """Rule 5: "`gather: random` puts the won pile in a random order at that moment (drawn and
    recorded)"."""
    t = table(
        "bataille", {"gather": "random"}, packs=[["KS", "2S"], ["QH", "AH", "3H"]], game_id="g5"
    )
    flip_all(t)
    flip_all(t)
    t.act(0, {"type": "flip"})
    turned = last(t, "pack_turned")
    entry = turned["data"]["rng"][0]
    assert entry["op"] == "shuffle" and sorted(entry["input"]) == ["KS", "QH"]
    assert turned["data"]["order"] == entry["output"]
    salt = t.state["salt"]
    assert replay_ledger(SEED, "g5", salt, turned["version"], turned["data"]["rng"]) is None
    # nobody sees the new order of a face-down pack while the game runs
    assert is_sealed(t.shown(turned, 0)["data"]["order"])


def test_rule_6_forfeit_the_short_player_is_out_and_its_cards_stay_for_the_winner():
    """Rule 6: "A player who must put a card down and has none left (pack and won pile empty) is
    out of the game at once (`shortfall: forfeit`); the cards they already put on the table
    stay there for the winner"."""
    t = table("bataille", {"shortfall": "forfeit"}, packs=[["KS", "4S"], ["KH", "9H", "3H"]])
    flip_all(t)
    short = last(t, "short")["data"]
    assert short == {"seat": 0, "up": None, "down": ["4S"], "out": True}
    assert awaited(t.state) == [1]
    t.act(1, {"type": "flip"})
    assert last(t, "took")["data"] == {"seat": 1, "count": 5, "round": 1}
    assert t.state["result"]["winners"] == [1] and t.state["result"]["reason"] == "all_cards"


def test_rule_6_play_out_puts_the_face_up_card_first():
    """Rule 6: "With `play_out`, a player short in a bataille puts what they have, the face-up card
    first, and is out only with no card at all"."""
    t = table("bataille", {"shortfall": "play_out"}, packs=[["KS", "4S"], ["KH", "9H", "3H"]])
    flip_all(t)
    assert last(t, "short")["data"] == {"seat": 0, "up": "4S", "down": [], "out": False}
    t.act(1, {"type": "flip"})  # 9H down, 3H up: 4S is higher
    assert last(t, "took")["data"] == {"seat": 0, "count": 5, "round": 1}
    assert t.state["result"]["winners"] == [0]


def test_rule_6_when_every_player_of_a_bataille_is_out_its_cards_leave_play():
    """Rule 6: "If every player of a bataille is out, its cards leave play and the game goes on
    between the players left"."""
    t = table("bataille", {"players": 3}, packs=[["KS"], ["KH"], ["2D", "3D"]])
    flip_all(t)
    assert [e["data"]["seat"] for e in t.events if e["type"] == "short"] == [0, 1]
    assert "left_play" in types(t.events)
    assert t.state["result"]["winners"] == [2]
    assert sorted(t.game.cards(t.state)) == sorted(t.game.deck(t.options))


def test_rule_6_a_round_counts_a_bataille_chain_once():
    """Rule 6: "One **round** is one turn of cards plus every bataille it leads to"."""
    packs = [["QS", "2S", "7S", "9S", "AS", "5S"], ["QH", "3H", "7H", "8H", "KH", "6H"]]
    t = table("bataille", packs=packs)
    flip_all(t)  # Q against Q
    flip_all(t)  # 7 against 7
    flip_all(t)  # AS beats KH
    assert types(t.events).count("bataille") == 2
    assert last(t, "took")["data"] == {"seat": 0, "count": 10, "round": 1}
    assert t.game.rounds(t.state) == 1
    flip_all(t)
    assert t.game.rounds(t.state) == 2


def test_rule_7_the_game_ends_when_one_player_holds_every_card():
    """Rule 7: "A player with no pack and no won pile at the start of a round is out. The game ends
    when one player holds every card still in play (winner)"."""
    t = table("bataille", {"players": 3}, packs=[["AS", "KS"], ["2H", "3H"], ["4D", "5D"]])
    flip_all(t)
    flip_all(t)
    outs = [e["data"] for e in t.events if e["type"] == "out"]
    assert outs == [{"seat": 1, "reason": "no_cards"}, {"seat": 2, "reason": "no_cards"}]
    result = t.state["result"]
    assert result["winners"] == [0] and result["cards"] == [6, 0, 0]
    assert types(t.events)[-1] == "ended" and "server_seed" in t.events[-1]["data"]


def test_rule_7_max_rounds_the_leader_wins_and_equal_leaders_draw():
    """docs/rules/common.md#round-limit: "at `max_rounds` ... it ends with reason `round_limit`: the
    leader wins (most cards ...), equal leaders draw"."""
    t = table("bataille", {"max_rounds": 1}, packs=[["AS", "2S"], ["KH", "3H"]])
    flip_all(t)
    assert t.state["result"] == {
        "winners": [0],
        "draw": False,
        "reason": "round_limit",
        "rounds": 1,
        "cards": [3, 1],
    }
    t = table("bataille", {"max_rounds": 2}, packs=[["AS", "2S"], ["KH", "3H"]])
    flip_all(t)
    flip_all(t)
    assert t.state["result"]["draw"] and t.state["result"]["cards"] == [2, 2]


def test_rule_8_an_ordered_game_that_repeats_its_position_is_a_cycle_draw():
    """Rule 8: "When the whole position repeats, the game ends as a draw with reason `cycle`,
    naming the round where the cycle began"."""
    t = table("bataille", {"gather": "ordered"}, packs=[["AS", "2S"], ["2H", "AH"]])
    while t.state["status"] == "playing":
        flip_all(t)
    assert t.state["result"]["reason"] == "cycle"
    assert t.state["result"]["cycle_start"] == 1 and t.state["result"]["rounds"] == 4
    assert t.state["result"]["draw"]


def test_actions_that_do_not_fit_are_refused_and_append_nothing():
    t = table("bataille", packs=[["AS", "2S"], ["2H", "AH"]])
    before = len(t.events)
    with pytest.raises(RuleError) as err:
        t.act(0, {"type": "play", "card": "AS"})
    assert err.value.status == 400
    t.act(0, {"type": "flip"})
    with pytest.raises(RuleError) as err:
        t.act(0, {"type": "flip"})
    assert err.value.code == "already_played" and err.value.status == 409
    assert len(t.events) == before + 1


def test_rule_8_the_kept_positions_find_a_repeat_as_the_plain_list_does():
    """Rule 8's positions are kept end to end in one string (a state copy shares it): finding a
    repeat there gives the round a plain list of the keys gives, including a key that only
    appears across two neighbours' boundary."""
    import random

    from service.games.bataille.rules import round_seen, round_seen_plain

    rng = random.Random(8)
    for _ in range(200):
        keys = [f"{rng.getrandbits(8):02x}" * 8 for _ in range(rng.randrange(0, 12))]
        text = "".join(keys)
        # a key shifted by one digit matches a run of its neighbours' digits off the boundaries
        probes = [*keys, *(k[1:] + k[0] for k in keys), f"{rng.getrandbits(64):016x}"]
        if len(keys) > 1:
            probes.append(text[8:24])  # the tail of one key and the head of the next
        for key in probes:
            assert round_seen(text, key) == round_seen_plain(keys, key), (keys, key)


def test_the_view_shows_the_cards_each_seat_won_face_up_and_kept():
    """Rules 3 and 5: the single highest card takes the table into its owner's won pile, which
    becomes its pack when the pack is empty; rule 4: a bataille's face-down card is seen by
    nobody else. So every seat knows the face-up cards another won; once that seat puts a card
    face down the view forgets them all (never more than the log tells, sometimes less)."""
    t = table(
        "bataille",
        {"variant": "ouverte"},
        packs=[["9S", "QS", "2S", "AS"], ["4H", "QH", "3H", "KH"]],
    )
    t.act(0, {"type": "play", "card": "9S"})
    t.act(1, {"type": "play", "card": "4H"})
    for viewer in (0, 1, None):
        me = t.view(viewer)["table"]["players"][0]
        assert (me["known_pack"], me["known_won"]) == ([], ["4H", "9S"])
    t.act(0, {"type": "play", "card": "QS"})
    assert t.view(1)["table"]["players"][0]["known_won"] == ["4H", "9S"]  # not yet revealed
    t.act(1, {"type": "play", "card": "QH"})  # a bataille: each puts a card face down
    t.act(0, {"type": "play", "card": "AS", "down": "2S"})
    t.act(1, {"type": "play", "card": "3H", "down": "KH"})
    seat0 = t.view(1)["table"]["players"][0]
    assert last(t, "took")["data"]["seat"] == 0
    assert (seat0["known_pack"], seat0["known_won"]) == ([], ["3H", "AS", "QH", "QS"])
