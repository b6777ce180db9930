"""Batak's declarative header: its actions, and the events it writes with what each hides from
whom while the game runs (docs/rules/batak.md): only the deal is hidden, each seat seeing its own
hand; bids, trump, tricks and scores are public."""

from __future__ import annotations

from ...core.shapes import (
    CARDS,
    EACH,
    SEAT,
    Action,
    Bool,
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
    Suit,
)

_PLAYED = Obj({"seat": SEAT, "card": Card()})
TRICK = {"number": Int(1, 13), "leader": SEAT, "cards": ListOf(_PLAYED), "winner": SEAT}
SCORE = {  # a deal's score: the event, and each record of the table's `scores`
    "deal": Int(1),
    "dealer": SEAT,
    "declarer": SEAT,
    "bid": Int(4, 13),
    "trump": Suit(),
    "tricks": ListOf(Int(0, 13)),
    "made": Bool(),
    "points": ListOf(Int()),
    "totals": ListOf(Int()),
}

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
        TRICK,
        doc="rule 4: a trick complete, and who took it",
    ),
    "deal_scored": Event(
        SCORE,
        doc="rule 5: the deal's score",
    ),
}

# -- what a seat sees (view.py) and the result's own fields ---------------------------------------

_TRICK = Obj(TRICK)
_CALL = Obj({"seat": SEAT, "type": Choice(("bid", "pass")), "tricks": Opt(Int(0, 13))})
_SCORE = Obj(SCORE)
_SEATS = ListOf(SEAT)

TABLE = Obj(
    {
        "mode": Choice(("ihaleli", "esli")),
        "deal": Int(0),
        "deals": Int(1),
        "deals_played": Int(0),
        "dealer": SEAT,
        "phase": Choice(("dealing", "bidding", "trump", "play", "scored")),
        "turn": Nullable(SEAT),
        "min_bid": Int(4, 13),
        "auction": ListOf(_CALL),
        "high_bid": Nullable(Int(4, 13)),
        "high_bidder": Nullable(SEAT),
        "passed": ListOf(Bool()),
        "declarer": Nullable(SEAT),
        "bid": Nullable(Int(4, 13)),
        "trump": Nullable(Suit()),
        "trump_broken": Bool(),
        "leader": Nullable(SEAT),
        "trick": ListOf(_PLAYED),
        "last_trick": Nullable(_TRICK),
        "tricks": ListOf(_TRICK),
        "played": CARDS,
        "voids": ListOf(ListOf(Suit())),
        "hand_counts": ListOf(Int(0, 13)),
        "tricks_taken": ListOf(Int(0, 13)),
        "scores": ListOf(_SCORE),
        "totals": ListOf(Int()),
        "hand": Nullable(CARDS),
        "teams": Opt(ListOf(_SEATS)),
        "team_tricks": Opt(ListOf(Int(0, 13))),
        "team_totals": Opt(ListOf(Int())),
    },
    doc="`hand`: the viewing seat's own cards (null for a spectator); `teams` and the team "
    "figures: esli only",
)

RESULT = {
    "reason": Choice(("deals_played", "round_limit", "event_limit", "abandoned")),
    "scores": ListOf(Int()),
    "team_scores": Opt(ListOf(Int())),
}

PROBLEMS = {
    "wrong_phase": "this kind of action is not what the deal awaits now",
    "dealer_must_bid": "the first three players passed: the dealer must bid",
    "bid_too_low": "below the minimum bid, or not above the highest bid so far",
    "bid_too_high": "above 13 tricks",
    "card_not_in_hand": "the card is not in your hand",
    "trump_not_broken": "a trump may not be led before trump is broken",
    "must_follow_suit": "you hold the led suit: you must follow it",
    "must_overtake": "you can beat the highest card of the led suit: you must",
    "must_trump": "void in the led suit but holding a trump: you must trump",
    "must_overtrump": "you can beat the highest trump in the trick: you must",
}

DEAL = Obj({"hands": ListOf(CARDS)}, doc="a test deal: each seat's hand for the first deal")
