"""BatailleRoylet scenarios on fixed deals and seeds: each quotes docs/rules/roylet.md, rule n."""

from __future__ import annotations

import pytest

from service.core.game import RuleError
from service.core.state import awaited, legal_actions
from service.games.roylet.rules import ROYALS, allies_take, strength
from service.sim.table import Table
from tests.support.roylet import (
    A1,
    A2,
    DEAL,
    DEAL_9H,
    DEAL_Q,
    KING,
    PENALTY_PLAY,
    PENALTY_THEN_VOID,
    VOID_PLAY,
    battle,
    ended,
    error,
    table,
)

# -- rule 1: the deal ---------------------------------------------------------------------------


def test_rule1_the_king_holds_the_royals_and_each_ally_ten():
    """Rule 1: "The King always holds the four jacks and the king of hearts (the royals) and is
    dealt 7 more; each Ally is dealt 10. The other 20 cards are out of play for the round."""
    t = table(deal=None)
    dealt = t.events[-1]
    assert dealt["type"] == "dealt"
    hands, out = dealt["data"]["hands"], dealt["data"]["out"]
    assert hands[KING][:5] == list(ROYALS)
    assert [len(h) for h in hands] == [12, 10, 10] and len(out) == 20
    assert sorted(c for h in [*hands, out] for c in h) == sorted(t.game.deck(t.options))
    (shuffle,) = dealt["data"]["rng"]  # "Everything but the royals is reshuffled each round"
    assert shuffle["op"] == "shuffle" and not set(shuffle["input"]) & set(ROYALS)
    assert len(shuffle["input"]) == 47


# -- rule 3: strength ---------------------------------------------------------------------------


def test_rule3_ten_above_king():
    """Rule 3: "Ace high, with: 10 above K (... J Q K 10 A)"."""
    t = table()
    trick = battle(t, "10S", "KS", "2D")  # the King's 10 beats the Allies' king
    assert trick["data"]["taker"] == "king" and trick["data"]["kings_taken"] == ["KS"]
    trick = battle(t, "KH", "10H", "3D")  # the Allies' 10 beats the king of hearts
    assert trick["data"]["taker"] == "allies" and trick["data"]["captured"] == ["KH"]
    assert strength("KS", "ally") < strength("10S", "ally") < strength("AS", "ally")
    assert not allies_take("10H", "10C", "10S")  # equal is not strictly stronger: the King's


def test_rule3_nine_of_hearts_in_the_kings_hand():
    """Rule 3: "the 9 of hearts is just above ... 10 in the King's" (hand)."""
    t = table()
    trick = battle(t, "9H", "10H", "10C")
    assert trick["data"]["taker"] == "king"
    trick = battle(t, "JS", "AH", "2D")  # below the ace only
    assert trick["data"]["taker"] == "allies"
    assert allies_take("AH", "2D", "9H") and not allies_take("10H", "KC", "9H")


def test_rule3_nine_of_hearts_in_an_allys_hand():
    """Rule 3: "the 9 of hearts is just above J in an Ally's hand" (so above every jack, below
    the queen)."""
    t = table(DEAL_9H)
    trick = battle(t, "JS", "9H", "2D")
    assert trick["data"]["taker"] == "allies" and trick["data"]["captured"] == ["JS"]
    t = table(DEAL_9H)
    trick = battle(t, "QS", "9H", "2D", down=A2)
    assert trick["data"]["taker"] == "king"
    assert strength("JS", "king") < strength("9H", "ally") < strength("QS", "king")


def test_rule3_ace_against_ace():
    """Rule 3: "or if the King played an ace and they played an ace. Otherwise the King takes
    it. There is never a tie."""
    t = table()
    trick = battle(t, "AS", "AH", "2D")
    assert trick["data"]["taker"] == "allies"
    trick = battle(t, "JS", "10H", "AC", down=A2)  # an Ally's ace takes anything
    assert trick["data"]["taker"] == "allies"
    t = table()
    trick = battle(t, "AS", "10H", "KC")  # nothing strictly stronger than the King's ace
    assert trick["data"]["taker"] == "king"


def test_rule4_the_taker_keeps_three_cards_as_one_trick():
    """Rule 4: "The taker of a battle keeps its three cards as one trick."""
    t = table()
    trick = battle(t, "10S", "KS", "2D")
    assert trick["data"]["cards"] == ["KS", "2D", "10S"]
    assert t.state["table"]["tricks"] == {"king": [["KS", "2D", "10S"]], "allies": []}
    assert t.view(None)["table"]["tricks"] == {"king": 1, "allies": 0}


# -- rule 2: a battle ---------------------------------------------------------------------------


def test_rule2_face_down_face_up_then_the_king_then_the_reveal():
    """Rule 2: "that Ally commits a card face down, the other plays one face up, then the King
    plays one face up, then the hidden card is turned"."""
    t = table()
    t.act(A2, {"type": "play", "card": "2D", "face": "down"})
    assert awaited(t.state) == [A1]
    assert legal_actions(t.state, A1) == [
        {"type": "play", "card": c, "face": "up"} for c in DEAL["hands"][A1]
    ]
    assert t.view(A1)["table"]["table"]["down"] == {"seat": A2, "card": None}
    assert t.view(A2)["table"]["table"]["down"] == {"seat": A2, "card": "2D"}
    t.act(A1, {"type": "play", "card": "QS", "face": "up"})
    assert awaited(t.state) == [KING]
    assert t.view(KING)["table"]["table"]["up"] == {"seat": A1, "card": "QS"}
    events = t.act(KING, {"type": "play", "card": "AS"})
    assert [e["type"] for e in events] == ["played", "revealed", "trick"]
    assert events[1]["data"]["card"] == "2D" and events[1]["data"]["seat"] == A2


def test_rule2_the_face_up_card_may_come_first():
    """Rule 2 with docs/api.md: "first come takes the face; the other face is then the only one
    left" -- the first Ally may ask for face up; the King still waits for the face-down card."""
    t = table()
    t.act(A1, {"type": "play", "card": "2H", "face": "up"})
    assert awaited(t.state) == [A2]
    assert {a["face"] for a in legal_actions(t.state, A2)} == {"down"}
    assert error(t, KING, {"type": "play", "card": "AS"}).code == "king_plays_after_face_down"
    t.act(A2, {"type": "play", "card": "AC", "face": "down"})
    events = t.act(KING, {"type": "play", "card": "AS"})
    assert events[-1]["data"]["taker"] == "allies"


# -- rule 5 and the end of a round ---------------------------------------------------------------


def test_rule5_royals_not_all_played_lose_the_round_at_once():
    """Rule 5: "The King must play all five royals during the round: once fewer battles remain
    than royals in his hand, he loses the round at once."""
    t = table()
    for king, a1, a2 in [
        ("2S", "2H", "2D"),
        ("3S", "3H", "3D"),
        ("4S", "4H", "4D"),
        ("5S", "5H", "5D"),
        ("9H", "QS", "QD"),
    ]:
        battle(t, king, a1, a2)
    assert t.state["table"]["battles_played"] == 5  # 5 royals, 5 battles left: not yet
    assert not any(e["type"] == "round_ended" for e in t.events)
    battle(t, "10S", "10H", "QC")
    result = ended(t)
    assert (result["result"], result["reason"], result["battles"]) == (
        "allies",
        "royals_unplayed",
        6,
    )
    assert t.state["table"]["round"] == 2 and t.state["table"]["streak"] == 1


def test_rule7_two_kings_win_the_round_at_once():
    """Rule 7: "If the King takes two kings from the Allies in one round, he wins the round at
    once" (before his royals are played: the round ends there)."""
    t = table()
    battle(t, "10S", "KS", "2D")
    assert t.state["table"]["kings_taken"] == ["KS"]
    battle(t, "AS", "2H", "KC", down=A2)
    result = ended(t)
    assert (result["result"], result["reason"], result["battles"]) == ("king", "two_kings", 2)
    assert result["kings_taken"] == ["KS", "KC"]
    assert t.state["table"]["round"] == 2 and t.state["table"]["counted"] == 1
    assert t.state["table"]["hands"][KING][:5] == list(ROYALS)


def test_rule6_king_of_hearts_lost_hands_a_trick_and_changes_the_result():
    """Rule 6: "King of hearts lost: before the count, the King hands one of his tricks (if any)
    to the Allies." Rule 8: "the Allies win the round if they hold more tricks than the King".
    Five tricks each would be the King's round; the handed trick (his most recent) makes it 4-6."""
    t = table()
    for play in PENALTY_PLAY:
        battle(t, *play)
    penalty = next(e for e in t.events if e["type"] == "king_penalty")
    assert penalty["data"]["trick"] == ["QS", "10C", "AS"] and penalty["data"]["index"] == 4
    result = ended(t)
    assert result["captured"] == ["KH"]  # no jack: not a forbidden combination
    assert (result["result"], result["reason"], result["tricks"]) == (
        "allies",
        "tricks",
        {"king": 4, "allies": 6},
    )


def test_rule8_forbidden_capture_without_majority_is_void_and_replayed():
    """Rule 8: "else, if they captured a forbidden combination, the round is void and replayed
    (it does not count)"; rule 5: "three jacks" is forbidden. With `rounds` 1 the game goes on."""
    t = table(DEAL_Q, rounds=1)
    for play in VOID_PLAY:
        battle(t, *play)
    result = ended(t)
    assert result["captured"] == ["JS", "JH", "JD"]
    assert (result["result"], result["reason"], result["tricks"]) == (
        "void",
        "forbidden_capture",
        {"king": 7, "allies": 3},
    )
    tab = t.state["table"]
    assert t.state["status"] == "playing" and tab["round"] == 2 and tab["counted"] == 0
    assert tab["voids"] == 1 and tab["streak"] == 0 and tab["battles_played"] == 0
    assert t.events[-1]["type"] == "dealt" and t.events[-1]["data"]["round"] == 2
    view = t.view(None)["table"]
    assert view["results"][0]["result"] == "void" and view["voids"] == 1


# on DEAL_Q: the King loses the king of hearts with a jack and keeps 7 tricks to 3


def test_rule8_king_of_hearts_with_a_jack_is_void_after_the_penalty():
    """Rule 5: "the king of hearts with any jack" is forbidden; rule 6 hands a trick first:
    7-3 becomes 6-4, the Allies still do not hold more: void."""
    t = table(DEAL_Q)
    for play in PENALTY_THEN_VOID:
        battle(t, *play)
    assert any(e["type"] == "king_penalty" for e in t.events)
    result = ended(t)
    assert result["captured"] == ["JS", "KH"]
    assert (result["result"], result["tricks"]) == ("void", {"king": 6, "allies": 4})


def test_rule8_forbidden_capture_with_majority_is_the_allies_round():
    """Rule 8: "the Allies win the round if they hold more tricks than the King; else, if they
    captured a forbidden combination, the round is void"."""
    t = table(DEAL_Q)
    plays = [
        ("JS", "QS", "2D"),
        ("JH", "QH", "3D"),
        ("JD", "2H", "QD"),
        ("JC", "3H", "QC"),
        ("2S", "AH", "KD"),
        ("3S", "AD", "4D"),
        ("KH", "4H", "5D"),
        ("AS", "KS", "6D"),
        ("AC", "5H", "7D"),
        ("9H", "6H", "8D"),
    ]
    for play in plays:
        battle(t, *play)
    result = ended(t)
    assert result["captured"] == ["JS", "JH", "JD", "JC"]
    assert (result["result"], result["reason"], result["tricks"]) == (
        "allies",
        "tricks",
        {"king": 4, "allies": 6},
    )
    assert t.state["table"]["counted"] == 1 and t.state["table"]["streak"] == 1


def test_rule8_the_king_wins_a_round_holding_as_many_tricks():
    """Rule 8: "... else the King wins it" (5 tricks each, nothing forbidden, no king of hearts
    lost)."""
    t = table()
    plays = [
        ("JS", "2H", "2D"),
        ("JH", "3H", "3D"),
        ("JD", "4H", "4D"),
        ("JC", "5H", "5D"),
        ("KH", "QS", "QH"),  # the king of hearts beats queens
        ("2S", "10D", "QD"),
        ("3S", "KS", "QC"),
        ("4S", "10H", "KC"),
        ("5S", "AD", "10C"),
        ("AS", "AH", "AC"),
    ]
    for play in plays:
        battle(t, *play)
    result = ended(t)
    assert (result["result"], result["tricks"]) == ("king", {"king": 5, "allies": 5})
    assert not any(e["type"] == "king_penalty" for e in t.events)


# -- rule 9: the game ---------------------------------------------------------------------------


def _hold_royals(t: Table) -> None:
    """Play one round in which the King keeps his royals (so he loses it by rule 5)."""
    round_ = t.state["table"]["round"]
    while t.state["status"] == "playing" and t.state["table"]["round"] == round_:
        seat = awaited(t.state)[0]
        legal = legal_actions(t.state, seat)
        if seat == KING:
            legal = [a for a in legal if a["card"] not in ROYALS] or legal
        t.act(seat, legal[0])


def _king_tries(t: Table) -> None:
    """Play one round in which the Allies throw their weakest cards and the King, knowing every
    card, plays the cheapest card that takes the battle, a royal first."""
    round_ = t.state["table"]["round"]
    while t.state["status"] == "playing" and t.state["table"]["round"] == round_:
        seat = awaited(t.state)[0]
        tab = t.state["table"]
        legal = legal_actions(t.state, seat)
        if seat != KING:
            t.act(seat, min(legal, key=lambda a: strength(a["card"], "ally")))
            continue
        put = tab["put"]
        down, up = put["down"]["card"], put["up"]["card"]
        hand = tab["hands"][KING]
        winning = [c for c in hand if not allies_take(down, up, c)]
        royals = [c for c in winning if c in ROYALS]
        left = 10 - tab["battles_played"]
        if royals:
            card = royals[0]
        elif sum(c in ROYALS for c in hand) >= left:
            card = next(c for c in hand if c in ROYALS)
        elif winning:
            card = min(winning, key=lambda c: strength(c, "king"))
        else:
            card = min((c for c in hand if c not in ROYALS), key=lambda c: strength(c, "king"))
        t.act(KING, {"type": "play", "card": card})


def test_rule9_three_rounds_lost_in_a_row_end_the_game():
    """Rule 9: "The Allies win the game as soon as the King loses `losing_streak` rounds in a
    row."""
    t = table(seed=bytes([7]) * 32)
    for expected in (1, 2):
        _hold_royals(t)
        assert t.state["status"] == "playing" and t.state["table"]["streak"] == expected
    _hold_royals(t)
    assert t.state["status"] == "finished"
    result = t.state["result"]
    assert result["winners"] == [A1, A2] and result["reason"] == "losing_streak"
    assert result["rounds"] == 3 and result["round_results"] == ["allies"] * 3


def test_rule9_a_round_won_breaks_the_streak():
    """Rule 9: only rounds lost *in a row* count toward `losing_streak`."""
    t = table(deal=None, seed=bytes([3]) * 32)
    _hold_royals(t)
    _hold_royals(t)
    _king_tries(t)
    assert t.state["table"]["results"][-1]["result"] == "king"
    assert t.state["table"]["streak"] == 0
    _hold_royals(t)
    _hold_royals(t)
    assert t.state["status"] == "playing" and t.state["table"]["streak"] == 2
    _hold_royals(t)
    assert t.state["result"]["reason"] == "losing_streak" and t.state["result"]["rounds"] == 6


def test_rule9_the_king_survives_twelve_rounds():
    """Rule 9: "The King wins if `rounds` counted rounds pass without that." (default 12)"""
    t = table(deal=None, seed=bytes([1]) * 32)
    assert t.options["rounds"] == 12
    while t.state["status"] == "playing":
        _king_tries(t)
        assert t.state["table"]["streak"] < 3
    result = t.state["result"]
    assert result["winners"] == [KING] and result["reason"] == "rounds_survived"
    assert result["counted"] == 12
    assert result["rounds"] == 12 + result["void_rounds"]


def test_rule9_more_than_max_replays_void_rounds_is_a_draw():
    """Rule 9: "More than `max_replays` void rounds in a row end the game as a draw."""
    t = table(DEAL_Q, max_replays=0)
    for play in VOID_PLAY:
        battle(t, *play)
    result = t.state["result"]
    assert t.state["status"] == "finished"
    assert result["winners"] == [] and result["draw"] and result["reason"] == "too_many_replays"
    assert result["counted"] == 0 and result["round_results"] == ["void"]


# -- bad input ----------------------------------------------------------------------------------


def test_the_king_may_not_play_before_the_allies():
    t = table()
    e = error(t, KING, {"type": "play", "card": "AS"})
    assert (e.code, e.status) == ("king_plays_after_face_up", 409)
    t.act(A1, {"type": "play", "card": "2H", "face": "down"})
    e = error(t, KING, {"type": "play", "card": "AS"})
    assert (e.code, e.status) == ("king_plays_after_face_up", 409)


def test_both_allies_may_not_take_the_same_face():
    t = table()
    t.act(A1, {"type": "play", "card": "2H", "face": "down"})
    e = error(t, A2, {"type": "play", "card": "2D", "face": "down"})
    assert (e.code, e.status) == ("face_taken", 409)
    t = table()
    t.act(A2, {"type": "play", "card": "2D", "face": "up"})
    assert error(t, A1, {"type": "play", "card": "2H", "face": "up"}).code == "face_taken"


def test_an_ally_plays_once_per_battle():
    t = table()
    t.act(A1, {"type": "play", "card": "2H", "face": "down"})
    e = error(t, A1, {"type": "play", "card": "2H", "face": "up"})  # turning it up after the fact
    assert (e.code, e.status) == ("already_played", 409)
    assert error(t, A1, {"type": "play", "card": "3H", "face": "up"}).code == "already_played"
    t.act(A2, {"type": "play", "card": "2D", "face": "up"})
    assert error(t, A2, {"type": "play", "card": "3D", "face": "up"}).code == "already_played"


def test_a_card_must_be_in_hand():
    t = table()
    e = error(t, A1, {"type": "play", "card": "2D", "face": "down"})  # the partner's card
    assert (e.code, e.status) == ("card_not_in_hand", 422)
    assert error(t, A1, {"type": "play", "card": "JS", "face": "up"}).code == "card_not_in_hand"
    t.act(A1, {"type": "play", "card": "2H", "face": "down"})
    t.act(A2, {"type": "play", "card": "2D", "face": "up"})
    e = error(t, KING, {"type": "play", "card": "AH"})
    assert (e.code, e.status) == ("card_not_in_hand", 422)


@pytest.mark.parametrize(
    ("seat", "action"),
    [
        (A1, {"type": "play", "card": "2H"}),  # an Ally must say the face
        (A1, {"type": "pass"}),
        (A1, {"type": "play", "card": "2H", "face": "down", "suit": "S"}),
        (A1, {"type": "play", "face": "down"}),
    ],
)
def test_bodies_that_do_not_fit(seat, action):
    e = error(table(), seat, action)
    assert (e.code, e.status) == ("invalid_request", 400)


def test_the_king_sends_no_face():
    t = table()
    t.act(A1, {"type": "play", "card": "2H", "face": "down"})
    t.act(A2, {"type": "play", "card": "2D", "face": "up"})
    e = error(t, KING, {"type": "play", "card": "AS", "face": "up"})
    assert (e.code, e.status) == ("invalid_request", 400)


@pytest.mark.parametrize(
    "deal",
    [
        {"packs": DEAL["hands"]},
        {"hands": DEAL["hands"][:2]},
        {"hands": [DEAL["hands"][0][:11], *DEAL["hands"][1:]]},
        {"hands": [DEAL["hands"][0], DEAL["hands"][1], [*DEAL["hands"][2][:9], "AH"]]},
        {"hands": [["2C", *DEAL["hands"][0][1:]], *DEAL["hands"][1:]]},  # JS missing
        {"hands": [DEAL["hands"][0], DEAL["hands"][1], [*DEAL["hands"][2][:9], "1Z"]]},
        {"hands": "no"},
        {"hands": DEAL["hands"], "extra": 1},
    ],
)
def test_bad_test_deals(deal):
    with pytest.raises(RuleError) as info:
        table(deal)
    assert (info.value.code, info.value.status) == ("invalid_request", 400)
