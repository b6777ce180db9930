"""Batak's declarative header: its actions, and the events it writes with what each hides from
whom while the game runs (RULES.md, Batak): only the deal is hidden, each seat seeing its own
hand; bids, trump, tricks and scores are public."""

from __future__ import annotations

from ...core.shapes import (
    CARDS,
    EACH,
    SEAT,
    Action,
    Bool,
    Card,
    Event,
    Hidden,
    Int,
    Ledger,
    ListOf,
    Obj,
    Suit,
)

_PLAYED = Obj({"seat": SEAT, "card": Card()})

ACTIONS = [
    Action("bid", {"tricks": Int(0, 13)}, doc="bid a number of tricks (rule 1)"),
    Action("pass", doc="pass: final for this deal (rule 1)"),
    Action("trump", {"suit": Suit()}, doc="the declarer names trump (rule 2)"),
    Action("play", {"card": Card()}, doc="play a card to the trick (rule 3)"),
]

EVENTS = {
    "dealt": Event(
        {"deal": Int(1), "dealer": SEAT, "hands": Hidden(ListOf(CARDS), to=EACH)},
        ledger=Ledger(output=Hidden(CARDS)),
        doc="52 cards shuffled and dealt one at a time from the dealer's right",
    ),
    "bid": Event({"seat": SEAT, "tricks": Int(4, 13)}, actor="seat"),
    "pass": Event({"seat": SEAT}, actor="seat"),
    "declarer": Event({"seat": SEAT, "bid": Int(4, 13)}, doc="the auction's winner"),
    "trump": Event({"seat": SEAT, "suit": Suit()}, actor="seat"),
    "played": Event({"seat": SEAT, "card": Card()}, actor="seat"),
    "trick": Event(
        {"number": Int(1, 13), "leader": SEAT, "cards": ListOf(_PLAYED), "winner": SEAT},
        doc="rule 4: a trick complete, and who took it",
    ),
    "deal_scored": Event(
        {
            "deal": Int(1),
            "dealer": SEAT,
            "declarer": SEAT,
            "bid": Int(4, 13),
            "trump": Suit(),
            "tricks": ListOf(Int(0, 13)),
            "made": Bool(),
            "points": ListOf(Int()),
            "totals": ListOf(Int()),
        },
        doc="rule 5: the deal's score",
    ),
}
