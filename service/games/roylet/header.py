"""BatailleRoylet's declarative header: its action, and the events it writes with what each
hides from whom while the game runs (docs/rules/roylet.md).

Hidden while the game runs: every hand but the viewer's own (an Ally never sees the other
Ally's hand: the Allies get no channel), the 20 cards out of play, and the face-down card of a
battle until it is turned (its owner sees it).
"""

from __future__ import annotations

from ...core.shapes import (
    CARDS,
    EACH,
    SEAT,
    Action,
    Card,
    Choice,
    Event,
    Hidden,
    Int,
    Ledger,
    ListOf,
    Nullable,
    Obj,
    Opt,
)

FACE = Choice(("down", "up"))
SIDE = Choice(("king", "allies"))


def _face_down(data: dict, options: dict) -> bool:
    return data.get("face") == "down"


ACTIONS = [
    Action(
        "play",
        {
            "card": Hidden(Card(), to="actor", until="reveal", when=_face_down),
            "face": Opt(FACE),
        },
        doc='an Ally plays face "down" or "up" (first come takes the face); the King plays '
        "without a face (always up)",
    )
]

_TRICKS = Obj({"king": Int(0), "allies": Int(0)})

EVENTS = {
    "dealt": Event(
        {"round": Int(1), "hands": Hidden(ListOf(CARDS), to=EACH), "out": Hidden(CARDS)},
        ledger=Ledger(output=Hidden(CARDS)),
        doc="rule 1: the royals to the King and 7 more, 10 to each Ally, 20 out of play",
    ),
    "played": Event(
        {
            "round": Int(1),
            "battle": Int(1, 10),
            "seat": SEAT,
            "card": Hidden(Card(), to="seat", until="reveal", when=_face_down),
            "face": FACE,
        },
        actor="seat",
        doc="rule 2: a card played face up, or committed face down",
    ),
    "revealed": Event(
        {"round": Int(1), "battle": Int(1, 10), "seat": SEAT, "card": Card()},
        reveals=True,
        doc="rule 2: the face-down card turned",
    ),
    "trick": Event(
        {
            "round": Int(1),
            "battle": Int(1, 10),
            "taker": SIDE,
            "cards": CARDS,
            "seats": ListOf(SEAT),
            "captured": CARDS,
            "kings_taken": CARDS,
        },
        doc="rules 3-5: who takes the battle's three cards",
    ),
    "king_penalty": Event(
        {"round": Int(1), "index": Int(0), "trick": CARDS},
        doc="rule 6: the king of hearts lost, the King hands a trick to the Allies",
    ),
    "round_ended": Event(
        {
            "round": Int(1),
            "result": Choice(("king", "allies", "void")),
            "reason": Choice(("tricks", "forbidden_capture", "two_kings", "royals_unplayed")),
            "tricks": _TRICKS,
            "captured": CARDS,
            "kings_taken": CARDS,
            "battles": Int(0, 10),
            "counted": Int(0),
            "streak": Int(0),
            "voids": Int(0),
        },
        doc="rules 5, 7, 8: the round's result",
    ),
}

# -- what a seat sees (view.py) and the result's own fields ---------------------------------------

_PUT = Nullable(Obj({"seat": SEAT, "card": Nullable(Card())}))
_ROUND = Obj(
    {
        "round": Int(1),
        "result": Choice(("king", "allies", "void")),
        "reason": Choice(("tricks", "forbidden_capture", "two_kings", "royals_unplayed")),
        "tricks": _TRICKS,
        "battles": Int(0, 10),
    }
)
_TRICK_CARDS = Obj({"king": ListOf(CARDS), "allies": ListOf(CARDS)})

TABLE = Obj(
    {
        "round": Int(0),
        "role": Nullable(Choice(("king", "ally"))),
        "king": SEAT,
        "allies": ListOf(SEAT),
        "counted": Int(0),
        "rounds": Int(1),
        "battle": Int(0, 10),
        "battles_left": Int(0, 10),
        "hand_sizes": ListOf(Int(0)),
        "royals_in_hand": Int(0, 5),
        "table": Obj({"down": _PUT, "up": _PUT, "king": Nullable(Card())}),
        "tricks": _TRICKS,
        "trick_cards": _TRICK_CARDS,
        "captured": CARDS,
        "kings_taken": CARDS,
        "results": ListOf(_ROUND),
        "streak": Int(0),
        "losing_streak": Int(1),
        "voids": Int(0),
        "max_replays": Int(0),
        "hand": Opt(CARDS),
    },
    doc="`table`: the battle's face-down and face-up cards (`card` null while hidden from the "
    "viewer) and the King's; `hand`: a seat's own, absent for a spectator",
)

RESULT = {
    "reason": Choice(
        ("losing_streak", "rounds_survived", "too_many_replays", "event_limit", "abandoned")
    ),
    "counted": Int(0),
    "round_results": ListOf(Choice(("king", "allies", "void"))),
    "void_rounds": Int(0),
    "streak": Int(0),
}

PROBLEMS = {
    "king_plays_after_face_up": "the King plays after the face-up card",
    "king_plays_after_face_down": "the King plays once the face-down card is committed",
    "already_played": "you have already played in this battle",
    "face_taken": "your partner already played that face",
    "card_not_in_hand": "the card is not in your hand",
}

DEAL = Obj({"hands": ListOf(CARDS)}, doc="a test deal: each seat's hand for the first deal")
