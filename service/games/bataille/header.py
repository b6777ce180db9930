"""La Bataille's declarative header: its actions, and the events it writes with what each
hides from whom while the game runs (docs/rules/bataille.md)."""

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
    MapOf,
    Nullable,
    Obj,
    Opt,
)
from .variants import variant


def chooses(options: dict) -> bool:
    """Whether players choose their cards (`ouverte`) rather than flip them."""
    return variant(options).chooses


def _own_if_chosen(data: dict, options: dict) -> str | None:
    """A seat that chooses from its pack sees it; otherwise nobody does."""
    return "seat" if chooses(options) else None


def _random_gather(data: dict, options: dict) -> bool:
    return options["gather"] == "random"


ACTIONS = [
    Action("flip", doc="turn your next card(s)", available=lambda o: not chooses(o)),
    Action(
        "play",
        {
            "card": Hidden(Card(), to="actor", until="reveal"),
            "down": Opt(Hidden(Card(), to="actor")),
        },
        doc="ouverte: the card to play face up (and in a bataille the face-down one)",
        available=chooses,
    ),
]

_SEAT_PACK = Hidden(CARDS, to=_own_if_chosen, when=_random_gather)

EVENTS = {
    "dealt": Event(
        {
            "packs": Hidden(ListOf(CARDS), to=lambda d, o: EACH if chooses(o) else None),
            "aside": Hidden(CARDS),
        },
        ledger=Ledger(output=Hidden(CARDS)),
        doc="rule 1: the deck shuffled and dealt one at a time; the odd cards set aside",
    ),
    "pack_turned": Event(
        {"seat": SEAT, "count": Int(0), "order": Opt(_SEAT_PACK)},
        ledger=Ledger(input=_SEAT_PACK, output=_SEAT_PACK),
        doc="rule 5: an empty pack replaced by the won pile (shuffled with `gather: random`)",
    ),
    "flipped": Event(
        {"seat": SEAT, "up": Card(), "down": Hidden(CARDS, items=True)},
        actor="seat",
        doc="rule 2: the top card turned (in a bataille, one face down first)",
    ),
    "committed": Event(
        {
            "seat": SEAT,
            "card": Hidden(Card(), to="seat", until="reveal"),
            "down": Hidden(CARDS, to="seat", items=True),
        },
        actor="seat",
        doc="ouverte: the chosen card(s), face down until every contender has chosen",
    ),
    "revealed": Event(
        {"up": MapOf(Card(), keys=r"\d+")},
        reveals=True,
        doc="ouverte: every contender's face-up card turned at once",
    ),
    "short": Event(
        {
            "seat": SEAT,
            "up": Nullable(Card()),
            "down": Hidden(CARDS, items=True),
            "out": Choice((True, False)),
        },
        doc="rule 6: a contender without enough cards for the bataille",
    ),
    "bataille": Event(
        {"seats": ListOf(SEAT), "round": Int(1), "step": Int(1)},
        doc="rule 4: a tie for the highest card, between the tied players only",
    ),
    "took": Event(
        {"seat": SEAT, "count": Int(0), "round": Int(1)},
        doc="rule 3: the single highest card takes every card on the table",
    ),
    "left_play": Event({"count": Int(0)}, doc="rule 6: every player of a bataille is out"),
    "out": Event({"seat": SEAT, "reason": Choice(("no_cards",))}, doc="rule 7"),
}

# -- what a seat sees (view.py) and the result's own fields ---------------------------------------

_PLAYER = Obj(
    {
        "seat": SEAT,
        "pack": Int(0),
        "won": Int(0),
        "out": Bool(),
        "contender": Bool(),
        "has_put": Bool(),
        "up": Nullable(Card()),
        "down": Int(0),
        "known_pack": Opt(CARDS),
        "known_won": Opt(CARDS),
    },
    doc="`up`: the face-up card put this step (in ouverte, shown once every contender chose); "
    "`known_pack`, `known_won`: the cards everyone knows are in its pack and its won pile (won "
    "face up, not put down since: after a card put face down, nobody knows which it was)",
)

TABLE = Obj(
    {
        "round": Int(0),
        "bataille": Int(0),
        "players": ListOf(_PLAYER),
        "pot": Int(0),
        "face_up": CARDS,
        "aside": Int(0),
        "pack": Opt(CARDS),
        "your_down": Opt(CARDS),
    },
    doc="`pack` and `your_down`: ouverte only, the viewing seat's own pack and face-down cards",
)

RESULT = {
    "reason": Choice(("all_cards", "no_cards", "cycle", "round_limit", "event_limit", "abandoned")),
    "cards": ListOf(Int(0)),
    "cycle_start": Opt(Int(0)),
}

PROBLEMS = {
    "out": "you are out of the game",
    "already_played": "you have already put your cards for this step",
    "not_in_bataille": "only the tied players play a bataille",
    "down_card_required": "ouverte: in a bataille you also choose a face-down card",
    "card_not_in_hand": "the card is not in your pack",
    "same_card_twice": "ouverte: the face-up and face-down cards must differ",
}

DEAL = Obj({"packs": ListOf(CARDS)}, doc="a test deal: each seat's pack, top card first")
