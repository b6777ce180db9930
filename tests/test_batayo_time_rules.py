"""BATAYO scenario tests on fixed deals, for the rules of time (docs/rules/batayo.md#rule-5 and
#rule-6) and the round limit: the clock that starts with the first trick, time up between tricks
or in the middle of a BATAYO, sudden death. The other rules are in test_batayo_rules.py; both
take their deals and fixed seed from tests/support/batayo.py.
"""

from __future__ import annotations

from service.core.cards import value
from service.core.game import add_seconds
from service.games.batayo.rules import deck, timers
from tests.support.batayo import (
    EXPRESS,
    clubs,
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
from tests.support.helpers import own

# -- rule 5: time ------------------------------------------------------------------------------


def test_rule_5_clock_starts_with_the_first_trick():
    """docs/rules/batayo.md#rule-5: "With `time_limit_s`, the clock starts with the first trick"."""
    untimed = make([spades(*EXPRESS), hearts(*EXPRESS)])
    assert timers(untimed.state) == [] and untimed.view(0)["table"]["deadline"] is None
    t = make([spades(*EXPRESS), hearts(*EXPRESS)], time_limit_s=60)
    start = of(t.events, "dealt")[0]["at"]
    due = add_seconds(start, 60)
    assert due == "2030-01-01T00:01:00.000000Z"
    assert timers(t.state) == [("time_limit", due)]
    assert t.view(None)["table"]["deadline"] == due
    assert t.fire("time_limit", now=add_seconds(start, 59)) == []  # not due yet
    assert t.state["status"] == "playing"


def test_rule_5_time_up_between_tricks_most_cards_wins_at_once():
    """docs/rules/batayo.md#rule-5: "When it runs out, ... the game stops: most cards (hand + pack)
    wins"."""
    t = make([spades(*EXPRESS), hearts(*EXPRESS)], time_limit_s=60)
    play(t, (0, "AS"), (1, "JH"))
    events = t.fire("time_limit", now="2030-01-01T00:01:00.000000Z")
    assert [e["type"] for e in events] == ["time_up", "ended"]
    assert events[0]["actor"] == "clock"
    assert own(events[0]) == {"trick": 2, "under_way": False}
    result = events[1]["data"]["result"]
    assert result["winners"] == [0] and result["reason"] == "time" and result["cards"] == [9, 7]


def test_rule_5_time_running_out_in_the_middle_of_a_batayo():
    """docs/rules/batayo.md#rule-5: "a trick under way (at least one card committed) is played to
    its end, BATAYOs included; then the game stops"."""
    t = make(
        [spades(*EXPRESS[:7]), hearts(*EXPRESS[:7]), clubs("K", "7", "8", "9", "10", "J")],
        time_limit_s=60,
    )
    play(t, (0, "AS"), (1, "AH"), (2, "KC"))
    assert t.state["table"]["step"] == 1
    events = t.fire("time_limit", now="2030-01-01T00:05:00.000000Z")
    assert [e["type"] for e in events] == ["time_up"]
    assert own(events[0]) == {"trick": 1, "under_way": True}
    assert timers(t.state) == [] and t.state["status"] == "playing"
    high0 = max(hand(t, 0), key=value)
    low1 = min(hand(t, 1), key=value)
    events = play(t, (0, high0), (1, low1))
    assert [e["type"] for e in events][-3:] == ["trick_won", "drew", "ended"]
    result = of(events, "ended")[0]["data"]["result"]
    assert result["winners"] == [0] and result["reason"] == "time"
    assert result["cards"] == [11, 4, 5]


def test_rule_5_one_committed_card_means_the_trick_is_under_way():
    """docs/rules/batayo.md#rule-5: "a trick under way (at least one card committed) is played to
    its end"."""
    t = make([spades(*EXPRESS), hearts(*EXPRESS)], time_limit_s=60)
    play(t, (1, "KH"))
    events = t.fire("time_limit", now="2030-01-01T00:01:00.000000Z")
    assert [e["type"] for e in events] == ["time_up"] and events[0]["data"]["under_way"]
    events = play(t, (0, "JS"))
    result = of(events, "ended")[0]["data"]["result"]
    assert result["winners"] == [1] and result["reason"] == "time" and result["cards"] == [7, 9]


# -- rule 6: sudden death ----------------------------------------------------------------------


def test_rule_6_sudden_death_won_on_the_second_card():
    """docs/rules/batayo.md#rule-6: "If several players share the most cards, they alone play, with
    their hands as they stand ...: each commits a card from their hand, all reveal; the highest wins
    the game; those tied for the highest go again with a new card. No BATAYO, no drawing.\""""
    t = make(
        [spades("A", "7", "K", "Q", "10"), hearts("A", "8", "K", "Q", "10")],
        time_limit_s=60,
    )
    events = t.fire("time_limit", now="2030-01-01T00:01:00.000000Z")
    assert [e["type"] for e in events] == ["time_up", "sudden_death"]
    assert events[1]["data"] == {"round": 1, "seats": [0, 1], "cards": [5, 5]}
    assert t.view(0)["table"]["sudden_death"] == 1
    events = play(t, (0, "AS"), (1, "AH"))
    assert [e["type"] for e in events] == ["committed", "committed", "revealed", "sudden_death"]
    assert of(events, "revealed")[0]["data"]["tied"] == [0, 1]
    assert of(events, "sudden_death")[0]["data"]["round"] == 2
    assert hand(t, 0) == spades("7", "K", "Q") and pack(t, 0) == ["10S"]  # no drawing
    events = play(t, (1, "8H"), (0, "7S"))
    result = of(events, "ended")[0]["data"]["result"]
    assert result["winners"] == [1] and result["reason"] == "sudden_death"
    assert of(t.events, "batayo") == [] and of(t.events, "taken") == []


def test_rule_6_sudden_death_after_a_trick_finished_past_the_time():
    """docs/rules/batayo.md#rule-5 and #rule-6: the trick under way ends, then "If several players
    share the most cards, they alone play, with their hands as they stand after the last trick's
    top-up"."""
    t = make(
        [
            spades("A", "7", "8", "9", "10"),
            hearts("7", "8", "9", "10", "J", "Q", "K", "A"),
            clubs("7", "8", "9", "10", "J", "Q"),
        ],
        time_limit_s=60,
    )
    play(t, (1, "7H"))
    t.fire("time_limit", now="2030-01-01T00:01:00.000000Z")
    events = play(t, (0, "AS"), (2, "7C"))
    assert [e["type"] for e in events][-3:] == ["trick_won", "drew", "sudden_death"]
    assert of(events, "sudden_death")[0]["data"] == {"round": 1, "seats": [0, 1], "cards": [7, 7]}
    assert hand(t, 0) == spades("7", "8", "9", "10")
    assert hand(t, 1) == hearts("8", "9", "10", "J")
    events = play(t, (0, "10S"), (1, "JH"))
    result = of(events, "ended")[0]["data"]["result"]
    assert result["winners"] == [1] and result["reason"] == "sudden_death"


def test_rule_6_only_the_players_tied_for_most_cards_play():
    """docs/rules/batayo.md#rule-6: "they alone play"; "those tied for the highest go again"."""
    t = make(
        [spades(*EXPRESS), hearts(*EXPRESS), clubs(*EXPRESS), diamonds(*EXPRESS[:6])],
        time_limit_s=60,
    )
    t.fire("time_limit", now="2030-01-01T00:01:00.000000Z")
    assert of(t.events, "sudden_death")[0]["data"]["seats"] == [0, 1, 2]
    refused(t, 3, {"type": "play", "card": "AD"}, "not_in_sudden_death", 409)
    events = play(t, (0, "AS"), (1, "AH"), (2, "KC"))
    again = of(events, "sudden_death")[0]["data"]
    assert again["seats"] == [0, 1] and again["round"] == 2
    refused(t, 2, {"type": "play", "card": "QC"}, "not_in_sudden_death", 409)
    events = play(t, (0, "KS"), (1, "QH"))
    result = of(events, "ended")[0]["data"]["result"]
    assert result["winners"] == [0] and result["reason"] == "sudden_death"


def test_rule_6_sudden_death_drawn_when_hands_run_out():
    """docs/rules/batayo.md#rule-6: "If the tied players run out of hand cards without a winner, the
    game is a draw"."""
    t = make([spades("A", "K"), hearts("A", "K")], time_limit_s=60)
    t.fire("time_limit", now="2030-01-01T00:01:00.000000Z")
    play(t, (0, "AS"), (1, "AH"))
    events = play(t, (1, "KH"), (0, "KS"))
    result = of(events, "ended")[0]["data"]["result"]
    assert result["winners"] == [] and result["draw"] and result["reason"] == "sudden_death_draw"
    assert sorted(t.game.cards(t.state)) == sorted(deck(t.options))


# -- the cap -----------------------------------------------------------------------------------


def test_round_limit_leader_wins():
    """docs/rules/common.md#round-limit: after `max_rounds` (tricks) "the leader wins (most
    cards)"."""
    t = make([spades(*EXPRESS), hearts(*EXPRESS)], max_rounds=1)
    events = play(t, (0, "AS"), (1, "JH"))
    result = of(events, "ended")[0]["data"]["result"]
    assert result["winners"] == [0] and result["reason"] == "round_limit" and result["rounds"] == 1


def test_round_limit_equal_leaders_draw():
    """docs/rules/common.md#round-limit: "equal leaders draw"."""
    t = make(
        [
            spades("A", "7", "8", "9", "10"),
            hearts("7", "8", "9", "10", "J", "Q", "K", "A"),
            clubs("7", "8", "9", "10", "J", "Q"),
        ],
        max_rounds=1,
    )
    events = play(t, (0, "AS"), (1, "7H"), (2, "7C"))
    result = of(events, "ended")[0]["data"]["result"]
    assert result["cards"] == [7, 7, 5]
    assert result["winners"] == [] and result["draw"] and result["reason"] == "round_limit"
