"""BATAYO's declarative header: its action, and the events it writes with what each hides
from whom while the game runs (RULES.md, BATAYO).

Hidden while the game runs: pack orders (nobody, the owner included, sees a face-down pack);
a hand (its owner: the cards drawn into it, the cards leaving play with it); a committed card
(its owner, until the step's reveal); a card taken at random in a BATAYO and put face down
(the player it was taken from: it left their hand under their eyes; the taker takes blind),
turned face up with the cards of its step's reveal.
"""

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
)

PHASE = Choice(("trick", "sudden_death"))
_RANK = Choice(("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"))


def _random_gather(data: dict, options: dict) -> bool:
    return options["gather"] == "random"


ACTIONS = [
    Action(
        "play",
        {"card": Hidden(Card(), to="actor", until="reveal")},
        doc="commit a card from your hand, face down until everyone has",
    )
]

EVENTS = {
    "dealt": Event(
        {"packs": Hidden(ListOf(CARDS)), "aside": CARDS},
        ledger=Ledger(output=Hidden(CARDS)),
        doc='each seat\'s suit in the format, shuffled ("shuffled by an opponent")',
    ),
    "drew": Event(
        {"trick": Int(0), "step": Int(0), "cards": Hidden(ListOf(CARDS), to=EACH)},
        doc="rule 1: hands topped up to 4 from the packs",
    ),
    "committed": Event(
        {
            "seat": SEAT,
            "card": Hidden(Card(), to="seat", until="reveal"),
            "trick": Int(0),
            "step": Int(0),
            "phase": PHASE,
        },
        actor="seat",
        doc="rule 2: a card committed face down",
    ),
    "revealed": Event(
        {
            "phase": PHASE,
            "trick": Int(0),
            "step": Int(0),
            "cards": ListOf(Nullable(Card())),
            "down": ListOf(Nullable(Card())),
            "best": _RANK,
            "tied": ListOf(SEAT),
            "winner": Nullable(SEAT),
        },
        reveals=True,
        doc="every committed card (and the BATAYO's face-down cards) turned at once",
    ),
    "batayo": Event(
        {"trick": Int(0), "step": Int(1), "seats": ListOf(SEAT), "rank": _RANK},
        doc="rule 3: a tie for the highest card, between the tied players only",
    ),
    "taken": Event(
        {
            "trick": Int(0),
            "step": Int(0),
            "seat": SEAT,
            "from": SEAT,
            "card": Hidden(Nullable(Card()), to="from", until="reveal"),
        },
        ledger=Ledger(
            input=Hidden(CARDS, to="from"), output=Hidden(Card(), to="from", until="reveal")
        ),
        doc="rule 3: a card taken at random from the next tied player's hand, face down",
    ),
    "trick_won": Event(
        {
            "trick": Int(0),
            "seat": SEAT,
            "batayos": Int(0),
            "cards": CARDS,
            "order": Hidden(CARDS, when=_random_gather),
        },
        ledger=Ledger(output=Hidden(CARDS)),
        doc="rule 2: the table's cards put under the winner's pack",
    ),
    "left_play": Event({"trick": Int(0), "cards": CARDS}, doc="nobody could win the table"),
    "out": Event(
        {
            "seat": SEAT,
            "reason": Choice(("lost_last_chance", "no_cards")),
            "trick": Int(0),
            "cards": Hidden(CARDS, to="seat"),
        },
        doc="rule 4: a player out of the game; their hand leaves play",
    ),
    "time_up": Event(
        {"trick": Int(0), "under_way": Bool()}, actor="clock", doc="rule 5: time has run out"
    ),
    "sudden_death": Event(
        {"round": Int(1), "seats": ListOf(SEAT), "cards": ListOf(Int(0))},
        doc="rule 6: several players share the most cards",
    ),
}
